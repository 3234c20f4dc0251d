"""PROTOCOL.md's worked exchange is real: ``conformance/examples/exchange.jsonl`` (request,
answer, request, answer, …) is replayed against ``teamai-conformance driver reference`` and
every answer must be the one written there, but for what differs from run to run or from tree to
tree: run ids, the sandbox folder and recall's scores. PROTOCOL.md holds the file verbatim, and
the ``open`` answer's keys follow the tree-path table PROTOCOL.md defines.

When the reference's output changes on purpose, ``python tests/conformance/test_protocol_exchange.py``
writes the file (and PROTOCOL.md's copy) anew from the requests below.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from conformance.running import protocol

ROOT = Path(__file__).resolve().parents[2]
EXCHANGE = ROOT / "conformance" / "examples" / "exchange.jsonl"
PROTOCOL_MD = ROOT / "conformance" / "PROTOCOL.md"
SANDBOX = "/sandbox/case-1"  # where the file's sandbox is; a real folder takes its place
RUN_ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
SCORE = (re.compile(r"Score: [0-9.]+"), re.compile(r'"score": ?[0-9.]+'))
NOW = "2026-11-30T10:00:00.000Z"
LEARNING = "---\ntitle: Redis client times out under load\ntags: [redis, timeout]\n---\n" \
           "The redis client's default socket timeout is 1s; raise it to 5s under load.\n"
READ = {"session_id": "ses-1", "transcript_path": "/home/ana/.claude/projects/p/ses-1.jsonl", "cwd": f"{SANDBOX}/team",
        "permission_mode": "default", "hook_event_name": "PostToolUse", "tool_name": "Read",
        "tool_input": {"file_path": f"{SANDBOX}/team/learnings/redis-timeout.md"},
        "tool_response": {"type": "text", "file": {"filePath": f"{SANDBOX}/team/learnings/redis-timeout.md",
                                                   "content": LEARNING, "numLines": 5, "startLine": 1,
                                                   "totalLines": 5}},
        "tool_use_id": "toolu_01", "duration_ms": 9}
STOP = {"session_id": "ses-1", "transcript_path": "/home/ana/.claude/projects/p/ses-1.jsonl", "cwd": f"{SANDBOX}/team",
        "permission_mode": "default", "hook_event_name": "Stop", "stop_hook_active": False}
SESSION = {"CLAUDE_CODE_SESSION_ID": "ses-1"}
REQUESTS: list[dict[str, Any]] = [
    {"cmd": "start", "protocol": 1},
    {"cmd": "open", "now": NOW, "case": "protocol-example", "sandbox": SANDBOX,
     "team": {"learnings/redis-timeout.md": LEARNING,
              "docs/runbooks/redis.md": "# Redis runbook\n\nRestart the client pool when timeouts pile up.\n",
              "rules/payments.md": "---\ntitle: Payments\n---\nNever retry a payment write blindly.\n",
              "skills/deploy/SKILL.md": "---\nname: deploy\ndescription: Ship a service\n---\nSteps.\n",
              "teamwiki/evidence/code/pay/overview.md": "# Pay service\n\nHow payments flow.\n",
              "notes.txt": "not an asset: no kind folder, not Markdown\n"},
     "user_team": {"rules/style.md": "---\ntitle: Style\n---\nShort sentences.\n"},
     "learnings_roots": None, "withheld": None, "repo": None, "env": {}},
    {"cmd": "recall", "now": NOW, "env": SESSION, "query": "redis timeout", "caller": None, "check": False},
    {"cmd": "hook", "now": "2026-11-30T10:00:30.000Z", "env": SESSION, "agent": "claude", "event": "post-tool-use",
     "payload": READ},
    {"cmd": "hook", "now": "2026-11-30T10:01:00.000Z", "env": SESSION, "agent": "claude", "event": "stop",
     "payload": STOP},
    {"cmd": "observe", "now": "2026-11-30T10:01:01.000Z", "env": {}, "want": ["votes", "log"]},
    {"cmd": "close"},
    {"cmd": "stop"},
]


class Driver:
    """``teamai-conformance driver reference`` as a child process, one line out and one line in."""

    def __init__(self) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "conformance", "driver", "reference"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)

    def ask(self, request: dict[str, Any]) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(protocol.encode(request))
        self.proc.stdin.flush()
        return protocol.decode(self.proc.stdout.readline())

    def close(self) -> int:
        self.proc.communicate(timeout=30)
        return self.proc.returncode


def _swap(value: Any, old: str, new: str) -> Any:
    return json.loads(json.dumps(value, ensure_ascii=False).replace(json.dumps(old)[1:-1], json.dumps(new)[1:-1]))


def _comparable(answers: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The answers with run ids numbered in order of appearance and scores masked."""
    text = json.dumps(answers, ensure_ascii=False, sort_keys=True)
    ids: dict[str, str] = {}
    text = RUN_ID.sub(lambda m: ids.setdefault(m.group(0), f"<run {len(ids) + 1}>"), text)
    text = SCORE[0].sub("Score: <score>", SCORE[1].sub('"score": "<score>"', text))
    return list(json.loads(text))


