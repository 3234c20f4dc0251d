"""Ranking and the words it ranks by: CJK pieces, names, heads, idf, ties, the cut, the score."""

from __future__ import annotations

import io
import re
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reference.recall import index, ranking, words
from reference.recall import run as recall
from reference.team import config

CJK_CHARS = "𨋢𠀀消息模型生产者消费者批量发送顺序事务集群部署节点主从同步异步刷盘重试延迟过滤标签デプロイ手順캐시설정배포절차"


def _write(team: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = team / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return team


def _hits(home: Path, team: Path, query: str, limit: int = 5, env: dict[str, str] | None = None) -> list[recall.Hit]:
    cfg = config.load({"TEAMAI_HOME": str(home), "TEAMAI_TEAM": str(team), **(env or {})})
    found = recall.search(cfg, query, lambda m: None, limit)
    found.close()
    return found.hits


@pytest.mark.parametrize(("text", "expected"), [
    ("合入后", " 合入 入后 后 "),
    ("锁", " 锁 "),
    ("MR 合入后 hook", "MR  合入 入后 后  hook"),
    ("デプロイ", " デプ プロ ロイ イ "),
    ("배포 절차", " 배포 포   절차 차 "),
    ("RemotingConnectException", "RemotingConnectException Remoting Connect Exception"),
    ("snake_case_name", "snake case name"),
    ("HTTP and iOS", "HTTP and iOS i OS"),
])
def test_text_is_cut_into_the_words_the_index_holds(text: str, expected: str) -> None:
    assert words.for_index(text) == expected


_PLAIN_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\U00020000-\U0003ffff]+")
_PLAIN_CAMEL = re.compile(r"[A-Za-z][a-z0-9]*[A-Z][A-Za-z0-9]*")


def _plain_name(match: re.Match[str]) -> str:
    parts = re.findall(words._CAMEL_PART, match.group(0))
    return f"{match.group(0)} {' '.join(parts)}" if len(parts) > 1 else match.group(0)


def _plain_cut(text: str, pieces: Callable[[str], str]) -> str:
    """The cut as its rules say it, with no shortcut: the whole text folded (NFKC, traditional
    characters simplified), CJK runs, underscores, then names."""
    import unicodedata

    from reference.recall.cedict_traditional import SIMPLIFIED, TRADITIONAL

    text = unicodedata.normalize("NFKC", text).translate(str.maketrans(TRADITIONAL, SIMPLIFIED))
    cut = _PLAIN_CJK.sub(lambda run: pieces(run.group(0)), text)
    return _PLAIN_CAMEL.sub(_plain_name, cut.replace("_", " ")) if text else ""


def test_every_folded_character_is_in_the_runs_that_are_folded() -> None:
    """Only runs of these scripts are folded, so every character of the table must be in one."""
    from reference.recall.cedict_traditional import SIMPLIFIED, TRADITIONAL

    assert len(TRADITIONAL) == len(SIMPLIFIED) > 3000
    assert _PLAIN_CJK.fullmatch(TRADITIONAL + SIMPLIFIED)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="aBcXyZ09_ -.\né中文合入デプ캐시𨋢後設ｒ豈", max_size=40))
def test_the_fast_cut_is_the_plain_cut(text: str) -> None:
    """The shortcuts (ASCII text skips the CJK pass, each name is split once, the name pattern
    never retries inside a word) change no word: the result is the plain rules' result."""
    assert words.for_index(text) == _plain_cut(text, words._pieces)
    expected = list(dict.fromkeys(w.lower() for w in re.findall(r"\w+", _plain_cut(text, words._query_pieces))))
    assert words.query_words(text) == expected


