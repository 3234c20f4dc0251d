"""``teamai-conformance import-capture FILE... [--id ID] [--out-dir DIR]``: a captured session
(``teamai-ref capture``) as corpus files, and what the author must check before committing them.

It writes ``payloads/<agent>/<ID>-<n>.json`` (provenance ``live-capture``, the capture's day,
the agent version where the capture knew it, and the recorded-shape verdict; with
``--canonical-names`` the names every agent has, ``post-tool-use-read`` …, where the agent's folder
lacks them), with their paths at the corpus's example places (``scenario.Rerooter``), and ``scenarios/attribution/<ID>.yaml``
(case id ``ID``), whose steps replay the payloads at their captured instants
(``capture/scenario.py`` has the rules for paths, run ids and time) and whose expectations are the
reference's decisions (``capture/replay.py``). In a project with the reference's snapshot test it
writes the case's snapshot too (else it prints the command). Then it prints every decision with
its reason, the recorded-shape verdicts, the recreated runs, anything it could not carry over,
and a warning for a recall the agent ran that the reference did not claim (an adapter that does
not read where the agent puts the tool's output; ``replay.unclaimed_recalls``). A capture made with ``--keep`` is scrubbed here
first. An agent the reference has no adapter for is refused up front, with what to write.
"""

from __future__ import annotations

import argparse
import json
import os
import re
from pathlib import Path
from typing import IO, Any

import yaml

from ..corpus import lint, placement, recorded_shapes
from ..corpus import read as corpus
from . import file as capture_file
from . import replay as capture_replay
from . import scenario as capture_scenario

EXIT_OK, EXIT_USAGE, EXIT_INPUT = 0, 2, 3
_PREFIX = re.compile(r"^[a-z0-9][a-z0-9-]{0,59}$")


def add_parser(sub: Any) -> None:
    p = sub.add_parser("import-capture", help="turn a captured session into payload files and a scenario")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE", help="capture files (teamai-ref capture)")
    p.add_argument("--id", dest="prefix", metavar="ID",
                   help="the case id, and the files' names: payloads/<agent>/ID-<n>.json, "
                        "scenarios/attribution/ID.yaml (default: from the first file's name)")
    p.add_argument("--canonical-names", action="store_true",
                   help="name each payload by what it is (post-tool-use-read, stop, …; payloads/README.md, "
                        "\"Names every agent has\") where the agent's folder lacks that name")
    p.add_argument("--no-snapshot", action="store_true",
                   help="do not write the reference's snapshot of the case (print the command instead)")
    p.add_argument("--out-dir", type=Path, metavar="DIR", help="the corpus to write into (default: --corpus or this "
                                                               "project)")
    p.add_argument("--team-root", metavar="PATH", help="the team folder as the capture spells it, when the capture "
                                                       "did not record one")
    p.add_argument("--force", action="store_true", help="overwrite files of the same names")


def default_prefix(path: Path) -> str:
    words = [w for w in re.split(r"[^a-z0-9]+", path.stem.lower()) if w]
    prefix = "capture"
    for word in words:
        if len(prefix) + 1 + len(word) > 32:
            break
        prefix += "-" + word
    return prefix


