"""IFEval's verifiable instructions (Zhou et al. 2023, "Instruction-Following Evaluation for Large
Language Models"; the hub set google/IFEval): each prompt lists instruction ids and their kwargs, and a
response follows an instruction when a deterministic check says so.

    grade_ifeval(gold, response) -> IFGrade(strict, loose, followed, status)

`strict`: every instruction followed by the response as written (IFEval's prompt-level strict
accuracy, what evaluate.py counts as correct); `loose`: every instruction followed by one of the
reference's eight loosened variants (first line, last line or both dropped, markdown asterisks
removed); `followed`: per instruction, strict (instruction-level accuracy).

Written from the reference checks' documented behaviour (the 25 ids below, the same relations,
patterns and markers), not imported: the reference implementation (google-research's
instruction_following_eval, copied into lm-eval) downloads NLTK's punkt model when imported, which
an offline node cannot. Two checks therefore differ slightly: sentences are split by a regular
expression (a terminal . ! or ? followed by a space or the end, common abbreviations kept), not
punkt; capital words are regex word tokens, not NLTK's word_tokenize. Language detection uses
langdetect (Google's language-detection port, as the reference) when it is installed; without it
the three language checks report status "needs_langdetect" and count as not followed.
A reasoning model's thinking (up to the last </think>) is not part of the response graded.
Never raises on a response; unknown instruction ids are a status, not an exception.
"""
from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field

LESS, AT_LEAST = "less than", "at least"
_ABBREV = re.compile(r"\b(?:Mr|Mrs|Ms|Dr|Prof|Sr|Jr|St|vs|etc|e\.g|i\.e|Inc|Ltd|Co|No|Fig)\.$", re.IGNORECASE)
MAX_CHARS = 200_000  # longer responses are cut before checking (bounded time)


def compare(count: int, relation: str, threshold: int) -> bool:
    return count < threshold if relation == LESS else count >= threshold


def count_words(text: str) -> int:
    return len(re.findall(r"\w+", text))


def split_sentences(text: str) -> list[str]:
    """Sentences: split after . ! ? (possibly closing quotes/brackets) followed by whitespace or the end,
    except after a common abbreviation or a single initial."""
    out, start = [], 0
    for m in re.finditer(r"[.!?]+[\"')\]]*(?=\s|$)", text):
        head = text[start:m.end()].strip()
        if _ABBREV.search(head) or re.search(r"(?:^|\s)[A-Z]\.$", head):
            continue
        if head:
            out.append(head)
        start = m.end()
    tail = text[start:].strip()
    if tail:
        out.append(tail)
    return out


def _detect(text: str) -> str | None:
    import langdetect

    langdetect.DetectorFactory.seed = 0  # langdetect samples features at random: fixed, the same text gets one answer
    try:
        return langdetect.detect(text)
    except langdetect.LangDetectException:  # no features (digits only...): the reference counts it as followed
        return None


def _lang(text: str, lang: str) -> bool:
    found = _detect(text)
    return True if found is None else found == lang


def _paragraphs_stars(text: str, n: int) -> bool:
    parts = re.split(r"\s?\*\*\*\s?", text)
    count = len(parts)
    for i, p in enumerate(parts):
        if not p.strip():
            if i in (0, len(parts) - 1):
                count -= 1
            else:
                return False
    return count == n


def _nth_paragraph(text: str, num_paragraphs: int, nth_paragraph: int, first_word: str) -> bool:
    parts = text.split("\n\n")
    count = sum(1 for p in parts if p.strip())
    if nth_paragraph > count or nth_paragraph < 1:
        return False
    para = parts[nth_paragraph - 1].strip()
    if not para:
        return False
    word = para.split()[0].strip().lstrip("'\"")
    first = ""
    for ch in word:
        if ch in ".,?!'\"":
            break
        first += ch.lower()
    return count == num_paragraphs and first == str(first_word).lower()