@settings(max_examples=600, deadline=None)
@given(st.text(alphabet="aBcXyZ09 -.\n\té中文", max_size=60))
def test_names_read_by_their_shape_are_the_names_the_pattern_finds(text: str) -> None:
    """A long text's names are found by the shape of its characters (``words._camel_by_shape``);
    every text, long or short, gets what the plain name pattern gives."""
    assert words._camel_by_shape(text) == _PLAIN_CAMEL.sub(_plain_name, text)
    long = (text + " ") * (words.LONG // (len(text) + 1) + 1)
    assert len(long) >= words.LONG
    assert words.for_index(long) == _plain_cut(long, words._pieces)


def test_a_query_is_cut_the_way_the_index_is() -> None:
    assert words.query_words("MR 合入后 hook 没触发") == ["mr", "合入", "入后", "hook", "没触", "触发"]
    assert words.query_words("锁 超时") == ["锁", "超时"]
    # a word is one concept with its English words (a glossary term's, or a dictionary word's
    # everyday senses, marked ~); a piece across two words is marked ^, a stop word goes
    assert ranking.query_terms("怎么查哪些分支包含某个 commit") == [
        "^查哪", "^些分", "分支|branch", "^支包", "包含|~contain|~embody|~include", "^含某", "commit"]
    assert ranking.query_terms("how do I do it") == ["how", "do", "i", "it"]  # all stop words: all kept


# Full-width Latin and digits, half-width kana, a compatibility ideograph (U+F900) and their plain twins.
WIDE = "ｒｅｄｉｓＲＥＤＩＳ０９＿ｶﾀｶﾅ豈redisREDIS09_カタカナ豈 中文"


@given(st.text(alphabet=WIDE, max_size=30))
def test_a_compatibility_form_is_cut_as_the_character_it_stands_for(text: str) -> None:
    import unicodedata

    plain = unicodedata.normalize("NFKC", text)
    assert words.for_index(text) == words.for_index(plain)
    assert words.query_words(text) == words.query_words(plain)
    assert ranking.query_terms(text) == ranking.query_terms(plain)


@given(st.text(alphabet=st.characters(max_codepoint=127) | st.sampled_from("é中文ｒ"), max_size=40))
def test_words_read_without_re_are_the_words_re_finds(text: str) -> None:
    assert words.plain_words(text) == re.findall(r"\w+", text.replace("_", " "))


def test_a_concept_is_one_term_whatever_its_spellings() -> None:
    # a brand is one word, not three; an abbreviation and its full form are one concept, either way
    assert ranking.query_terms("RocketMQ broker") == ["rocketmq|rocket mq", "broker"]
    assert ranking.query_terms("open a PR") == ["open", "pr|pull request"]
    assert ranking.query_terms("open a pull request") == ["open", "pull request|pr"]
    assert ranking.query_terms("configuration") == ["configuration"]  # one full word is not shortened
    assert ranking.query_terms("单元测试和日志") == ["单元 元测 测试|unit test", "^试和", "^和日", "日志|log|logging"]
    assert ranking.query_terms("锁") == ["锁"]  # a run of one character is still searched


def test_a_dotted_name_is_one_concept_the_phrase_of_its_parts(tmp_path: Path) -> None:
    assert ranking.query_terms("nested cases with t.Run, e.g. in go.work") == [
        "nested", "cases", "t run", "e", "g", "go work"]
    team = _write(tmp_path / "team", {
        "docs/a.md": "# Runs\n\nRun the suite; t is the time.\n",
        "docs/b.md": "# Subtests\n\nCall t.Run for each case.\n"})
    # both pages hold "t" and "run"; only b.md writes the name, though a tie would put a.md first
    assert [h.entry.tree_path for h in _hits(tmp_path / "home", team, "t.Run")][0] == "docs/b.md"


@settings(max_examples=400)
@given(st.text(alphabet="ab_.1 e(é", max_size=24))
def test_the_scan_for_dotted_names_misses_none_the_pattern_finds(text: str) -> None:
    """The scan that spares a question the pattern never misses a name the pattern finds."""
    found = [m.span() for m in re.finditer(r"(?<![\w.])[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+", text)
             if any(len(part) > 1 for part in m.group().split("."))]
    assert words.dotted_names(text) == found


def test_an_operator_written_as_symbols_is_looked_for_by_its_name(tmp_path: Path) -> None:
    team = _write(tmp_path / "team", {
        "docs/nullish.md": "# Nullish coalescing\n\nThe nullish coalescing operator on old engines.\n",
        "docs/engines.md": "# Old engines\n\nWhich operator old engines support.\n"})
    hits = _hits(tmp_path / "home", team, "the ?? operator on old engines")
    assert [h.entry.tree_path for h in hits][0] == "docs/nullish.md"
    assert ranking.query_terms("support the ?? operator") == ["nullish coalescing", "support", "operator"]
    assert ranking.query_terms("compile `|>` calls") == ["pipeline", "compile", "calls"]
    # only a symbol standing alone: inside a word, or an ellipsis, it names no operator
    assert ranking.query_terms("what?? it failed ... again") == ["failed", "again"]


def test_a_concept_counts_once_and_a_translation_less_than_the_question_s_own_words(tmp_path: Path) -> None:
    team = _write(tmp_path / "team", {
        "docs/en.md": "# Logs\n\nRotate the log files every night.\n",
        "docs/cn.md": "# 日志\n\n每天晚上轮转日志文件。\n",
        "docs/pr.md": "# Review\n\nEvery PR, that is every pull request, needs a review.\n",
        "docs/other.md": "# Review rules\n\nA pull request needs two approvals before a review ends.\n"})
    assert [h.entry.tree_path for h in _hits(tmp_path / "home", team, "日志")][:2] == ["docs/cn.md", "docs/en.md"]
    # "PR" finds the page that only says "pull request"
    assert "docs/other.md" in [h.entry.tree_path for h in _hits(tmp_path / "home", team, "PR")]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=CJK_CHARS + " ", min_size=1, max_size=12).filter(lambda s: s.strip()),
       st.text(alphabet=CJK_CHARS, min_size=0, max_size=30))