def run(args: argparse.Namespace, root: Path, out: IO[str], err: IO[str]) -> int:
    prefix = args.prefix or default_prefix(args.files[0])
    if not _PREFIX.match(prefix):
        err.write(f"teamai-conformance: error: --id {prefix!r}: use lower-case letters, digits and '-' "
                  "(at most 60)\n")
        return EXIT_USAGE
    try:
        capture = capture_file.read(list(args.files))
    except capture_file.CaptureError as exc:
        err.write(f"teamai-conformance: error: {exc}\n")
        return EXIT_INPUT
    unknown = _without_adapter(capture)
    if unknown:
        err.write(unknown)
        return EXIT_INPUT
    scrubbed_here = _scrub_kept(capture)
    roots = dict(capture.roots() or {})
    if args.team_root:
        roots["team"] = args.team_root.rstrip("/")
    if not roots.get("team"):
        roots["team"] = capture_scenario.infer_team(capture.calls)
    if not roots.get("team"):
        err.write("teamai-conformance: error: the capture recorded no team folder and printed no recalled path; "
                  "pass --team-root PATH (the team folder as the capture spells it)\n")
        return EXIT_INPUT
    day = capture.calls[0].ts[:10]
    out_dir = (args.out_dir or root).resolve()
    rel = f"scenarios/attribution/{prefix}.yaml"
    try:
        names = canonical_names(capture.calls, prefix, out_dir) if args.canonical_names else None
        built = capture_scenario.build(capture.calls, prefix, roots, day, names)
        verdicts = _provenance(built, day, rel)
        existing = [p for p in [out_dir / rel, *(out_dir / "payloads" / f"{n}.json" for n in built.payloads)]
                    if p.exists()]
        if existing and not args.force:
            err.write(f"teamai-conformance: error: {existing[0].relative_to(out_dir)} exists; choose another --id "
                      "or pass --force\n")
            return EXIT_USAGE
        capture_replay.expectations(built, out_dir, rel)
    except capture_scenario.BuildError as exc:
        err.write(f"teamai-conformance: error: {exc}\n")
        return EXIT_INPUT
    written = _write(out_dir, rel, built)
    problems = _lint(out_dir, rel, built)
    unclaimed = capture_replay.unclaimed_recalls(built)
    _report(out, built, verdicts, written, capture, scrubbed_here, rel)
    for where in unclaimed:
        err.write(f"import-capture: warning: {where} ran recall, and the reference recorded no claim for it: its "
                  "adapter does not find the run id where this agent puts the command's output (check with "
                  "teamai-ref replay on the capture; a prefix or a wrapper around the output, such as "
                  "'Stdout: ', must be taken off by the adapter)\n")
    if not problems:
        _snapshot(out, err, out_dir, prefix, args.no_snapshot)
    if problems:
        for problem in problems:
            err.write(f"{problem}\n")
        err.write(f"import-capture: the written files have {len(problems)} problem(s)\n")
        return EXIT_INPUT
    return EXIT_OK


def _without_adapter(capture: capture_file.Capture) -> str:
    """What to write when the reference has no adapter for an agent of the capture ("" when it has)."""
    from reference.hook.agents import AGENTS

    missing = [agent for agent in capture.agents if agent not in AGENTS]
    if not missing:
        return ""
    agent = missing[0]
    module = re.sub(r"[^a-z0-9_]", "_", agent)
    return (f"teamai-conformance: error: the reference has no adapter for the agent {agent!r}, so it cannot decide "
            f"what the capture's calls mean. Write reference/hook/agents/{module}.py with parse(payload, event) -> "
            "ToolCall (claude.py is the shortest), add its name to AGENTS in reference/hook/agents/__init__.py (the "
            "one list of agents: the reference's driver declares what is there) and any new tool names to "
            "reference/hook/categories.py; check the capture with teamai-ref replay FILE, then import it again. "
            "payloads/README.md, \"Adding an agent\", has every step.\n")


# What each kind of call is called in every agent's folder (payloads/README.md, "Names every agent has").
def _kind(call: capture_file.Call) -> str | None:
    from reference.hook import claims, dispatch
    from reference.hook.toolcall import FAILURE

    if call.event in ("stop", "subagent-stop"):
        return call.event
    try:
        tool = dispatch.to_toolcall(call.agent, call.payload, call.event)
    except Exception:  # noqa: BLE001 - a payload the adapter cannot read keeps a numbered name
        return None
    failed = call.event == "post-tool-use-failure" or tool.status == FAILURE
    if failed:
        return "post-tool-use-shell-failure" if tool.category == "shell" else "post-tool-use-failure"
    if tool.category == "shell":
        recall = bool(tool.command) and claims.invokes_recall(tool.command or "")
        return "post-tool-use-shell-recall" if recall else "post-tool-use-shell-read"
    return {"read": "post-tool-use-read", "search": "post-tool-use-search-content",
            "list": "post-tool-use-list"}.get(tool.category or "")


