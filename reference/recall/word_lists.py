"""Recall's sorted word lists, looked up by bisection without loading them into a table.

Two lists, each written by a tool and never by hand: ``cedict_words.txt`` (CC-CEDICT's words
and their everyday senses, ``tools/cedict_glossary.py``) and ``british_spellings.txt`` (British
spellings and their American twins, ``tools/british_spellings.py``). Each is ``#`` lines saying
where it comes from, then one word a line, sorted, followed by a tab and what the list gives it.
Made into a table the Chinese list (about a hundred thousand words) would cost every Chinese
question about 70 ms; read as bytes it costs about one, and a word is found by bisection over
them: UTF-8 bytes sort as the characters they encode, which is how the tools sort the words. A
list is read on its first look-up only, so a question in English never opens the Chinese one.
"""

from __future__ import annotations

import os

_HERE = os.path.dirname(os.path.abspath(__file__))
CEDICT_WORDS = os.path.join(_HERE, "cedict_words.txt")
BRITISH_SPELLINGS = os.path.join(_HERE, "british_spellings.txt")
_loaded: dict[str, tuple[bytes, int]] = {}  # path -> (bytes, where the sorted lines begin)


def _load(path: str) -> tuple[bytes, int]:
    found = _loaded.get(path)
    if found is None:
        with open(path, "rb") as fh:
            data = fh.read()
        start = 0
        while data.startswith(b"#", start):
            start = data.index(b"\n", start) + 1
        found = _loaded[path] = data, start
    return found


def lookup(path: str, word: str) -> str | None:
    """What the list at ``path`` gives ``word`` (the text after its tab, empty when it gives
    nothing); None when the word has no line."""
    data, start = _load(path)
    key = word.encode("utf-8")
    lo, hi = start, len(data)  # the lines starting in [lo, hi) are left to look at
    while lo < hi:
        at = data.rfind(b"\n", lo, (lo + hi) // 2) + 1 or lo  # the start of the line at the middle
        end = data.find(b"\n", at)
        end = len(data) if end < 0 else end
        tab = data.find(b"\t", at, end)
        found = data[at:end if tab < 0 else tab]
        if found < key:
            lo = end + 1
        elif found > key:
            hi = at
        else:
            return data[tab + 1:end].decode("utf-8") if tab >= 0 else ""
    return None
