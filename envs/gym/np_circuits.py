"""Boolean satisfiability beyond CNF-SAT, with planted assignments (RLVE line 71's recipe):
maximum 2-satisfiability with a bound, and circuit satisfiability.

What makes each its own problem: max_two_sat asks for at least K of the 2-clauses, which is
NP-complete (Garey-Johnson LO5) where satisfying all of them (graph_algorithms.py's two_sat) is
polynomial and np_complete.py's sat needs every 3-clause; circuit_sat gives a circuit of gates
rather than clauses.

Reward (our choice, as np_complete.py's sat): -1 unparsable, -0.5 wrong count or a value other
than 0/1, 1 if the assignment meets the condition, else 0 (all-or-nothing: graded credit would
pay for guessing, since a random assignment satisfies most clauses).
"""
from __future__ import annotations

from envs.gym.base import GymEnv, ask
from envs.gym.np_planted import _bits, _lit_text

BITS = "Give {n} values (1 = true, 0 = false) for x1..x{n}, separated by spaces."


class MaxTwoSat(GymEnv):
    """Maximum 2-satisfiability with a planted assignment (NP-complete): satisfy at least K of
    the 2-clauses. d: n = d + 5 variables, m = 4n clauses, 80% of them drawn satisfied by the
    hidden assignment and the rest falsified by it; K = the clauses it satisfies."""

    name = "max_two_sat"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        truth = [rng.randint(0, 1) for _ in range(n)]
        clauses, k = [], 0
        for _ in range(4 * n):
            want = rng.random() < 0.8
            while True:
                lits = [(v + 1) * rng.choice((1, -1)) for v in rng.sample(range(n), 2)]
                if any((lit > 0) == bool(truth[abs(lit) - 1]) for lit in lits) == want:
                    break
            clauses.append(lits)
            k += want
        return {"n": n, "k": k, "clauses": clauses}, " ".join(map(str, truth))

    def prompt(self, problem):
        n = problem["n"]
        text = "\n".join(f"({_lit_text(a)} OR {_lit_text(b)})" for a, b in problem["clauses"])
        return ask(f"Clauses over boolean variables x1..x{n}:\n{text}\n\nFind values that make at least "
                   f"{problem['k']} of these {len(problem['clauses'])} clauses true.", BITS.format(n=n))

    def reward(self, problem, answer):
        vals = _bits(answer, problem["n"])
        if vals is None:
            return -0.5
        sat = sum(any((lit > 0) == bool(vals[abs(lit) - 1]) for lit in c) for c in problem["clauses"])
        return 1.0 if sat >= problem["k"] else 0.0


OPS = {"AND": lambda a, b: a & b, "OR": lambda a, b: a | b, "XOR": lambda a, b: a ^ b,
       "NAND": lambda a, b: 1 - (a & b)}


def evaluate(n: int, gates: list, x: list[int]) -> list[int]:
    """The wire values: inputs x1..xn are wires 1..n, gate i is wire n + i + 1."""
    wire = [0] + list(x)
    for op, a, b in gates:
        wire.append(OPS[op](wire[a], wire[b]))
    return wire


class CircuitSat(GymEnv):
    """Circuit satisfiability with a planted input (NP-complete, Cook-Levin's first problem in
    circuit form): find inputs that set every output wire of a circuit of AND, OR, XOR and NAND
    gates to 1. d: n = d + 4 inputs, 2n gates each reading two earlier wires (at least one of
    the last n wires), o = n // 3 + 2 outputs among the last gates; an output that the hidden
    input sets to 0 is replaced by its NAND with itself (a NOT), so the hidden input works."""

    name = "circuit_sat"
    category = "np_complete"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        x = [rng.randint(0, 1) for _ in range(n)]
        gates = []
        for i in range(2 * n):
            top = n + i  # wires 1..top exist
            a = rng.randint(max(1, top - n + 1), top)
            b = rng.randint(1, top)
            gates.append([rng.choice(sorted(OPS)), a, b])
        wire = evaluate(n, gates, x)
        outputs = sorted(rng.sample(range(2 * n + 1, 3 * n + 1), n // 3 + 2))
        for k, w in enumerate(outputs):
            if wire[w] == 0:
                gates.append(["NAND", w, w])
                outputs[k] = n + len(gates)
        return {"n": n, "gates": gates, "outputs": outputs}, " ".join(map(str, x))

    def prompt(self, problem):
        n = problem["n"]
        name = lambda w: f"x{w}" if w <= n else f"g{w - n}"  # noqa: E731
        text = "\n".join(f"g{i + 1} = {op}({name(a)}, {name(b)})" for i, (op, a, b) in enumerate(problem["gates"]))
        outs = ", ".join(name(w) for w in problem["outputs"])
        return ask(f"A boolean circuit over inputs x1..x{n} (NAND(p, q) = NOT (p AND q)):\n{text}\n\n"
                   f"Find inputs that make all of {outs} equal 1.", BITS.format(n=n))

    def reward(self, problem, answer):
        vals = _bits(answer, problem["n"])
        if vals is None:
            return -0.5
        wire = evaluate(problem["n"], problem["gates"], vals)
        return 1.0 if all(wire[w] for w in problem["outputs"]) else 0.0
