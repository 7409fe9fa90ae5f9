"""String transforms and string counting: str -> str, int, list[int], list[str]."""
from __future__ import annotations

from envs.compose.brick import Brick, by_name
from envs.compose.types import INT, LIST_INT, LIST_STR, STR

VOWELS = frozenset("aeiou")


def sort_cost(n: int) -> int:
    """Comparisons of a comparison sort of n items."""
    return n * max(1, (n - 1).bit_length())


def reverse_string(s, c):
    c.tick(len(s))
    return s[::-1]


def sort_chars(s, c):
    c.tick(sort_cost(len(s)))
    return "".join(sorted(s))


def dedupe_chars(s, c):
    c.tick(len(s))
    return "".join(dict.fromkeys(s))


def remove_vowels(s, c):
    c.tick(len(s))
    return "".join(ch for ch in s if ch not in VOWELS)


def swap_pairs(s, c):
    c.tick(len(s))
    return "".join(s[i + 1] + s[i] for i in range(0, len(s) - 1, 2)) + (s[-1] if len(s) % 2 else "")


def rotate_left_2(s, c):
    c.tick(len(s))
    return s[2:] + s[:2]


def double_chars(s, c):
    c.tick(2 * len(s))
    return "".join(ch + ch for ch in s)


def every_other_char(s, c):
    c.tick(len(s))
    return s[::2]


def mirror_string(s, c):
    c.tick(2 * len(s))
    return s + s[::-1]


def string_length(s, c):
    c.tick(len(s))
    return len(s)


def count_vowels(s, c):
    c.tick(len(s))
    return sum(ch in VOWELS for ch in s)


def count_distinct_chars(s, c):
    c.tick(len(s))
    return len(set(s))


def letter_sum(s, c):
    c.tick(len(s))
    return sum(ord(ch) - 96 for ch in s if "a" <= ch <= "z")


def sample_alphanumeric(rng):
    """Letters with digits mixed in, so read_digits has something to read."""
    return "".join(rng.choice("abcdefghij0123456789") for _ in range(rng.randint(4, 8)))


def read_digits(s, c):
    c.tick(len(s))
    digits = "".join(ch for ch in s if "0" <= ch <= "9")
    return int(digits) if digits else None


def letter_positions(s, c):
    c.tick(len(s))
    return [ord(ch) - 96 if "a" <= ch <= "z" else int(ch) for ch in s if "a" <= ch <= "z" or "0" <= ch <= "9"]


def vowel_positions(s, c):
    c.tick(len(s))
    return [i for i, ch in enumerate(s) if ch in VOWELS]


def run_lengths(s, c):
    c.tick(len(s))
    out: list[int] = []
    for i, ch in enumerate(s):
        if i and ch == s[i - 1]:
            out[-1] += 1
        else:
            out.append(1)
    return out


def chunks_of_3(s, c):
    c.tick(len(s))
    return [s[i:i + 3] for i in range(0, len(s), 3)]


def split_at_vowels(s, c):
    c.tick(len(s))
    pieces, cur = [], ""
    for ch in s:
        cur += ch
        if ch in VOWELS:
            pieces.append(cur)
            cur = ""
    return pieces + [cur] if cur else pieces


BRICKS = by_name([
    Brick("reverse_string", STR, STR, "Reverse the string.", reverse_string),
    Brick("sort_chars", STR, STR, "Sort the characters of the string in ascending (Unicode) order.", sort_chars),
    Brick("dedupe_chars", STR, STR, "Delete every character that already occurred earlier in the string.", dedupe_chars),
    Brick("remove_vowels", STR, STR, "Delete every vowel (a, e, i, o, u).", remove_vowels),
    Brick("swap_pairs", STR, STR, "Swap the 1st and 2nd characters, the 3rd and 4th, and so on (a last odd "
          "character stays).", swap_pairs),
    Brick("rotate_left_2", STR, STR, "Move the first two characters to the end.", rotate_left_2),
    Brick("double_chars", STR, STR, "Write every character twice.", double_chars),
    Brick("every_other_char", STR, STR, "Keep only the characters at positions 0, 2, 4, ... (counting from 0).",
          every_other_char),
    Brick("mirror_string", STR, STR, "Append the reverse of the string to the string.", mirror_string),
    Brick("string_length", STR, INT, "Count the characters of the string.", string_length),
    Brick("count_vowels", STR, INT, "Count the vowels (a, e, i, o, u) in the string.", count_vowels),
    Brick("count_distinct_chars", STR, INT, "Count the different characters in the string.", count_distinct_chars),
    Brick("letter_sum", STR, INT, "Add up the alphabet positions of the letters (a=1, ..., z=26); other "
          "characters add nothing.", letter_sum),
    Brick("read_digits", STR, INT, "Read the digits of the string, in order, as one decimal number (no output "
          "if there are none).", read_digits, sample_alphanumeric),
    Brick("letter_positions", STR, LIST_INT, "Replace each letter by its alphabet position (a=1, ..., z=26) and "
          "each digit by its value, dropping any other character; give the list.", letter_positions),
    Brick("vowel_positions", STR, LIST_INT, "List the positions (counting from 0) of the vowels (a, e, i, o, u).",
          vowel_positions),
    Brick("run_lengths", STR, LIST_INT, "List the lengths of the runs of equal neighbouring characters, left to "
          "right.", run_lengths),
    Brick("chunks_of_3", STR, LIST_STR, "Cut the string into pieces of 3 characters from the left (the last "
          "piece may be shorter).", chunks_of_3),
    Brick("split_at_vowels", STR, LIST_STR, "Cut the string after every vowel (a, e, i, o, u), keeping all "
          "characters; drop no piece except an empty last one.", split_at_vowels),
])
