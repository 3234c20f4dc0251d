"""How text becomes search words: one function for what is indexed and for the query.

SQLite's ``unicode61`` tokenizer splits on spaces and punctuation, which suits English but sees
a whole Chinese sentence as one word, since Chinese, Japanese and Korean are written without
spaces. Before any text reaches the index (and before a query reaches ``MATCH``), every run of
those scripts is rewritten as its overlapping two-character pieces: ``合入后`` becomes
``合入 入后 后``. A two-character piece is the usual length of a Chinese word, so a question finds
a document that shares its words in whatever sentence they stand, with no dictionary to load
(a segmenter's dictionary costs a recall hundreds of milliseconds to load). A run's last
character is kept on its own too, so that a one-character word of a question (``锁``), searched
as "any piece starting with it", finds every place the character stands. The Porter stemmer of the index then treats the other words as
usual; it leaves these pieces alone.

``camelCase`` and ``snake_case`` names are also given as their parts (``RemotingConnectException``
is searchable as ``remoting connect exception``), since people ask in words.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# Han (with extension A and compatibility), kana, Hangul syllables: scripts written without spaces.
# Compiled on first use, by text that is not ASCII: compiling a class this wide costs a fresh
# process almost 2 ms, which a recall asked in English never needs to pay.
_CJK_CLASS = "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]"
_cjk_run: re.Pattern[str] | None = None
# A name with an upper-case letter inside. The look-behind and the possessive runs change no
# match (a start right after a letter can only succeed where the start before it already did),
# they only spare the engine from trying every letter of every lower-case word again.
_CAMEL = re.compile(r"(?<![A-Za-z])[A-Za-z][a-z0-9]*+[A-Z][A-Za-z0-9]*+")
_CAMEL_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_WORD = re.compile(r"\w+")


def _pieces(match: re.Match[str]) -> str:
    run = match.group(0)
    if len(run) == 1:
        return f" {run} "
    return " " + " ".join(run[i:i + 2] for i in range(len(run) - 1)) + f" {run[-1]} "


def _query_pieces(match: re.Match[str]) -> str:
    run = match.group(0)
    return " " + " ".join(run[i:i + 2] for i in range(max(1, len(run) - 1))) + " "


def _cjk() -> re.Pattern[str]:
    global _cjk_run
    if _cjk_run is None:
        _cjk_run = re.compile(_CJK_CLASS + "+")
    return _cjk_run


def is_single_cjk(word: str) -> bool:
    """A one-character word in these scripts: searched as every piece that starts with it."""
    return len(word) == 1 and not word.isascii() and _cjk().match(word) is not None


def _camel(text: str) -> str:
    """Each such name followed by its parts (``fooBar`` -> ``fooBar foo Bar``), each distinct name
    split once: a document repeats its names. (One substitution rather than a split and a join:
    the split made a string of every stretch of text between two names, and this is the largest
    part of cutting a large tree into words.)"""
    if text.islower():  # no upper-case letter at all
        return text
    done: dict[str, str] = {}

    def spell(match: re.Match[str]) -> str:
        word = match.group()
        spelled = done.get(word)
        if spelled is None:
            parts = _CAMEL_PART.findall(word)
            spelled = done[word] = f"{word} {' '.join(parts)}" if len(parts) > 1 else word
        return spelled

    return _CAMEL.sub(spell, text)


def for_index(text: str) -> str:
    """The text as the index should tokenize it."""
    return _cut(text, _pieces)


def _cut(text: str, pieces: Callable[[re.Match[str]], str]) -> str:
    if not text:
        return ""
    if not text.isascii():
        text = _cjk().sub(pieces, text)
    if "_" in text:
        text = text.replace("_", " ")
    return _camel(text)


def query_words(query: str) -> list[str]:
    """The distinct lower-case words of a query, in the index's spelling: the same cut, less the
    run's last character on its own (a two-character piece already holds it)."""
    return list(dict.fromkeys(w.lower() for w in _WORD.findall(_cut(query, _query_pieces))))