def _play(requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each request with a real sandbox in place of the file's, and the answers spelled with the file's."""
    with tempfile.TemporaryDirectory(prefix="tc-") as folder:
        real = str(Path(folder).resolve())
        driver = Driver()
        answers = []
        for seq, request in enumerate(requests, 1):
            message = _swap({**request, "seq": seq}, SANDBOX, real)
            protocol.check(message, message["cmd"], "request")
            answer = driver.ask(message)
            protocol.check(answer, message["cmd"], "response")
            answers.append(_swap(answer, real, SANDBOX))
        assert driver.close() == 0
    return answers


def _read() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    lines = [json.loads(x) for x in EXCHANGE.read_text(encoding="utf-8").splitlines() if x.strip()]
    return lines[0::2], lines[1::2]


def test_the_exchange_replays_against_the_reference_driver():
    requests, answers = _read()
    assert [r["cmd"] for r in requests] == ["start", "open", "recall", "hook", "hook", "observe", "close", "stop"]
    assert [r["seq"] for r in requests] == [a["seq"] for a in answers] == list(range(1, len(requests) + 1))
    played = _play([{k: v for k, v in r.items() if k != "seq"} for r in requests])
    assert _comparable(played) == _comparable(answers), (
        "the reference answers otherwise; if that is on purpose: python tests/conformance/test_protocol_exchange.py")


def test_the_exchange_shows_a_vote_earned():
    _, answers = _read()
    observed = answers[5]
    assert observed["votes"]["redis-timeout"]["upvoted_count"] == 1
    assert [line["kind"] for line in observed["log"]] == ["run", "evidence", "consumed"]


def test_protocol_md_holds_the_exchange_verbatim():
    text = PROTOCOL_MD.read_text(encoding="utf-8")
    block = re.search(r"<!-- conformance/examples/exchange\.jsonl -->\n```json\n(.*?)^```$", text, re.S | re.M)
    assert block, "PROTOCOL.md does not include conformance/examples/exchange.jsonl"
    assert block.group(1) == EXCHANGE.read_text(encoding="utf-8")


def _tree_path_forms() -> list[tuple[str, re.Pattern[str]]]:
    """The tree-path table of PROTOCOL.md ("The open answer"): kind and tree path form per row."""
    section = PROTOCOL_MD.read_text(encoding="utf-8").split("### The `open` answer", 1)[1].split("\n## ", 1)[0]
    forms = []
    for row in section.splitlines():
        cells = [c.strip() for c in row.strip().strip("|").split("|")]
        if len(cells) >= 3 and cells[0] in ("rule", "doc", "learning", "skill", "wiki page"):
            form = cells[2].strip("`")
            pattern = re.escape(form).replace(re.escape("<path>"), r"[^\s]+").replace(re.escape("<id>"), r"[^\s]+") \
                .replace(re.escape("<dir>"), r"[^\s]+").replace(re.escape("<slug>"), r"[^/\s]+")
            forms.append((cells[0], re.compile(pattern + "$")))
    return forms


def test_the_open_answer_follows_the_tree_path_table_of_the_protocol():
    forms = _tree_path_forms()
    assert [kind for kind, _ in forms] == ["rule", "doc", "learning", "skill", "wiki page"]
    requests, answers = _read()
    opened = answers[1]
    keys = [*opened["paths"], *opened["user_paths"]]
    matched = {kind for key in keys for kind, pattern in forms if pattern.match(key)}
    assert matched == {kind for kind, _ in forms}, "the example shows every kind of asset"
    assert all(any(p.match(key) for _, p in forms) for key in keys)
    team = requests[1]["team"]
    assert "notes.txt" in team and not any("notes" in key for key in keys)  # not an asset: not listed
    assert opened["paths"]["learnings/redis-timeout"] == f"{SANDBOX}/team/learnings/redis-timeout.md"
    assert opened["paths"]["skills/deploy"] == f"{SANDBOX}/team/skills/deploy/SKILL.md"
    assert opened["user_paths"] == {"rules/style.md": f"{SANDBOX}/user-team/rules/style.md"}
    assert opened["roots"] == {"team": f"{SANDBOX}/team", "user_team": f"{SANDBOX}/user-team",
                               "learnings": [f"{SANDBOX}/team/learnings"]}


def test_the_schema_names_the_same_tree_paths():
    schema = json.loads((ROOT / "conformance" / "schemas" / "protocol" / "open.response.json").read_text("utf-8"))
    said = schema["properties"]["paths"]["description"]
    section = PROTOCOL_MD.read_text(encoding="utf-8").split("### The `open` answer", 1)[1].split("\n## ", 1)[0]
    forms = [row.split("|")[3].strip().strip("`") for row in section.splitlines() if row.startswith("| ")
             and row.split("|")[1].strip() in ("rule", "doc", "learning", "skill", "wiki page")]
    assert len(forms) == 5 and all(form in said for form in forms)


def _write() -> None:
    answers = _play(REQUESTS)
    lines = []
    for seq, (request, answer) in enumerate(zip(REQUESTS, answers, strict=True), 1):
        lines.append(json.dumps({"cmd": request["cmd"], "seq": seq, **{k: v for k, v in request.items() if k != "cmd"}},
                                ensure_ascii=False))
        lines.append(json.dumps(answer, ensure_ascii=False))
    text = "\n".join(lines) + "\n"
    EXCHANGE.parent.mkdir(parents=True, exist_ok=True)
    EXCHANGE.write_text(text, encoding="utf-8")
    doc = PROTOCOL_MD.read_text(encoding="utf-8")
    marker = "<!-- conformance/examples/exchange.jsonl -->\n```json\n"
    if marker in doc:
        head, rest = doc.split(marker, 1)
        PROTOCOL_MD.write_text(head + marker + text + rest[rest.index("```\n"):], encoding="utf-8")


if __name__ == "__main__":
    _write()
