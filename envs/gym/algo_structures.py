"""Data-structure simulations: a stack producing a permutation, a binary heap, an LRU cache,
binary search tree and AVL insertions, round-robin scheduling, the shunting-yard algorithm,
a linear-probing hash table, a multi-server queue, matching brackets with a stack.

What makes each its own problem: each runs a different classical structure by its textbook
rules (sequences.py covers union-find, Fenwick sums, LCA, Huffman, running medians with two
heaps and monotonic stacks; none of these). The rules that fix the result (tie-breaks, the
order of a queue) are spelled out in each prompt.

Rewards (our choice): -1 unparsable, -0.5 an answer of the wrong length; the determined lists
score (entries right / entries)^5 (matches()), or ^10 where each entry is one of two letters
(a guess gets half of them); the stack operations are checked by running them.
"""
from __future__ import annotations

import heapq
from collections import deque

from envs.gym.base import GymEnv, Retry, ask, int_list, matches, share, to_int

LIST_FORMAT = "Give the {what} separated by spaces, e.g. <answer>{example}</answer>."


class StackPermutation(GymEnv):
    """Produce a target order with one stack (classical algorithms, stack simulation): the
    numbers 1..n arrive in increasing order; + pushes the next one, - pops the top to the
    output. d: n = d + 5, the target made by a random valid run. Reward: -1 unparsable (letters
    other than + and -), -0.5 not n pushes and n pops, else (length of the longest correct
    prefix of the output / n)^5 (a pop from an empty stack ends the run)."""

    name = "stack_permutation"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        ops, stack, nxt, out = [], [], 1, []
        while len(out) < n:
            if nxt <= n and (not stack or rng.random() < 0.5):
                stack.append(nxt)
                nxt += 1
                ops.append("+")
            else:
                out.append(stack.pop())
                ops.append("-")
        return {"target": out}, " ".join(ops)

    def prompt(self, problem):
        n = len(problem["target"])
        return ask(f"The numbers 1, 2, ..., {n} arrive in this order. You have one stack: + pushes the next arriving "
                   "number onto it, - pops the top number and writes it to the output. Give the operations that make "
                   "the output exactly: " + " ".join(map(str, problem["target"])),
                   f"Give the {2 * n} operations in order separated by spaces, e.g. <answer>+ + - + - -</answer>.")

    def explain(self, problem):
        """Push until the wanted number is on top, then pop it: 'want 3: push 1, push 2, push 3, pop 3.'"""
        lines, stack, nxt = [], [], 1
        for want in problem["target"]:
            steps = []
            while not stack or stack[-1] != want:
                stack.append(nxt)
                steps.append(f"push {nxt}")
                nxt += 1
            stack.pop()
            lines.append(f"want {want}: " + ", ".join(steps + [f"pop {want}"]) + ".")
        return "\n".join(lines)

    def reward(self, problem, answer):
        ops, target = answer.split(), problem["target"]
        if any(op not in ("+", "-") for op in ops):
            raise ValueError("operations are + and -")
        if ops.count("+") != len(target) or ops.count("-") != len(target):
            return -0.5
        stack, nxt, good = [], 1, 0
        for op in ops:
            if op == "+":
                stack.append(nxt)
                nxt += 1
            elif not stack or stack.pop() != target[good]:
                break
            else:
                good += 1
        return share(good, len(target), 5)


def _sift_down(heap: list[int], i: int) -> None:
    while True:
        kids = [k for k in (2 * i + 1, 2 * i + 2) if k < len(heap)]
        if not kids:
            return
        k = min(kids, key=heap.__getitem__)
        if heap[k] >= heap[i]:
            return
        heap[i], heap[k] = heap[k], heap[i]
        i = k


