"""Every agent has the full payload set (payloads/README.md, "Names every agent has"), and every
payload of it is played by at least one scenario: an agent missing a shape would silently go
untested for the rules that shape carries."""

from __future__ import annotations

from pathlib import Path

import project
import pytest

from conformance.corpus.capabilities import action_of
from reference.hook.agents import AGENTS

ROOT = Path(__file__).resolve().parents[2]
CORPUS = project.load()

# name -> the event its payload carries
EVERY_AGENT = {
    "post-tool-use-read": "post-tool-use",
    "post-tool-use-shell-recall": "post-tool-use",
    "post-tool-use-shell-read": "post-tool-use",
    "post-tool-use-search-content": "post-tool-use",
    "post-tool-use-list": "post-tool-use",
    "post-tool-use-failure": None,  # the agent's own failure shape: an event of its own, or a status field
    "stop": "stop",
}
# Agents without a payload of a name, each for a reason the payload itself shows.
NO_SHELL_FAILURE = {
    "codex": "its shell result is a plain string: every shell call's status is unknown",
    "opencode": "its post-tool-use-failure is already a failed shell call",
}
# Agents whose hooks have a SubagentStop event (#884: the reducer runs at Stop and SubagentStop).
SUBAGENT_STOP = {"claude", "codex", "cursor", "copilot", "codebuddy", "qoder"}


def _played() -> set[str]:
    return {str(step["hook"]) for s in CORPUS.scenarios for step in s.steps if action_of(step) == "hook"}


PLAYED = _played()


def _expected(agent: str) -> dict[str, str | None]:
    names: dict[str, str | None] = dict(EVERY_AGENT)
    if agent not in NO_SHELL_FAILURE:
        names["post-tool-use-shell-failure"] = None
    if agent in SUBAGENT_STOP:
        names["subagent-stop"] = "subagent-stop"
    return names


def test_every_agent_has_a_payload_folder_and_no_folder_is_unknown():
    folders = {p.name for p in (ROOT / "payloads").iterdir() if p.is_dir()}
    assert folders == set(AGENTS)


@pytest.mark.parametrize("agent", AGENTS)
def test_every_agent_has_the_full_set_and_each_is_played(agent):
    for name, event in _expected(agent).items():
        key = f"{agent}/{name}"
        assert key in CORPUS.payloads, f"payloads/{key}.json is missing"
        payload = CORPUS.payloads[key]
        assert payload.data["agent"] == agent
        if event is not None:
            assert payload.event == event, f"{key}: event {payload.event!r}, expected {event!r}"
        assert key in PLAYED, f"no scenario plays {key}"


def test_the_exemptions_are_what_the_payloads_show():
    for agent in NO_SHELL_FAILURE:
        assert f"{agent}/post-tool-use-shell-failure" not in CORPUS.payloads, f"{agent} has one now: drop it"
    codex = CORPUS.payloads["codex/post-tool-use-shell-read"].data["payload"]
    assert isinstance(codex["tool_response"], str)
    opencode = CORPUS.payloads["opencode/post-tool-use-failure"].data["payload"]
    assert opencode["tool_name"] == "bash" and opencode["tool_status"] == "failure"
    for agent in set(AGENTS) - SUBAGENT_STOP:
        assert f"{agent}/subagent-stop" not in CORPUS.payloads, f"{agent} has one now: list it in SUBAGENT_STOP"


def test_a_failed_shell_call_is_a_failure_in_the_agents_own_shape():
    for agent in sorted(set(AGENTS) - set(NO_SHELL_FAILURE)):
        payload = CORPUS.payloads[f"{agent}/post-tool-use-shell-failure"]
        body = payload.data["payload"]
        failed = (payload.event == "post-tool-use-failure" or body.get("tool_status") == "failure"
                  or body.get("toolResult", {}).get("resultType") == "failure"
                  or str(body.get("hook_event_name", "")).lower() == "posttoolusefailure")
        assert failed, f"{agent}/post-tool-use-shell-failure does not say the call failed"
