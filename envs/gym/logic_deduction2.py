"""Deduction puzzles with planted solutions: Mastermind, circular seating, self-referential
statement lists, knights, knaves and spies.

Each generator plants the hidden truth (a code, a seating, a truth assignment) and writes only
clues that hold for it; each scorer checks the answer against every clue, so any answer the
clues allow scores 1. What makes each its own puzzle (deduction.py has knights and knaves and
zebra puzzles): mastermind's clues are scored guesses (black and white pegs); circular_seating
places people around a round table (rotations are the same answer; clues about neighbours,
clockwise order, seats between and opposite seats), where zebra puzzles fill a row of houses
with several attributes; self_referential_statements has statements about the truth of the
statements themselves, where knights and knaves have speakers of fixed kinds.

Reward (our choice, as the other logic families): -1 unparsable, -0.5 an answer of the wrong
shape (length, symbols), 1 if every clue holds, else 0.
"""
from __future__ import annotations

from envs.gym.base import GymEnv, ask, int_list
from envs.gym.deduction import _names


def pegs(secret: list[int], guess: list[int]) -> tuple[int, int]:
    """Mastermind feedback: (right colour in the right place, right colour in the wrong place)."""
    black = sum(a == b for a, b in zip(secret, guess))
    common = sum(min(secret.count(c), guess.count(c)) for c in set(guess))
    return black, common - black


