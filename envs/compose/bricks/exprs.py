"""Arithmetic expressions (expr: see types.py): parsing, evaluation, rewriting, postfix notation.
A step is one token read or one operation evaluated."""
from __future__ import annotations

from envs.compose.brick import UNCOUNTED, Brick, by_name
from envs.compose.samplers import random_expr
from envs.compose.types import EXPR, INT, LIST_INT, LIST_STR, parse_expr, tokenize_expr

PREC = {"+": 1, "-": 1, "*": 2}
APPLY = {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b}


def prec(node) -> int:
    return 3 if type(node) is int else PREC[node[0]]


def unparse(node) -> str:
    """The expression with only the parentheses its structure needs."""
    if type(node) is int:
        return str(node)
    op, left, right = node
    ls, rs = unparse(left), unparse(right)
    if prec(left) < PREC[op]:
        ls = f"({ls})"
    if prec(right) < PREC[op] or (prec(right) == PREC[op] and op == "-"):
        rs = f"({rs})"
    return ls + op + rs


def evaluate(node, c) -> int:
    if type(node) is int:
        return node
    c.tick()
    return APPLY[node[0]](evaluate(node[1], c), evaluate(node[2], c))


def parsed(s, c):
    c.tick(len(s))
    return parse_expr(s)


def eval_expr(s, c):
    return evaluate(parsed(s, c), c)


def to_postfix(s, c):
    """Shunting-yard."""
    c.tick(2 * len(s))
    out, ops = [], []
    for t in tokenize_expr(s):
        if t.isdigit():
            out.append(t)
        elif t == "(":
            ops.append(t)
        elif t == ")":
            while ops[-1] != "(":
                out.append(ops.pop())
            ops.pop()
        else:
            while ops and ops[-1] != "(" and PREC[ops[-1]] >= PREC[t]:
                out.append(ops.pop())
            ops.append(t)
    return out + ops[::-1]


def eval_postfix(tokens, c):
    c.tick(len(tokens))
    stack = []
    for t in tokens:
        if t in APPLY:
            if len(stack) < 2:
                return None
            b, a = stack.pop(), stack.pop()
            stack.append(APPLY[t](a, b))
        elif t.isascii() and t.isdigit() and len(t) <= 6:
            stack.append(int(t))
        else:
            return None
    return stack[0] if len(stack) == 1 else None


def expr_numbers(s, c):
    c.tick(len(s))
    return [int(t) for t in tokenize_expr(s) if t.isdigit()]


def strip_parens(s, c):
    tree = parsed(s, c)
    c.tick(len(s))
    return unparse(tree)


def reduce_step(s, c):
    """Evaluate the leftmost operation whose operands are both numbers (no output if the result is
    negative, which an expression cannot hold)."""
    tree = parsed(s, c)
    if type(tree) is int:
        return None

    def step(node):
        op, left, right = node
        if type(left) is int and type(right) is int:
            return APPLY[op](left, right)
        if type(left) is not int:
            return (op, step(left), right)
        return (op, left, step(right))
    c.tick(len(s))
    out = step(tree)

    def negative(node):
        return node < 0 if type(node) is int else negative(node[1]) or negative(node[2])
    return None if negative(out) else unparse(out)


def postfix_to_infix(tokens, c):
    c.tick(2 * len(tokens))
    stack = []
    for t in tokens:
        if t in APPLY:
            if len(stack) < 2:
                return None
            b, a = stack.pop(), stack.pop()
            stack.append((t, a, b))
        elif t.isascii() and t.isdigit() and len(t) <= 6:
            stack.append(int(t))
        else:
            return None
    return unparse(stack[0]) if len(stack) == 1 else None


def horner_form(xs, c):
    if len(xs) < 2 or min(xs) < 0:
        return None
    c.tick(len(xs))
    out = str(xs[0])
    for v in xs[1:]:
        out = f"({out})*2+{v}" if "+" in out else f"{out}*2+{v}"
    return out


def tree_height(s, c):
    tree = parsed(s, c)

    def height(node):
        return 0 if type(node) is int else 1 + max(height(node[1]), height(node[2]))
    return height(tree)


