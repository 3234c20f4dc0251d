"""The rule that takes breame's British spellings into recall, and what recall does with them."""

from __future__ import annotations

import importlib.util
import io
import tarfile
from pathlib import Path

import pytest
from test_ranking import _hits, _write

from reference.recall import glossary, ranking, word_lists

_spec = importlib.util.spec_from_file_location("british_spellings",
                                               Path(__file__).parents[1] / "tools" / "british_spellings.py")
assert _spec is not None and _spec.loader is not None
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)

# breame's data module, as its source distribution ships it (an excerpt, with odd rows added)
SOURCE = '''BRITISH_ENGLISH_SPELLINGS = {
    "colour": "color",
    "customise": "customize",
    "licence": "license",
    "Whisky": "Whiskey",
    "same": "same",
}

AMERICAN_ENGLISH_SPELLINGS = {
    "color": "colour",
}
'''


def test_only_lower_case_words_that_differ_are_taken() -> None:
    assert tool.spellings(SOURCE) == {"colour": "color", "customise": "customize", "licence": "license"}
    with pytest.raises(ValueError):
        tool.spellings("OTHER = {}\n")


def test_the_written_table_says_its_source_and_licence(tmp_path: Path) -> None:
    sdist = tmp_path / "breame-0.1.2.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        data = SOURCE.encode()
        member = tarfile.TarInfo("breame-0.1.2/breame/data/spelling_constants.py")
        member.size = len(data)
        archive.addfile(member, io.BytesIO(data))
    out = tmp_path / "british_spellings.txt"
    assert tool.main([str(sdist), "--out", str(out)]) == 0
    text = out.read_text(encoding="utf-8")
    assert "Apache License 2.0" in text and "breame-0.1.2.tar.gz" in text
    assert _pairs(text) == tool.spellings(SOURCE)
    committed = Path(word_lists.BRITISH_SPELLINGS).read_text(encoding="utf-8")
    assert "Apache License 2.0" in committed and len(_pairs(committed)) > 1500


def _pairs(text: str) -> dict[str, str]:
    rows = [line.split("\t") for line in text.splitlines() if not line.startswith("#")]
    return {british: american for british, american in rows}


def test_every_committed_pair_is_found_and_nothing_else() -> None:
    for word, american in _pairs(Path(word_lists.BRITISH_SPELLINGS).read_text(encoding="utf-8")).items():
        assert glossary.american(word) == american
    for word in ("color", "colo", "olour", "colours ", "", "\t", "customize", "#"):
        assert glossary.american(word) is None


def test_a_british_word_is_looked_for_in_both_spellings_an_american_one_alone() -> None:
    assert ranking.query_terms("customise the colour of the licence") == [
        "customise|customize", "colour|color", "licence|license"]
    assert ranking.query_terms("customize the color of the license") == ["customize", "color", "license"]


def test_a_british_question_finds_the_page_spelt_the_american_way(tmp_path: Path) -> None:
    team = _write(tmp_path / "team", {
        "docs/serialize.md": "# Serializers\n\nHow to serialize a value and customize the output.\n",
        "docs/values.md": "# Values\n\nEvery value, turned into a dict.\n"})
    found = [h.entry.tree_path for h in _hits(tmp_path / "home", team, "customise how values are serialised")]
    assert found[0] == "docs/serialize.md"
