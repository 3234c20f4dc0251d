"""The votes ledger round-trips byte-for-meaning whichever way YAML spells it.

Generated ledgers (counts, "" or instants, absent ``last_upvoted_at``, negative deltas, keys
nobody knows at every level) are spelled the ways teamai and YAML can: teamai's own (the npm
``yaml`` package's ``YAML.stringify``: block style, plain keys and instants where it leaves them
plain, ``""``, ``{}``), every key and string double- or single-quoted, entries in flow style, the
whole document as JSON, and PyYAML's own block and flow dumps. Each spelling is read by the
reference, written back, and read again; the meaning must not move.

The oracle is PyYAML, resolving plain scalars by YAML 1.2's core schema, as teamai's ``yaml``
package does: under PyYAML's default YAML 1.1 rules ``yes``, ``on`` or ``2026-11-30`` are no
longer strings, though teamai writes them plain and means strings. What the reference writes must
also mean the same to PyYAML's default rules, since other tools read the file that way.
When node and teamai-cli's ``yaml`` package are at hand, teamai's own writer and reader are
the oracle too.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from reference.state import ledger, ledger_read, ledger_write
from reference.state.clock import stamp

# --- the oracle: PyYAML with YAML 1.2 core-schema resolution -------------------------------------


class Core12Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """PyYAML resolving plain scalars as YAML 1.2's core schema does (no 1.1 booleans, no
    timestamps, no sexagesimals, no octal by a leading zero)."""


Core12Loader.yaml_implicit_resolvers = {}
for _tag, _pattern, _first in (
    ("null", r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
    ("bool", r"^(?:true|True|TRUE|false|False|FALSE)$", list("tTfF")),
    ("int", r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", list("-+0123456789")),
    ("float", r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)"
              r"|\.(?:nan|NaN|NAN))$", list("-+.0123456789")),
):
    Core12Loader.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", re.compile(_pattern), _first)


def _core_int(loader: Any, node: yaml.Node) -> int:
    text = str(loader.construct_scalar(node))  # type: ignore[arg-type]
    if text.startswith(("0o", "0x")):
        return int(text[2:], 8 if text[1] == "o" else 16)
    return int(text, 10)


Core12Loader.add_constructor("tag:yaml.org,2002:int", _core_int)


def oracle(text: str) -> Any:
    return yaml.load(text, Loader=Core12Loader)  # noqa: S506 - a safe loader with other resolvers


def yaml11(text: str) -> Any:
    """PyYAML's default reading, with its datetimes spelled back as the one clock spells instants."""
    def norm(value: Any) -> Any:
        if isinstance(value, dict):
            return {norm(k): norm(v) for k, v in value.items()}
        if isinstance(value, list):
            return [norm(v) for v in value]
        if isinstance(value, dt.datetime):
            return stamp(value if value.tzinfo else value.replace(tzinfo=dt.UTC))
        return value
    return norm(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)))  # noqa: S506


# --- generated ledgers ---------------------------------------------------------------------------

# Line breaks YAML 1.1 has and 1.2 does not (NEL, LS, PS) are left out of generated text: PyYAML
# folds them even inside quotes, so it cannot be the oracle for them (the reference escapes them).
# The non-characters U+FFFE and U+FFFF are not printable in YAML: PyYAML refuses a document that
# holds them raw, which the plain and single-quoted spellings here would.
_text_chars = st.characters(blacklist_categories=("Cs",),
                            blacklist_characters="\x85\u2028\u2029\ufeff\ufffe\uffff")
TRICKY = ["2026", "yes", "no", "on", "off", "y", "true", "False", "null", "~", "2026-11-30", "2026-11-30T10:00:00Z",
          "1e3", "0x1F", "0o17", "1_000", "1:30", "-", "- x", "-x", "?x", "? x", "a: b", "a:b", "x #y", "x#y",
          "'q", '"dq', "it's", 'say "hi"', "tab\there", " lead", "trail ", "finance/payments", "中文 key",
          "...", "---", "--- x", "%x", "@x", "`x", "=", "<<", ".inf", ".nan", "+1", "007", "-1", "[x]", "{x}",
          "x,y", "&a", "*a", "!t", "|", ">", "#", "a\nb", "\x00", "\x1b[0m", "\x7f", "é", "Ünïcödé", "𝐀"]
