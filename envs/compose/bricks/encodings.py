"""Encodings: ciphers, run-length, binary, Roman numerals, digit words, numbers as letters."""
from __future__ import annotations

from envs.compose.brick import Brick, by_name
from envs.compose.types import INT, LIST_INT, LIST_STR, STR

ROMAN = ((1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"),
         (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I"))
DIGIT_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine")


def shift_letters(s, c, k):
    c.tick(len(s))
    return "".join(chr((ord(ch) - 97 + k) % 26 + 97) if "a" <= ch <= "z" else ch for ch in s)


def caesar_3(s, c):
    return shift_letters(s, c, 3)


def atbash(s, c):
    c.tick(len(s))
    return "".join(chr(219 - ord(ch)) if "a" <= ch <= "z" else ch for ch in s)


def shift_by_position(s, c):
    c.tick(len(s))
    return "".join(chr((ord(ch) - 97 + i) % 26 + 97) if "a" <= ch <= "z" else ch for i, ch in enumerate(s))


def run_length_encode(s, c):
    c.tick(len(s))
    out, i = [], 0
    while i < len(s):
        j = i
        while j < len(s) and s[j] == s[i]:
            j += 1
        out.append(f"{j - i}{s[i]}")
        i = j
    return "".join(out)


def to_binary(n, c):
    c.tick(max(1, abs(n).bit_length()))
    return format(n, "b")


def to_roman(n, c):
    if not 1 <= n <= 3999:
        return None
    out = []
    for value, letters in ROMAN:
        c.tick()
        while n >= value:
            c.tick()
            out.append(letters)
            n -= value
    return "".join(out)


def digits_to_words(n, c):
    digits = str(abs(n))
    c.tick(len(digits))
    return [DIGIT_WORDS[int(d)] for d in digits]


def numbers_to_letters(xs, c):
    c.tick(len(xs))
    return "".join(chr(97 + v % 26) for v in xs)


def join_numbers(xs, c):
    c.tick(len(xs))
    return "".join(map(str, xs))


BRICKS = by_name([
    Brick("caesar_3", STR, STR, "Shift every letter 3 places forward in the alphabet (x->a, y->b, z->c); other "
          "characters stay.", caesar_3),
    Brick("atbash", STR, STR, "Replace every letter by its mirror in the alphabet (a<->z, b<->y, ...); other "
          "characters stay.", atbash),
    Brick("shift_by_position", STR, STR, "Shift the letter at position i (counting from 0) forward by i places "
          "in the alphabet, wrapping z to a; other characters stay.", shift_by_position),
    Brick("run_length_encode", STR, STR, "Replace each run of equal neighbouring characters by its length "
          "followed by the character (\"aab\" -> \"2a1b\").", run_length_encode),
    Brick("to_binary", INT, STR, "Write the number in binary, without prefix or leading zeros (a negative "
          "number gets a leading '-').", to_binary),
    Brick("to_roman", INT, STR, "Write the number in Roman numerals (no output unless it is from 1 to 3999).",
          to_roman),
    Brick("digits_to_words", INT, LIST_STR, "Spell each decimal digit of the number's absolute value as an "
          "English word (42 -> [\"four\", \"two\"]).", digits_to_words),
    Brick("numbers_to_letters", LIST_INT, STR, "Turn each number n into the letter at position (n mod 26) of the "
          "alphabet, counting a as 0, and join the letters.", numbers_to_letters),
    Brick("join_numbers", LIST_INT, STR, "Write the numbers in decimal one after another, with no separator.",
          join_numbers),
])
