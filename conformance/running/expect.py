"""Checking a scenario's ``expect`` block against what the implementation did.

Every check yields :class:`Mismatch` values (never raises), each naming the path inside
``expect`` that failed, so a report can point at the exact line of the scenario. What each
``expect`` key means is here, and one rule no scenario can switch off: a hook step must exit 0
(:func:`hooks_exit_zero`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from ..corpus import levels
from .normalize import Normalizer, first_difference, matches, same_instant
from .substitute import Context, NotPrinted
from .text_region import closest

FINDING_MARKS = ("✖", "!", "⚠")
HIT_LINE = re.compile(r"^\[\d+/\d+\] ")
RELATED = "Related: "


@dataclass(frozen=True)
class Mismatch:
    path: str  # where in the scenario: expect.votes.redis-timeout.upvoted_count
    message: str
    expected: Any = None
    actual: Any = None

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "message": self.message, "expected": self.expected, "actual": self.actual}


@dataclass
class StepOutcome:
    """What one step did, as the driver answered it."""

    index: int
    action: str
    name: str | None
    now: str
    exit: int | None
    stdout: str
    stderr: str
    run: str | None = None


def evaluate(expect: Mapping[str, Any], observed: Mapping[str, Any], steps: list[StepOutcome],
             ctx: Context, norm: Normalizer, lenient: bool = False, where: str = "expect",
             hooks: bool = True) -> list[Mismatch]:
    """Every expectation judged on its own: one that names a run id the implementation never
    printed fails where it stands, and the others are still judged.

    ``lenient``: judged as the spec and decision levels are (``levels``), on meaning where the
    proposals leave the spelling open. ``where``: the block's key, which mismatch paths start
    with. ``hooks``: also the harness's own rule that every hook step exits 0."""
    out = _evaluate(expect, observed, steps, ctx, norm, lenient)
    if where != "expect":
        out = [replace(m, path=where + m.path[len("expect"):]) if m.path.startswith("expect") else m for m in out]
    return (hooks_exit_zero(steps) if hooks else []) + out


def _evaluate(expect: Mapping[str, Any], observed: Mapping[str, Any], steps: list[StepOutcome],
              ctx: Context, norm: Normalizer, lenient: bool) -> list[Mismatch]:
    out: list[Mismatch] = []

    def subst(where: str, value: Any, apply: Callable[[Any], Any] = ctx.apply) -> tuple[Any, list[Mismatch]]:
        try:
            return apply(value), []
        except NotPrinted as exc:
            return None, [unprinted(where, exc, ctx, norm.text)]

    votes = observed.get("votes") or {}
    if "votes" in expect:
        want, missed = subst("expect.votes", expect["votes"])
        out += missed or _votes(want, votes, lenient)
    if "no_votes" in expect:
        want, missed = subst("expect.no_votes", expect["no_votes"])
        out += missed or _no_votes(want, votes)
    log = [norm(line) for line in observed.get("log") or []]
    for key, judge in (("log_contains", _contains), ("log_absent", _absent)):
        for i, item in enumerate(expect.get(key) or []):
            where = f"expect.{key}[{i}]"
            want, missed = subst(where, item)
            out += missed or judge(where, norm(want), log, lenient)
    credits = [norm(c) for c in observed.get("credited") or []]
    if "credited" in expect:
        want, missed = subst("expect.credited", expect["credited"])
        out += missed or _credited(norm(want), credits, observed.get("credited") is not None)
    for i, item in enumerate(expect.get("not_credited") or []):
        where = f"expect.not_credited[{i}]"
        want, missed = subst(where, item)
        out += missed or _absent(where, norm(want), credits, True, "credit")
    if "log_lines" in expect and len(log) != expect["log_lines"]:
        out.append(Mismatch("expect.log_lines", "the log holds another number of lines", expect["log_lines"],
                            len(log)))
    if "stats" in expect:
        want, missed = subst("expect.stats", expect["stats"])
        out += missed or _stats(norm(want), observed.get("stats"), norm, str(observed.get("stats_note") or ""),
                                lenient)
    if "ledger_file" in expect:
        want, missed = subst("expect.ledger_file", expect["ledger_file"])
        out += missed or ledger_file(want, observed.get("ledger"), lenient)
    if "never_in_state" in expect:
        want, missed = subst("expect.never_in_state", expect["never_in_state"])
        out += missed or _never(want, observed)
    named = {s.name: s for s in steps if s.name}
    for name, wanted in (expect.get("steps") or {}).items():
        where = f"expect.steps.{name}"
        step = named.get(name)
        if step is None:
            out.append(Mismatch(where, "no step has this name"))
            continue
        want, missed = subst(where, wanted, lambda value: _apply_step(value, ctx))
        out += missed or _step(where, want, step, ctx)
    return out


