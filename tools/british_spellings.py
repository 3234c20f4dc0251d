"""Write ``reference/recall/british_spellings.txt``: British spellings and their American twins.

    pip download --no-deps --no-binary :all: breame==0.1.2 && python tools/british_spellings.py breame-0.1.2.tar.gz

A question written in British English ("customise", "serialised", "licence") missed the page
that spells the word the American way, and most pages of a software tree do: the stemmer does
not join the two ("customis" and "custom"). breame, a maintained list of words with British and
American spellings (1,730 British words), gives recall the American spelling of each, looked for
beside the question's own (``glossary.american``). Only that way round: an American question then costs
nothing more, and looking for the British spelling too moved one question of the relevance sets, down.

breame is © Charles Pierse under the Apache License 2.0; the table written here is derived from
it and says so in its header.
"""

from __future__ import annotations

import argparse
import ast
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "reference" / "recall" / "british_spellings.txt"
DATA = "breame/data/spelling_constants.py"
TABLE = "BRITISH_ENGLISH_SPELLINGS"


def spellings(source: str) -> dict[str, str]:
    """The British-to-American table of breame's data module, read without running it; only
    lower-case words of letters, each with an American spelling that differs."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == TABLE for t in node.targets):
            table = ast.literal_eval(node.value)
            return {k: v for k, v in table.items()
                    if k != v and all(w.isascii() and w.isalpha() and w.islower() for w in (k, v))}
    raise ValueError(f"{DATA} has no {TABLE}")


def render(table: dict[str, str], source: str) -> str:
    """The list: ``#`` lines saying where it comes from, then one British spelling, a tab and its
    American twin a line, so that recall finds a word by one search in the text (a dict of these
    words cost every recall about a millisecond to build)."""
    return (f"# British spellings and their American twins ({len(table)} words), for recall.\n"
            f"# Written by tools/british_spellings.py from {source}; do not edit by hand.\n"
            "# Derived from breame (https://github.com/cdpierse/breame), (c) Charles Pierse, under the"
            " Apache License 2.0 (https://www.apache.org/licenses/LICENSE-2.0), as this list is.\n"
            + "".join(f"{k}\t{v}\n" for k, v in sorted(table.items())))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sdist", type=Path, help="breame's source distribution (.tar.gz)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    with tarfile.open(args.sdist) as archive:
        member = next(m for m in archive.getmembers() if m.name.endswith("/" + DATA))
        handle = archive.extractfile(member)
        assert handle is not None
        source = handle.read().decode("utf-8")
    table = spellings(source)
    with open(args.out, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(render(table, args.sdist.name))
    print(f"{args.out}: {len(table)} words", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
