"""#1552's table of malformed and edge-case declarations as scenarios: every variant of every row
(``tables/malformed.yaml``), declared by a rule and by a doc and checked by review --branch, and
declared by a learning and checked by contribute, on the tree of ``tables/relation-assets.yaml``.

Each scenario pins the findings (exact lines, in file order; review's exit status) and the
declaring asset's Related: lines, so what the row keeps shows and what it ignores does not.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .model import PREFIX, Generated
from .tables import TableError, Tables, need
from .vocabulary import ASSETS, checked, path_of, source_text

TABLE = "malformed"
DECLARERS = ("rule", "doc", "learning")
AREAS = {"rule": "review", "doc": "review", "learning": "contribute"}


def _related(variant: Mapping[str, Any], self_path: str) -> str:
    if "inline" in variant:
        return " " + str(variant["inline"]).replace("{self}", self_path)
    block = str(need(variant, "block", f"{TABLE}.yaml: variant {variant.get('variant')}"))
    return "".join("\n  " + line for line in block.replace("{self}", self_path).splitlines())


def cells(tables: Tables) -> Iterator[Generated]:
    table = tables.table(TABLE)
    assets = tables.table(ASSETS)
    nouns = assets["nouns"]
    words = {"use_declarable": str(assets["use_declarable"]), "path_hint": str(table["path_hint"])}
    team_base = {str(t["file"]): str(t["text"]) for t in assets["targets"].values()}
    for row in need(table, "rows", f"{TABLE}.yaml"):
        for variant in row["variants"]:
            for declarer in variant.get("only") or DECLARERS:
                yield _cell(table, assets, words, team_base, row, variant, str(declarer), nouns)


def _cell(table: Mapping[str, Any], assets: Mapping[str, Any], words: dict[str, str], team_base: dict[str, str],
          row: Mapping[str, Any], variant: Mapping[str, Any], declarer: str, nouns: Mapping[str, str]) -> Generated:
    source = assets["sources"][declarer]
    self_path = str(source["tree_path"])
    check = "contribute" if declarer == "learning" else "review"
    text = source_text(assets, _related(variant, self_path))
    findings = []
    for f in variant.get("findings") or ():
        if check not in (f.get("checks") or (check,)):
            continue
        message = str(f["message"]).format(noun=nouns[declarer], self=self_path,
                                           on_branch=str(table["on_branch"]) if check == "review" else "", **words)
        findings.append((str(f["grade"]), message, str(f["ignored"])))
    kept = [f"→ {rel} {path_of(str(target))}" for rel, target in variant.get("kept") or ()]
    recalls = [{"recall": str(assets["source_word"]), "as": "out"}]
    data, steps, step_expect = checked(assets, declarer, source, text, findings, {**team_base, str(source["file"]): text},
                                       recalls, {"out": {"exit": 0, "related": {self_path: kept}}})
    name = f"{row['row']}-{variant['variant']}"
    said = ("no finding" if not findings else
            ("review " + ("fails it" if any(g == "fail" for g, _m, _c in findings) else "warns"))
            if check == "review" else "contribute warns and publishes")
    clauses = [*row.get("clauses", ()), *variant.get("clauses", ()), *table["clauses"][check]]
    if not clauses:
        raise TableError(f"{TABLE}.yaml: row {row['row']} names no clause")
    return Generated(
        id=f"{PREFIX}malformed-{name}-{declarer}",
        area=AREAS[declarer], table=TABLE,
        row=f"row {row['row']} ({row['text']}) x variant {variant['variant']} x declared by a {declarer}",
        data={
            "title": f"{nouns[declarer].capitalize()} with a {row['row']} declaration ({variant['variant']}): "
                     f"{len(kept)} relation(s) shown, {said}",
            "clauses": list(dict.fromkeys(str(c) for c in clauses)),
            "provenance": "generated",
            "agents": [],
            **data,
            "steps": steps,
            "expect": {"steps": step_expect},
        })
