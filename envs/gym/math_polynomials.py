"""Polynomial operations with exact answers: x^N modulo a polynomial and a prime, composition,
evaluation at a big integer, multiplication, resultants, power sums of roots (Newton's
identities), counting real roots, all roots modulo a prime, partial fractions, cyclotomic
polynomials, rational roots.

Mathematical operations in the RLVE paper's sense (rlve line 47): integer coefficients,
computed with int / Fraction. Coefficient-list answers are graded like polynomial_division
(our choice): -1 unparsable, -0.5 wrong number of coefficients, else (coefficients right /
all)^5, 1 only when all are; single values score 1 exact, else 0.
"""
from __future__ import annotations

from envs.gym.algebra import determinant, poly_mul, poly_text
import math
from fractions import Fraction

from envs.gym.base import INT_FORMAT, GymEnv, IntEnv, Retry, ask, int_list, jaccard, matches, to_fraction
from envs.gym.number_theory import random_prime

COEFF_FORMAT = ("Give the coefficients from the highest power down to the constant term, separated by spaces "
                "(zeros included), e.g. <answer>1 0 -3 2</answer> for x^3 - 3x + 2.")


def _coeffs(rng, degree: int, top: int, monic: bool = False) -> list[int]:
    lead = 1 if monic else rng.choice([c for c in range(-top, top + 1) if c])
    return [lead] + [rng.randint(-top, top) for _ in range(degree)]


class _CoeffEnv(GymEnv):
    """A polynomial answer: problem["coeffs"], highest power first."""

    category = "math"

    def reward(self, problem, answer):
        return matches(int_list(answer), problem["coeffs"], 5)


def poly_mod_prime(a: list[int], m: list[int], p: int) -> list[int]:
    """a mod (m, p) for monic m, as len(m) - 1 coefficients (highest first)."""
    a = [c % p for c in a]
    k = len(m) - 1
    while len(a) > k:
        lead = a[0]
        if lead:
            for i in range(1, k + 1):
                a[i] = (a[i] - lead * m[i]) % p
        a = a[1:]
    return [0] * (k - len(a)) + a


def x_power_mod(n: int, m: list[int], p: int) -> list[int]:
    """x^n mod (m(x), p) by square-and-multiply on residues."""
    result = poly_mod_prime([1], m, p)
    for bit in bin(n)[2:]:
        result = poly_mod_prime(poly_mul(result, result), m, p)
        if bit == "1":
            result = poly_mod_prime(poly_mul(result, [1, 0]), m, p)
    return result


class PolynomialPowerRemainder(_CoeffEnv):
    """The remainder of x^N divided by a monic M(x), coefficients modulo a prime p
    (mathematical operations: square-and-multiply in F_p[x] / (M)). d: deg M = d // 4 + 2,
    p a prime in [10, 100(d + 1)], N with d + 3 digits. Reward: as the family's coefficient
    lists. Its own problem: polynomial_division divides two written-out polynomials once; here
    the dividend has astronomically many terms and only repeated squaring reaches it."""

    name = "polynomial_power_remainder"

    def size(self, difficulty):
        return difficulty // 4 + 2

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        p = random_prime(rng, 10, 100 * (difficulty + 1))
        m = [1] + [rng.randrange(p) for _ in range(k)]
        n = rng.randint(10 ** (difficulty + 2), 10 ** (difficulty + 3))
        coeffs = x_power_mod(n, m, p)
        return {"m": m, "p": p, "n": n, "coeffs": coeffs}, " ".join(map(str, coeffs))

    def prompt(self, problem):
        k = len(problem["m"]) - 1
        return ask(f"Let M(x) = {poly_text(problem['m'])}. Compute the remainder of x^{problem['n']} divided by M(x), "
                   f"with every coefficient reduced modulo the prime {problem['p']} (into 0..{problem['p'] - 1}).",
                   f"Give the {k} coefficients of the remainder from x^{k - 1} down to the constant term, separated "
                   "by spaces (zeros included), e.g. <answer>0 5 1</answer>.")


def poly_compose(p: list[int], q: list[int]) -> list[int]:
    """P(Q(x)) by Horner's rule on polynomials."""
    out = [0]
    for c in p:
        out = poly_mul(out, q)
        out[-1] += c
    while len(out) > 1 and out[0] == 0:
        out = out[1:]
    return out