class BinaryHeapArray(GymEnv):
    """The array of a binary min-heap after inserts and extract-mins (classical algorithms):
    insert appends and sifts up; extract-min moves the last element to the root and sifts down
    to the smaller child. d: 2d + 8 operations on distinct values 0..99 (about a third are
    extract-mins). Answer: the final array. Reward: -1 unparsable, -0.5 wrong length, else
    (positions right / length)^5."""

    name = "binary_heap_array"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 8

    def build(self, rng, difficulty):
        values = iter(rng.sample(range(10 * self.size(difficulty)), self.size(difficulty)))
        heap, ops = [], []
        for _ in range(self.size(difficulty)):
            if heap and rng.random() < 0.35:
                ops.append("extract")
                last = heap.pop()
                if heap:
                    heap[0] = last
                    _sift_down(heap, 0)
            else:
                x = next(values)
                ops.append(f"insert {x}")
                heap.append(x)
                i = len(heap) - 1
                while i and heap[(i - 1) // 2] > heap[i]:
                    heap[i], heap[(i - 1) // 2] = heap[(i - 1) // 2], heap[i]
                    i = (i - 1) // 2
        if not heap:
            raise Retry
        return {"ops": ops, "heap": heap}, " ".join(map(str, heap))

    def prompt(self, problem):
        return ask("A binary min-heap is stored in an array a[0..]: the children of a[i] are a[2i+1] and a[2i+2]. It "
                   "starts empty. \"insert x\" appends x and swaps it with its parent while the parent is larger; "
                   "\"extract\" removes a[0], moves the last element to a[0] and swaps it with its smaller child while "
                   "that child is smaller. Run:\n" + "\n".join(problem["ops"]) + "\n\nWhat is the array at the end?",
                   LIST_FORMAT.format(what="array's elements from a[0] on", example="3 8 5 10"))

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["heap"])


def _lru(requests, capacity: int) -> tuple[list[str], list[str]]:
    """(H or M per request, one line per request with the cache from least to most recently
    used: 'B: miss, evict A, cache C B.')."""
    cache: list[str] = []
    out, lines = [], []
    for k in requests:
        hit = k in cache
        out.append("H" if hit else "M")
        cache = [x for x in cache if x != k] + [k]
        evicted = cache.pop(0) if len(cache) > capacity else None
        lines.append(f"{k}: {'hit' if hit else 'miss'}" + (f", evict {evicted}" if evicted else "") +
                     f", cache {' '.join(cache)}.")
    return out, lines


class LruCache(GymEnv):
    """Hits and misses of a least-recently-used cache (classical algorithms, simulation). d:
    capacity 2 + d // 6, 2d + 10 requests over capacity + 2 + d // 4 keys. Answer: H or M per
    request. Reward: -1 unparsable, -0.5 wrong count, else (letters right / requests)^10."""

    name = "lru_cache"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * difficulty + 10

    def build(self, rng, difficulty):
        cap = 2 + difficulty // 6
        keys = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"[:min(26, cap + 2 + difficulty // 4)]
        requests = [rng.choice(keys) for _ in range(self.size(difficulty))]
        out = _lru(requests, cap)[0]
        return {"capacity": cap, "requests": "".join(requests), "result": "".join(out)}, " ".join(out)

    def prompt(self, problem):
        return ask(f"A cache holds at most {problem['capacity']} items and starts empty. Items are requested in this "
                   f"order: {' '.join(problem['requests'])}\n\nA requested item already in the cache is a hit (H); "
                   "otherwise it is a miss (M) and is put in the cache, and if the cache is then over capacity the "
                   "least recently requested item is evicted. Say for every request whether it hits or misses.",
                   LIST_FORMAT.format(what="letters H or M in request order", example="M M H M"))

    def explain(self, problem):
        """One line per request with the cache from least to most recently used: 'B: miss, cache A B.'"""
        return "\n".join(_lru(problem["requests"], problem["capacity"])[1])

    def reward(self, problem, answer):
        got = answer.replace(",", " ").upper().split()
        if any(g not in ("H", "M") for g in got):
            raise ValueError("letters are H or M")
        return matches(got, list(problem["result"]), power=10)


def _bst_paths(keys: list[int]) -> list[list[tuple[int, str]]]:
    """For each key after the first, the (node, "left"/"right") steps of its insertion into the
    unbalanced BST of the keys before it; the last node is its parent."""
    kids, paths = {keys[0]: [None, None]}, []
    for k in keys[1:]:
        x, path = keys[0], []
        while True:
            side = int(k > x)
            path.append((x, "right" if side else "left"))
            if kids[x][side] is None:
                kids[x][side], kids[k] = k, [None, None]
                break
            x = kids[x][side]
        paths.append(path)
    return paths


class BstParents(GymEnv):
    """Insert keys into an (unbalanced) binary search tree in the given order and report each
    key's parent (classical algorithms). d: n = d + 6 distinct keys 1..5n. Answer: the parent of
    every key after the first, in insertion order. Reward: -1 unparsable, -0.5 wrong count,
    else (parents right / (n - 1))^5."""

    name = "bst_parents"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        keys = rng.sample(range(1, 5 * n + 1), n)
        parents = [path[-1][0] for path in _bst_paths(keys)]
        return {"keys": keys, "parents": parents}, " ".join(map(str, parents))

    def prompt(self, problem):
        keys = problem["keys"]
        return ask("Insert these keys one by one into an initially empty binary search tree (no rebalancing; smaller "
                   "keys go left, larger right): " + " ".join(map(str, keys)) + f"\n\nFor every key after the first "
                   f"({len(keys) - 1} keys), give the key of its parent in the tree.",
                   LIST_FORMAT.format(what="parents in insertion order", example="12 12 7 30"))

    def explain(self, problem):
        """One line per key, its search path: '9: 12 left, 7 right, parent 7.'"""
        return "\n".join(f"{k}: " + ", ".join(f"{x} {side}" for x, side in path) + f", parent {path[-1][0]}."
                         for k, path in zip(problem["keys"][1:], _bst_paths(problem["keys"])))

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["parents"])