def test_any_cjk_text_of_a_document_finds_it(phrase: str, other: str) -> None:
    """Index and query cut text the same way: a document holding the question's text is a hit."""
    with tempfile.TemporaryDirectory() as raw:
        tmp = Path(raw)
        team = _write(tmp / "team", {"docs/a.md": f"# 文档\n\n前文{phrase}后文\n", "docs/b.md": f"# 其他\n\n{other}\n"})
        assert "docs/a.md" in [h.entry.tree_path for h in _hits(tmp / "home", team, phrase)]


def test_every_hit_scores_above_zero_even_in_a_tree_of_one(tmp_path: Path) -> None:
    team = _write(tmp_path / "team", {"rules/payments.md": "Every payment goes through ledger receipts.\n"})
    (hit,) = _hits(tmp_path / "home", team, "payment ledger")
    assert hit.score >= 1.0  # teamai's idf never falls below 1


def test_scores_follow_the_evidence(tmp_path: Path) -> None:
    team = _write(tmp_path / "team", {
        "docs/a.md": "---\ntitle: Kafka consumer lag\n---\nKafka consumer lag grows when a partition stalls.\n",
        "docs/b.md": "---\ntitle: Partitions\n---\nA consumer reads partitions.\n",
        "docs/c.md": "---\ntitle: Unrelated\n---\nNothing here.\n"})
    hits = _hits(tmp_path / "home", team, "kafka consumer lag")
    assert [h.entry.tree_path for h in hits] == ["docs/a.md", "docs/b.md"]
    assert hits[0].score > hits[1].score > 0


def test_ties_at_the_cut_break_by_tree_path(tmp_path: Path) -> None:
    team = _write(tmp_path / "team", {f"rules/{c}.md": "---\ntitle: same words\n---\nsame body\n" for c in "gfedcba"})
    hits = _hits(tmp_path / "home", team, "same words", limit=3)
    assert [h.entry.tree_path for h in hits] == ["rules/a.md", "rules/b.md", "rules/c.md"]


def test_withheld_pages_never_take_a_place_in_the_cut(tmp_path: Path) -> None:
    files = {f"teamwiki/evidence/code/secret/p{i}.md": "# quokka quokka\n\nquokka quokka quokka\n" for i in range(6)}
    files.update({f"docs/d{i}.md": f"# notes {i}\n\nOne quokka.\n" for i in range(3)})
    team = _write(tmp_path / "team", files)
    (tmp_path / "withheld").write_text("secret\n")
    hits = _hits(tmp_path / "home", team, "quokka", env={"TEAMAI_WITHHELD_FILE": str(tmp_path / "withheld")})
    assert [h.entry.tree_path for h in hits] == ["docs/d0.md", "docs/d1.md", "docs/d2.md"]