keys = st.text(_text_chars, min_size=1, max_size=20) | st.sampled_from(TRICKY)
instants = st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2099, 12, 31),
                        timezones=st.just(dt.UTC)).map(stamp)
FIELDS = {"recalled_count", "upvoted_count", "last_recalled_at", "last_upvoted_at"}
scalars = (st.none() | st.booleans() | st.integers(-10**12, 10**12)
           | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(_text_chars, max_size=30) | st.sampled_from(TRICKY) | instants)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(keys, inner, max_size=3), max_leaves=6)
unknown_fields = st.dictionaries(keys.filter(lambda k: k not in FIELDS), values, max_size=2)


@st.composite
def entries(draw: st.DrawFn) -> dict[str, Any]:
    entry: dict[str, Any] = {"recalled_count": draw(st.integers(0, 10**6)),
                             "upvoted_count": draw(st.integers(0, 10**6)),
                             "last_recalled_at": draw(st.just("") | instants)}
    if draw(st.booleans()):
        entry["last_upvoted_at"] = draw(instants)
    entry.update(draw(unknown_fields))
    return entry


deltas = st.fixed_dictionaries({"recalled_delta": st.integers(-1000, 1000),
                                "upvoted_delta": st.integers(-1000, 1000)})


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    doc: dict[str, Any] = {"version": 2, "votes": draw(st.dictionaries(keys, entries(), max_size=5)),
                           "deltas": draw(st.dictionaries(keys, deltas, max_size=3))}
    doc.update(draw(st.dictionaries(keys.filter(lambda k: k not in doc), values, max_size=2)))
    return doc


def has_lists(value: Any) -> bool:
    if isinstance(value, list):
        return True
    return isinstance(value, dict) and any(has_lists(v) for v in value.values())


def one_line(value: Any) -> bool:
    """No list and no string value that teamai's writer would spread over lines (a line break, or
    longer than it folds); only keys nobody knows hold such values."""
    if isinstance(value, list):
        return False
    if isinstance(value, dict):
        return all(one_line(v) for v in value.values())
    return not isinstance(value, str) or ("\n" not in value and len(value) <= 40)


# --- the ways YAML spells them -------------------------------------------------------------------

_CORE_NON_STRING = re.compile(
    r"^(?:~|null|Null|NULL|true|True|TRUE|false|False|FALSE|[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"
    r"|[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")
_NOT_PLAIN = re.compile(r"^[\n\t ,\[\]{}#&*!|>'\"%@`]|^[?-]$|^[?-][ \t]|[\n:][ \t]|[ \t]\n|[\n\t ]#|[\n\t :]$")
_FORCE_DOUBLE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_DOCUMENT_MARKER = re.compile(r"^(?:%|---|\.\.\.)", re.MULTILINE)
_YAML_ESCAPES = {"0000": "\\0", "0007": "\\a", "000b": "\\v", "001b": "\\e"}


def double_quoted(text: str) -> str:
    """As ``yaml``'s doubleQuotedString writes a one-line string: JSON, with YAML's short escapes."""
    def short(match: re.Match[str]) -> str:
        pairs, code = match.group(1), match.group(2)
        return pairs + _YAML_ESCAPES.get(code, "\\x" + code[2:] if code.startswith("00") else "\\u" + code)
    # An escape is a backslash after an even number of escaped backslashes: in ``\\u0000`` (the text
    # "\u0000") the backslash is the text's own and "u0000" is plain text.
    escaped = re.sub(r"(?<!\\)((?:\\\\)*)\\u([0-9a-f]{4})", short, json.dumps(text, ensure_ascii=False))
    # DEL and the C1 controls: teamai's writer leaves them raw, which YAML (and PyYAML) refuse.
    return re.sub("[\x7f-\x9f]", lambda m: f"\\x{ord(m.group()):02x}", escaped)