def join_alternating(xs, c):
    if not xs or min(xs) < 0:
        return None
    c.tick(len(xs))
    return "".join(f"{'+*'[i % 2]}{x}" if i else str(x) for i, x in enumerate(xs))


def mirror_expr(s, c):
    tree = parsed(s, c)

    def mirror(node):
        if type(node) is int:
            return node
        op, left, right = node
        return (op, mirror(right), mirror(left)) if op != "-" else (op, mirror(left), mirror(right))
    c.tick(len(s))
    return unparse(mirror(tree))


def all_parenthesizations(s, c):
    """Interval DP over the flat sequence of numbers and operators (parentheses removed)."""
    toks = [t for t in tokenize_expr(s) if t not in "()"]
    nums, ops = [int(t) for t in toks[::2]], toks[1::2]
    n = len(nums)
    c.tick(n ** 3)
    vals = [[None] * n for _ in range(n)]
    for i in range(n):
        vals[i][i] = {nums[i]}
    for span in range(1, n):
        for i in range(n - span):
            j = i + span
            out = set()
            for k in range(i, j):
                c.tick(len(vals[i][k]) * len(vals[k + 1][j]))
                out |= {APPLY[ops[k]](a, b) for a in vals[i][k] for b in vals[k + 1][j]}
            vals[i][j] = out
    return sorted(vals[0][n - 1])


def postfix_tokens(rng):
    return to_postfix(random_expr(rng, rng.randint(2, 4)), UNCOUNTED)


def parenthesised(rng):
    """An expression with at least one pair of parentheses it does not need."""
    e = random_expr(rng, rng.randint(2, 4))
    i = rng.choice([k for k, ch in enumerate(e) if ch.isdigit() and (k == 0 or not e[k - 1].isdigit())])
    j = i
    while j < len(e) and e[j].isdigit():
        j += 1
    return e[:i] + "(" + e[i:j] + ")" + e[j:] if rng.random() < 0.5 else "(" + e + ")"


BRICKS = by_name([
    Brick("eval_expr", EXPR, INT, "Evaluate the expression.", eval_expr),
    Brick("to_postfix", EXPR, LIST_STR, "Convert the expression to postfix (reverse Polish) notation, as a list of "
          "number and operator tokens; operators of equal precedence group left to right.", to_postfix),
    Brick("eval_postfix", LIST_STR, INT, "Evaluate the list as a postfix (reverse Polish) expression of numbers and "
          "the operators +, -, * (no output if it is not one).", eval_postfix,
          postfix_tokens),
    Brick("expr_numbers", EXPR, LIST_INT, "List the numbers of the expression from left to right.", expr_numbers),
    Brick("strip_parens", EXPR, EXPR, "Rewrite the expression with only the parentheses its structure needs.",
          strip_parens, parenthesised),
    Brick("reduce_step", EXPR, EXPR, "Evaluate just the first operation whose two operands are plain numbers (leftmost "
          "in the expression's structure), and rewrite the expression with only the parentheses it needs (no output "
          "if the result is negative or there is no operation).", reduce_step),
    Brick("postfix_to_infix", LIST_STR, EXPR, "Read the list as a postfix (reverse Polish) expression and write it in "
          "ordinary notation with only the parentheses needed (no output if it is not one).", postfix_to_infix,
          postfix_tokens),
    Brick("horner_form", LIST_INT, EXPR, "Horner's scheme at x = 2 for the coefficients, highest power first: "
          "a0, a1, a2 becomes (a0*2+a1)*2+a2 (no output for fewer than 2 numbers or a negative one).", horner_form),
    Brick("tree_height", EXPR, INT, "The height of the expression's syntax tree: the largest number of operators on a "
          "path from the top operation down to a number.", tree_height),
    Brick("join_alternating", LIST_INT, EXPR, "Join the numbers into an expression with the operators +, *, +, *, ... "
          "between them (no output if a number is negative).", join_alternating),
    Brick("mirror_expr", EXPR, EXPR, "Swap the two operands of every + and * (not -), at every level, and rewrite "
          "with only the parentheses needed.", mirror_expr),
    Brick("all_parenthesizations", EXPR, LIST_INT, "Remove all parentheses, then list in increasing order every "
          "distinct value obtainable by fully parenthesising the numbers and operators in their order.",
          all_parenthesizations),
])
