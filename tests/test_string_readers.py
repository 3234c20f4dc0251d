"""The Stop path reads JSON and a few spellings without ``json`` and ``re`` (a fresh process pays
for their import on every agent turn). Each reader here must decide exactly what the package or
the regular expression it stands for decides; the expressions are kept below as the oracle."""

from __future__ import annotations

import json
import re
import string
import subprocess
import sys

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference import pathmatch
from reference.reducer import logread, model
from reference.state import jsontext, ledger_read, ledger_write

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]

# --- JSON ---------------------------------------------------------------------------------------

_text = st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=12)
_scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), _text)
_values = st.recursive(_scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                         st.dictionaries(_text, inner, max_size=4)), max_leaves=12)


def _same(a: object, b: object) -> bool:
    return json.dumps(a, sort_keys=False) == json.dumps(b, sort_keys=False)  # NaN never equals itself


@settings(max_examples=300, deadline=None)
@given(_values)
def test_dumps_writes_what_json_writes(value: object) -> None:
    assert jsontext.dumps(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    assert jsontext.dumps(value, spaced=True) == json.dumps(value, ensure_ascii=False)
    spelled = jsontext.dumps(value)
    assert _same(jsontext.loads(spelled), json.loads(spelled))
    assert _same(jsontext.loads(spelled.encode("utf-8", "surrogatepass")), value)


def _outcome(read, data):  # type: ignore[no-untyped-def]
    try:
        return "value", json.dumps(read(data))
    except (ValueError, RecursionError) as exc:
        return "error", type(exc).__name__, str(exc)
    except TypeError as exc:
        return "type", str(exc)


_JSONISH = st.lists(st.sampled_from(['{', '}', '[', ']', '"', ',', ':', ' ', '\n', '1', '-', '.', 'e', 'a', 'null',
                                     'true', 'NaN', 'Infinity', '\\u00e9', '\\ud800', '\\', '\ufeff', 'é', '\x00',
                                     '\x01']), max_size=14).map("".join)


@settings(max_examples=500, deadline=None)
@given(st.one_of(_JSONISH, _JSONISH.map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=12)))
def test_loads_reads_and_refuses_what_json_does(data: str | bytes) -> None:
    assert _outcome(jsontext.loads, data) == _outcome(json.loads, data)


# --- the log's identities and drive letters -----------------------------------------------------

EVIDENCE_ID = re.compile(rb'\{"kind":"evidence","ts":"([^"\\\n]*)","session":"([^"\\\n]*)",'
                         rb'"agent":(?:"[^"\\\n]*"|null),"actor":\{[^{}\n]*\},"path":"([^"\\\n]*)"')
CONSUMED_ID = re.compile(rb'(?s)^(?:.[^{]*?)?"evidence":\{"ts":"([^"\\\n]*)","session":"([^"\\\n]*)",'
                         rb'"path":"([^"\\\n]*)"\}')  # outside any nested object
DRIVE_PATH = re.compile(rb'"path":"[A-Za-z]:')

_piece = st.sampled_from([b'{"kind":"evidence","ts":"', b'","session":"', b'","agent":', b'null', b'"claude"',
                          b',"actor":{', b'}', b'{', b',"path":"', b'"', b'\\', b'\n', b'x', b'2026', b'C:', b'/a',
                          b'"evidence":{"ts":"', b'","path":"', b'"}', b'"path":"', b'"path":"c:', b'"x":1'])
_lines = st.lists(_piece, max_size=16).map(b"".join)


def _evidence_line(ts: str, session: str, agent: str | None, path: str) -> bytes:
    rec = {"kind": "evidence", "ts": ts, "session": session, "agent": agent, "actor": {"agent_id": "a"},
           "path": path, "exact": True}
    return json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


def _consumed_line(ts: str, session: str, path: str) -> bytes:
    rec = {"kind": "consumed", "ts": ts, "session": session, "run": "r", "key": "k", "credited": True,
           "evidence": {"ts": ts, "session": session, "path": path}}
    return json.dumps(rec, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")


_plain = st.text(alphabet="abc/:.- é", max_size=6)


@settings(max_examples=500, deadline=None)
@given(st.one_of(_lines, st.builds(_evidence_line, _text | _plain, _text | _plain, st.none() | _text, _text | _plain),
                 st.builds(_consumed_line, _text | _plain, _text | _plain, _text | _plain)))
def test_identities_read_from_bytes_match_the_patterns(line: bytes) -> None:
    found = EVIDENCE_ID.match(line)  # the log's evidence lines start with their kind
    assert logread.evidence_id(line) == (found.groups() if found else None)
    found = CONSUMED_ID.match(line)
    assert logread.consumed_id(line) == (found.groups() if found else None)
    assert model._drive_path(line) == (DRIVE_PATH.search(line) is not None)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(_lines.filter(lambda b: b"\n" not in b),
                          st.builds(_evidence_line, _plain, _plain, st.none() | _plain, _plain),
                          st.builds(_consumed_line, _plain, _plain, _plain)), min_size=1, max_size=6),
       st.integers(1, 80))
