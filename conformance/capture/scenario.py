"""A captured session as a scenario: its payloads as corpus files, and steps that replay them.

Three things differ between the agent's machine and a sandbox, and each has one rule:

**Paths.** Every path the capture holds is re-rooted at the team folder the capture recorded
(``roots.team``), keeping its place relative to it: the team itself becomes ``${root:team}``, a
learnings root outside it ``${root:learnings}`` (``${root:learnings:2}`` …), the user-scope team
``${root:user_team}``, and the folders above the team ``${root:team}/..``, ``${root:team}/../..``
(down to the second level, so ``/home/user/proj/x.md`` stays beside the team and ``/usr/bin``
stays where it was). A read inside the team stays inside, a relative path keeps its base, a path
outside stays outside, so the hook decides as it did.

**Run ids.** The runs a capture shows were made by recall on the agent's machine; a replay makes
its own runs with new ids. Each run id printed on a recall start or no-hit line of a payload (a
*claimable* run, found as the hook finds it) becomes a recall step ``rN`` placed just before
the first step whose payload shows it. A payload value that is exactly one recall's output is set
to ``${rN.output}``; anywhere else (inside a JSON-encoded output such as Cursor's
``tool_output``, or beside other text) the id becomes ``${rN.run}``. The recall step's query is
not the captured one (queries are never stored): every ``File:`` path the run printed is
recreated as an asset at the same tree path, titled and tagged with a word of its own
(``capturedoc3``), and the recall asks for exactly those words, so it prints exactly those
assets. A no-hit run asks for a word no asset has. ``--caller X`` in the claiming command is
passed on, since the run line records it. The recall step sets no agent session variable (the
capture never saw the recall's environment): a claim settles the run, and a run that no payload
claims stays unsettled, where the agent's shell might have settled it.

**Time.** Every hook step runs at its captured instant, and each recall step one millisecond
before the step that first shows its run (never before the step preceding it).

Payload files keep the scrubbed payload as captured; the scenario changes only the values it
must, by ``set:``. A value that needs a change but holds a shell ``${…}`` expansion cannot be
written as a substitution; it is kept as captured and reported.
"""

from __future__ import annotations

import datetime as dt
import json
import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from reference.capture.scrub import SHOWN

from ..running import timeline
from .file import Call

_UUID = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_START = re.compile(r"^--- \[teamai:recall:start\] ---")
_END = "--- [teamai:recall:end] ---"
_FILE = re.compile(r"^File: (.+?)\s*$")
_CALLER = re.compile(r"--caller(?:=|\s+)[\"']?([\w.-]+)")
TOKEN = "capturedoc"
NO_HIT_QUERY = "capturenohit"


class BuildError(ValueError):
    pass


@dataclass
class Recall:
    name: str  # rN
    run: str  # the run id the capture shows
    docs: list[str]  # the File: paths it printed, as captured
    caller: str | None
    query: str = ""
    at: str = ""


@dataclass
class Built:
    scenario: dict[str, Any]
    payloads: dict[str, dict[str, Any]]  # "<agent>/<prefix>-<n>" -> payload file content
    recalls: list[Recall]
    steps: list[tuple[str, Call]]  # payload name per replayed call
    knowledge_roots: tuple[str, ...] = ()  # as the capture spells them, for explaining decisions
    warnings: list[str] = field(default_factory=list)


# The corpus's example places for each root token, longest first (payloads/README.md).
_CORPUS_SPELLING = [
    ("${root:team}/../../..", "/home"),
    ("${root:team}/../..", "/home/ana"),
    ("${root:team}/..", "/home/ana/proj"),
    ("${root:team}", "/home/ana/proj/team"),
    ("${root:user_team}", "/home/ana/.teamai/team"),
    *((f"${{root:learnings:{i}}}", f"/home/ana/learnings-{i}") for i in range(9, 1, -1)),
    ("${root:learnings}", "/home/ana/learnings"),
]