def canonical_names(calls: list[capture_file.Call], prefix: str, out_dir: Path) -> list[str]:
    """Each call's payload name: the canonical name of its kind the first time the agent's folder
    lacks it, else ``<prefix>-<n>``."""
    taken = {p.relative_to(out_dir / "payloads").with_suffix("").as_posix()
             for p in (out_dir / "payloads").glob("*/*.json")}
    names = []
    for n, call in enumerate(calls, 1):
        kind = _kind(call)
        name = f"{call.agent}/{kind}" if kind else ""
        if not kind or name in taken:
            name = f"{call.agent}/{prefix}-{n}"
        taken.add(name)
        names.append(name)
    return names


SNAPSHOT_TEST = "tests/conformance/test_reference_snapshots.py"


def snapshot_command(case_id: str) -> list[str]:
    return ["python3", "-m", "pytest", f"{SNAPSHOT_TEST}::test_reference_output_and_state[{case_id}]",
            "--snapshot-update", "-q"]


def _snapshot(out: IO[str], err: IO[str], out_dir: Path, case_id: str, skip: bool) -> None:
    """The reference's golden snapshot of the new case, where the corpus has the snapshot test."""
    import shlex
    import subprocess
    import sys

    command = snapshot_command(case_id)
    shown = " ".join(shlex.quote(a) for a in command)
    if skip or not (out_dir / SNAPSHOT_TEST).is_file():
        out.write(f"Its snapshot (the suite fails without it): {shown}\n")
        return
    done = subprocess.run([sys.executable, *command[1:], "-p", "no:cacheprovider"], cwd=out_dir,
                          capture_output=True, text=True)
    if done.returncode == 0:
        out.write(f"wrote its snapshot ({shown})\n")
    else:
        tail = (done.stdout + done.stderr).strip().splitlines()[-3:]
        err.write(f"import-capture: warning: the snapshot could not be written: {' '.join(tail)}; run: {shown}\n")


def _scrub_kept(capture: capture_file.Capture) -> int:
    """Scrub the calls a ``--keep`` capture stored as sent, with this machine's home and user names."""
    from reference.capture.scrub import Scrubber

    scrubber = Scrubber.from_env(os.environ)
    count = 0
    for call in capture.calls:
        if not call.scrubbed:
            call.payload = scrubber.payload(call.payload)
            if call.roots:
                call.roots = scrubber.value(call.roots)
            call.scrubbed = True
            count += 1
    return count


def _provenance(built: capture_scenario.Built, day: str, rel: str) -> dict[str, recorded_shapes.Verdict | None]:
    verdicts: dict[str, recorded_shapes.Verdict | None] = {}
    for name, call in built.steps:
        verdict = recorded_shapes.check(call.agent, call.event, call.payload)
        verdicts[name] = verdict
        prov: dict[str, Any] = {
            "source": "live-capture",
            "verified": recorded_shapes.MARK if verdict is not None and verdict.status == recorded_shapes.PASS
            else False,
            "captured": day,
            "notes": f"Captured from a real {call.agent} run with teamai-ref capture and scrubbed; "
                     f"replayed by {rel}.",
        }
        if call.agent_version:
            prov["agent_version"] = call.agent_version
        if verdict is not None and verdict.status != recorded_shapes.PASS:
            said = "; ".join(verdict.problems) or "nothing recorded to compare with"
            prov["exemption"] = (f"a live capture that differs from the recorded shapes ({verdict.shape}: {said}); "
                                 "the recordings may not have seen this yet")
        built.payloads[name]["provenance"] = prov
    return verdicts