def test_many_lines_are_read_by_the_patterns_as_by_the_readers(lines: list[bytes], copies: int) -> None:
    """``raw_ids`` reads a few lines one by one and many with one pattern: the same answers."""
    many = [line for line in lines for _ in range(copies)]
    many = many * (logread.MANY // len(many) + 1)
    for kind, reader in (("evidence", logread.evidence_id), ("consumed", logread.consumed_id)):
        assert logread.raw_ids(many, kind) == [reader(line) for line in many]
        assert logread.raw_ids(many[:logread.MANY - 1], kind) == [reader(line) for line in many[:logread.MANY - 1]]


# --- paths --------------------------------------------------------------------------------------

# "Alone" is the end of the string (``\Z``), not ``$``, which also stands before a final line break:
# every caller strips a path before it asks (``normalize``, ``windows_roots``, ``windows_host``),
# so a path never reaches these readers with one, and the readers need not know the difference.
GIT_BASH_DRIVE = re.compile(r"^/([A-Za-z])(?=/|\Z)")
DRIVE = re.compile(r"^([A-Za-z]):(?=/|\Z)")
WINDOWS_ROOT = re.compile(r"^(?:[A-Za-z]:(?:[\\/]|\Z)|\\\\[^\\])")


@settings(max_examples=500, deadline=None)
@example("/c\n")
@example("c:\n")
@example("/c")
@example("c:")
@given(st.lists(st.sampled_from(["", "/", "\\", ":", "c", "Z", "é", "\n", "1", "ab", "//"]), max_size=6).map("".join))
def test_drive_readers_match_the_patterns(path: str) -> None:
    assert pathmatch._git_bash_drive(path) == bool(GIT_BASH_DRIVE.match(path))
    assert pathmatch._is_drive(path) == bool(DRIVE.match(path))
    assert pathmatch._windows_root(path) == bool(WINDOWS_ROOT.match(path))
    collapsed = path
    while "//" in collapsed:
        collapsed = collapsed.replace("//", "/")
    assert collapsed == re.sub(r"/{2,}", "/", path)


# --- the votes ledger's spellings ---------------------------------------------------------------

PLAIN = re.compile(r"[^\W\d][\w./@+()-]*(?: [\w./@+()-]+)*")
INSTANT = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z")
INT = re.compile(r"[-+]?[0-9]+")
FLOATISH = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)"
                      r"|\.(?:nan|NaN|NAN)|0o[0-7]+|0x[0-9a-fA-F]+")
RAW_CONTROL_PLAIN = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff]")
COMMON = re.compile(r'( *)([A-Za-z_][A-Za-z0-9_./@+()-]*):(?: (?:(-?[0-9]+)|(""|\{\})|'
                    r'([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z)))?')

_word_chars = st.sampled_from(list(string.ascii_letters[:6] + string.digits[:4] + "_./@+()- :\"{}#\t") +
                              ["é", "中", "٣", "²", "\x7f", "\x85", "\ud800", "\u2028", "Ⅻ"])
_words = st.lists(_word_chars, max_size=10).map("".join)
_numbers = st.lists(st.sampled_from(list("+-.0123456789eExXoOabfAF") + ["inf", "Inf", "nan", "NaN", "INF", "٣"]),
                    max_size=8).map("".join)
_instants = st.builds(lambda d, tail: d.strftime("%Y-%m-%dT%H:%M:%S.") + tail,
                      st.datetimes(), st.sampled_from(["000Z", "123Z", "12Z", "1234Z", "000z", "٣00Z"]))


@settings(max_examples=600, deadline=None)
@given(st.one_of(_words, _numbers, _instants))
def test_scalar_readers_match_the_patterns(text: str) -> None:
    assert ledger_write._plain_word(text) == bool(PLAIN.fullmatch(text))
    assert ledger_read._is_instant(text) == bool(INSTANT.fullmatch(text))
    assert ledger_read._is_int(text) == bool(INT.fullmatch(text))
    assert ledger_read._is_floatish(text) == bool(FLOATISH.fullmatch(text))
    assert ledger_read._raw_control_plain(text) == bool(RAW_CONTROL_PLAIN.search(text))


