"""Random team trees in the domain's own terms: rules, docs, learnings (in namespaces, in one or two
learnings roots), skills and code-wiki pages, a user scope, and relations between them (``related:``
blocks and Markdown links written relative to the file's place in the tree).

Every asset gets a topic word no other asset has, so a query built from topics prints exactly the
assets it names (and maybe some that share its other words); that is how a generated recall is made
to hit what the session will then read.

A tree can be written *with* its relations or *without* them. Without them, each ``related:`` line
becomes a YAML comment line and each link loses its meaning behind a backslash (``\\[text](dest)``),
so the files keep the same words and the same line numbers: only the relations are gone.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Any

from hypothesis import strategies as st

from reference.relations import vocabulary
from reference.team.tree import DOC, LEARNING, RULE, SKILL, WIKI, WIKI_PREFIX

from .agents import Doc

TOPICS = ("quokka", "zebra", "walrus", "narwhal", "ocelot", "pangolin", "axolotl", "capybara", "platypus",
          "wombat", "lemur", "tapir", "marmot", "gecko")
SHARED = ("payment", "ledger", "receipt", "timeout", "retry", "deploy", "queue", "freeze")
NAMES = ("payments", "ledger-receipts", "redis-timeout", "deploy-freeze", "retry-policy")
NAMESPACES = ("ops", "finance")
SLUGS = ("pay", "bill")

TEAM, USER = "team", "user"  # scopes; learnings roots are "learnings:1", "learnings:2"
DECLARERS = (RULE, DOC, LEARNING)
NOT_RELATIONS = ("GOVERNS", "maps_to", "RELATES")


@dataclass(frozen=True)
class Asset:
    scope: str
    kind: str
    rel: str  # the file's path in its folder: the team tree, the user tree or a learnings root
    topic: str
    words: tuple[str, ...]
    related: tuple[tuple[str, Any], ...] = ()  # (relation, target or targets) as the file writes them
    links: tuple[str, ...] = ()  # lines with Markdown links, written after the prose

    @property
    def tree_path(self) -> str:
        if self.kind == LEARNING:
            return "learnings/" + self.ident
        if self.kind == SKILL:
            return self.rel[: -len("/SKILL.md")]
        return self.rel

    @property
    def ident(self) -> str:
        """A learning's id: its path under its root without ``.md``."""
        rel = self.rel[len("learnings/"):] if self.scope in (TEAM, USER) else self.rel
        return rel[:-3]

    @property
    def key(self) -> str:
        if self.kind in (RULE, DOC):
            return self.rel.split("/", 1)[1][:-3]
        if self.kind == LEARNING:
            return self.ident
        if self.kind == SKILL:
            return self.tree_path.rsplit("/", 1)[-1]
        return self.rel[len(WIKI_PREFIX):-3]

    @property
    def token(self) -> str:
        return ("${user:path:" if self.scope == USER else "${path:") + self.tree_path + "}"

    @property
    def eligible(self) -> bool:
        return self.scope != USER

    @property
    def root_token(self) -> str:
        if self.scope == USER:
            return "${root:user_team}"
        if self.scope == TEAM:
            return "${root:team}"
        n = self.scope.split(":")[1]
        return "${root:learnings}" if n == "1" else "${root:learnings:" + n + "}"

    @property
    def place(self) -> str:
        """The file as a path in the team tree: where its relative links start from."""
        if self.kind == LEARNING:
            return self.tree_path + ".md"
        if self.kind == SKILL:
            return self.tree_path + "/SKILL.md"
        return self.tree_path

    def prose(self) -> list[str]:
        a, b = (self.words + self.words)[:2]
        return [f"The {self.topic} {a} note says how the {b} behaves.",
                f"Raise the {self.topic} limit when the {a} is slow."]

    def head(self) -> list[str]:
        title = f"{self.topic.capitalize()} {' '.join(self.words)}"
        if self.kind == SKILL:
            return [f"name: {self.topic}-{self.words[0]}", f"description: How to handle the {title.lower()}."]
        if self.kind == WIKI:
            return []
        return [f"title: {title}", f"tags: [{', '.join(self.words)}]"]

    def lines(self, relations: bool = True) -> list[str]:
        """The file, line by line; without relations every line keeps its place and its words."""
        out: list[str] = []
        head = self.head()
        block = related_lines(self.related)
        if head or block:
            out.append("---")
            out += head
            out += block if relations else ["#" for _ in block]
            out.append("---")
        if self.kind == WIKI:
            out.append(f"# {self.topic.capitalize()} {' '.join(self.words)}")
        out += self.prose()
        out += [line if relations else line.replace("[", "\\[") for line in self.links]
        return out

    def text(self, relations: bool = True) -> str:
        return "\n".join(self.lines(relations)) + "\n"

    def doc(self) -> Doc:
        lines = self.lines()
        first = self.prose()[0]
        return Doc(token=self.token, root=self.root_token, rel=self.rel, line_no=lines.index(first) + 1,
                   line=first, word=self.topic)


