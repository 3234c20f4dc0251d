"""CC-CEDICT's words and their everyday senses, looked up without loading the dictionary.

``cedict_words.txt`` (written by ``tools/cedict_glossary.py``, CC BY-SA like its source) holds
about a hundred thousand words, one a line, sorted, each followed by a tab and its senses joined by
``|``. Made into a table it would cost every Chinese question about 70 ms; read as bytes it costs
about one, and a word is found by bisection over them: UTF-8 bytes sort as the characters they
encode, which is how the tool sorted the words. A question in English never opens the file.
"""

from __future__ import annotations

import os

PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cedict_words.txt")
_data: bytes | None = None
_start = 0  # where the sorted lines begin, after the header's ``#`` lines


def _load() -> bytes:
    global _data, _start
    if _data is None:
        with open(PATH, "rb") as fh:
            data = fh.read()
        start = 0
        while data.startswith(b"#", start):
            start = data.index(b"\n", start) + 1
        _data, _start = data, start
    return _data


def senses(word: str) -> tuple[str, ...] | None:
    """The everyday senses of a dictionary word (empty for a proper noun); None when it is not a
    word of the dictionary."""
    data = _load()
    key = word.encode("utf-8")
    lo, hi = _start, len(data)  # the lines starting in [lo, hi) are left to look at
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
            rest = data[tab + 1:end].decode("utf-8") if tab >= 0 else ""
            return tuple(rest.split("|")) if rest else ()
    return None