def single_quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def teamai_string(text: str, is_key: bool) -> str:
    """What ``YAML.stringify`` writes for a string (one-line forms only: a value it would fold or
    write as a block scalar is double-quoted here, which it also reads)."""
    if text == "":
        return '""'
    if _FORCE_DOUBLE.search(text) or ("\n" in text) or (not is_key and len(text) > 60):
        return double_quoted(text)
    if "\t" in text:  # teamai leaves a tab in a plain scalar, which PyYAML refuses: no oracle for it here
        return double_quoted(text)
    if _NOT_PLAIN.search(text) or _DOCUMENT_MARKER.search(text) or _CORE_NON_STRING.match(text):
        return single_quoted(text) if '"' in text and "'" not in text else double_quoted(text)
    return text


def scalar(value: Any, style: str, is_key: bool = False) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return json.dumps(value)
    if style == "teamai" or (style == "flow" and not is_key):
        return teamai_string(value, is_key)
    if style == "single" and not (_FORCE_DOUBLE.search(value) or "\n" in value):
        return single_quoted(value)
    return double_quoted(value)


def flow(value: Any, style: str) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{double_quoted(k)}: {flow(v, style)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(flow(v, style) for v in value) + "]"
    if isinstance(value, str):
        return double_quoted(value)
    return scalar(value, style)


def block(value: dict[str, Any], style: str, indent: int = 0, flow_depth: int | None = None) -> list[str]:
    """Block mappings as YAML.stringify lays them out; below ``flow_depth`` the values go in flow style."""
    pad = " " * indent
    lines = []
    for key, item in value.items():
        head = f"{pad}{scalar(key, style, is_key=True)}:"
        if flow_depth is not None and indent // 2 >= flow_depth:
            lines.append(f"{head} {flow(item, style)}")
        elif isinstance(item, dict) and item:
            lines.append(head)
            lines.extend(block(item, style, indent + 2, flow_depth))
        elif isinstance(item, dict):
            lines.append(f"{head} {{}}")
        elif isinstance(item, list) and item:
            lines.append(head)
            lines.extend(f"{pad}  - {flow(v, style)}" for v in item)
        elif isinstance(item, list):
            lines.append(f"{head} []")
        else:
            lines.append(f"{head} {scalar(item, style)}")
    return lines


_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
SPELLINGS = {
    "teamai": lambda doc: "\n".join(block(doc, "teamai")) + "\n",
    "double-quoted": lambda doc: "\n".join(block(doc, "double")) + "\n",
    "single-quoted": lambda doc: "\n".join(block(doc, "single")) + "\n",
    "flow-entries": lambda doc: "\n".join(block(doc, "flow", flow_depth=2)) + "\n",
    "flow-sections": lambda doc: "\n".join(block(doc, "flow", flow_depth=1)) + "\n",
    "json": lambda doc: re.sub("[\x7f-\x9f]", lambda m: f"\\u{ord(m.group()):04x}",
                               json.dumps(doc, ensure_ascii=False, indent=1)) + "\n",
    "pyyaml-block": lambda doc: yaml.dump(doc, Dumper=_DUMPER, allow_unicode=True, sort_keys=False,
                                          default_flow_style=False),
    "pyyaml-flow": lambda doc: yaml.dump(doc, Dumper=_DUMPER, allow_unicode=True, sort_keys=False,
                                         default_flow_style=True),
}


# --- the properties ------------------------------------------------------------------------------

@settings(max_examples=250, deadline=None)
@given(documents(), st.sampled_from(sorted(SPELLINGS)))
# a key holding a backslash and "u0000" as text, once spelt by the oracle as the escape of NUL
@example({"version": 2, "votes": {"\\u0000": {"recalled_count": 0, "upvoted_count": 0, "last_recalled_at": ""}},
          "deltas": {}}, "double-quoted")
def test_every_spelling_round_trips_by_meaning(doc: dict[str, Any], spelling: str) -> None:
    text = SPELLINGS[spelling](doc)
    if spelling.startswith("pyyaml"):
        # PyYAML writes YAML 1.1: it leaves plain what 1.1 reads as a string but 1.2 may not (``0E0``).
        assert yaml11(text) == doc
        assume(oracle(text) == doc)
    assert oracle(text) == doc, "the spelling itself is wrong"
    read = ledger.parse(text)
    assert read == doc
    written = ledger_write.dump(read)
    assert ledger.parse(written) == doc
    assert oracle(written) == doc
    assert yaml11(written) == doc, "PyYAML's default reading must agree too"


@settings(max_examples=200, deadline=None)
@given(documents())
def test_teamai_spelling_and_ours_need_no_yaml(doc: dict[str, Any]) -> None:
    """The fast reader (no PyYAML) reads teamai's spelling and ours whenever there is no list in
    them (lists appear only under keys neither tool knows)."""
    if has_lists(doc):
        return
    assert ledger_read._fast_parse(SPELLINGS["teamai"](doc)) == doc
    assert ledger_read._fast_parse(ledger_write.dump(doc)) == doc


# --- teamai's own yaml package, when it is installed -------------------------------------------

_NODE_SCRIPT = r"""
const YAML = require('yaml');
const rl = require('readline').createInterface({input: process.stdin});
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  let out;
  try {
    out = msg.op === 'stringify' ? {text: YAML.stringify(msg.data)} : {data: YAML.parse(msg.text)};
  } catch (e) { out = {error: String(e)}; }
  process.stdout.write(JSON.stringify(out) + '\n');
});
"""


def _yaml_package(entry: str) -> str | None:
    here = os.path.dirname(entry)
    while here != os.path.dirname(here):
        if os.path.basename(here) == "node_modules" and os.path.isdir(os.path.join(here, "yaml")):
            return here
        here = os.path.dirname(here)
    return None


class TeamaiYaml:
    def __init__(self, node_modules: str) -> None:
        self.proc = subprocess.Popen(["node", "-e", _NODE_SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     env={**os.environ, "NODE_PATH": node_modules}, text=True, encoding="utf-8")

    def ask(self, **message: Any) -> Any:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(message, ensure_ascii=False) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        assert "error" not in answer, answer["error"]
        return answer

    def stringify(self, data: Any) -> str:
        return str(self.ask(op="stringify", data=data)["text"])

    def parse(self, text: str) -> Any:
        return self.ask(op="parse", text=text)["data"]


@pytest.fixture(scope="module")
def teamai_yaml(teamai_cli: str) -> Iterator[TeamaiYaml]:
    found = _yaml_package(teamai_cli)
    if not (found and shutil.which("node")):
        pytest.skip("node and teamai-cli's yaml package are not installed")
    peer = TeamaiYaml(found)
    yield peer
    assert peer.proc.stdin
    peer.proc.stdin.close()
    peer.proc.wait(timeout=30)


def js_exact(value: Any) -> bool:
    """Whether JavaScript holds this value as Python does: a float with an integral value beyond
    2**53 comes back from JavaScript as a Python int that is not equal to it."""
    if isinstance(value, dict):
        return all(js_exact(v) for v in value.values())
    if isinstance(value, list):
        return all(js_exact(v) for v in value)
    if isinstance(value, float):
        return not value.is_integer() or abs(value) < 2**53
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) < 2**53
    return True


json_documents = documents().filter(js_exact)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(json_documents)
def test_teamai_reads_what_we_write_and_we_read_what_it_writes(teamai_yaml: TeamaiYaml, doc: dict[str, Any]) -> None:
    theirs = teamai_yaml.stringify(doc)
    if one_line(doc):
        assert ledger_read._fast_parse(theirs) == doc, "teamai's spelling must not need PyYAML"
    else:
        # Lists and multi-line strings (only under keys nobody knows) go to PyYAML, which refuses
        # the DEL and C1 controls teamai leaves raw inside quotes.
        assume(not re.search("[\x7f-\x9f]", theirs))
    assert ledger.parse(theirs) == doc
    assert teamai_yaml.parse(ledger_write.dump(doc)) == doc