def unprinted(where: str, exc: NotPrinted, ctx: Context, text: Callable[[str], str]) -> Mismatch:
    """The mismatch for a place (a step or an expectation) that needs what a step never printed."""
    printed = ctx.steps.get(exc.step, {}).get("output")
    return Mismatch(where, f"{exc}, and this needs it", "a run id ( run=<id>)" if exc.what == "run"
                    else f"its {exc.what}", text(printed or ""))


def _contains(where: str, want: Any, log: list[Any], lenient: bool = False, what: str = "log line") -> list[Mismatch]:
    if any(matches(want, line, lenient) for line in log):
        return []
    return [Mismatch(where, f"no {what} matches", want, _closest(want, log))]


def _absent(where: str, want: Any, log: list[Any], lenient: bool = False, what: str = "log line") -> list[Mismatch]:
    hit = next((line for line in log if matches(want, line, lenient)), None)
    return [] if hit is None else [Mismatch(where, f"a {what} matches", want, hit)]


def _credited(want: list[Any], credits: list[Any], answered: bool) -> list[Mismatch]:
    """Each wanted credit is a distinct credit of the implementation (two alike ask for two)."""
    if not answered:
        return [Mismatch("expect.credited", "the implementation did not say which reads it credited", want, None)]
    kept: list[Any] = []
    out = []
    for i, item in enumerate(want):
        if pair_up([*kept, item], credits, lambda w, c: matches(w, c, True)) is None:
            out.append(Mismatch(f"expect.credited[{i}]", "no credit left to match", item, credits))
        else:
            kept.append(item)
    return out


def hooks_exit_zero(steps: list[StepOutcome]) -> list[Mismatch]:
    """A hook must never break the agent: every hook step exits 0, whatever the scenario says."""
    return [Mismatch(f"steps[{s.index}].hook", "a hook exited non-zero", 0, {"exit": s.exit, "stderr": s.stderr})
            for s in steps if s.action == "hook" and s.exit != 0]


def _votes(want: Mapping[str, Any], votes: Mapping[str, Any], lenient: bool = False) -> list[Mismatch]:
    out = []
    for key, fields in want.items():
        if key not in votes:
            out.append(Mismatch(f"expect.votes.{key}", "the ledger has no entry for this key", fields,
                                "<missing>"))
            continue
        diff = first_difference(fields or {}, votes[key], f"expect.votes.{key}", lenient)
        if diff:
            out.append(Mismatch(diff[0], "vote counter differs", diff[1], diff[2]))
    return out


def _no_votes(keys: list[str], votes: Mapping[str, Any]) -> list[Mismatch]:
    out = []
    for i, key in enumerate(keys):
        entry = votes.get(key)
        if isinstance(entry, Mapping) and entry.get("upvoted_count", 0):
            out.append(Mismatch(f"expect.no_votes[{i}]", f"{key} was upvoted", 0, entry.get("upvoted_count")))
    return out


def _stats(want: Any, rows: Any, norm: Normalizer, note: str = "", lenient: bool = False) -> list[Mismatch]:
    if rows is None:
        return [Mismatch("expect.stats", "the implementation reported no stats rows" + (f": {note}" if note else ""),
                         want, None)]
    rows = norm(rows)
    if lenient:
        return _stats_by_column(want, rows)
    diff = first_difference(want, rows, "expect.stats")
    return [Mismatch(diff[0], "stats rows differ", diff[1], diff[2])] if diff else []


def _stats_by_column(want: list[Any], rows: list[Any]) -> list[Mismatch]:
    """Stats rows as the spec reads them: each wanted row is one row of the table, by column, in
    any order; a session may be shown by a prefix of at least 8 characters that names only it."""
    sessions = [str(w.get("session")) for w in want if isinstance(w, Mapping) and "session" in w]
    shown = [_full_session(row, sessions) for row in rows]
    if len(want) != len(shown):
        return [Mismatch("expect.stats.length", "another number of stats rows", want, rows)]
    pairing = pair_up(want, shown, lambda w, r: matches(w, r, True))
    if pairing is None:
        return [Mismatch("expect.stats", "no way to pair the stats rows, each with one wanted row", want, rows)]
    return []