def related_lines(related: tuple[tuple[str, Any], ...]) -> list[str]:
    if not related:
        return []
    out = ["related:"]
    for relation, value in related:
        shown = "[" + ", ".join(value) + "]" if isinstance(value, tuple) else str(value)
        out.append(f"  {relation}: {shown}")
    return out


@dataclass(frozen=True)
class Tree:
    assets: tuple[Asset, ...]
    roots: int = 0  # learnings roots given (0: the default team/learnings)
    withheld: tuple[str, ...] | None = None
    notes: dict[str, int] = field(default_factory=dict, compare=False)  # what the relations reach

    def scenario_part(self, relations: bool = True) -> dict[str, Any]:
        """``team``, ``user_team``, ``learnings_roots`` and ``withheld`` of a scenario."""
        part: dict[str, Any] = {"team": {a.rel: a.text(relations) for a in self.assets if a.scope == TEAM}}
        user = {a.rel: a.text(relations) for a in self.assets if a.scope == USER}
        if user:
            part["user_team"] = user
        if self.roots:
            part["learnings_roots"] = [{a.rel: a.text(relations) for a in self.assets if a.scope == f"learnings:{n}"}
                                       for n in range(1, self.roots + 1)]
        if self.withheld is not None:
            part["withheld"] = list(self.withheld)
        return part

    def by_token(self) -> dict[str, Asset]:
        return {a.token: a for a in self.assets}

    def workspace(self) -> list[Asset]:
        return [a for a in self.assets if a.scope != USER]


def _rel(kind: str, name: str, ns: str | None, slug: str, scope: str) -> str:
    stem = f"{ns}/{name}" if ns else name
    if kind == RULE:
        return f"rules/{stem}.md"
    if kind == DOC:
        return f"docs/{stem}.md"
    if kind == SKILL:
        return f"skills/{name}/SKILL.md"
    if kind == WIKI:
        return f"{WIKI_PREFIX}{slug}/{stem}.md"
    return f"{stem}.md" if scope.startswith("learnings:") else f"learnings/{stem}.md"


@st.composite
def _skeleton(draw: st.DrawFn, scope: str, kinds: tuple[str, ...], topic: str, roots: int) -> Asset:
    kind = draw(st.sampled_from(kinds))
    if kind == LEARNING and roots:
        scope = f"learnings:{draw(st.integers(1, roots))}"
    name = draw(st.sampled_from(NAMES))
    ns = draw(st.none() | st.sampled_from(NAMESPACES)) if kind in (RULE, DOC, LEARNING, WIKI) else None
    rel = _rel(kind, name, ns, draw(st.sampled_from(SLUGS)), scope)
    words = tuple(draw(st.lists(st.sampled_from(SHARED), min_size=1, max_size=2, unique=True)))
    return Asset(scope, kind, rel, topic, words)


def _spellings(target: Asset) -> list[str]:
    """The ways a declaration may name ``target`` (all normalise to its tree path)."""
    out = [target.tree_path]
    if target.kind == LEARNING:
        out.append(target.tree_path + ".md")
    if target.kind == SKILL:
        out.append(target.tree_path + "/SKILL.md")
    out.append("./" + target.tree_path)
    return out