class PolynomialComposition(_CoeffEnv):
    """The coefficients of P(Q(x)) (mathematical operations). d: deg P = d // 4 + 2, deg Q =
    d // 5 + 2, coefficients in [-5, 5], leading ones nonzero. Reward: as the family's
    coefficient lists. Its own problem: substitution of a polynomial into a polynomial
    (powers of Q), not a product of two given factors."""

    name = "polynomial_composition"

    def size(self, difficulty):
        return (difficulty // 4 + 2) * (difficulty // 5 + 2)

    def build(self, rng, difficulty):
        p, q = _coeffs(rng, difficulty // 4 + 2, 5), _coeffs(rng, difficulty // 5 + 2, 5)
        coeffs = poly_compose(p, q)
        return {"p": p, "q": q, "coeffs": coeffs}, " ".join(map(str, coeffs))

    def prompt(self, problem):
        return ask(f"P(x) = {poly_text(problem['p'])}\nQ(x) = {poly_text(problem['q'])}\n\nExpand P(Q(x)).",
                   COEFF_FORMAT)


class PolynomialEvaluationBig(IntEnv):
    """The exact value of an integer polynomial at a big integer (mathematical operations:
    Horner's rule on big integers). d: degree d // 2 + 3, coefficients in [-99, 99], x with
    d + 3 digits, either sign. Reward: -1 unparsable, 1 exact, else 0. Its own problem:
    exact big-integer arithmetic driven by a polynomial's shape; long_multiplication multiplies
    two numbers once."""

    name = "polynomial_evaluation_big"
    category = "math"

    def size(self, difficulty):
        return difficulty + 3

    def build(self, rng, difficulty):
        coeffs = _coeffs(rng, difficulty // 2 + 3, 99)
        x = rng.choice((1, -1)) * rng.randint(10 ** (difficulty + 2), 10 ** (difficulty + 3))
        value = 0
        for c in coeffs:
            value = value * x + c
        return {"coeffs": coeffs, "x": x, "value": value}, str(value)

    def prompt(self, problem):
        return ask(f"Let P(x) = {poly_text(problem['coeffs'])}. Compute P({problem['x']}) exactly.", INT_FORMAT)


class PolynomialMultiplication(_CoeffEnv):
    """The coefficients of A(x) * B(x) (mathematical operations: a convolution). d: both of
    degree d + 2, coefficients in [-20, 20]. Reward: as the family's coefficient lists. Its own
    problem: the forward product, where polynomial_factorization and polynomial_gcd undo or
    share factors."""

    name = "polynomial_multiplication"

    def size(self, difficulty):
        return difficulty + 2

    def build(self, rng, difficulty):
        a, b = _coeffs(rng, difficulty + 2, 20), _coeffs(rng, difficulty + 2, 20)
        coeffs = poly_mul(a, b)
        return {"a": a, "b": b, "coeffs": coeffs}, " ".join(map(str, coeffs))

    def prompt(self, problem):
        return ask(f"A(x) = {poly_text(problem['a'])}\nB(x) = {poly_text(problem['b'])}\n\nExpand A(x) * B(x).",
                   COEFF_FORMAT)


def sylvester(p: list[int], q: list[int]) -> list[list[int]]:
    m, n = len(p) - 1, len(q) - 1
    rows = [[0] * i + p + [0] * (n - 1 - i) for i in range(n)]
    rows += [[0] * i + q + [0] * (m - 1 - i) for i in range(m)]
    return rows


class PolynomialResultant(IntEnv):
    """The resultant Res(P, Q) of two integer polynomials: the determinant of their Sylvester
    matrix, zero exactly when they share a root (mathematical operations). d: deg P =
    d // 4 + 2, deg Q = d // 5 + 1, coefficients in [-5, 5]. Reward: -1 unparsable, 1 exact,
    else 0. Its own problem: an elimination invariant of a pair of polynomials; polynomial_gcd
    finds the common factor, matrix_determinant takes an arbitrary matrix."""

    name = "polynomial_resultant"
    category = "math"

    def size(self, difficulty):
        return difficulty // 4 + difficulty // 5 + 3

    def build(self, rng, difficulty):
        p, q = _coeffs(rng, difficulty // 4 + 2, 5), _coeffs(rng, difficulty // 5 + 1, 5)
        value = determinant(sylvester(p, q))
        return {"p": p, "q": q, "value": value}, str(value)

    def prompt(self, problem):
        return ask(f"P(x) = {poly_text(problem['p'])}\nQ(x) = {poly_text(problem['q'])}\n\nCompute their resultant "
                   "Res(P, Q) (the determinant of the Sylvester matrix, P's rows first).", INT_FORMAT)


def newton_power_sum(coeffs: list[int], k: int) -> int:
    """sum r_i^k over the roots of the monic polynomial coeffs (Newton's identities)."""
    n, a = len(coeffs) - 1, coeffs
    p = [n]  # p[m] = sum r_i^m; for P = x^n + a1 x^(n-1) + ... + an:
    for m in range(1, k + 1):  # p_m = -(a1 p_(m-1) + ... + a_(m-1) p_1) - m a_m (m <= n), no m a_m term beyond n
        s = -sum(a[i] * p[m - i] for i in range(1, min(m - 1, n) + 1))
        p.append(s - m * a[m] if m <= n else s)
    return p[k]


class PowerSumOfRoots(IntEnv):
    """sum r_i^k over the complex roots r_i of a monic integer polynomial, with multiplicity
    (mathematical operations: Newton's identities, no root finding). d: degree d // 4 + 2,
    coefficients in [-5, 5], k in [d // 4 + 3, d + 5]. Reward: -1 unparsable, 1 exact, else 0.
    Its own problem: a symmetric function of roots read from the coefficients; no other env
    links coefficients to roots this way."""

    name = "power_sum_of_roots"
    category = "math"

    def size(self, difficulty):
        return difficulty + 5

    def build(self, rng, difficulty):
        coeffs = _coeffs(rng, difficulty // 4 + 2, 5, monic=True)
        k = rng.randint(difficulty // 4 + 3, difficulty + 5)
        value = newton_power_sum(coeffs, k)
        return {"coeffs": coeffs, "k": k, "value": value}, str(value)

    def prompt(self, problem):
        return ask(f"Let r_1, ..., r_n be the complex roots (with multiplicity) of P(x) = {poly_text(problem['coeffs'])}. "
                   f"Compute r_1^{problem['k']} + ... + r_n^{problem['k']} (it is an integer).", INT_FORMAT)


class RealRootCount(IntEnv):
    """How many distinct real roots an integer polynomial has (mathematical operations: Sturm
    sequences, or factoring). d: a planted product of (x - r)^m for d // 4 + 1 integer roots r
    (with repetition) and d // 6 + 1 quadratics x^2 + b x + c with b^2 < 4c (no real roots),
    expanded. Reward: -1 unparsable, 1 exact, else 0. Its own problem: a count of real roots,
    not the roots (polynomial_factorization) and not a minimum (polynomial_minimum)."""

    name = "real_root_count"
    category = "math"

    def size(self, difficulty):
        return difficulty // 4 + difficulty // 6 + 2

    def build(self, rng, difficulty):
        roots = [rng.randint(-6, 6) for _ in range(difficulty // 4 + 1)]
        poly = [1]
        for r in roots:
            poly = poly_mul(poly, [1, -r])
        for _ in range(difficulty // 6 + 1):
            b = rng.randint(-4, 4)
            c = rng.randint(b * b // 4 + 1, b * b // 4 + 6)
            poly = poly_mul(poly, [1, b, c])
        value = len(set(roots))
        return {"coeffs": poly, "value": value}, str(value)

    def prompt(self, problem):
        return ask(f"How many distinct real numbers x satisfy {poly_text(problem['coeffs'])} = 0?", INT_FORMAT)


class PolynomialRootsModPrime(GymEnv):
    """Every root in [0, p) of an integer polynomial modulo a prime p (mathematical
    operations). d: a planted product of d // 3 + 2 factors (x - r) and a random cubic, degree
    d // 3 + 5, p a prime in [50(d + 1), 100(d + 1)]; the roots are recomputed by trying every
    residue. Reward: -1 unparsable, else (|right| / |listed or right|)^5 over the sets
    (jaccard), 1 only for exactly the roots. Its own problem: roots over a finite field, where
    modular_sqrt solves one quadratic and polynomial_factorization works over the integers."""

    name = "polynomial_roots_mod_prime"
    category = "math"

    def size(self, difficulty):
        return difficulty // 3 + 5

    def build(self, rng, difficulty):
        p = random_prime(rng, 50 * (difficulty + 1), 100 * (difficulty + 1))
        poly = [rng.randint(1, p - 1)] + [rng.randrange(p) for _ in range(3)]
        for _ in range(difficulty // 3 + 2):
            poly = poly_mul(poly, [1, -rng.randrange(p)])
        poly = [c % p for c in poly]
        roots = []
        for x in range(p):
            v = 0
            for c in poly:
                v = (v * x + c) % p
            if v == 0:
                roots.append(x)
        if not roots:
            raise Retry
        return {"coeffs": poly, "p": p, "roots": roots}, " ".join(map(str, roots))

    def prompt(self, problem):
        return ask(f"Find every x in 0..{problem['p'] - 1} with {poly_text(problem['coeffs'])} = 0 (mod "
                   f"{problem['p']}), where {problem['p']} is prime.",
                   "Give all of them separated by spaces, e.g. <answer>3 17 40</answer>.")

    def reward(self, problem, answer):
        got = int_list(answer)
        if len(got) > 4 * len(problem["roots"]) + 10:
            return 0.0
        return jaccard(set(got), set(problem["roots"]), 5)


class PartialFractions(GymEnv):
    """The partial-fraction decomposition P(x) / Q(x) = sum_i A_i / (x - r_i) for Q with distinct
    integer roots and deg P < deg Q (mathematical operations: the cover-up rule A_i = P(r_i)
    / Q'(r_i)). d: k = d // 4 + 2 roots, distinct, in [-(k + 5), k + 5]; P of degree k - 1
    with coefficients in [-5, 5] and no root of Q (redrawn otherwise); Q shown expanded.
    Answer: A_i in increasing order of r_i. Reward: -1 unparsable, -0.5 not k numbers, else
    (coefficients right / k)^5, 1 only when all are. Its own problem: a rational function
    split into simple poles, with rational answers; polynomial_factorization finds Q's roots
    but not the residues."""

    name = "partial_fractions"
    category = "math"

    def size(self, difficulty):
        return difficulty // 4 + 2

    def build(self, rng, difficulty):
        k = self.size(difficulty)
        roots = sorted(rng.sample(range(-(k + 5), k + 6), k))
        p = _coeffs(rng, k - 1, 5)
        q = [1]
        for r in roots:
            q = poly_mul(q, [1, -r])
        residues = []
        for i, r in enumerate(roots):
            num = sum(c * r ** (len(p) - 1 - j) for j, c in enumerate(p))
            den = 1
            for j, s in enumerate(roots):
                if j != i:
                    den *= r - s
            residues.append(Fraction(num, den))
        if not all(residues):
            raise Retry  # P and Q share a root: the fraction reduces and loses that pole
        gold = " ".join(str(x) for x in residues)
        return {"p": p, "q": q, "residues": [str(x) for x in residues]}, gold

    def prompt(self, problem):
        return ask(f"Write ({poly_text(problem['p'])}) / ({poly_text(problem['q'])}) as a sum of terms A / (x - r), "
                   "one for each root r of the denominator (its roots are distinct integers).",
                   "Give the numerators A for the roots in increasing order of r, separated by spaces, each an "
                   "integer or a fraction p/q, e.g. <answer>1/2 -3 5/6</answer>.")

    def reward(self, problem, answer):
        got = [to_fraction(t) for t in answer.replace(",", " ").split()]  # junk raises: -1
        return matches(got, [Fraction(x) for x in problem["residues"]], 5)  # -0.5 for a wrong count


def _mobius(n: int) -> int:
    out, p = 1, 2
    while p * p <= n:
        if n % p == 0:
            n //= p
            if n % p == 0:
                return 0
            out = -out
        p += 1
    return -out if n > 1 else out


def cyclotomic(n: int) -> list[int]:
    """Phi_n = prod_{d | n} (x^d - 1)^mu(n / d), highest power first: the factors with mu = 1
    multiplied in, then the others divided out exactly (integer coefficients, lowest first)."""
    divs = [d for d in range(1, n + 1) if n % d == 0]
    low = [1]
    for d in (d for d in divs if _mobius(n // d) == 1):  # times (x^d - 1)
        low = [(low[i - d] if i >= d else 0) - (low[i] if i < len(low) else 0) for i in range(len(low) + d)]
    for d in (d for d in divs if _mobius(n // d) == -1):  # Q (x^d - 1) = P: Q[i] = Q[i - d] - P[i]
        q = []
        for i in range(len(low) - d):
            q.append((q[i - d] if i >= d else 0) - low[i])
        low = q
    return low[::-1]


class CyclotomicPolynomial(_CoeffEnv):
    """The cyclotomic polynomial Phi_n(x), whose roots are the primitive n-th roots of unity
    (mathematical operations: x^n - 1 = prod_{d | n} Phi_d(x), so Phi_n = prod_{d | n} (x^d - 1)^mu(n/d)). d: n in
    [5(d + 2), 10(d + 2)]. Reward: as the family's coefficient lists (phi(n) + 1 of them). Its
    own problem: a polynomial defined by its roots in the complex numbers, found by exact
    division over the divisor lattice of n."""

    name = "cyclotomic_polynomial"

    def size(self, difficulty):
        return 5 * (difficulty + 2)

    def build(self, rng, difficulty):
        n = rng.randint(self.size(difficulty), 2 * self.size(difficulty))
        coeffs = cyclotomic(n)
        return {"n": n, "coeffs": coeffs}, " ".join(map(str, coeffs))

    def prompt(self, problem):
        return ask(f"Compute the cyclotomic polynomial Phi_{problem['n']}(x), the monic polynomial whose roots are the "
                   f"primitive {problem['n']}-th roots of unity.", COEFF_FORMAT)


class RationalRoots(GymEnv):
    """Every rational root of an integer polynomial (mathematical operations: the rational root
    theorem, candidates p/q with p | a_0 and q | a_n, then division). d: a planted product of
    d // 4 + 2 factors (a x - b) with a in [1, 4], b in [-9, 9] (repeats allowed) and d // 8 + 1
    quadratics x^2 + c x + e without rational roots, expanded. Answer: the distinct rational
    roots. Reward: -1 unparsable, else (|right| / |listed or right|)^5 over the sets (jaccard),
    1 only for exactly the roots. Its own problem: non-integer roots and an irreducible part
    left over; polynomial_factorization's polynomials split into integer linear factors."""

    name = "rational_roots"
    category = "math"

    def size(self, difficulty):
        return difficulty // 4 + 2

    def build(self, rng, difficulty):
        poly, roots = [1], set()
        for _ in range(self.size(difficulty)):
            a, b = rng.randint(1, 4), rng.randint(-9, 9)
            poly = poly_mul(poly, [a, -b])
            roots.add(Fraction(b, a))
        for _ in range(difficulty // 8 + 1):
            c = rng.randint(-5, 5)
            e = rng.randint(-9, 9)
            disc = c * c - 4 * e
            if disc >= 0 and math.isqrt(disc) ** 2 == disc:
                raise Retry  # rational roots would hide in the "irreducible" part
            poly = poly_mul(poly, [1, c, e])
        shown = sorted(roots)
        return {"coeffs": poly, "roots": [str(r) for r in shown]}, " ".join(str(r) for r in shown)

    def prompt(self, problem):
        return ask(f"Find every rational number x with {poly_text(problem['coeffs'])} = 0.",
                   "Give each distinct rational root once, as an integer or p/q, separated by spaces, e.g. "
                   "<answer>-2 1/3 5/2</answer>.")

    def reward(self, problem, answer):
        got = [to_fraction(t) for t in answer.replace(",", " ").split()]
        if len(got) > 4 * len(problem["roots"]) + 10:
            return 0.0
        return jaccard(set(got), {Fraction(r) for r in problem["roots"]}, 5)
