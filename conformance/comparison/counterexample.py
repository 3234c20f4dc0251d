"""A counterexample found by a property test, written out as a scenario a maintainer can review.

A generated session that breaks an invariant is only useful if someone can run it again, read it
and keep it. So it is written in the corpus's own format (provenance ``generated``), with the
Hypothesis example that produced it in a comment, into a folder of its own laid out as a corpus:
``<folder>/scenarios/<area>/<id>.yaml`` beside copies of the payload files its steps name. That
folder runs as it is::

    teamai-conformance --corpus <folder> run --only <id>

and the scenario file, moved into this project's ``scenarios/<area>/``, runs there too (its
payloads are the project's). Nothing is written into ``scenarios/`` itself: a generated case joins
the corpus only when a maintainer commits it.

The folder is ``$TEAMAI_COUNTEREXAMPLES`` when set, else ``.hypothesis/counterexamples`` under the
current folder (git ignores ``.hypothesis/``, where Hypothesis keeps its own examples).

It is written once, on Hypothesis's final example, with a stable id made from the scenario's
meaning, and validated against the schema and the payloads before it is written (as YAML by
``corpus/scenario_file.py``, like every scenario a tool writes back); the format is SCENARIOS.md,
"Generated counterexamples". The sessions themselves are built in ``tests/sessions/``
(``trees.py``, ``agents.py`` with each agent's payloads, ``sessions.py`` with the interleavings and
the reduce schedules); ``oracle.py`` there is the one place that works out from a plan alone what
the spec says it earns, and ``invariants.py`` owns the end-to-end checks judged against it. A log
the reducer's shortcuts decide wrongly is written out by ``tests/reducer/log_cases.py``.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..corpus import lint, placement, scenario_file
from ..corpus import read as corpus

ENV = "TEAMAI_COUNTEREXAMPLES"
DEFAULT_FOLDER = Path(".hypothesis") / "counterexamples"
PROVENANCE = "generated"


def folder(env: Mapping[str, str] | None = None) -> Path:
    """Where counterexamples go."""
    value = (os.environ if env is None else env).get(ENV, "").strip()
    return Path(value) if value else DEFAULT_FOLDER


def ident(scenario: Mapping[str, Any], prefix: str = "gen") -> str:
    """A stable id from the scenario's meaning, so the same counterexample is one file."""
    meaning = {k: v for k, v in scenario.items() if k not in lint.META_KEYS}
    digest = hashlib.sha256(json.dumps(meaning, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()
    return f"{prefix}-{digest[:12]}"


def dump(scenario: Mapping[str, Any], comments: Iterable[str] = ()) -> str:
    """The scenario as the corpus writes scenarios back (``scenario_file``), under ``#`` comment lines."""
    head = "".join(f"# {line}".rstrip() + "\n" for text in comments for line in str(text).splitlines() or [""])
    body = scenario_file.dump(scenario)
    if corpus.load_yaml(body) != placement.place(scenario):  # each expectation at its level, else as given
        raise ValueError("the scenario does not read back as written")
    return head + body


def write(scenario: Mapping[str, Any], area: str, payloads: Mapping[str, corpus.Payload],
          comments: Iterable[str] = (), where: Path | None = None) -> Path:
    """Write ``scenario`` (provenance set to ``generated``, an id made when it has none) and the
    payload files it uses; returns the scenario file's path. A scenario that is not valid, or that
    names a payload ``payloads`` lacks, is refused (``ValueError``): a counterexample nobody can run
    would hide the failure it stands for."""
    data = {"id": str(scenario.get("id") or ident(scenario)), **{k: v for k, v in scenario.items() if k != "id"}}
    data["provenance"] = PROVENANCE
    problems = lint.schema_errors(data, "scenario.schema.json")
    used = sorted({str(step["hook"]) for step in data.get("steps") or [] if isinstance(step, Mapping) and "hook" in step})
    problems += [f"payload {name!r} is not in the corpus" for name in used if name not in payloads]
    if problems:
        raise ValueError("not a valid scenario: " + "; ".join(problems))
    base = where if where is not None else folder()
    if (base / "conformance" / "clauses.yaml").is_file():
        raise ValueError(f"{base} holds a corpus with its catalogue: a counterexample goes to a folder of its own")
    target = base / "scenarios" / area / f"{data['id']}.yaml"
    target.parent.mkdir(parents=True, exist_ok=True)
    for name in used:
        copy = base / "payloads" / f"{name}.json"
        copy.parent.mkdir(parents=True, exist_ok=True)
        copy.write_text(json.dumps(payloads[name].data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    target.write_text(dump(data, comments), encoding="utf-8")
    return target


def final_example() -> bool:
    """Whether this is Hypothesis's last run of a failing example (the shrunk one it reports), so
    a property writes one file, not one per step of shrinking."""
    try:
        from hypothesis.control import current_build_context

        return bool(current_build_context().is_final)
    except Exception:  # outside Hypothesis: every failure is final
        return True


def reproduction(test: str) -> list[str]:
    """Comment lines that say which property found the example and how to replay it."""
    import hypothesis

    lines = [f"Found by {test} (Hypothesis {hypothesis.__version__})."]
    try:
        from hypothesis.control import current_build_context
        from hypothesis.core import global_force_seed, reproduction_decorator

        lines.append(f"Seed: {global_force_seed if global_force_seed is not None else 'random'}; the example: "
                     f"{reproduction_decorator(current_build_context().data.choices)} on its property.")
    except Exception:
        pass
    return lines


def rerun(path: Path) -> str:
    """The command line that runs a written counterexample from its folder."""
    base = path.parent.parent.parent
    return f"teamai-conformance --corpus {base} run --only {path.stem}"