def _highlights(text: str) -> int:
    single = [h for h in re.findall(r"\*[^\n*]*\*", text) if h.strip("*").strip()]
    double = [h for h in re.findall(r"\*\*[^\n*]*\*\*", text) if h[2:-2].strip()]
    return len(single) + len(double)


def _postscript(text: str, marker: str) -> bool:
    low = text.lower()
    if marker == "P.P.S":
        pattern = r"\s*p\.\s?p\.\s?s.*$"
    elif marker == "P.S.":
        pattern = r"\s*p\.\s?s\..*$"
    else:
        pattern = r"\s*" + re.escape(marker.lower()) + r".*$"
    return bool(re.findall(pattern, low, flags=re.MULTILINE))


def _json(text: str) -> bool:
    v = text.strip()
    for p in ("```json", "```Json", "```JSON", "```"):
        if v.startswith(p):
            v = v[len(p):]
            break
    v = v[:-3] if v.endswith("```") else v
    try:
        json.loads(v.strip())
    except (ValueError, RecursionError):
        return False
    return True


def _two_responses(text: str) -> bool:
    parts = text.split("******")
    valid = []
    for i, p in enumerate(parts):
        if not p.strip():
            if i not in (0, len(parts) - 1):
                return False
        else:
            valid.append(p.strip())
    return len(valid) == 2 and valid[0] != valid[1]


def _sections(text: str, splitter: str, n: int) -> bool:
    return len(re.split(r"\s?" + re.escape(splitter.strip()) + r"\s?\d+\s?", text)) - 1 >= n


def _title(text: str) -> bool:
    return any(t.lstrip("<").rstrip(">").strip() for t in re.findall(r"<<[^\n]+>>", text))


def _regex_word(word: str) -> str:
    """The reference passes keywords to re.search as patterns; literal words are what the data holds,
    so they are escaped here (a keyword with a regex metacharacter cannot raise)."""
    return re.escape(str(word))


def _capital_words(text: str) -> int:
    return sum(1 for w in re.findall(r"\w+(?:[-']\w+)*", text) if w.isupper())


CHECKS = {
    "keywords:existence": lambda t, a: all(re.search(_regex_word(k), t, re.IGNORECASE) for k in a["keywords"]),
    "keywords:frequency": lambda t, a: compare(len(re.findall(_regex_word(str(a["keyword"]).strip()), t, re.IGNORECASE)),
                                               a["relation"], a["frequency"]),
    "keywords:forbidden_words": lambda t, a: not any(re.search(r"\b" + _regex_word(w) + r"\b", t, re.IGNORECASE)
                                                     for w in a["forbidden_words"]),
    "keywords:letter_frequency": lambda t, a: compare(Counter(t.lower())[str(a["letter"]).lower()], a["let_relation"],
                                                      a["let_frequency"]),
    "language:response_language": lambda t, a: _lang(t, a["language"]),
    "length_constraints:number_sentences": lambda t, a: compare(len(split_sentences(t)), a["relation"], a["num_sentences"]),
    "length_constraints:number_paragraphs": lambda t, a: _paragraphs_stars(t, a["num_paragraphs"]),
    "length_constraints:number_words": lambda t, a: compare(count_words(t), a["relation"], a["num_words"]),
    "length_constraints:nth_paragraph_first_word": lambda t, a: _nth_paragraph(t, a["num_paragraphs"], a["nth_paragraph"],
                                                                               a["first_word"]),
    "detectable_content:number_placeholders": lambda t, a: len(re.findall(r"\[.*?\]", t)) >= a["num_placeholders"],
    "detectable_content:postscript": lambda t, a: _postscript(t, str(a["postscript_marker"]).strip()),
    "detectable_format:number_bullet_lists": lambda t, a: len(re.findall(r"^\s*\*[^*].*$", t, re.MULTILINE))
    + len(re.findall(r"^\s*-.*$", t, re.MULTILINE)) == a["num_bullets"],
    "detectable_format:constrained_response": lambda t, a: any(
        o in t.strip() for o in ("My answer is yes.", "My answer is no.", "My answer is maybe.")),
    "detectable_format:number_highlighted_sections": lambda t, a: _highlights(t) >= a["num_highlights"],
    "detectable_format:multiple_sections": lambda t, a: _sections(t, a["section_spliter"], a["num_sections"]),
    "detectable_format:json_format": lambda t, a: _json(t),
    "detectable_format:title": lambda t, a: _title(t),
    "combination:two_responses": lambda t, a: _two_responses(t),
    "combination:repeat_prompt": lambda t, a: t.strip().lower().startswith(str(a["prompt_to_repeat"]).strip().lower()),
    "startend:end_checker": lambda t, a: t.strip().strip('"').lower().endswith(str(a["end_phrase"]).strip().lower()),
    "startend:quotation": lambda t, a: len(t.strip()) > 1 and t.strip()[0] == '"' and t.strip()[-1] == '"',
    "change_case:capital_word_frequency": lambda t, a: compare(_capital_words(t), a["capital_relation"],
                                                               a["capital_frequency"]),
    "change_case:english_capital": lambda t, a: t.isupper() and _lang(t, "en"),
    "change_case:english_lowercase": lambda t, a: t.islower() and _lang(t, "en"),
    "punctuation:no_comma": lambda t, a: "," not in t,
}
NEEDS_LANGDETECT = {"language:response_language", "change_case:english_capital", "change_case:english_lowercase"}