class Mastermind(GymEnv):
    """Mastermind (logic puzzles). d: a hidden code of L = 4 + d // 5 pegs in colours 1..C,
    C = 6 + d // 4 (repeats allowed); g = 4 + d // 2 random guesses, each shown with its black
    (right colour, right place) and white (right colour, wrong place) counts. Answer: a code
    consistent with every guess's feedback."""

    name = "mastermind"
    category = "logic"

    def size(self, difficulty):
        return 4 + difficulty // 5

    def build(self, rng, difficulty):
        length, colours = self.size(difficulty), 6 + difficulty // 4
        secret = [rng.randint(1, colours) for _ in range(length)]
        guesses = []
        for _ in range(4 + difficulty // 2):
            g = [rng.randint(1, colours) for _ in range(length)]
            guesses.append([g, list(pegs(secret, g))])
        return {"length": length, "colours": colours, "guesses": guesses}, " ".join(map(str, secret))

    def prompt(self, problem):
        rows = "\n".join(f"{' '.join(map(str, g))}: {b} black, {w} white" for g, (b, w) in problem["guesses"])
        return ask(f"Mastermind: a hidden code has {problem['length']} pegs, each a colour from 1 to "
                   f"{problem['colours']} (colours may repeat). For each guess below, 'black' counts pegs of the right "
                   "colour in the right place and 'white' counts further pegs of a right colour in a wrong place (the "
                   f"colours the guess and the code share, counted with multiplicity, minus the blacks):\n{rows}\n\n"
                   "Find a code consistent with all of this feedback.",
                   f"Give {problem['length']} colours separated by spaces, e.g. <answer>1 4 4 2</answer>.")

    def reward(self, problem, answer):
        code = int_list(answer)
        if len(code) != problem["length"] or any(not 1 <= c <= problem["colours"] for c in code):
            return -0.5
        return 1.0 if all(list(pegs(code, g)) == fb for g, fb in problem["guesses"]) else 0.0


def _seat_clue_true(clue: list, pos: dict[int, int], n: int) -> bool:
    kind, a, b = clue[0], pos[clue[1]], pos[clue[2]]
    gap = (b - a) % n  # seats clockwise from a to b
    if kind == "next":
        return gap in (1, n - 1)
    if kind == "not_next":
        return gap not in (1, n - 1)
    if kind == "right":  # b sits directly clockwise of a
        return gap == 1
    if kind == "opposite":
        return 2 * gap == n
    return gap == clue[3] + 1  # "between": exactly clue[3] seats from a clockwise to b


def _seat_clue_text(clue: list) -> str:
    kind, a, b = clue[0], clue[1], clue[2]
    return {"next": f"P{a} sits next to P{b}.", "not_next": f"P{a} does not sit next to P{b}.",
            "right": f"P{b} sits directly clockwise of P{a}.", "opposite": f"P{a} sits opposite P{b}.",
            "between": f"Going clockwise from P{a}, there are exactly {clue[-1]} people before P{b}."}[kind]


class CircularSeating(GymEnv):
    """Circular seating (logic puzzles). d: n = d + 5 people P1..Pn around a round table of n
    seats (a planted seating); 2n clues that hold for it, drawn from next to, not next to,
    directly clockwise of, opposite (n even) and exactly k people between clockwise. Answer:
    the people in clockwise order from anyone (every rotation is the same seating)."""

    name = "circular_seating"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        seating = rng.sample(range(1, n + 1), n)
        pos = {p: i for i, p in enumerate(seating)}
        kinds = ["next", "not_next", "right", "between"] + (["opposite"] if n % 2 == 0 else [])
        clues: list[list] = []
        while len(clues) < 2 * n:
            kind = rng.choice(kinds)
            a, b = rng.sample(range(1, n + 1), 2)
            clue = [kind, a, b] + ([(pos[b] - pos[a]) % n - 1] if kind == "between" else [])
            if _seat_clue_true(clue, pos, n) and clue not in clues:
                clues.append(clue)
        return {"n": n, "clues": clues}, " ".join(map(str, seating))

    def prompt(self, problem):
        n = problem["n"]
        text = "\n".join(_seat_clue_text(c) for c in problem["clues"])
        return ask(f"{n} people, P1 to P{n}, sit around a round table with {n} seats, one person per seat. "
                   f"Clues:\n{text}\n\nFind a seating that satisfies every clue.",
                   "Give the numbers of the people in clockwise order, starting from anyone, e.g. "
                   "<answer>3 1 4 2</answer>.")

    def reward(self, problem, answer):
        order, n = int_list(answer), problem["n"]
        if sorted(order) != list(range(1, n + 1)):
            return -0.5
        pos = {p: i for i, p in enumerate(order)}
        return 1.0 if all(_seat_clue_true(c, pos, n) for c in problem["clues"]) else 0.0


def _claim_true(claim: list, v: list[int]) -> bool:
    kind = claim[0]
    if kind in ("exactly", "at_least"):
        count = sum(v[i] for i in claim[2])
        return count == claim[1] if kind == "exactly" else count >= claim[1]
    a, b = v[claim[1]], v[claim[2]]
    return {"iff": a == b, "xor": a != b, "and": bool(a and b), "or": bool(a or b), "if": bool(not a or b)}[kind]


def _claim_text(claim: list) -> str:
    kind = claim[0]
    if kind in ("exactly", "at_least"):
        refs = ", ".join(f"S{i + 1}" for i in claim[2])
        return f"{'Exactly' if kind == 'exactly' else 'At least'} {claim[1]} of {refs} {'is' if claim[1] == 1 else 'are'} true."
    a, b = f"S{claim[1] + 1}", f"S{claim[2] + 1}"
    return {"iff": f"{a} is true if and only if {b} is true.", "xor": f"Exactly one of {a} and {b} is true.",
            "and": f"{a} and {b} are both true.", "or": f"At least one of {a} and {b} is true.",
            "if": f"If {a} is true, then {b} is true."}[kind]


class SelfReferentialStatements(GymEnv):
    """Self-referential statement lists (logic puzzles). d: n = d + 4 statements S1..Sn, each
    about the truth of some of the statements (itself included): exactly or at least k of a
    group, or a connective (iff, exactly one, both, at least one, if-then) of two; the
    statements are drawn for a planted truth assignment until each one's claim has the truth
    value the assignment gives it. Answer: a truth value per statement such that every
    statement is true exactly when its claim holds."""

    name = "self_referential_statements"
    category = "logic"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        truth = [rng.randint(0, 1) for _ in range(n)]
        claims = []
        for i in range(n):
            while True:
                kind = rng.choice(["exactly", "at_least", "iff", "xor", "and", "or", "if"])
                if kind in ("exactly", "at_least"):
                    group = sorted(rng.sample(range(n), rng.randint(2, min(n, 5))))
                    claim = [kind, rng.randint(1, len(group)), group]
                else:
                    claim = [kind, *rng.sample(range(n), 2)]
                if _claim_true(claim, truth) == bool(truth[i]):
                    claims.append(claim)
                    break
        return {"claims": claims}, " ".join(map(str, truth))

    def prompt(self, problem):
        claims = problem["claims"]
        text = "\n".join(f"S{i + 1}: {_claim_text(c)}" for i, c in enumerate(claims))
        return ask(f"Each of these {len(claims)} statements is either true or false:\n{text}\n\nAssign a truth value to "
                   "every statement so that each statement is true exactly when what it says holds.",
                   f"Give {len(claims)} values (1 = true, 0 = false) for S1..S{len(claims)}, separated by spaces.")

    def reward(self, problem, answer):
        v, claims = int_list(answer), problem["claims"]
        if len(v) != len(claims) or any(x not in (0, 1) for x in v):
            return -0.5
        return 1.0 if all(_claim_true(c, v) == bool(x) for c, x in zip(claims, v)) else 0.0


KINDS = {"K": "knight", "N": "knave", "S": "spy"}


def _spy_statement_true(st: list, roles: str) -> bool:
    if st[0] == "is":
        return roles[st[1]] == st[2]
    if st[0] == "same":
        return roles[st[1]] == roles[st[2]]
    return roles.count("K") == st[1]  # "knights": exactly st[1] knights


def _spy_statement_text(st: list, names: list[str]) -> str:
    if st[0] == "is":
        return f"{names[st[1]]} is a {KINDS[st[2]]}."
    if st[0] == "same":
        return f"{names[st[1]]} and {names[st[2]]} are of the same kind."
    return f"Exactly {st[1]} of us {'is a knight' if st[1] == 1 else 'are knights'}."


class KnightsKnavesSpies(GymEnv):
    """Knights, knaves and spies (logic puzzles; Smullyan's knights, knaves and normals): knights
    always tell the truth, knaves always lie, spies say anything, and the number of spies is
    known. d: n = d // 2 + 4 people, s = 1 + n // 6 of them spies (planted roles); each says one
    or two things (someone is a knight, knave or spy; two people are of the same kind; exactly
    k of us are knights), true for knights, false for knaves and either for spies. Answer: K, N
    or S per person, with exactly s spies, consistent with every statement. Its own problem: the
    unconstrained third kind and the spy count (deduction.py's knights_and_knaves has two
    kinds)."""

    name = "knights_knaves_spies"
    category = "logic"

    def size(self, difficulty):
        return difficulty // 2 + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        spies = 1 + n // 6
        kinds = ["S"] * spies + [rng.choice("KN") for _ in range(n - spies)]
        rng.shuffle(kinds)
        roles = "".join(kinds)
        said = []
        for speaker in range(n):
            for _ in range(1 + (rng.random() < 0.5)):
                while True:
                    kind = rng.choice(["is", "is", "same", "knights"])
                    if kind == "is":
                        st = ["is", rng.choice([p for p in range(n) if p != speaker]), rng.choice("KNS")]
                    elif kind == "same":
                        st = ["same", *rng.sample(range(n), 2)]
                    else:
                        st = ["knights", rng.randint(0, n)]
                    truth = _spy_statement_true(st, roles)
                    if roles[speaker] == "S" or truth == (roles[speaker] == "K"):
                        break
                said.append([speaker, st])
        return {"n": n, "spies": spies, "said": said}, " ".join(roles)

    def prompt(self, problem):
        names = _names(problem["n"])
        text = "\n".join(f"{names[s]} says: \"{_spy_statement_text(st, names)}\"" for s, st in problem["said"])
        return ask(f"On an island live knights, who always tell the truth, knaves, who always lie, and spies, who may "
                   f"say anything. You meet {', '.join(names)}; exactly {problem['spies']} of them "
                   f"{'is a spy' if problem['spies'] == 1 else 'are spies'}.\n{text}\n\nWho is what?",
                   f"Give one letter per person in the order {', '.join(names)}: K knight, N knave, S spy, separated "
                   "by spaces, e.g. <answer>K S N</answer>.")

    def reward(self, problem, answer):
        toks = answer.upper().replace(",", " ").split()
        if not toks or any(t not in KINDS for t in toks):
            raise ValueError("K, N or S per person")
        if len(toks) != problem["n"]:
            return -0.5
        roles = "".join(toks)
        if roles.count("S") != problem["spies"]:
            return 0.0
        ok = all(roles[s] == "S" or _spy_statement_true(st, roles) == (roles[s] == "K") for s, st in problem["said"])
        return 1.0 if ok else 0.0