class Rerooter:
    """Captured absolute paths, spelled relative to the sandbox's roots (see the module docstring)."""

    def __init__(self, team: str, learnings: list[str], user_team: str | None) -> None:
        self.team = team.rstrip("/")
        default = [posixpath.join(self.team, "learnings")]
        self.learnings = [] if [p.rstrip("/") for p in learnings] in ([], default) else [p.rstrip("/") for p in learnings]
        self.user_team = user_team.rstrip("/") if user_team else None
        pairs = [(self.team, "${root:team}")]
        pairs += [(p, "${root:learnings}" if i == 1 else f"${{root:learnings:{i}}}")
                  for i, p in enumerate(self.learnings, 1)]
        if self.user_team:
            pairs.append((self.user_team, "${root:user_team}"))
        parts = self.team.strip("/").split("/")
        for k in range(1, len(parts) - 1):
            pairs.append(("/" + "/".join(parts[:-k]), "${root:team}" + "/.." * k))
        pairs.sort(key=lambda p: len(p[0]), reverse=True)
        self._patterns = [(re.compile(rf"(?<![\w.-]){re.escape(path)}(?=[/\\\s\"':;,)\]}}]|$)"), token)
                          for path, token in pairs if path]

    def text(self, value: str) -> str:
        for pattern, token in self._patterns:
            value = pattern.sub(lambda _m, t=token: t, value)  # type: ignore[misc]
        return value

    def corpus_text(self, value: str) -> str:
        """``value`` with its paths at the corpus's example places (payloads/README.md: the project
        ``/home/ana/proj``, the team ``/home/ana/proj/team``), for a payload file, whose values are
        defaults that a scenario's ``set:`` replaces: no machine's paths stay in the corpus."""
        if "${" in value:
            return value  # a shell expansion the scenario keeps as captured: so does the file
        spelled = self.text(value)
        if spelled == value:
            return value
        for token, path in _CORPUS_SPELLING:
            spelled = spelled.replace(token, path)
        return spelled

    def corpus_payload(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.corpus_text(value)
        if isinstance(value, dict):
            return {k: self.corpus_payload(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.corpus_payload(v) for v in value]
        return value

    def place(self, path: str) -> tuple[str, int, str] | None:
        """(tree, learnings root index, path in that tree) for an asset path recall printed."""
        for i, root in enumerate(self.learnings):
            if path.startswith(root + "/"):
                return "learnings", i, path[len(root) + 1:]
        if path.startswith(self.team + "/"):
            return "team", 0, path[len(self.team) + 1:]
        if self.user_team and path.startswith(self.user_team + "/"):
            return "user_team", 0, path[len(self.user_team) + 1:]
        return None


def infer_team(calls: list[Call]) -> str | None:
    """The team folder from the first ``File:`` path a recall printed (the part before the kind's folder)."""
    kinds = re.compile(r"^(.*?)/(?:learnings|rules|docs|skills|teamwiki)/")
    for call in calls:
        for text in texts(call.payload):
            for line in text.splitlines():
                m = _FILE.match(line)
                if m:
                    found = kinds.match(m.group(1))
                    if found and found.group(1):
                        return found.group(1)
    return None


def texts(value: Any) -> Iterator[str]:
    """Every string in a payload, and the strings inside strings that hold JSON."""
    if isinstance(value, str):
        yield value
        inner = _json_inside(value)
        if inner is not None:
            yield from texts(inner)
    elif isinstance(value, dict):
        for item in value.values():
            yield from texts(item)
    elif isinstance(value, list):
        for item in value:
            yield from texts(item)


def _json_inside(value: str) -> Any:
    stripped = value.strip()
    if not stripped.startswith(("{", "[")):
        return None
    try:
        parsed = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    return parsed if isinstance(parsed, (dict, list)) else None


def _printed(text: str, run: str) -> list[str]:
    """The File: paths of the recall output whose start line names ``run``."""
    docs: list[str] = []
    inside = False
    for line in text.splitlines():
        if inside and (_START.match(line) or line.strip() == _END or line.startswith("No matching learnings")):
            break
        if not inside and line.rstrip().lower().endswith(f"run={run}".lower()):
            inside = _START.match(line) is not None
            continue
        m = _FILE.match(line) if inside else None
        if m:
            docs.append(m.group(1))
    return docs


def build(calls: list[Call], prefix: str, roots: dict[str, Any], day: str,
          names: list[str] | None = None) -> Built:
    """``names``: each call's payload name (``<agent>/<name>``); by default ``<agent>/<prefix>-<n>``."""
    from reference.hook import claims

    rer = Rerooter(str(roots["team"]), [str(p) for p in roots.get("learnings") or []], roots.get("user_team"))
    warnings: list[str] = []
    recalls: dict[str, Recall] = {}
    steps: list[dict[str, Any]] = []
    named: list[tuple[str, Call]] = []
    payloads: dict[str, dict[str, Any]] = {}
    previous: dt.datetime | None = None
    for n, call in enumerate(calls, 1):
        instant = timeline.parse_instant(call.ts)
        for text in texts(call.payload):
            for run in claims.run_ids(text):
                if run in recalls:
                    continue
                recall = Recall(f"r{len(recalls) + 1}", run, _printed(text, run), _caller(call.payload))
                at = instant - dt.timedelta(milliseconds=1)
                recall.at = timeline.spell(max(at, previous) if previous else at)
                recalls[run] = recall
                steps.append({"recall": "", "as": recall.name, "at": recall.at,
                              **({"caller": recall.caller} if recall.caller else {})})
        name = f"{call.agent}/{prefix}-{n}" if names is None else names[n - 1]
        payloads[name] = {"provenance": {}, "agent": call.agent, "event": call.event,
                          "payload": rer.corpus_payload(call.payload)}
        step: dict[str, Any] = {"hook": name, "at": timeline.spell(instant)}
        changes = _changes(call.payload, recalls, rer, f"step {n} ({name})", warnings)
        if changes:
            step["set"] = changes
        steps.append(step)
        named.append((name, call))
        previous = instant
    team, learnings, user_team = _trees(list(recalls.values()), rer, warnings)
    for step in steps:
        if "recall" in step:
            step["recall"] = next(r.query for r in recalls.values() if r.name == step["as"])
    scenario: dict[str, Any] = {
        "id": prefix,
        "title": f"Captured {', '.join(sorted({c.agent for c in calls}))} session ({len(calls)} hook calls, "
                 f"{day}): the reference's decisions, replayed",
        "clauses": [],
        "provenance": "live-capture",
        "agents": sorted({c.agent for c in calls}),
        "start": steps[0]["at"],
        "team": team,
    }
    if learnings:
        scenario["learnings_roots"] = learnings
    if user_team is not None:
        scenario["user_team"] = user_team
    scenario["steps"] = steps
    known = [rer.team, *(rer.learnings or [posixpath.join(rer.team, "learnings")])]
    if rer.user_team:
        known += [rer.user_team, posixpath.join(rer.user_team, "learnings")]
    return Built(scenario, payloads, list(recalls.values()), named, tuple(known), warnings)


def _caller(payload: Any) -> str | None:
    tool_input = payload.get("tool_input") if isinstance(payload, dict) else None
    for text in texts(tool_input or {}):
        m = _CALLER.search(text)
        if m:
            return m.group(1)
    return None


def _changes(payload: Any, recalls: dict[str, Recall], rer: Rerooter, where: str,
             warnings: list[str]) -> dict[str, Any]:
    from reference.hook import claims

    out: dict[str, Any] = {}

    def walk(value: Any, path: list[str]) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                walk(item, [*path, str(key)])
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, [*path, str(i)])
        elif isinstance(value, str):
            new = _rewrite(value, recalls, rer, claims.run_ids)
            if new == value:
                return
            dotted = ".".join(path)
            if any("." in p for p in path) or not path:
                warnings.append(f"{where}: {dotted!r} cannot be named by set: (a key holds a dot); kept as captured")
            elif "${" in value:
                warnings.append(f"{where}: {dotted} holds a shell ${{…}} expansion, so it cannot be rewritten; "
                                "kept as captured (its paths point outside the sandbox)")
            else:
                out[dotted] = new

    walk(payload, [])
    return out


def _rewrite(value: str, recalls: dict[str, Recall], rer: Rerooter, run_ids: Any) -> str:
    shown = [r for r in run_ids(value) if r in recalls]
    stripped = value.lstrip()
    if len(shown) == 1 and (_START.match(stripped) or stripped.startswith("No matching learnings")) \
            and stripped.splitlines()[0].rstrip().lower().endswith(shown[0].lower()):
        return "${" + recalls[shown[0]].name + ".output}"
    for run, recall in recalls.items():
        value = re.sub(re.escape(run), "${" + recall.name + ".run}", value, flags=re.IGNORECASE)
    return rer.text(value)


def _trees(recalls: list[Recall], rer: Rerooter, warnings: list[str]
           ) -> tuple[dict[str, str], list[dict[str, str]], dict[str, str] | None]:
    """The team (and learnings roots, user team) that make each recall print what it printed."""
    team: dict[str, str] = {}
    learnings: list[dict[str, str]] = [{} for _ in rer.learnings]
    user: dict[str, str] | None = None
    words: dict[tuple[str, int, str], str] = {}
    for recall in recalls:
        mine: list[str] = []
        for path in recall.docs:
            placed = rer.place(path)
            if placed is None:
                warnings.append(f"{recall.name}: {path} is under none of the recorded roots; not recreated")
                continue
            if placed not in words:
                words[placed] = f"{TOKEN}{len(words) + 1}"
                tree, index, rel = placed
                text = _doc(words[placed])
                if tree == "team":
                    team[rel] = text
                elif tree == "learnings":
                    learnings[index][rel] = text
                else:
                    user = {**(user or {}), rel: text}
            mine.append(words[placed])
        if len(mine) > 5:
            warnings.append(f"{recall.name}: the run printed {len(mine)} docs; a recall prints at most 5")
        recall.query = " ".join(mine) if mine else NO_HIT_QUERY
    return team, learnings, user


def _doc(word: str) -> str:
    """An asset recall finds by ``word`` alone, holding the line the scrubber leaves in a search's
    output, so a rule that checks a search line against the doc's text sees it there."""
    return (f"---\ntitle: Captured doc {word}\nname: {word}\ntags: [{word}]\n---\n"
            f"Recreated by import-capture: the captured session printed this path ({word}); "
            f"its text was never captured.\n{SHOWN}\n")
