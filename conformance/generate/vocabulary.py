"""#1552's vocabulary table as scenarios: every relation x declaring kind x target kind
(``tables/vocabulary.yaml`` on the tree of ``tables/relation-assets.yaml``).

One cell, one scenario: the declaring asset names the one target. Allowed: recall prints the
relation under both ends and the check says nothing. Not allowed: no Related line on either end,
and the check says why (review --branch fails a rule or doc; contribute warns about a learning and
publishes it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .model import PREFIX, Generated, slug
from .tables import TableError, Tables, need

TABLE = "vocabulary"
ASSETS = "relation-assets"
AREA = "relations"
KINDS = ("rule", "doc", "learning", "skill", "wiki")


def source_text(assets: Mapping[str, Any], related: str) -> str:
    """A declaring asset's file: its title and ``related:`` followed by ``related`` (a newline and
    the block's indented lines, or a space and a value on the same line)."""
    return f"---\ntitle: {assets['source_title']}\nrelated:{related}\n---\n{assets['source_body']}\n"


def path_of(tree_path: str) -> str:
    return "${path:" + tree_path + "}"


def checked(assets: Mapping[str, Any], declarer: str, source: Mapping[str, Any], text: str,
            findings: list[tuple[str, str, str]], team: dict[str, str], recalls: list[dict[str, Any]],
            recall_expect: dict[str, Any]) -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]:
    """The tree, steps and step expectations of a scenario whose declaring asset is checked:
    review --branch for a rule or a doc (the source is on main, and the branch leaves it as is),
    contribute for a learning (after the recalls, so they see the tree as written).

    ``findings``: (grade, message, what contribute says it ignored), in file order.
    """
    data: dict[str, Any] = {"team": team}
    if declarer == "learning":
        lines = [str(assets["contribute_line"]).format(message=m, consequence=c) for _g, m, c in findings]
        steps = [*recalls, {"contribute": {"title": str(assets["source_title"]), "text": text}, "as": "c1"}]
        return data, steps, {**recall_expect, "c1": {"exit": 0, "findings": lines}}
    lines = [str(assets["review_line"][g]).format(source=source["tree_path"], message=m) for g, m, _c in findings]
    data["repo"] = {"branches": {str(assets["review_branch"]): {}}}
    steps = [{"review": {"branch": str(assets["review_branch"])}, "as": "v1"}, *recalls]
    failed = any(g == "fail" for g, _m, _c in findings)
    return data, steps, {"v1": {"exit": 1 if failed else 0, "findings": lines}, **recall_expect}


def cells(tables: Tables) -> Iterator[Generated]:
    table = tables.table(TABLE)
    assets = tables.table(ASSETS)
    nouns = need(assets, "nouns", f"{ASSETS}.yaml")
    clauses = need(table, "clauses", f"{TABLE}.yaml")
    code = set(table.get("code_to_code") or ())
    messages = need(table, "messages", f"{TABLE}.yaml")
    for relation, by_declarer in need(table, "allowed", f"{TABLE}.yaml").items():
        relation = str(relation)
        for declarer, allowed in by_declarer.items():
            declarer = str(declarer)
            source = need(assets["sources"], declarer, f"{ASSETS}.yaml: sources")
            for target_kind in KINDS:
                target = need(assets["targets"], target_kind, f"{ASSETS}.yaml: targets")
                ok = target_kind in allowed
                if ok:
                    findings: list[tuple[str, str, str]] = []
                elif relation in code:
                    findings = [("fail", str(messages["code_to_code"]).format(
                        relation=relation, noun=nouns[declarer], use_declarable=assets["use_declarable"]),
                        str(messages["ignored"]))]
                else:
                    findings = [("fail", str(messages["outside_table"]).format(
                        noun=nouns[declarer], relation=relation, target_noun=nouns[target_kind],
                        target=target["tree_path"], instead=_instead(table, assets, relation, declarer, target_kind)),
                        str(messages["ignored"]))]
                text = source_text(assets, f"\n  {relation}: {target['tree_path']}")
                team = {str(target["file"]): str(target["text"]), str(source["file"]): text}
                recalls = [{"recall": str(assets["source_word"]), "as": "out"},
                           {"recall": str(assets["target_word"]), "as": "in"}]
                recall_expect = {
                    "out": {"exit": 0, "related": {str(source["tree_path"]): (
                        [f"→ {relation} {path_of(str(target['tree_path']))}"] if ok else [])}},
                    "in": {"exit": 0, "related": {str(target["tree_path"]): (
                        [f"← {relation} {path_of(str(source['tree_path']))}"] if ok else [])}},
                }
                data, steps, step_expect = checked(assets, declarer, source, text, findings, team, recalls,
                                                   recall_expect)
                yield Generated(
                    id=f"{PREFIX}vocab-{declarer}-{slug(relation)}-{target_kind}",
                    area=AREA, table=TABLE,
                    row=f"relation {relation} x declared by a {declarer} x towards a {target_kind}",
                    data={
                        "title": f"{nouns[declarer].capitalize()} declaring {relation} towards {nouns[target_kind]}: "
                                 + ("shown on both ends, no finding" if ok else
                                    "never shown, and " + ("review fails it" if declarer != "learning"
                                                           else "contribute warns and publishes")),
                        "clauses": _clauses(clauses, relation, declarer, target_kind, ok, relation in code),
                        "provenance": "generated",
                        "agents": [],
                        **data,
                        "steps": steps,
                        "expect": {"steps": step_expect},
                    })


def _instead(table: Mapping[str, Any], assets: Mapping[str, Any], relation: str, declarer: str, target: str) -> str:
    allowed = table["allowed"]
    for other in (table.get("instead") or {}).get(relation) or ():
        if target in (allowed.get(other) or {}).get(declarer, ()):
            return str(other)
    return str(assets["use_declarable"]).removeprefix("Use ")


def _clauses(c: Mapping[str, Any], relation: str, declarer: str, target: str, ok: bool, code: bool) -> list[str]:
    out = [*c["always"], *(c["allowed"] if ok else c["refused"])]
    if code:
        out += c["code_to_code"]
    else:
        out.append(c["cell"][relation][declarer])
        if not ok:
            out += c["outside_table"]
    out.append(c["target"][target])
    out += c["review"] if declarer != "learning" else c["contribute"]
    if declarer == "learning" and relation == "SUPERSEDES" and target == "rule":
        out.append(c["learning_not_rule"])
    if relation == "REFERENCES":
        out.append(c["any_asset"])
    if ok and target == "skill":
        out.append(c["skill_path"])
    if not isinstance(out[0], str):
        raise TableError(f"{TABLE}.yaml: clauses must be lists of clause ids")
    return list(dict.fromkeys(str(x) for x in out))