class _Dumper(yaml.SafeDumper):
    pass


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
    style = "|" if "\n" in value and not value.endswith((" ", "\t")) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def _write(out_dir: Path, rel: str, built: capture_scenario.Built) -> list[str]:
    written = []
    for name, data in built.payloads.items():
        path = out_dir / "payloads" / f"{name}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(f"payloads/{name}.json")
    built.scenario = placement.place(built.scenario)  # each expectation at its level
    text = yaml.dump(built.scenario, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1_000_000)
    if corpus.load_yaml(text) != built.scenario:  # the file must read back as what was replayed
        raise AssertionError("the scenario does not read back as written")
    path = out_dir / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    written.append(rel)
    return written


def _lint(out_dir: Path, rel: str, built: capture_scenario.Built) -> list[str]:
    mine = {rel, *(f"payloads/{n}.json" for n in built.payloads)}
    loaded = corpus.load(out_dir)
    problems = lint.lint(loaded) if loaded.clauses_path else []
    if not loaded.clauses_path:  # a folder of its own: check the files' shapes at least
        problems = [f"{rel}: {e}" for e in lint.schema_errors(built.scenario, "scenario.schema.json")]
        problems += [f"payloads/{n}.json: {e}" for n, d in built.payloads.items()
                     for e in lint.schema_errors(d, "payload.schema.json")]
    return [p for p in problems if p.split(":", 1)[0] in mine]


def _report(out: IO[str], built: capture_scenario.Built, verdicts: dict[str, recorded_shapes.Verdict | None],
            written: list[str], capture: capture_file.Capture, scrubbed_here: int, rel: str) -> None:
    w = out.write
    calls = len(built.steps)
    w(f"import-capture: {calls} hook calls of {', '.join(capture.agents)} -> {built.scenario['id']}\n")
    w("wrote " + ", ".join(written[:-1]) + f" and {rel}\n\n")
    w("Check before committing:\n")
    w("- The payload files hold the payloads as captured, scrubbed: contents, prompts, outputs, transcript paths "
      "and secrets are replaced, the home folder is /home/user. Read them for what a scrubber cannot know: "
      "project, file and people's names in paths and commands.\n")
    if scrubbed_here:
        w(f"- {scrubbed_here} call(s) were captured with --keep; they were scrubbed now, with this machine's home "
          "folder and user name. Keep the capture file itself private.\n")
    matched = [n for n, v in verdicts.items() if v is not None and v.status == recorded_shapes.PASS]
    w(f"- Recorded shapes: {len(matched)} of {calls} payloads match (verified: recorded-shape).\n")
    for name, verdict in verdicts.items():
        if verdict is not None and verdict.status != recorded_shapes.PASS:
            w(f"    {name}: {verdict.shape}: {'; '.join(verdict.problems) or 'not recorded'} "
              "(written as its exemption: a new fact for conformance/recorded_shapes.json, or a scrubbing slip)\n")
    if not any(call.agent_version for _n, call in built.steps):
        w("- No agent version was captured: add provenance.agent_version to the payloads.\n")
    for recall in built.recalls:
        printed = ", ".join(recall.docs) or "no hit"
        w(f"- {recall.name} recreates captured run {recall.run} (printed: {printed}): a recall of invented docs at "
          "the same tree paths, without a session variable; the captured query is not kept.\n")
    w("- The decisions, with the reference's reasons (they are the scenario's expectations):\n")
    for head, notes in capture_replay.reasons(built):
        w(f"    {head}\n")
        for note in notes:
            w(f"      - {note}\n")
    for key, counts in (built.scenario["expect"].get("votes") or {}).items():
        w(f"    votes after the last step: {key}: recalled {counts['recalled_count']}, "
          f"upvoted {counts['upvoted_count']}\n")
    w(f"- Clauses {', '.join(built.scenario['clauses'])} were chosen from these decisions, and the title is "
      "generic: say what the case is about.\n")
    for warning in built.warnings:
        w(f"- Not carried over: {warning}\n")
    for skipped in capture.skipped:
        w(f"- Skipped: {skipped}\n")
    w(f"Then: teamai-conformance lint && teamai-conformance run --only {built.scenario['id']}\n")
