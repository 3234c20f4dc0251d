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

How CJK is cut was chosen by measurement: two-character pieces took the Chinese questions of
real-team-a from MRR@5 0.27 (one character per token, searched as phrases) to 0.76, and 0.97 on a
held-out Chinese tree. jieba costs a fresh process about 2 s even with its cached dictionary (70
times the interpreter's start), and it cannot be paid at index time only, since the query must be
cut the same way. FTS5's trigram tokenizer cannot search a two-character word, the usual Chinese
word.
"""

from __future__ import annotations

from collections.abc import Callable

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re

# Han (with extension A, compatibility, and the two planes of rarer Han: Cantonese 𨋢, names),
# kana, Hangul syllables: scripts written without spaces.
_CJK_CLASS = "[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003ffff]"
# A name with an upper-case letter inside. The look-behind and the possessive runs change no
# match (a start right after a letter can only succeed where the start before it already did),
# they only spare the engine from trying every letter of every lower-case word again.
_CAMEL = r"(?<![A-Za-z])[A-Za-z][a-z0-9]*+[A-Z][A-Za-z0-9]*+"
_CAMEL_PART = r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+"
_WORD = r"\w+"
# A dotted name: parts that start with a letter, joined by dots, not inside a longer dotted run.
_DOTTED = r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+"
_compiled: dict[str, re.Pattern[str]] = {}
# Every ASCII character but a letter or a digit, as a space: the words of ASCII text without ``re``.
_ASCII_GAPS = {i: " " for i in range(128) if not chr(i).isalnum()}


def _pattern(source: str) -> re.Pattern[str]:
    """A pattern, compiled on first use. ``re`` is imported only then: with ``enum`` and
    ``functools`` it costs a fresh process about 3 ms, and a recall asked in lower-case English
    needs none of it (nor the CJK class, whose compiling costs almost 2 ms more)."""
    found = _compiled.get(source)
    if found is None:
        import re

        found = _compiled[source] = re.compile(source)
    return found


def _words(text: str) -> list[str]:
    """What ``\\w+`` finds: for ASCII text, the runs of letters and digits (and ``_``, which every
    caller has made a space already)."""
    if text.isascii() and "_" not in text:
        return text.translate(_ASCII_GAPS).split()
    return _pattern(_WORD).findall(text)


def _pieces(run: str) -> str:
    if len(run) == 1:
        return f" {run} "
    return " " + " ".join(run[i:i + 2] for i in range(len(run) - 1)) + f" {run[-1]} "


def _query_pieces(run: str) -> str:
    return " " + " ".join(run[i:i + 2] for i in range(max(1, len(run) - 1))) + " "


def _cjk() -> re.Pattern[str]:
    return _pattern(_CJK_CLASS + "+")


def is_single_cjk(word: str) -> bool:
    """A one-character word in these scripts: searched as every piece that starts with it."""
    return len(word) == 1 and not word.isascii() and _cjk().match(word) is not None


def _camel(text: str) -> str:
    """Each such name followed by its parts (``fooBar`` -> ``fooBar foo Bar``), each distinct name
    split once: a document repeats its names. (One substitution rather than a split and a join:
    the split made a string of every stretch of text between two names.) A long text is read by
    its shape instead (:func:`_camel_by_shape`), with the same result."""
    if text.islower():  # no upper-case letter at all
        return text
    if len(text) >= LONG:
        return _camel_by_shape(text)
    return _pattern(_CAMEL).sub(_speller(), text)


def _speller() -> Callable[[re.Match[str]], str]:
    done: dict[str, str] = {}

    def spell(match: re.Match[str]) -> str:
        word = match.group()
        spelled = done.get(word)
        if spelled is None:
            spelled = done[word] = _spelled(word)
        return spelled

    return spell


def _spelled(word: str) -> str:
    parts = _pattern(_CAMEL_PART).findall(word)
    return f"{word} {' '.join(parts)}" if len(parts) > 1 else word


LONG = 4096  # characters from which a text's names are found by its shape
_shape_reader: tuple[bytes, re.Pattern[bytes]] | None = None


def _shape() -> tuple[bytes, re.Pattern[bytes]]:
    """The table that maps a character to its class (``a``, ``A``, ``0``, or a space for any
    other), and an upper-case letter after a letter or digit in that spelling. Built on first use:
    a recall's question is short and never needs them."""
    global _shape_reader
    if _shape_reader is None:
        table = bytearray(b" " * 256)
        for low, high, mark in ((b"a", b"z", b"a"), (b"A", b"Z", b"A"), (b"0", b"9", b"0")):
            table[low[0]:high[0] + 1] = mark * (high[0] - low[0] + 1)
        import re

        _shape_reader = (bytes(table), re.compile(rb"A(?<=[aA0]A)"))
    return _shape_reader


def _camel_by_shape(text: str) -> str:
    """:func:`_camel` for a long text. The name pattern is tried at every letter, which made it the
    largest part of cutting a large tree into words; here the text is first spelt as the classes of
    its characters (one byte each, every character outside ASCII a ``?`` and so a space), where an
    upper-case letter right after a letter or digit, which every name that splits holds, is found
    by a scan that jumps from capital to capital. A name is the run of letters and digits around
    it, from the run's first letter, when a capital follows that letter: exactly what the pattern
    matches."""
    table, inner = _shape()
    shape = text.encode("ascii", "replace").translate(table)
    out: list[str] = []
    done: dict[str, str] = {}
    last = 0
    for found in inner.finditer(shape):
        at = found.start()
        if at < last:  # inside the name just spelt
            continue
        first = max(shape.rfind(b" ", last, at) + 1, last)  # where the run starts
        while shape[first] == 48:  # a name starts at a letter: digits before it are not part of it
            first += 1
        if first == at:  # only digits before this capital: a later capital of the run decides
            continue
        end = shape.find(b" ", at)
        end = len(shape) if end < 0 else end
        word = text[first:end]
        spelled = done.get(word)
        if spelled is None:
            spelled = done[word] = _spelled(word)
        out += (text[last:first], spelled)
        last = end
    if not out:
        return text
    out.append(text[last:])
    return "".join(out)


def for_index(text: str) -> str:
    """The text as the index should tokenize it."""
    return _cut(text, _pieces)


def folded(text: str) -> str:
    """The text with each character written the one way both index and query write it, so either
    spelling finds the other:

    - compatibility forms as what they stand for (NFKC): a Chinese or Japanese keyboard types
      full-width letters and digits (``ｒｅｄｉｓ``, ``４秒``), half-width kana, and a compatibility
      ideograph is the same character as its unified twin;
    - traditional Chinese characters as their simplified forms (``後端`` as ``后端``;
      ``cedict_traditional.py``): a team in Taiwan or Hong Kong asks in traditional characters
      about pages written in simplified ones, and the other way round. Japanese kanji fold too,
      in the page and the question alike."""
    if text.isascii():
        return text
    return _cjk().sub(_simplified_run, _nfkc(text))


def _nfkc(text: str) -> str:
    import unicodedata  # only for text outside ASCII

    return text if unicodedata.is_normalized("NFKC", text) else unicodedata.normalize("NFKC", text)


_simplified_table: dict[int, int] | None = None


def _simplified_run(match: re.Match[str]) -> str:
    """A run of those scripts with its traditional characters simplified (every character of the
    table is in the run's class, so folding the runs folds the text)."""
    global _simplified_table
    if _simplified_table is None:
        from .cedict_traditional import SIMPLIFIED, TRADITIONAL

        _simplified_table = str.maketrans(TRADITIONAL, SIMPLIFIED)
    return match.group().translate(_simplified_table)


def _cut(text: str, pieces: Callable[[str], str]) -> str:
    """The text folded (:func:`folded`) and cut into words: each run of those scripts is folded and
    cut into pieces in one pass over the text."""
    if not text:
        return ""
    if not text.isascii():
        text = _cjk().sub(lambda run: pieces(_simplified_run(run)), _nfkc(text))
    if "_" in text:
        text = text.replace("_", " ")
    return _camel(text)


def query_words(query: str) -> list[str]:
    """The distinct lower-case words of a query, in the index's spelling: the same cut, less the
    run's last character on its own (a two-character piece already holds it)."""
    return list(dict.fromkeys(w.lower() for w in _words(_cut(query, _query_pieces))))


def cjk_runs(text: str):
    """The runs of Chinese, Japanese or Korean characters of a text, as matches."""
    return _cjk().finditer(text)


def has_cjk(text: str) -> bool:
    return not text.isascii() and _cjk().search(text) is not None


def plain_words(text: str) -> list[str]:
    """The words of a text without those scripts, as written (``snake_case`` cut at ``_``)."""
    return _words(text.replace("_", " "))


def dotted_names(text: str) -> list[tuple[int, int]]:
    """Where a text writes dotted names (``t.Run``, ``go.work``, ``cleanup.policy``,
    ``pyproject.toml``), as (start, end); not those of single letters (``e.g.``). The index keeps
    no dots, so such a name is found as the phrase of its parts. A text without a dot between a
    word character and a letter is answered without a pattern."""
    at = text.find(".", 1)
    while at != -1:  # a dot between a word character and a letter, one of them in a longer part
        before, after = text[at - 1], text[at + 1:at + 2]
        if (before.isalnum() or before == "_") and (after.isalpha() or after == "_") and (
                (at >= 2 and (text[at - 2].isalnum() or text[at - 2] == "_"))
                or text[at + 2:at + 3].isalnum() or text[at + 2:at + 3] == "_"):
            break
        at = text.find(".", at + 1)
    else:
        return []
    return [m.span() for m in _pattern(_DOTTED).finditer(text)
            if any(len(part) > 1 for part in m.group().split("."))]


def name_parts(word: str) -> list[str]:
    """The parts of a ``camelCase`` name (``RocketMQ`` -> ``Rocket``, ``MQ``); one part otherwise."""
    if word.islower() or _pattern(_CAMEL).fullmatch(word) is None:
        return [word]
    return _pattern(_CAMEL_PART).findall(word)


def pieces_phrase(term: str) -> str:
    """A Chinese term as the phrase of its pieces in the index (``命令行`` -> ``命令 令行``)."""
    return term if len(term) < 3 else " ".join(term[i:i + 2] for i in range(len(term) - 1))