def _avl_insert(node, key):
    """Nodes are [key, left, right, height]; returns the new subtree root."""
    if node is None:
        return [key, None, None, 1]
    side = 2 if key > node[0] else 1
    node[side] = _avl_insert(node[side], key)
    return _rebalance(node)


def _h(node) -> int:
    return node[3] if node else 0


def _fix(node):
    node[3] = 1 + max(_h(node[1]), _h(node[2]))
    return node


def _rotate(node, side: int):
    """Rotate the child on `side` (1 left, 2 right) up above node."""
    child = node[side]
    node[side] = child[3 - side]
    child[3 - side] = _fix(node)
    return _fix(child)


def _rebalance(node):
    _fix(node)
    balance = _h(node[1]) - _h(node[2])
    if balance > 1:
        if _h(node[1][1]) < _h(node[1][2]):  # left-right
            node[1] = _rotate(node[1], 2)
        return _rotate(node, 1)
    if balance < -1:
        if _h(node[2][2]) < _h(node[2][1]):  # right-left
            node[2] = _rotate(node[2], 1)
        return _rotate(node, 2)
    return node


def _preorder(node) -> list[int]:
    out, stack = [], [node]
    while stack:
        x = stack.pop()
        if x:
            out.append(x[0])
            stack += [x[2], x[1]]
    return out


class AvlPreorder(GymEnv):
    """The preorder of an AVL tree after a sequence of insertions (classical algorithms, single
    and double rotations). d: n = d + 5 distinct keys 1..5n. Reward: -1 unparsable, -0.5 wrong
    count, else (positions right / n)^5. Its own problem: the balancing rotations (bst_parents
    inserts without rebalancing)."""

    name = "avl_preorder"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        keys = rng.sample(range(1, 5 * n + 1), n)
        root = None
        for k in keys:
            root = _avl_insert(root, k)
        order = _preorder(root)
        return {"keys": keys, "preorder": order}, " ".join(map(str, order))

    def prompt(self, problem):
        return ask("Insert these keys one by one into an initially empty AVL tree (a binary search tree that, after "
                   "each insertion, restores |height(left) - height(right)| <= 1 at every node by the standard single "
                   "and double rotations at the lowest unbalanced node): " + " ".join(map(str, problem["keys"])) +
                   "\n\nWhat is the preorder (node, left subtree, right subtree) of the final tree?",
                   LIST_FORMAT.format(what="keys in preorder", example="20 8 3 12 40"))

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["preorder"])


def _round_robin(bursts: list[int], quantum: int) -> tuple[list[int], list[str]]:
    """(finishing times, one line per time slice: 'P0 runs 3 (time 3), 2 left.')."""
    left, queue, t, done, lines = bursts[:], deque(range(len(bursts))), 0, [0] * len(bursts), []
    while queue:
        p = queue.popleft()
        run = min(quantum, left[p])
        t, left[p] = t + run, left[p] - run
        lines.append(f"P{p} runs {run} (time {t}), " + (f"{left[p]} left." if left[p] else "finished."))
        if left[p]:
            queue.append(p)
        else:
            done[p] = t
    return done, lines


