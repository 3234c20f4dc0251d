"""The compiled schema check never accepts what jsonschema refuses (``conformance/corpus/schema.py``).

The instances are the corpus's own: every payload, a share of the scenarios, and every protocol
message a run of cases covering each command sends and receives; then each of them broken one
place at a time (a value replaced by one of another type, a key removed, a key added), and each
key that a later draft's ``dependentRequired`` ties to another left alone.
"""

from __future__ import annotations

import copy
from typing import Any

import project
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from conformance.corpus import read as corpus
from conformance.corpus import schema
from conformance.corpus.capabilities import action_of
from conformance.running import pool, protocol

CORPUS = project.load()
REPLACEMENTS = (None, True, 0, -1, 1.5, "", "x" * 300, "2026-01-01T00:00:00Z", [], [1], {}, {"k": "v"})


def _covering(scenarios: list[corpus.Scenario]) -> list[corpus.Scenario]:
    """Few cases whose steps, between them, use every action a scenario can take."""
    chosen, seen = [], set()
    for scenario in scenarios:
        actions = {action_of(step) for step in scenario.steps} | ({"seed"} if scenario.data.get("given") else set())
        actions -= seen
        if actions:
            chosen.append(scenario)
            seen |= actions
    return chosen


@pytest.fixture(scope="module")
def messages(monkeypatch_module) -> list[tuple[Any, str]]:
    sent: list[tuple[Any, str]] = []
    real = protocol.check

    def recording(message, cmd, direction):
        name = "error.response" if direction == "response" and message.get("ok") is False else f"{cmd}.{direction}"
        sent.append((copy.deepcopy(message), f"protocol/{name}.json"))
        real(message, cmd, direction)

    monkeypatch_module.setattr(protocol, "check", recording)
    pool.run_all("reference", CORPUS, _covering(CORPUS.scenarios), {})
    return sent


@pytest.fixture(scope="module")
def monkeypatch_module():
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def _agree(instance: Any, name: str) -> bool:
    judged = not any(True for _ in schema._judge(name).iter_errors(instance))
    assert schema.fits(instance, name) == judged, (name, instance)
    return judged


def _places(value: Any, here: tuple = ()) -> list[tuple]:
    out = [here]
    if isinstance(value, dict):
        for key, inner in value.items():
            out += _places(inner, (*here, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value[:3]):
            out += _places(inner, (*here, index))
    return out


def test_every_message_the_corpus_sends_fits_both_ways(messages):
    names = {name for _, name in messages}
    every = {f"protocol/{c}.{d}.json" for c in protocol.COMMANDS if c != "stop" for d in ("request", "response")}
    assert every <= names
    assert all(_agree(message, name) for message, name in messages)


def test_every_payload_and_a_share_of_the_scenarios_are_judged_alike():
    """Every payload and one scenario in four (jsonschema takes a millisecond a scenario; the
    broken instances below draw from all of them)."""
    for scenario in CORPUS.scenarios[::4]:
        _agree(scenario.data, "scenario.schema.json")
    for payload in CORPUS.payloads.values():
        _agree(payload.data, "payload.schema.json")


def test_a_key_left_without_the_key_it_depends_on_is_refused_both_ways():
    """``isolates`` and ``twin`` come together (``dependentRequired``, which a draft-7 compiler
    would ignore): a scenario keeping one of them alone is refused by both checks."""
    paired = [s for s in CORPUS.scenarios if "isolates" in s.data and "twin" in s.data]
    assert paired
    for key in ("isolates", "twin"):
        alone = {k: v for k, v in paired[0].data.items() if k != key}
        assert not _agree(alone, "scenario.schema.json"), key


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_an_instance_broken_in_one_place_is_judged_alike(messages, data):
    kind = data.draw(st.sampled_from(("message", "scenario", "payload")))
    if kind == "message":
        instance, name = data.draw(st.sampled_from(messages))
    elif kind == "scenario":
        instance, name = data.draw(st.sampled_from(CORPUS.scenarios)).data, "scenario.schema.json"
    else:
        instance, name = data.draw(st.sampled_from(list(CORPUS.payloads.values()))).data, "payload.schema.json"
    broken = copy.deepcopy(instance)
    place = data.draw(st.sampled_from(_places(broken)))
    how = data.draw(st.sampled_from(("replace", "remove", "add")))
    holder = broken
    for key in place[:-1]:
        holder = holder[key]
    if not place or how == "add":
        target = holder[place[-1]] if place else holder
        if not isinstance(target, dict):
            how = "replace"
        else:
            target[data.draw(st.sampled_from(("zz_extra", "cmd", "ok", "id", "steps")))] = data.draw(
                st.sampled_from(REPLACEMENTS))
    if how == "remove" and place:
        del holder[place[-1]]
    elif how == "replace":
        if place:
            holder[place[-1]] = data.draw(st.sampled_from(REPLACEMENTS))
        else:
            broken = data.draw(st.sampled_from(REPLACEMENTS))
    event("fits" if _agree(broken, name) else "refused")
