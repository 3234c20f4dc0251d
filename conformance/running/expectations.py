"""Per-implementation expected failures, kept outside the corpus, keyed by case id::

    [attr-claude-read-counts]
    status = "fail"        # "fail": expected not to pass (any of fail, error, crash, timeout)
    reason = "evidence for Read is not written yet"

    [attr-hangs-forever]
    status = "skip"        # not run at all
    reason = "hangs the driver"

An expected failure that passes is an ``xpass`` and counts as unexpected, so a fixed bug
cannot stay listed unnoticed. ``--update-expectations`` rewrites the file named by
``--expectations`` from a run: it adds every case that failed unexpectedly, drops every case
that now passes, and keeps the reasons of the entries that stay and the comment block the file
starts with (where a peer's file says, apart from its failures, where it differs on decisions). The run is then judged by the
file just written, so an update exits 0 unless the driver could not be used at all.

A case id the corpus does not have can never match: every run that reads the file warns about
it, and ``corpus-lint`` refuses it in the project's own files.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import tomli_w

from reference import bounded

from . import outcomes
from .outcomes import CaseResult

STATUSES = ("fail", "skip")


class ExpectationsError(ValueError):
    pass

MAX_FILE = 16 << 20  # an expectations file to read; one that never ends is refused


@dataclass(frozen=True)
class Expected:
    status: str
    reason: str


def load(path: Path) -> dict[str, Expected]:
    try:
        data = tomllib.loads(bounded.read_file(str(path), MAX_FILE).decode("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError, bounded.TooLarge) as exc:
        raise ExpectationsError(f"{path}: {exc}") from exc
    result: dict[str, Expected] = {}
    for case_id, entry in data.items():
        if not isinstance(entry, dict) or entry.get("status") not in STATUSES:
            raise ExpectationsError(f"{path}: [{case_id}] needs status = \"fail\" or \"skip\"")
        result[case_id] = Expected(str(entry["status"]), str(entry.get("reason", "")))
    return result


def apply(result: CaseResult, expected: Expected | None) -> CaseResult:
    """Turn a raw outcome into xfail / xpass according to the file."""
    if expected is None or expected.status != "fail":
        return result
    result.reason = expected.reason
    if result.outcome in outcomes.NOT_PASSING:
        result.message = f"{result.outcome} (expected): {result.message}"
        result.outcome = outcomes.XFAIL
    elif result.outcome == outcomes.PASS:
        result.outcome = outcomes.XPASS
        result.message = f"passed, but listed as expected to fail: {expected.reason}"
    return result


def updated(current: dict[str, Expected], results: Iterable[CaseResult]) -> dict[str, Expected]:
    new = dict(current)
    for r in results:
        if r.outcome in outcomes.NOT_PASSING:
            first = (r.message.splitlines() or [r.outcome])[0]
            new[r.id] = Expected("fail", f"{r.outcome}: {first}"[:200])
        elif r.outcome in (outcomes.PASS, outcomes.XPASS):
            new.pop(r.id, None)
    return new


def save(path: Path, entries: dict[str, Expected], header: str | None = None) -> None:
    """Write ``entries``, under ``header`` (comment lines) or, when it is ``None``, under the
    comment block the file already starts with, so an update keeps what a person wrote there."""
    data = {k: {"status": e.status, "reason": e.reason} for k, e in sorted(entries.items())}
    if header is None:
        header = leading_comments(path)
    top = "\n".join(line if line.startswith("#") or not line.strip() else f"# {line}"
                    for line in header.strip("\n").splitlines())
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text((top + "\n\n" if top else "") + tomli_w.dumps(data), encoding="utf-8")


def leading_comments(path: Path) -> str:
    """The comment lines (and blank lines among them) a file starts with."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return ""
    out = []
    for line in lines:
        if not (line.startswith("#") or not line.strip()):
            break
        out.append(line)
    return "\n".join(out).strip("\n")


def unknown(entries: dict[str, Expected], ids: Iterable[str]) -> list[str]:
    """The entries' case ids that are not in ``ids``, in the file's order."""
    known = set(ids)
    return [case_id for case_id in entries if case_id not in known]


def unknown_warning(path: Path, strangers: list[str]) -> str:
    return (f"{path} names {len(strangers)} case{'s' if len(strangers) > 1 else ''} the corpus does not have: "
            + ", ".join(strangers))


def changes(before: dict[str, Expected], after: dict[str, Expected]) -> tuple[list[str], list[str]]:
    """(added, removed) case ids, sorted."""
    return sorted(after.keys() - before.keys()), sorted(before.keys() - after.keys())


def rejudge(results: Iterable[CaseResult], entries: dict[str, Expected]) -> None:
    """Judge ``results`` again by ``entries`` (the file an update just wrote)."""
    for r in results:
        if r.outcome == outcomes.XPASS and r.id not in entries:
            r.outcome, r.message, r.reason = outcomes.PASS, "", ""
        elif r.outcome in outcomes.NOT_PASSING:
            apply(r, entries.get(r.id))