class RoundRobinScheduling(GymEnv):
    """Completion times under round-robin CPU scheduling (classical algorithms, queue
    simulation). d: n = d + 4 processes, all arriving at time 0 in index order, bursts 1..12,
    a time quantum of 2..4. Reward: -1 unparsable, -0.5 wrong count, else (times right / n)^5."""

    name = "round_robin_scheduling"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 4

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        bursts, q = [rng.randint(1, 12) for _ in range(n)], rng.randint(2, 4)
        done = _round_robin(bursts, q)[0]
        return {"bursts": bursts, "quantum": q, "done": done}, " ".join(map(str, done))

    def prompt(self, problem):
        b = problem["bursts"]
        return ask(f"{len(b)} processes P0..P{len(b) - 1} all arrive at time 0 and wait in a queue in that order. Their "
                   "running times are " + ", ".join(f"P{i}: {x}" for i, x in enumerate(b)) + f". The CPU runs the "
                   f"process at the front of the queue for up to {problem['quantum']} time units; if it is not "
                   "finished it goes to the back of the queue. At what time does each process finish?",
                   LIST_FORMAT.format(what="finishing times of P0, P1, ... in order", example="7 12 3"))

    def explain(self, problem):
        """One line per time slice: 'P0 runs 3 (time 3), 2 left.'"""
        return "\n".join(_round_robin(problem["bursts"], problem["quantum"])[1])

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["done"])


PRECEDENCE = {"+": 1, "-": 1, "*": 2, "/": 2}


def _expression(rng, leaves: int) -> tuple[str, list[str], int]:
    """A random expression tree: (infix with the parentheses it needs, postfix tokens, the top
    operator's precedence). Operators are left-associative."""
    if leaves == 1:
        v = rng.choice("abcdefghijklmnopqrstuvwxyz")
        return v, [v], 3
    op = rng.choice("+-*/")
    k = rng.randint(1, leaves - 1)
    (lt, lp, lprec), (rt, rp, rprec) = _expression(rng, k), _expression(rng, leaves - k)
    if lprec < PRECEDENCE[op] or (lprec < 3 and rng.random() < 0.1):  # a few redundant parentheses too
        lt = f"({lt})"
    if rprec <= PRECEDENCE[op]:
        rt = f"({rt})"
    return f"{lt} {op} {rt}", lp + rp + [op], PRECEDENCE[op]


class InfixToPostfix(GymEnv):
    """Convert an infix expression to postfix, reverse Polish notation (classical algorithms,
    the shunting-yard algorithm). d: d + 3 variables joined by + - * / with parentheses;
    * and / bind tighter, all operators are left-associative. Reward: -1 unparsable, -0.5
    wrong token count, else (tokens right / tokens)^5. Its own problem: a conversion between
    notations (expression_evaluation asks for a value)."""

    name = "infix_to_postfix"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        infix, postfix, _ = _expression(rng, self.size(difficulty))
        return {"infix": infix, "postfix": postfix}, " ".join(postfix)

    def prompt(self, problem):
        return ask(f"Write this expression in postfix (reverse Polish) notation: {problem['infix']}\n\n* and / bind "
                   "tighter than + and -, and operators of equal precedence are applied from left to right.",
                   "Give the tokens (variables and operators) separated by spaces, e.g. <answer>a b c * +</answer>.")

    def reward(self, problem, answer):
        got = answer.split()
        if any(t not in PRECEDENCE and not (len(t) == 1 and "a" <= t <= "z") for t in got):
            raise ValueError("tokens are single-letter variables and + - * /")
        return matches(got, problem["postfix"])


def _prime_at_least(n: int) -> int:
    while any(n % p == 0 for p in range(2, int(n ** 0.5) + 1)) or n < 2:
        n += 1
    return n


def _probe(keys: list[int], m: int) -> tuple[list[str], list[str]]:
    """(the table, "." for empty; one line per key: '25 mod 11 = 3; 3 taken; slot 4.')."""
    table, lines = ["."] * m, []
    for k in keys:
        i, tried = k % m, []
        while table[i] != ".":
            tried.append(str(i))
            i = (i + 1) % m
        table[i] = str(k)
        lines.append(f"{k} mod {m} = {k % m}; " + (f"{' '.join(tried)} taken; " if tried else "") + f"slot {i}.")
    return table, lines


