"""Deterministic synthetic team trees for the benchmarks.

The mix follows the research notes' corpus (learnings 45 %, docs 25 %, wiki 15 %, rules 10 %,
skills 5 %), with Zipf-distributed technical words so that queries have realistic document
frequencies. About a third of the rules, docs and learnings relate to earlier assets (a
``related:`` block, a Markdown link or both), early ones far more often, so that some assets are
hubs with many incoming relations, as overview docs are in real trees. The same seed always
gives the same tree, so two runs measure the same work.
"""

from __future__ import annotations

import os
import random

WORDS = (
    "redis timeout payment ledger receipt retry backoff kafka consumer lag deploy release freeze "
    "postgres index vacuum migration schema query plan cache eviction memory leak heap profile cpu "
    "thread pool worker queue job scheduler cron batch stream event sourcing snapshot replica shard "
    "cluster node pod container image build pipeline lint test flaky fixture mock contract api "
    "gateway auth token session cookie oauth jwt rate limit quota billing invoice refund webhook "
    "signature secret vault rotate certificate tls dns proxy ingress load balancer latency p99 "
    "dashboard alert pager oncall incident postmortem runbook rollback canary feature flag config "
    "env variable logging tracing metrics span sampling grpc protobuf json yaml parser encoder "
    "decoder buffer socket connection pooling handshake keepalive compression gzip utf8 unicode"
).split()
GLUE = "the a of to in and is for on with that this it as be by from at or when if then".split()
KINDS = (("learnings", 45), ("docs", 25), ("wiki", 15), ("rules", 10), ("skills", 5))


def _word(rng: random.Random) -> str:
    # Zipf-like: low ranks are far more common.
    rank = int(len(WORDS) * rng.random() ** 2.5)
    if rng.random() < 0.08:
        return f"{WORDS[rank]}{rng.randrange(1000)}"
    return WORDS[rank]


def _sentence(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(GLUE) if rng.random() < 0.4 else _word(rng) for _ in range(n))


def _kind(rng: random.Random) -> str:
    roll = rng.randrange(100)
    for kind, share in KINDS:
        if roll < share:
            return kind
        roll -= share
    return "learnings"


def _earlier(rng: random.Random, made: list[str]) -> str:
    return made[int(len(made) * rng.random() ** 3)]  # early assets are picked far more often: hubs


def _relations(rng: random.Random, made: list[str], place: str) -> tuple[str, str]:
    """A ``related:`` block and a sentence with a link, each present about a third of the time."""
    if not made:
        return "", ""
    block = link = ""
    if rng.random() < 0.3:
        targets = sorted({_earlier(rng, made) for _ in range(rng.randint(1, 3))})
        block = f"related:\n  REFERENCES: [{', '.join(targets)}]\n"
    if rng.random() < 0.2:
        target = _earlier(rng, made)
        if not target.startswith("skills/"):
            target += "" if target.endswith(".md") else ".md"
            rel = os.path.relpath(target, os.path.dirname(place)).replace(os.sep, "/")
            link = f"\n\nSee [this one]({rel}) too."
    return block, link


def generate(dest: str, count: int, seed: int = 1234) -> None:
    """Write ``count`` assets under ``dest`` (which must not exist yet)."""
    rng = random.Random(seed)
    made: list[str] = []  # tree paths written so far
    for i in range(count):
        kind = _kind(rng)
        title = " ".join(_word(rng) for _ in range(rng.randint(2, 5)))
        tags = sorted({_word(rng) for _ in range(rng.randint(1, 4))})
        body = "\n\n".join(_sentence(rng, rng.randint(30, 90)) for _ in range(rng.randint(1, 4)))
        front = f"---\ntitle: {title}\nauthor: user{i % 37}\ndate: 2026-{1 + i % 12:02d}-{1 + i % 28:02d}\n" \
                f"tags: [{', '.join(tags)}]\n---\n"
        if kind == "skills":
            place = f"skills/skill-{i}/SKILL.md"
            tree_path = f"skills/skill-{i}"
            front = f"---\nname: skill-{i}\ndescription: {title}\n---\n"
        elif kind == "wiki":
            place = tree_path = f"teamwiki/evidence/code/svc{i % 20}/modules/mod-{i}.md"
            front = f"# {title}\n\n"
        else:
            sub = f"ns{i % 25}" if kind == "learnings" else f"area{i % 15}"
            place = f"{kind}/{sub}/{kind[:-1]}-{i}.md"
            tree_path = place[:-3] if kind == "learnings" else place
            block, link = _relations(rng, made, place)
            front = front[:-4] + block + "---\n"
            body += link
        path = os.path.join(dest, *place.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(front + body + "\n")
        made.append(tree_path)


HUB_QUERY = "release checklist overview"


def hub(dest: str, pages: int) -> None:
    """A tree of ``pages`` docs around one overview page that links to every one of them and that
    each of them declares and links back to, as the index page of a large wiki is: recall of the
    overview builds its ``Related:`` lines from all of those relations."""
    os.makedirs(os.path.join(dest, "docs"))
    for i in range(pages):
        with open(os.path.join(dest, "docs", f"page-{i}.md"), "w", encoding="utf-8") as fh:
            fh.write(f"---\ntitle: page {i}\nrelated:\n  REFERENCES: docs/overview.md\n---\n"
                     f"{_sentence(random.Random(i), 40)}\n\nBack to [the overview](overview.md).\n")
    links = "\n".join(f"- [page {i}](page-{i}.md)" for i in range(pages))
    with open(os.path.join(dest, "docs", "overview.md"), "w", encoding="utf-8") as fh:
        fh.write(f"# {HUB_QUERY}\n\nEvery page of the release checklist:\n\n{links}\n")


def queries(count: int, seed: int = 99) -> list[str]:
    """Natural-ish questions: two to four content words and a little glue."""
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        words = list(dict.fromkeys(_word(rng).rstrip("0123456789") for _ in range(rng.randint(2, 4))))
        out.append(" ".join(["why", "does", *words[:1], "the", *words[1:]]))
    return out