def _full_session(row: Any, sessions: list[str]) -> Any:
    if not isinstance(row, Mapping) or not isinstance(row.get("session"), str):
        return row
    shown = row["session"].rstrip("…").removesuffix("...")
    if shown in sessions or len(shown) < levels.SESSION_PREFIX:
        return row
    named = [s for s in sessions if s.startswith(shown)]
    return {**row, "session": named[0]} if len(named) == 1 else row


def pair_up(wanted: list[Any], actual: list[Any], fits: Callable[[Any, Any], bool]) -> list[int] | None:
    """A one-to-one pairing of every wanted item with a distinct actual item it fits (the index
    of each one's partner), or None when there is none (augmenting paths, as in bipartite matching)."""
    partner: dict[int, int] = {}  # actual index -> wanted index
    edges = [[j for j, got in enumerate(actual) if fits(want, got)] for want in wanted]

    def place(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j not in seen:
                seen.add(j)
                if j not in partner or place(partner[j], seen):
                    partner[j] = i
                    return True
        return False

    if not all(place(i, set()) for i in range(len(wanted))):
        return None
    mine = {i: j for j, i in partner.items()}
    return [mine[i] for i in range(len(wanted))]


def ledger_file(want: Any, text: Any, lenient: bool = False) -> list[Mismatch]:
    """The votes ledger file, read as YAML with every scalar kept as its text, holds ``want`` as a
    subset: a mapping matches key by key, a scalar by its text, and null means the key is absent.
    Read here, not by the implementation, so a file only its writer can read back fails.
    ``lenient``: scalars by meaning (``1`` and ``1.0``, two spellings of one instant, ``true`` and
    ``True``), as the spec level reads teamai's file."""
    import yaml

    where = "expect.ledger_file"
    if not isinstance(text, str):
        return [Mismatch(where, "there is no votes ledger file", want, None)]
    try:
        data = yaml.load(text, Loader=yaml.BaseLoader)  # noqa: S506 - BaseLoader builds only strings, lists, dicts
    except yaml.YAMLError as exc:
        return [Mismatch(where, f"the votes ledger is not YAML: {str(exc).splitlines()[0]}", want, text[:300])]
    return _subset(where, want, data, lenient)


def _subset(where: str, want: Any, got: Any, lenient: bool = False) -> list[Mismatch]:
    if isinstance(want, Mapping):
        if not isinstance(got, Mapping):
            return [Mismatch(where, "not a mapping", dict(want), got)]
        out: list[Mismatch] = []
        for key, value in want.items():
            if value is None:
                if str(key) in got:
                    out.append(Mismatch(f"{where}.{key}", "the key must be absent", None, got[str(key)]))
            elif str(key) not in got:
                out.append(Mismatch(f"{where}.{key}", "the key is missing", value, None))
            else:
                out += _subset(f"{where}.{key}", value, got[str(key)], lenient)
        return out
    text = ("true" if want else "false") if isinstance(want, bool) else str(want)
    if got == text or (lenient and _same_meaning(text, got)):
        return []
    return [Mismatch(where, "the value differs", text, got)]


def _same_meaning(text: str, got: Any) -> bool:
    if not isinstance(got, str):
        return False
    if text.lower() in ("true", "false") and got.lower() == text.lower():
        return True
    try:
        return float(text) == float(got)
    except ValueError:
        return same_instant(text, got)


def _never(texts: list[str], observed: Mapping[str, Any]) -> list[Mismatch]:
    haystacks: list[str] = [json.dumps(line, ensure_ascii=False) for line in observed.get("log") or []]
    haystacks.append(json.dumps(observed.get("votes") or {}, ensure_ascii=False))
    haystacks.extend(str(v) for v in (observed.get("raw") or {}).values())
    out = []
    for i, text in enumerate(texts):
        found = next((h for h in haystacks if text in h), None)
        if found is not None:
            out.append(Mismatch(f"expect.never_in_state[{i}]", f"{text!r} appears in the state", None,
                                found[:300]))
    return out


def _apply_step(want: Mapping[str, Any], ctx: Context) -> dict[str, Any]:
    """Substitutions in a step's expectations; inside a regular expression they match literally."""
    out = {k: ctx.apply(v) for k, v in want.items() if k not in levels.PATTERN_KEYS}
    out.update({k: ctx.apply(want[k], escape=re.escape) for k in levels.PATTERN_KEYS if k in want})
    return out


def _step(path: str, want: Mapping[str, Any], step: StepOutcome, ctx: Context) -> list[Mismatch]:
    out = []
    if "exit" in want and not matches(want["exit"], step.exit):
        out.append(Mismatch(f"{path}.exit", "exit status differs", want["exit"],
                            {"exit": step.exit, "stderr": step.stderr.strip()[-500:]}))
    for i, text in enumerate(want.get("output_contains") or []):
        if str(text) not in step.stdout:
            region, first, last = closest(str(text), step.stdout)
            where = f"lines {first}-{last}" if last > first else f"line {first}"
            out.append(Mismatch(f"{path}.output_contains[{i}]", "stdout does not contain it; the closest "
                                f"{where} of {len(step.stdout.splitlines())} are shown", text, region))
    for key, stream in levels.PATTERN_KEYS.items():
        text = str(getattr(step, stream))
        for i, pattern in enumerate(want.get(key) or []):
            try:
                found = re.search(str(pattern), text, re.MULTILINE)
            except re.error as exc:
                out.append(Mismatch(f"{path}.{key}[{i}]", f"not a regular expression: {exc}", pattern))
                continue
            if found is None:
                out.append(Mismatch(f"{path}.{key}[{i}]", f"{stream} does not match it", pattern, text[-2000:]))
    for tree_path, lines in (want.get("related") or {}).items():
        actual = related_lines(step.stdout, _hit_path(tree_path, ctx))
        expected = [_strip_related(str(line)) for line in lines or []]
        if actual is None:
            out.append(Mismatch(f"{path}.related.{tree_path}", "no hit with this path in the output",
                                expected, None))
        elif actual != expected:
            out.append(Mismatch(f"{path}.related.{tree_path}", "Related: lines differ", expected, actual))
    if "findings" in want:
        actual = findings(step.stdout, step.stderr)
        wanted = list(want["findings"] or [])
        if all(isinstance(item, Mapping) for item in wanted):
            if len(actual) != len(wanted) or pair_up(wanted, actual, finding_fits) is None:
                out.append(Mismatch(f"{path}.findings", "findings differ (by severity, file, relation and target)",
                                    wanted, actual))
        elif actual != [str(line).strip() for line in wanted]:
            out.append(Mismatch(f"{path}.findings", "findings differ", [str(x).strip() for x in wanted], actual))
    return out


def finding_fits(want: Mapping[str, Any], line: str) -> bool:
    """Whether a printed finding line is the finding ``want`` names, whatever its words: its mark
    says the severity, and it names the file, the relation (as a word) and the target."""
    if levels.severity(line[:1]) != want.get("severity"):
        return False
    for key in ("file", "target"):
        if want.get(key) and str(want[key]) not in line:
            return False
    relation = want.get("relation")
    return not relation or re.search(rf"(?<![A-Za-z_]){re.escape(str(relation))}(?![A-Za-z_])", line) is not None


def _hit_path(tree_path: str, ctx: Context) -> str:
    if tree_path.startswith("user:"):
        return ctx.resolve("user:path:" + tree_path[5:])
    return ctx.resolve("path:" + tree_path)


def _strip_related(line: str) -> str:
    line = line.strip()
    return line[len(RELATED):] if line.startswith(RELATED) else line


def related_lines(stdout: str, printed_path: str) -> list[str] | None:
    """The ``Related:`` lines (without the label) of the hit whose ``File:`` is ``printed_path``."""
    block: list[str] = []
    blocks: list[list[str]] = []
    for line in stdout.splitlines():
        if HIT_LINE.match(line):
            block = []
            blocks.append(block)
        block.append(line)
    for lines in blocks:
        if f"File: {printed_path}" in lines:
            return [_strip_related(x) for x in lines if x.startswith(RELATED)]
    return None


def findings(stdout: str, stderr: str) -> list[str]:
    """Finding lines (``✖``, ``!``, ``⚠``) in the order printed, stdout first."""
    lines = [x.strip() for x in (stdout.splitlines() + stderr.splitlines())]
    return [x for x in lines if x.startswith(FINDING_MARKS)]


def _closest(want: Any, log: list[Any]) -> Any:
    """The log line of the same kind that gets furthest before differing, to show next to a miss."""
    kind = want.get("kind") if isinstance(want, dict) else None
    same = [line for line in log if not kind or (isinstance(line, dict) and line.get("kind") == kind)]
    return same[-1] if same else f"<{len(log)} log lines, none of kind {kind!r}>"