class LinearProbingTable(GymEnv):
    """A hash table with linear probing after a sequence of insertions (classical algorithms):
    key k goes to slot k mod m, or the next free slot after it, wrapping around. d: n = d + 5
    distinct keys 0..999, m the smallest prime >= 1.3 n + 2. Answer: the table, . for an empty
    slot. Reward: -1 unparsable, -0.5 wrong count, else (slots right / m)^5."""

    name = "linear_probing_table"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        n = self.size(difficulty)
        m = _prime_at_least((13 * n) // 10 + 2)
        keys = rng.sample(range(1000), n)
        table = _probe(keys, m)[0]
        return {"keys": keys, "m": m, "table": table}, " ".join(table)

    def prompt(self, problem):
        m = problem["m"]
        return ask(f"A hash table has {m} slots numbered 0 to {m - 1}, all empty. Insert these keys in order: " +
                   " ".join(map(str, problem["keys"])) + f"\n\nKey k goes to slot k mod {m}; if that slot is taken, to "
                   f"the next slot, and so on (after slot {m - 1} comes slot 0). What does the table hold at the end?",
                   f"Give the {m} slots in order separated by spaces, . for an empty slot, e.g. <answer>14 . 2 . 40"
                   "</answer>.")

    def explain(self, problem):
        """One line per key: '25 mod 11 = 3; 3 taken; slot 4.'"""
        return "\n".join(_probe(problem["keys"], problem["m"])[1])

    def reward(self, problem, answer):
        got = [t if t == "." else str(to_int(t)) for t in answer.replace(",", " ").split()]
        return matches(got, problem["table"])


def _serve(arrivals: list[int], service: list[int], servers: int) -> tuple[list[int], list[str]]:
    """(leaving times, one line per customer), with a heap of the counters' free times."""
    free, done, lines = [0] * servers, [], []
    for i, (a, s) in enumerate(zip(arrivals, service)):
        first = heapq.heappop(free)
        start = max(a, first)
        heapq.heappush(free, start + s)
        done.append(start + s)
        lines.append(f"C{i}: a counter is free at {first}, starts max({a}, {first}) = {start}, leaves {start} + {s} "
                     f"= {start + s}.")
    return done, lines


class MultiServerQueue(GymEnv):
    """Departure times in a first-come first-served queue with several servers (classical
    algorithms, event simulation with a heap of server free times). d: 2 + d // 10 servers,
    n = d + 6 customers arriving at increasing times, service times 1..10. Reward: -1
    unparsable, -0.5 wrong count, else (times right / n)^5."""

    name = "multi_server_queue"
    category = "algorithms"

    def size(self, difficulty):
        return difficulty + 6

    def build(self, rng, difficulty):
        n, servers = self.size(difficulty), 2 + difficulty // 10
        arrivals = sorted(rng.sample(range(1, 4 * n), n))
        service = [rng.randint(1, 10) for _ in range(n)]
        done = _serve(arrivals, service, servers)[0]
        return {"servers": servers, "arrivals": arrivals, "service": service, "done": done}, " ".join(map(str, done))

    def prompt(self, problem):
        rows = ", ".join(f"C{i}: arrives {a}, needs {s}" for i, (a, s) in
                         enumerate(zip(problem["arrivals"], problem["service"])))
        return ask(f"A shop has {problem['servers']} identical counters, free at time 0. Customers ({rows}) wait in one "
                   "line and are served in order of arrival: each starts as soon as they have arrived and some counter "
                   "is free, and occupies it for the time they need. At what time does each customer leave?",
                   LIST_FORMAT.format(what="leaving times of C0, C1, ... in order", example="4 9 11"))

    def explain(self, problem):
        """One line per customer: 'C2: a counter is free at 5, starts max(3, 5) = 5, leaves 5 + 4 = 9.'"""
        return "\n".join(_serve(problem["arrivals"], problem["service"], problem["servers"])[1])

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["done"])


class BracketPartners(GymEnv):
    """The partner of every bracket in a balanced string over ()[]{} (classical algorithms, a
    stack of open positions). d: length 2(d + 4), a random balanced string. Answer: for each
    position, the position of its partner. Reward: -1 unparsable, -0.5 wrong count, else
    (entries right / n)^5. Its own problem: the matching itself (min_bracket_insertions repairs
    an unbalanced string; bracket_completion_counting counts)."""

    name = "bracket_partners"
    category = "algorithms"

    def size(self, difficulty):
        return 2 * (difficulty + 4)

    def build(self, rng, difficulty):
        n, out, stack = self.size(difficulty), [], []
        while len(out) < n:
            if stack and (len(stack) == n - len(out) or rng.random() < 0.5):
                out.append(")]}"["([{".index(stack.pop())])
            else:
                stack.append(rng.choice("([{"))
                out.append(stack[-1])
        partner, opened = [0] * n, []
        for i, c in enumerate(out):
            if c in "([{":
                opened.append(i)
            else:
                j = opened.pop()
                partner[i], partner[j] = j, i
        return {"s": "".join(out), "partner": partner}, " ".join(map(str, partner))

    def prompt(self, problem):
        s = problem["s"]
        return ask(f"This bracket string is balanced (positions 0 to {len(s) - 1}): {s}\n\nFor every position, give the "
                   "position of the bracket it is matched with.",
                   LIST_FORMAT.format(what=f"{len(s)} positions in order", example="3 2 1 0"))

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["partner"])
