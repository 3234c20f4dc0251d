"""PyYAML read through ``reference.yaml_strict`` gives libyaml's answer with PyYAML's Python reader too."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference import yaml_strict
from reference.state import ledger_read
from reference.team import frontmatter

C_LOADER = getattr(yaml, "CSafeLoader", None)
LOADERS = [yaml.SafeLoader, *([C_LOADER] if C_LOADER is not None else [])]


def _answer(text: str, loader: type) -> object:
    try:
        return ("data", yaml_strict.load(yaml, text, loader))
    except yaml.YAMLError as exc:
        return ("refused", getattr(exc, "problem", None))


@pytest.mark.parametrize("loader", LOADERS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("text", ['a: "\\ud800"\n', 'a: ["x", "\\udfff y"]\n', '"\\udc00": 1\n',
                                  'a: {b: "\\U0000d800"}\n'])
def test_a_lone_surrogate_escape_is_refused_by_either_reader(loader, text):
    with pytest.raises(yaml.scanner.ScannerError) as caught:  # libyaml's error, from either reader
        yaml_strict.load(yaml, text, loader)
    assert caught.value.problem == yaml_strict.LONE_SURROGATE


@pytest.mark.parametrize("loader", LOADERS, ids=lambda c: c.__name__)
def test_escapes_of_characters_are_read(loader):
    assert yaml_strict.load(yaml, 'a: "\\u00e9\\U0001F600 \\\\ud800"\n', loader) == {"a": "é😀 \\ud800"}


_ESCAPES = st.sampled_from(["\\ud800", "\\udbff", "\\udc00", "\\udfff", "\\u00e9", "\\u0041", "\\U0001F600",
                            "\\U0000dc01", "\\x41", "\\n", "\\\\", "x", " "])


@pytest.mark.skipif(C_LOADER is None, reason="PyYAML was built without libyaml here")
@settings(max_examples=300, deadline=None)
@given(st.lists(_ESCAPES, max_size=6), st.booleans())
@example(["\\ud800", "\\udc00"], False)  # a surrogate pair spelled as two escapes: libyaml refuses it too
def test_both_readers_give_the_same_answer(parts, as_key):
    scalar = '"' + "".join(parts) + '"'
    text = f"{scalar}: 1\n" if as_key else f"k: {scalar}\n"
    assert _answer(text, yaml.SafeLoader) == _answer(text, C_LOADER)


def test_a_ledger_holding_a_surrogate_escape_is_corrupt_whichever_reader(monkeypatch):
    monkeypatch.setattr(ledger_read, "_LOADER", None)  # put back after: later readers keep the real loader
    monkeypatch.delattr(yaml, "CSafeLoader", raising=False)  # as if PyYAML had no libyaml
    with pytest.raises(ledger_read.CorruptLedger, match="invalid Unicode character escape"):
        ledger_read._yaml_parse('version: 2\nvotes:\n  k: {note: "\\ud800"}\n')


def test_frontmatter_with_a_surrogate_escape_is_malformed_whichever_reader(monkeypatch):
    monkeypatch.delattr(yaml, "CSafeLoader", raising=False)
    parsed = frontmatter.split('---\ntitle: "pool \\ud800"\ntags: [a, &x b]\n---\nbody\n')
    assert parsed.meta == {} and parsed.body == "body\n"
    assert parsed.problem is not None and "invalid Unicode character escape" in parsed.problem
