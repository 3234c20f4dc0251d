"""Hand-edited and corrupt votes ledgers: whatever the file holds, a raise (what recall and a Stop
do) never crashes; a file that reads as a ledger keeps everything it held and gains the raise; a
file that does not is moved aside byte for byte and named, never overwritten.

The two inputs the issue found (a line that is only ``:``, a ledger saved with a byte order mark)
are examples of the classes generated here: ledger text edited at random places with the
characters YAML gives meaning to, and arbitrary text and bytes.
"""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from reference.state import ledger, ledger_read

GOOD = """version: 2
votes:
  redis-timeout:
    recalled_count: 3
    upvoted_count: 1
    last_recalled_at: 2026-11-30T10:00:00.000Z
    last_upvoted_at: 2026-11-30T11:00:00.000Z
  "yes":
    recalled_count: 1
    upvoted_count: 0
    last_recalled_at: ""
deltas:
  redis-timeout:
    recalled_delta: 3
    upvoted_delta: 1
extra: {}
"""
STAMP = "2026-12-01T10:00:00.000Z"
MARKS = ":-?#{}[]\"'!&*|>%@`, \t\n\r\ufeff\x00\x85\u2028abc019."


@st.composite
def edited(draw: st.DrawFn) -> bytes:
    """The good ledger with a few characters inserted, deleted or replaced, or a line dropped or
    repeated, as a hand edit leaves it."""
    text = GOOD
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(text)))
        how = draw(st.sampled_from(["insert", "delete", "replace", "line", "repeat"]))
        piece = draw(st.text(alphabet=MARKS, min_size=1, max_size=3))
        if how == "insert":
            text = text[:at] + piece + text[at:]
        elif how == "delete":
            text = text[:at] + text[at + len(piece):]
        elif how == "replace":
            text = text[:at] + piece + text[at + len(piece):]
        else:
            start = text.rfind("\n", 0, at) + 1
            end = text.find("\n", at)
            end = len(text) if end < 0 else end + 1
            text = text[:start] + (text[start:end] * 2 if how == "repeat" else "") + text[end:]
    return text.encode("utf-8", "surrogatepass")


inputs = st.one_of(edited(), st.text(alphabet=MARKS, max_size=40).map(lambda t: t.encode()),
                   st.text(max_size=60).map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=40))


def _raise(tmp: Path, data: bytes) -> tuple[list[str], Path]:
    path = tmp / "votes.yaml"
    for old in tmp.iterdir():
        old.unlink()
    path.write_bytes(data)
    warnings: list[str] = []
    with ledger.raising(str(path), str(tmp / "votes.lock"), 1.0, STAMP, warnings.append) as tally:
        tally.add("redis-timeout", "recalled_count", "last_recalled_at", STAMP)
    return warnings, path


@settings(max_examples=400)
@given(inputs)
@example(b"version: 2\nvotes:\n  :\n")
@example(b":\n")
@example(b"  \n:\n")
@example(b"\xef\xbb\xbf" + GOOD.encode())
@example(b"\xef\xbb\xbf")
def test_any_ledger_text_is_raised_or_set_aside_never_lost(tmp_path_factory, data):
    tmp = tmp_path_factory.mktemp("ledger")
    try:
        before = ledger.parse(data.decode("utf-8"))
    except (ledger_read.CorruptLedger, UnicodeDecodeError):
        before = None
    warnings, path = _raise(tmp, data)
    after = ledger.parse(path.read_text("utf-8"))
    aside = sorted(p for p in tmp.iterdir() if ".corrupt-" in p.name)
    if before is None:
        assert len(aside) == 1 and aside[0].read_bytes() == data  # moved aside, byte for byte
        assert len(warnings) == 1 and str(aside[0]) in warnings[0] and "\n" not in warnings[0]
        assert ledger.view(after) == {"redis-timeout": {"recalled_count": 1, "upvoted_count": 0,
                                                        "last_recalled_at": STAMP, "last_upvoted_at": None}}
        return
    assert not aside and not warnings
    # the mark that starts a file saved with one is no part of its first key; a key a hand edit spelt
    # with U+FEFF further down is a key nobody knows here, kept as read like any other
    text = data.decode("utf-8")
    assert not any(isinstance(k, str) and k.startswith("\ufeff") and text.startswith(k) for k in after)
    old, new = ledger.view(before), ledger.view(after)
    assert new["redis-timeout"]["recalled_count"] == old.get("redis-timeout", {}).get("recalled_count", 0) + 1
    assert {k: v for k, v in new.items() if k != "redis-timeout"} == {k: v for k, v in old.items()
                                                                       if k != "redis-timeout"}
    for key, value in before.items():  # every key nobody here knows is written back as read
        if key not in ("votes", "deltas"):
            assert after[key] == value


def test_recall_with_a_ledger_line_that_is_only_a_colon_still_answers(cli, team) -> None:  # type: ignore[no-untyped-def]
    from reference.state import storage
    from reference.team import config

    scope = config.load(cli.env).active
    storage.ensure_dir(scope.state_dir)
    Path(scope.ledger_path).write_text("version: 2\nvotes:\n  :\n")
    out = cli("recall", "redis timeout")
    assert out.code == 0 and "redis-timeout.md" in out.out


def test_a_ledger_saved_with_a_byte_order_mark_keeps_its_version_key(cli, team) -> None:  # type: ignore[no-untyped-def]
    from reference.state import storage
    from reference.team import config

    scope = config.load(cli.env).active
    storage.ensure_dir(scope.state_dir)
    Path(scope.ledger_path).write_bytes(b"\xef\xbb\xbf" + GOOD.encode())
    out = cli("recall", "redis timeout")
    assert out.code == 0
    text = Path(scope.ledger_path).read_text("utf-8")
    assert "\ufeff" not in text and "ufeff" not in text.lower() and text.startswith("version: 2\n")
    assert list(ledger.parse(text)) == ["version", "votes", "deltas", "extra"]
    assert ledger.read(scope.ledger_path)["redis-timeout"]["recalled_count"] == 4
