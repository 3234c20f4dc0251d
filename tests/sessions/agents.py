"""How each of the ten agents says "this session ran recall", "read this doc", "stopped": corpus
payloads (``payloads/<agent>/``) with the ``set:`` edits a scenario would write.

Every step names a payload the corpus already holds and changes only values, never the shape, so
a generated session can be written out as a scenario file as it is. Where a host has two payload
shapes (Copilot's CLI and VS Code, CodeBuddy's CLI and IDE) a session keeps to one of them, its
*flavor*.

Each read form carries the verdict the spec gives it (``counts``): a read tool, a simple shell
read and a content search that shows the doc's text count; a failed call never does; Codex's
shell search does not, since its status is unknown and a search is not a simple read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

RECALL_SUBAGENT = "teamai-recall"

# flavor -> the agent (payload folder, --tool) it belongs to
FLAVORS: dict[str, str] = {
    "claude": "claude", "codex": "codex", "cursor": "cursor", "copilot": "copilot",
    "copilot-vscode": "copilot", "codebuddy": "codebuddy", "codebuddy-ide": "codebuddy", "qoder": "qoder",
    "workbuddy": "workbuddy", "opencode": "opencode", "pi": "pi", "omp": "omp",
}
AGENTS = tuple(dict.fromkeys(FLAVORS.values()))

# The variable each agent exports into its shell (none for Qoder, WorkBuddy and OMP).
SESSION_ENV = {"claude": "CLAUDE_CODE_SESSION_ID", "codex": "CODEX_SESSION_ID", "cursor": "CURSOR_CONVERSATION_ID",
               "copilot": "COPILOT_AGENT_SESSION_ID", "codebuddy": "CODEBUDDY_SESSION_ID",
               "opencode": "TEAMAI_AGENT_SESSION_ID", "pi": "PI_SESSION_ID"}

# Hosts that run each subagent in a session of its own (OpenCode's task), linked to its parent only
# when it has finished: a marked run nobody claimed there is the subagent's, linked or not yet
# (the decision REF-MAKER-UNCLAIMED).
OWN_SESSION_SUBAGENTS = ("opencode",)

# Hosts whose hooks name the subagent a call comes from (agent_id, agent_type).
SUBAGENT_IDS = ("claude", "codex", "qoder", "omp")
# Hosts with a SubagentStop event in the corpus.
SUBAGENT_STOP = {"claude": "claude/subagent-stop", "codex": "codex/subagent-stop", "cursor": "cursor/subagent-stop",
                 "copilot": "copilot/subagent-stop", "copilot-vscode": "copilot/subagent-stop"}

READ, SHELL, SEARCH, FAILURE, RELATIVE = "read", "shell", "search", "failure", "relative"
FORMS = (READ, SHELL, SEARCH, FAILURE, RELATIVE)
SHELL_VERBS = ("cat {p}", "head -n 40 {p}", "sed -n '1,80p' {p}", "tail -n 20 {p}", "nl -ba {p}")


def counts(flavor: str, form: str) -> bool:
    """Whether the spec counts a call of this form, whatever it read."""
    if form == FAILURE:
        return False
    return not (form == SEARCH and FLAVORS[flavor] == "codex")


@dataclass(frozen=True)
class Doc:
    """What a step needs to know of the doc it reads."""

    token: str  # ${path:…} or ${user:path:…}
    root: str  # ${root:…} of the tree the doc sits in
    rel: str  # path under that root (for a relative read)
    line_no: int  # the file's line that a search shows
    line: str  # that line's text
    word: str  # a word of that line (the search pattern)


def _ids(flavor: str, session: str) -> dict[str, Any]:
    if flavor == "cursor":
        return {"session_id": session, "conversation_id": session}
    if flavor.startswith("copilot"):
        return {"sessionId": session}
    return {"session_id": session}


def _base(flavor: str, session: str, cwd: str, shell: bool = False) -> dict[str, Any]:
    out = {**_ids(flavor, session), "cwd": cwd}
    if flavor == "cursor":
        out["workspace_roots"] = [cwd]
        if shell:
            out["tool_input.working_directory"] = cwd
    return out


def _actor(actor: tuple[str, str] | None) -> dict[str, Any]:
    return {"agent_id": actor[0], "agent_type": actor[1]} if actor else {}


def _cursor_output(stdout: str, code: int = 0) -> str:
    return json.dumps({"exitCode": code, "stdout": stdout, "stderr": ""})


def recall_command(query: str, caller: bool) -> str:
    return f'teamai recall{" --caller " + RECALL_SUBAGENT if caller else ""} "{query}"'


def claim(flavor: str, session: str, cwd: str, run: str, query: str, caller: bool,
          actor: tuple[str, str] | None = None) -> dict[str, Any]:
    """The PostToolUse of the shell call that ran recall step ``run``, showing its real output
    (Cursor's output is a JSON string, so there it is the start line with the run id)."""
    agent = FLAVORS[flavor]
    command = recall_command(query, caller)
    output = "${" + run + ".output}"
    s = _base(flavor, session, cwd, shell=True)
    if flavor == "cursor":
        start = "--- [teamai:recall:start] --- (1 result) run=${" + run + ".run}\n"
        return {"hook": "cursor/post-tool-use-shell-recall",
                "set": {**s, "tool_input.command": command, "tool_output": _cursor_output(start)}}
    if flavor == "copilot":
        return {"hook": "copilot/post-tool-use-shell-recall",
                "set": {**s, "toolArgs": json.dumps({"command": command, "description": "Recall team knowledge"}),
                        "toolResult.textResultForLlm": output}}
    if flavor == "copilot-vscode":
        return {"hook": "copilot/vscode-post-tool-use-shell-recall",
                "set": {**s, "tool_input.command": command, "tool_response": output}}
    if agent in ("claude", "codebuddy", "qoder"):
        name = f"{agent}/post-tool-use-shell-recall"
        if actor and agent == "claude":
            name = "claude/post-tool-use-shell-recall-subagent"
        return {"hook": name, "set": {**s, "tool_input.command": command, "tool_response.stdout": output,
                                      **_actor(actor)}}
    if agent == "codex" and actor:  # a subagent's shell call: the corpus's subagent-shaped one
        return {"hook": "codex/post-tool-use-shell-subagent",
                "set": {**s, "tool_input.command": command, "tool_response": output, **_actor(actor)}}
    if agent == "omp" and actor:
        return {"hook": "omp/post-tool-use-shell-recall-subagent",
                "set": {**s, "tool_input.command": command, "tool_response": output, **_actor(actor)}}
    return {"hook": f"{agent}/post-tool-use-shell-recall",
            "set": {**s, "tool_input.command": command, "tool_response": output}}


def read(flavor: str, session: str, cwd: str, doc: Doc, form: str, verb: int = 0,
         actor: tuple[str, str] | None = None) -> dict[str, Any]:
    """One call of ``form`` on ``doc``; ``actor`` (agent id and type) only on hosts that name subagents."""
    if actor:
        return _subagent_read(flavor, session, cwd, doc, actor)
    if form == READ:
        return _read_tool(flavor, session, cwd, doc)
    if form in (SHELL, RELATIVE):
        path = doc.rel if form == RELATIVE else doc.token
        where = doc.root if form == RELATIVE else cwd
        return _shell_read(flavor, session, where, SHELL_VERBS[verb % len(SHELL_VERBS)].format(p=path))
    if form == SEARCH:
        return _search(flavor, session, cwd, doc)
    return _failure(flavor, session, cwd, doc)


def _read_tool(flavor: str, session: str, cwd: str, doc: Doc) -> dict[str, Any]:
    s = _base(flavor, session, cwd)
    p = doc.token
    if flavor == "codex":  # Codex reads through its shell: a cat with an unknown status, a simple read
        return {"hook": "codex/post-tool-use-read", "set": {**s, "tool_input.command": f"cat {p}"}}
    if flavor == "copilot":
        return {"hook": "copilot/post-tool-use-read", "set": {**s, "toolArgs": json.dumps({"path": p})}}
    if flavor == "copilot-vscode":
        return {"hook": "copilot/vscode-post-tool-use-read", "set": {**s, "tool_input.filePath": p}}
    if flavor == "codebuddy-ide":
        return {"hook": "codebuddy/post-tool-use-read-ide", "set": {**s, "tool_input.path": p}}
    if flavor == "opencode":
        return {"hook": "opencode/post-tool-use-read", "set": {**s, "tool_input.filePath": p}}
    if flavor in ("pi", "omp"):
        return {"hook": f"{flavor}/post-tool-use-read", "set": {**s, "tool_input.path": p}}
    return {"hook": f"{FLAVORS[flavor]}/post-tool-use-read", "set": {**s, "tool_input.file_path": p}}


def _shell_read(flavor: str, session: str, cwd: str, command: str) -> dict[str, Any]:
    s = _base(flavor, session, cwd, shell=True)
    if flavor == "copilot":
        return {"hook": "copilot/post-tool-use-shell-read",
                "set": {**s, "toolArgs": json.dumps({"command": command, "description": "Show the doc"})}}
    if flavor == "copilot-vscode":
        return {"hook": "copilot/vscode-post-tool-use-shell-read", "set": {**s, "tool_input.command": command}}
    if flavor == "codebuddy-ide":
        return {"hook": "codebuddy/post-tool-use-shell-read-ide", "set": {**s, "tool_input.command": command}}
    return {"hook": f"{FLAVORS[flavor]}/post-tool-use-shell-read", "set": {**s, "tool_input.command": command}}


def _search(flavor: str, session: str, cwd: str, doc: Doc) -> dict[str, Any]:
    """A content search whose output line is ``<doc path>:<n>:<a line of the doc>``."""
    s = _base(flavor, session, cwd, shell=True)
    line = f"{doc.token}:{doc.line_no}:{doc.line}"
    rg = f"rg -n '{doc.word}' {doc.root}"
    agent = FLAVORS[flavor]
    if flavor == "cursor":
        return {"hook": "cursor/post-tool-use-search-content",
                "set": {**s, "tool_input.command": rg, "tool_output": _cursor_output(line + "\n")}}
    if agent == "copilot":
        args = {"pattern": doc.word, "path": doc.root, "output_mode": "content", "-n": True}
        return {"hook": "copilot/post-tool-use-search-content",
                "set": {**_base("copilot", session, cwd), "toolArgs": json.dumps(args),
                        "toolResult.textResultForLlm": line}}
    if flavor == "codebuddy-ide":
        return {"hook": "codebuddy/post-tool-use-search-content-ide",
                "set": {**s, "tool_input.pattern": doc.word, "tool_input.path": doc.root, "tool_response": line}}
    if agent in ("claude", "codebuddy"):
        return {"hook": f"{agent}/post-tool-use-search-content",
                "set": {**s, "tool_input.pattern": doc.word, "tool_input.path": doc.root,
                        "tool_response.content": line}}
    if agent in ("qoder", "workbuddy", "pi"):
        return {"hook": f"{agent}/post-tool-use-search-content",
                "set": {**s, "tool_input.pattern": doc.word, "tool_input.path": doc.root,
                        "tool_response": line + ("\n" if agent == "pi" else "")}}
    # codex, opencode, omp: rg through the shell
    return {"hook": f"{agent}/post-tool-use-search-content",
            "set": {**s, "tool_input.command": rg, "tool_response": line + "\n"}}


def _failure(flavor: str, session: str, cwd: str, doc: Doc) -> dict[str, Any]:
    agent = FLAVORS[flavor]
    p = doc.token
    s = _base(flavor, session, cwd)
    if agent == "codex":
        return {"hook": "codex/post-tool-use-failure",
                "set": {**s, "tool_input.command": f"rg -n '{doc.word}' {p}",
                        "tool_response": f"rg: {p}: No such file or directory (os error 2)\n"}}
    if agent == "copilot":
        return {"hook": "copilot/post-tool-use-failure",
                "set": {**_base("copilot", session, cwd), "toolArgs": json.dumps({"path": p})}}
    if agent == "opencode":
        return {"hook": "opencode/post-tool-use-failure",
                "set": {**s, "tool_input.command": f"cat {p}",
                        "tool_response": f"cat: {p}: No such file or directory\n"}}
    if agent in ("pi", "omp"):
        return {"hook": f"{agent}/post-tool-use-failure", "set": {**s, "tool_input.path": p}}
    return {"hook": f"{agent}/post-tool-use-failure", "set": {**s, "tool_input.file_path": p}}


def _subagent_read(flavor: str, session: str, cwd: str, doc: Doc, actor: tuple[str, str]) -> dict[str, Any]:
    agent = FLAVORS[flavor]
    s = {**_base(flavor, session, cwd), **_actor(actor)}
    if agent == "codex":
        return {"hook": "codex/post-tool-use-shell-subagent", "set": {**s, "tool_input.command": f"cat {doc.token}"}}
    if agent == "omp":
        return {"hook": "omp/post-tool-use-read-subagent", "set": {**s, "tool_input.path": doc.token}}
    if agent in ("claude", "qoder"):
        return {"hook": f"{agent}/post-tool-use-read-subagent", "set": {**s, "tool_input.file_path": doc.token}}
    raise ValueError(f"{flavor} names no subagents")


def stop(flavor: str, session: str) -> dict[str, Any]:
    name = "copilot/vscode-stop" if flavor == "copilot-vscode" else f"{FLAVORS[flavor]}/stop"
    return {"hook": name, "set": _ids(flavor, session)}


def subagent_stop(flavor: str, session: str, actor: tuple[str, str] | None) -> dict[str, Any]:
    body = _ids(flavor, session)
    if actor and FLAVORS[flavor] in SUBAGENT_IDS:
        body.update(_actor(actor))
    return {"hook": SUBAGENT_STOP[flavor], "set": body}


def link(parent: str, child: str, cwd: str) -> dict[str, Any]:
    """OpenCode's ``task`` call: the bridge links the child session to the one that started it."""
    return {"hook": "opencode/post-tool-use-task-link",
            "set": {"session_id": parent, "cwd": cwd, "session_link": {"child": child, "parent": parent}}}