@st.composite
def _declarations(draw: st.DrawFn, me: Asset, others: list[Asset], notes: dict[str, int]
                  ) -> tuple[tuple[str, Any], ...]:
    """A ``related:`` block in the vocabulary of #1552: real relation names and real tree paths,
    with allowed pairs, pairs outside the table, code-to-code relations, missing targets and names
    that are no relation."""
    if me.kind not in DECLARERS or not others:
        return ()
    out: dict[str, Any] = {}
    for _ in range(draw(st.integers(0, 3))):
        relation = draw(st.sampled_from(vocabulary.DECLARABLE * 3 + vocabulary.CODE_TO_CODE + NOT_RELATIONS))
        target = draw(st.sampled_from(others))
        spelled = draw(st.sampled_from(_spellings(target)))
        if draw(st.sampled_from([False] * 9 + [True])):
            spelled = draw(st.sampled_from(["docs/missing.md", "/docs/abs.md", "../rules/out.md", "notes/x.md"]))
            notes["declared-bad-target"] = notes.get("declared-bad-target", 0) + 1
        elif relation in vocabulary.DECLARABLE:
            ok = vocabulary.allowed(me.kind, relation, target.kind)
            notes["declared-allowed" if ok else "declared-outside-table"] = \
                notes.get("declared-allowed" if ok else "declared-outside-table", 0) + 1
        value = out.get(relation)
        out[relation] = (value if isinstance(value, tuple) else ((value,) if value else ())) + (spelled,)
    return tuple((r, v if len(v) > 1 or draw(st.booleans()) else v[0]) for r, v in out.items())


@st.composite
def _links(draw: st.DrawFn, me: Asset, others: list[Asset], notes: dict[str, int]) -> tuple[str, ...]:
    """Lines of Markdown links relative to ``me``'s place in the tree: to other assets (with
    anchors, queries, angle brackets, reference definitions), to files that are no asset, out of
    the tree, to the web, and links that code spans and fences make into code."""
    out: list[str] = []
    base = posixpath.dirname(me.place)
    for _ in range(draw(st.integers(0, 3))):
        target = draw(st.sampled_from(others)) if others else None
        form = draw(st.sampled_from(["asset"] * 4 + ["not-asset", "outside", "web", "code"]))
        if form == "asset" and target is not None:
            dest = posixpath.relpath(target.place, base or ".")
            if target.kind == SKILL and draw(st.booleans()):
                dest = posixpath.dirname(dest) + "/"
            dest += draw(st.sampled_from(["", "", "#usage", "?plain=1"]))
            notes["link-asset"] = notes.get("link-asset", 0) + 1
            style = draw(st.sampled_from(["inline", "angle", "definition"]))
            if style == "angle":
                out.append(f"See [this](<{dest}>) for more.")
            elif style == "definition":
                out.append(f"[ref{len(out)}]: {dest}")
            else:
                out.append(f"See [this]({dest}) for more.")
        elif form == "not-asset":
            out.append(f"See [the notes]({posixpath.relpath('README.md', base or '.')}).")
        elif form == "outside":
            out.append(f"See [elsewhere]({'../' * (base.count('/') + 2)}outside.md).")
            notes["link-outside"] = notes.get("link-outside", 0) + 1
        elif form == "web":
            out.append("See [upstream](https://example.com/docs/guide.md).")
        elif target is not None:
            dest = posixpath.relpath(target.place, base or ".")
            out.append(draw(st.sampled_from([f"Code: `[x]({dest})`.", f"```\n[x]({dest})\n```"])))
    return tuple(out)


@st.composite
def trees(draw: st.DrawFn, min_assets: int = 2, max_assets: int = 6, relations: bool = True) -> Tree:
    """A workspace tree (and sometimes a user scope) with unique topics per asset."""
    roots = draw(st.sampled_from([0, 0, 2]))
    count = draw(st.integers(min_assets, max_assets))
    user_count = draw(st.sampled_from([0, 0, 1, 2]))
    topics = draw(st.permutations(TOPICS))
    kinds = (LEARNING, LEARNING, LEARNING, DOC, DOC, RULE, RULE, SKILL, WIKI)
    assets: list[Asset] = []
    seen: set[tuple[str, str]] = set()
    for i in range(count + user_count):
        scope = TEAM if i < count else USER
        asset = draw(_skeleton(scope, kinds if scope == TEAM else (LEARNING, DOC, RULE), topics[i],
                               roots if scope == TEAM else 0))
        ident = ("user" if asset.scope == USER else "ws", asset.tree_path)
        if ident in seen:
            continue
        seen.add(ident)
        assets.append(asset)
    notes: dict[str, int] = {}
    if relations:
        done = []
        for asset in assets:
            same_scope = [a for a in assets if a is not asset and (a.scope == USER) == (asset.scope == USER)]
            related = draw(_declarations(asset, same_scope, notes))
            links = draw(_links(asset, same_scope, notes)) if asset.kind in DECLARERS else ()
            done.append(Asset(asset.scope, asset.kind, asset.rel, asset.topic, asset.words, related, links))
        assets = done
    withheld = draw(st.sampled_from([None, None, ("bill",)]))
    return Tree(tuple(assets), roots, withheld, notes)
