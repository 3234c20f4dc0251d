"""The reference with every choice the proposals leave open made another way, at the protocol's edge.

The spec level (``levels``) must judge an implementation on what #884 and #1552 define and on
nothing else, so a correct implementation that spells its state and its messages its own way
passes it. This driver is such an implementation: the reference's decisions, in other clothes.
Each *perturbation* changes one thing the proposals leave open; all of them are on unless the
driver is started with a list (``python -m conformance.drivers.perturbed renamed-fields,…``):

=====================  =====================================================================
``renamed-fields``     log fields #884 does not define are renamed (``via`` is ``how``, …) or
                       dropped; the keys of every line come in another order
``instants``           every instant of the log and the votes is written without milliseconds
                       when it has none to speak of (``…T10:00:00Z``)
``credits-elsewhere``  the reference's ``consumed`` lines are kept out of the log; which reads
                       were credited is answered only through ``observe``'s ``credited``
``stats-table``        ``stats`` shows sessions by their first 8 characters (when longer), its
                       heading with a colon, and its rows newest last
``findings``           review and contribute findings keep their mark, file, relation and
                       target but are worded another way
``ledger-spelling``    the votes ledger file is written in YAML's flow style, every scalar
                       quoted and instants without milliseconds
=====================  =====================================================================

It declares no profile, so it is judged at the spec level (and on decisions): the whole corpus
passes it there, and each perturbation, judged on the profile, fails some profile expectation
(``tests/conformance/test_perturbed_driver.py``).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from typing import Any

import yaml

from ..corpus import levels
from ..running.driver import Driver, LocalDriver
from .reference import ReferenceBackend, in_process

PERTURBATIONS = ("renamed-fields", "instants", "credits-elsewhere", "stats-table", "findings", "ledger-spelling")
RENAMED = {"via": "how", "exact": "matched_exactly", "simple": "plain_command", "status": "outcome",
           "unambiguous": "single_candidate", "agent": "agent_name"}
DROPPED = ("extra",)
_MILLIS = re.compile(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.0+Z")  # a whole value, never part of one
_FINDING = re.compile(r"^(?P<lead>\s*)(?P<mark>[✖!⚠])\s+(?:\[relations\]\s+(?P<file>\S+?):|(?P<what>related|frontmatter):)"
                      r"\s+(?P<msg>.*)$")
HEADING = "Recall (last 10 sessions)"


class Perturbed(ReferenceBackend):
    """The reference, perturbed at the protocol's edge (see the module docstring)."""

    def __init__(self, perturbations: Iterable[str] = PERTURBATIONS) -> None:
        super().__init__(in_process)
        self.on = frozenset(perturbations)
        unknown = self.on - set(PERTURBATIONS)
        if unknown:
            raise ValueError(f"no perturbation {', '.join(sorted(unknown))} (known: {', '.join(PERTURBATIONS)})")

    def do_start(self, message: dict[str, Any]) -> dict[str, Any]:
        answer = super().do_start(message)
        answer["implementation"] = {"name": "reference, perturbed", "version": ",".join(sorted(self.on))}
        answer["capabilities"].pop("profile", None)
        return answer

    def do_stats(self, message: dict[str, Any]) -> dict[str, Any]:
        answer = super().do_stats(message)
        if "stats-table" in self.on and not message.get("json"):
            answer["stdout"] = _stats_text(str(answer.get("stdout", "")))
        return answer

    def do_review(self, message: dict[str, Any]) -> dict[str, Any]:
        return self._reworded(super().do_review(message))

    def do_contribute(self, message: dict[str, Any]) -> dict[str, Any]:
        return self._reworded(super().do_contribute(message))

    def _reworded(self, answer: dict[str, Any]) -> dict[str, Any]:
        if "findings" in self.on:
            for stream in ("stdout", "stderr"):
                answer[stream] = "".join(reword(line) for line in str(answer.get(stream, "")).splitlines(True))
        return answer

    def do_observe(self, message: dict[str, Any]) -> dict[str, Any]:
        want = set(message.get("want") or ())
        answer = super().do_observe({**message, "want": sorted(want | {"credited"})})
        if "credited" not in want:
            answer.pop("credited", None)
        log = list(answer.get("log") or [])
        if "credits-elsewhere" in self.on:
            log = [line for line in log if not (isinstance(line, dict) and line.get("kind") == "consumed")]
        if "renamed-fields" in self.on:
            log = [_renamed(line) for line in log]
        if "instants" in self.on:
            log = _instants(log)
            answer["votes"] = _instants(answer.get("votes") or {})
        answer["log"] = log
        if "stats-table" in self.on and isinstance(answer.get("stats"), list):
            answer["stats"] = [_short_session(row) for row in reversed(answer["stats"])]
        if "ledger-spelling" in self.on and isinstance(answer.get("ledger"), str):
            answer["ledger"] = respell(answer["ledger"])
        return answer


def _renamed(line: Any) -> Any:
    if not isinstance(line, dict):
        return line
    fields = levels.LINE_FIELDS.get(str(line.get("kind")), frozenset())
    out = {}
    for key in reversed(list(line)):
        if key in fields or key == "kind":
            out[key] = line[key]
        elif key not in DROPPED:
            out[RENAMED.get(key, f"x_{key}")] = line[key]
    return out


def _instants(value: Any) -> Any:
    if isinstance(value, str):
        whole = _MILLIS.fullmatch(value)
        return f"{whole.group(1)}Z" if whole else value
    if isinstance(value, list):
        return [_instants(v) for v in value]
    if isinstance(value, dict):
        return {k: _instants(v) for k, v in value.items()}
    return value


def _short_session(row: Any) -> Any:
    if isinstance(row, dict) and isinstance(row.get("session"), str) and len(row["session"]) > levels.SESSION_PREFIX:
        return {**row, "session": row["session"][:levels.SESSION_PREFIX] + "…"}
    return row


def _stats_text(text: str) -> str:
    return text.replace(HEADING + "\n", HEADING + ":\n")


def reword(line: str) -> str:
    """A finding line in other words: its mark, file, relation and target stay."""
    found = _FINDING.match(line.rstrip("\n"))
    if not found:
        return line
    where = found["file"] or found["what"]
    end = "\n" if line.endswith("\n") else ""
    return f"{found['lead']}{found['mark']} {where} -- relations check says: {found['msg'].rstrip('.')}{end}"


def respell(text: str) -> str:
    """The votes ledger in another YAML spelling with the same meaning (or as it was, when it is no
    YAML: a corrupt ledger stays corrupt)."""
    try:
        data = yaml.load(text, Loader=yaml.BaseLoader)  # noqa: S506 - strings, lists and mappings only
    except yaml.YAMLError:
        return text
    return yaml.dump(_instants(data), default_flow_style=True, default_style='"', allow_unicode=True, width=120)


def connect(perturbations: Iterable[str] = PERTURBATIONS) -> Driver:
    chosen = tuple(perturbations)
    Perturbed(chosen)  # an unknown perturbation fails here, not inside the handshake
    return LocalDriver(lambda: Perturbed(chosen), "perturbed")


def main(argv: list[str]) -> int:
    from ..server import serve

    chosen = [p for arg in argv for p in arg.split(",") if p] or list(PERTURBATIONS)
    try:
        backend = Perturbed(chosen)
    except ValueError as exc:
        sys.stderr.write(f"{exc}\nusage: python -m conformance.drivers.perturbed [PERTURBATION,...]\n")
        return 2
    return serve(backend)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