def loose_variants(text: str) -> list[str]:
    """The reference's loose reading: the response, without its first line, its last line or both,
    each with and without markdown asterisks."""
    lines = text.split("\n")
    bases = [text, "\n".join(lines[1:]).strip(), "\n".join(lines[:-1]).strip(), "\n".join(lines[1:-1]).strip()]
    return [v for b in bases for v in (b, b.replace("*", ""))]


@dataclass
class IFGrade:
    strict: bool
    loose: bool
    followed: list = field(default_factory=list)  # per instruction, strict
    status: str = "ok"  # ok | no_response | unknown_instruction | bad_kwargs | needs_langdetect


def final_text(response) -> str:
    """The response without a reasoning model's thinking (text up to the last </think>)."""
    if not isinstance(response, str):
        return ""
    cut = response.rfind("</think>")
    return (response[cut + len("</think>"):] if cut >= 0 else response)[:MAX_CHARS]


def _langdetect_available() -> bool:
    try:
        import langdetect  # noqa: F401
    except ImportError:
        return False
    return True


def _one(iid: str, text: str, kwargs: dict) -> bool:
    if not text.strip():
        return False
    return bool(CHECKS[iid](text, kwargs))


def grade_ifeval(gold: dict, response) -> IFGrade:
    """gold: {"instruction_id_list": [...], "kwargs": [{...}, ...]} (None-valued kwargs are dropped, as
    the hub rows carry every key). Never raises on the response."""
    ids = list(gold.get("instruction_id_list") or [])
    kwargs = [{k: v for k, v in (kw or {}).items() if v is not None} for kw in (gold.get("kwargs") or [{}] * len(ids))]
    if len(kwargs) != len(ids):
        return IFGrade(False, False, [], "bad_kwargs")
    unknown = [i for i in ids if i not in CHECKS]
    if unknown:
        return IFGrade(False, False, [], "unknown_instruction")
    if NEEDS_LANGDETECT & set(ids) and not _langdetect_available():
        return IFGrade(False, False, [False] * len(ids), "needs_langdetect")
    text = final_text(response)
    if not text.strip():
        return IFGrade(False, False, [False] * len(ids), "no_response")
    followed, loose_all = [], True
    for iid, kw in zip(ids, kwargs):
        try:
            ok = _one(iid, text, kw)
            loose = ok or any(_one(iid, v, kw) for v in loose_variants(text)[1:])
        except (KeyError, TypeError, ValueError):  # a row whose kwargs do not fit its instruction
            return IFGrade(False, False, [], "bad_kwargs")
        followed.append(ok)
        loose_all = loose_all and loose
    return IFGrade(all(followed), loose_all, followed, "ok")