@pytest.mark.parametrize(("files", "query", "found"), [
    ({"skills/pdf-tools/SKILL.md": "---\nname: pdf-tools\ndescription: Merge, split and watermark documents.\n---\nSteps.\n"},
     "watermark a document", "skills/pdf-tools"),
    ({"rules/git.md": "---\ndescription: Hotfix branches merge into main.\n---\n# Git\n\nRules.\n"},
     "where does a hotfix merge", "rules/git.md"),
    ({"docs/guides/index.md": "# Welcome\n\nText.\n"}, "guides", "docs/guides/index.md"),
    ({"learnings/tidy-up-branches-2026-01-02-a1b2c3.md": "Text.\n"}, "tidy branches", "learnings/tidy-up-branches-2026-01-02-a1b2c3"),
])
def test_heads_say_what_an_asset_is_for(tmp_path: Path, files: dict[str, str], query: str, found: str) -> None:
    team = _write(tmp_path / "team", {**files, "docs/other.md": "# Other\n\nNothing to see.\n"})
    assert [h.entry.tree_path for h in _hits(tmp_path / "home", team, query)][:1] == [found]


def test_common_words_of_a_large_tree_are_dropped_when_a_rarer_one_is_left(tmp_path: Path) -> None:
    conn = index.memory()
    for i in range(1, 1301):
        conn.execute("INSERT INTO bodies(rowid, body) VALUES(?, ?)", (i, "common" + (" rare" if i == 7 else "")))
        conn.execute("INSERT INTO heads(rowid, title, tags, about, name) VALUES(?, '', '', '', '')", (i,))
        conn.execute("INSERT INTO assets(id, path, kind, tree_path, key, mtime_ns, size, indexed, title, tags,"
                     " relations) VALUES(?, ?, 'doc', ?, ?, 0, 0, 1, 't', '[]', '{}')",
                     (i, f"/d{i}.md", f"docs/d{i:04}.md", f"d{i}"))
    rows = ranking.search(conn, ["common", "rare"], 5, 1300)
    assert [r[2] for r in rows] == ["docs/d0007.md"]  # "common" was not scored: it is in every asset
    assert len(ranking.search(conn, ["common"], 5, 1300)) == 5  # the only word is kept


def test_a_new_index_format_rebuilds_once_and_says_so(tmp_path: Path) -> None:
    team = _write(tmp_path / "team", {"docs/a.md": "# Alpha\n\nalpha\n"})
    cfg = config.load({"TEAMAI_HOME": str(tmp_path / "home"), "TEAMAI_TEAM": str(team)})
    said: list[str] = []
    recall.search(cfg, "alpha", said.append).close()
    with sqlite3.connect(cfg.active.index_path) as conn:
        conn.execute("UPDATE meta SET value = '1' WHERE name = 'version'")
    recall.search(cfg, "alpha", said.append).close()
    recall.search(cfg, "alpha", said.append).close()
    assert len(said) == 1 and "another version" in said[0] and "rebuilding it once" in said[0]
    out = io.StringIO()
    assert [h.entry.tree_path for h in _hits(tmp_path / "home", team, "alpha")] == ["docs/a.md"]
    assert out.getvalue() == ""


def test_a_rule_whose_frontmatter_is_not_yaml_is_still_found_by_its_description(tmp_path: Path) -> None:
    team = _write(tmp_path / "team", {
        "rules/go.md": "---\ndescription: Conventions for gRPC handlers\nglobs: **/*.go\n---\nKeep them small.\n",
        "rules/other.md": "# Other\n\nKeep functions small.\n"})
    assert [h.entry.tree_path for h in _hits(tmp_path / "home", team, "grpc handlers")] == ["rules/go.md"]
