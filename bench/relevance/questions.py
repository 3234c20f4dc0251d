"""Question files: one known-item question per entry, naming the one document that answers it.

The asset kind of a question is its target's kind (the first folder of the target's path); a
question is in the CJK slice when it holds Chinese, Japanese or Korean characters.
"""

from __future__ import annotations

import os
import re
from typing import NamedTuple

import yaml

KIND_OF_FOLDER = {"docs": "doc", "rules": "rule", "learnings": "learning", "skills": "skill", "teamwiki": "wiki"}
KINDS = ("doc", "rule", "learning", "skill", "wiki")
CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


class Question(NamedTuple):
    id: str
    q: str
    target: str  # the document's file path inside the tree, e.g. ``skills/scanpy/SKILL.md``
    kind: str
    cjk: bool


class QuestionFile(NamedTuple):
    corpus: str
    questions: list[Question]


class BadQuestions(ValueError):
    pass


def kind_of(path: str) -> str | None:
    return KIND_OF_FOLDER.get(path.split("/", 1)[0])


def load(path: str) -> QuestionFile:
    """Read and check a question file: ids unique, every field present, targets of a known kind."""
    with open(path, encoding="utf-8") as fh:
        data = yaml.safe_load(fh)
    if not isinstance(data, dict) or not isinstance(data.get("questions"), list):
        raise BadQuestions(f"{path}: expected a mapping with a 'questions' list")
    seen: set[str] = set()
    out: list[Question] = []
    for i, raw in enumerate(data["questions"]):
        if not isinstance(raw, dict) or not all(isinstance(raw.get(k), str) and raw[k].strip()
                                                for k in ("id", "q", "target")):
            raise BadQuestions(f"{path}: question #{i + 1} needs non-empty id, q and target")
        qid, text, target = raw["id"], raw["q"].strip(), raw["target"]
        kind = kind_of(target)
        if kind is None:
            raise BadQuestions(f"{path}: {qid}: target {target} is not under docs/, rules/, learnings/, "
                               "skills/ or teamwiki/")
        if qid in seen:
            raise BadQuestions(f"{path}: question id {qid} is used twice")
        seen.add(qid)
        out.append(Question(qid, text, target, kind, bool(CJK.search(text))))
    return QuestionFile(str(data.get("corpus") or ""), out)


def missing_targets(questions: list[Question], tree: str) -> list[str]:
    """Targets that are not files of the tree (a question file written for another version)."""
    return [q.target for q in questions if not os.path.isfile(os.path.join(tree, *q.target.split("/")))]
