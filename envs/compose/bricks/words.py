"""Word-list transforms: list[str] -> list[str], str, int, list[int]."""
from __future__ import annotations

from envs.compose.brick import Brick, by_name
from envs.compose.bricks.strings import sort_cost
from envs.compose.types import INT, LIST_INT, LIST_STR, STR


def total_chars(ws):
    return sum(map(len, ws))


def sort_words(ws, c):
    c.tick(sort_cost(len(ws)))
    return sorted(ws)


def reverse_word_order(ws, c):
    c.tick(len(ws))
    return ws[::-1]


def reverse_each_word(ws, c):
    c.tick(total_chars(ws))
    return [w[::-1] for w in ws]


def dedupe_words(ws, c):
    c.tick(len(ws))
    return list(dict.fromkeys(ws))


def drop_short_words(ws, c):
    c.tick(len(ws))
    return [w for w in ws if len(w) >= 4]


def join_words(ws, c):
    c.tick(total_chars(ws))
    return "".join(ws)


def first_letters(ws, c):
    c.tick(len(ws))
    return "".join(w[:1] for w in ws)


def last_letters(ws, c):
    c.tick(len(ws))
    return "".join(w[-1:] for w in ws)


def longest_word(ws, c):
    c.tick(len(ws))
    return max(ws, key=len) if ws else None


def word_lengths(ws, c):
    c.tick(len(ws))
    return [len(w) for w in ws]


def word_scores(ws, c):
    c.tick(total_chars(ws))
    return [sum(ord(ch) - 96 for ch in w if "a" <= ch <= "z") for w in ws]


def total_length(ws, c):
    c.tick(len(ws))
    return total_chars(ws)


BRICKS = by_name([
    Brick("sort_words", LIST_STR, LIST_STR, "Sort the words in ascending (Unicode) order.", sort_words),
    Brick("reverse_word_order", LIST_STR, LIST_STR, "Reverse the order of the words.", reverse_word_order),
    Brick("reverse_each_word", LIST_STR, LIST_STR, "Reverse the letters of each word, keeping the word order.",
          reverse_each_word),
    Brick("dedupe_words", LIST_STR, LIST_STR, "Delete every word that already occurred earlier in the list.",
          dedupe_words),
    Brick("drop_short_words", LIST_STR, LIST_STR, "Delete the words with fewer than 4 characters.",
          drop_short_words),
    Brick("join_words", LIST_STR, STR, "Join the words into one string with no separator.", join_words),
    Brick("first_letters", LIST_STR, STR, "Join the first character of every word.", first_letters),
    Brick("last_letters", LIST_STR, STR, "Join the last character of every word.", last_letters),
    Brick("longest_word", LIST_STR, STR, "Give the longest word (the first one on a tie).", longest_word),
    Brick("word_lengths", LIST_STR, LIST_INT, "List the number of characters of each word.", word_lengths),
    Brick("word_scores", LIST_STR, LIST_INT, "List, for each word, the sum of the alphabet positions of its "
          "letters (a=1, ..., z=26).", word_scores),
    Brick("total_length", LIST_STR, INT, "Count the characters of all the words together.", total_length),
])