@settings(max_examples=600, deadline=None)
@given(st.builds(lambda pad, key, sep, value: " " * pad + key + sep + value, st.integers(0, 5),
                 st.one_of(_words, st.sampled_from(["votes", "null", "True", "a-b", "_x", "9a"])),
                 st.sampled_from([":", ": ", ":  ", " :"]),
                 st.one_of(_numbers, _instants, st.sampled_from(['""', "{}", "[]", "x", "-3", "--3", ""]))))
def test_the_common_line_reader_matches_its_pattern(line: str) -> None:
    found = COMMON.fullmatch(line)
    if found is None or found.group(2) in ledger_read._NOT_KEYS:
        assert ledger_read._common(line) is None
        return
    spaces, key, count, empty, instant = found.groups()
    value = int(count) if count is not None else ("" if empty == '""' else {}) if empty is not None \
        else ledger_read._OPEN if instant is None else instant
    assert ledger_read._common(line) == (len(spaces), key, value)


def test_every_single_character_is_read_as_the_patterns_read_it() -> None:
    for code in range(0x110000):
        char = chr(code)
        assert ledger_write._plain_word(char) == bool(PLAIN.fullmatch(char)), hex(code)
        assert ledger_write._plain_word("a" + char) == bool(PLAIN.fullmatch("a" + char)), hex(code)
        assert ledger_read._raw_control_plain(char) == bool(RAW_CONTROL_PLAIN.search(char)), hex(code)


# --- what a Stop imports ------------------------------------------------------------------------

def test_a_crediting_stop_imports_neither_json_nor_re(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A Stop that credits a read (so it reads and writes both ledgers and appends consumed lines)
    as agents run it, through ``hook-command``'s line."""
    team, home = tmp_path / "team", tmp_path / "home"
    (team / "learnings").mkdir(parents=True)
    doc = team / "learnings" / "a.md"
    doc.write_text("---\ntitle: A\n---\nbody\n")
    env = {"PATH": "/usr/bin:/bin", "TEAMAI_HOME": str(home), "TEAMAI_TEAM": str(team)}
    from reference.state import runlog
    from reference.team import config

    scope = config.load(env).active
    stamp = "2026-11-30T10:00:00.000Z"
    runlog.append(scope.log_path, scope.log_lock, [
        {"kind": "run", "ts": stamp, "run": "00000001-0000-4000-8000-000000000001", "session": "ses-s", "via": "env",
         "unambiguous": True, "agent": "claude", "actor": {}, "caller": None,
         "docs": [{"key": "a", "type": "learning", "scope": "workspace", "path": str(doc), "score": 1.0,
                   "eligible": True}]},
        {"kind": "evidence", "ts": "2026-11-30T10:00:05.000Z", "session": "ses-s", "agent": "claude", "actor": {},
         "path": str(doc), "exact": True, "via": "read", "simple": True, "status": "success"}], 2.0)
    fast = str(ROOT / "reference" / "hook" / "fast.py")
    proc = subprocess.run([sys.executable, "-X", "importtime", "-I", "-S", fast, "stop", "--tool", "claude"],
                          input=b'{"session_id": "ses-s"}', capture_output=True, timeout=120,
                          env={**env, "TEAMAI_NOW": "2026-11-30T10:01:00.000Z"})
    assert proc.returncode == 0 and proc.stdout == b""
    names = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.decode().splitlines()
             if line.startswith("import time:") and "|" in line}
    assert {"reference.state.ledger", "reference.state.upvoted", "reference.state.runlog"} <= names  # it credited
    assert "upvoted_count: 1" in (scope.ledger_path and open(scope.ledger_path).read())
    for heavy in ("json", "re", "enum", "functools", "collections", "contextlib", "operator", "typing"):
        assert heavy not in names, heavy


def test_loads_calls_json_nested_past_the_parsers_depth_malformed() -> None:
    """``json.loads`` runs out of depth (``RecursionError``); every reader of the state takes a
    ``ValueError`` as a malformed line, so this one is too."""
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(RecursionError):
        json.loads(deep)
    for data in (deep, deep.encode(), '{"kind":"run","x":' + deep + "}"):
        with pytest.raises(ValueError, match="nested too deeply"):
            jsontext.loads(data)
