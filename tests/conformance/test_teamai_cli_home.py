"""The throwaway HOME for teamai-cli 0.25.0: it indexes what the reference indexes.

The pure parts (the manifest, path mapping, the teamwiki page rule) run everywhere; the check
against 0.25 itself is skipped where node or npm is missing or the package cannot be installed.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import yaml

from conformance.drivers import teamai_cli_home as home_mod
from reference.recall import index, index_build
from reference.team import config

TREE = {
    "rules/finance/payments.md": "# Payments must be idempotent\n\nEvery charge carries an idempotency key.\n",
    "rules/top.md": "---\ntitle: Top rule\n---\nBody.\n",
    "docs/guides/ledger-reconciliation.md": "Nightly reconciliation of the ledger against the bank statement.\n",
    "learnings/flat-2026-01-02-abc123.md": "---\ntitle: Flat learning\ntags: [receipt]\n---\nFlat.\n",
    "learnings/payments/receipt-timeout.md": "---\ntitle: Receipt write times out\ntags: [receipt]\n---\nSlow.\n",
    "learnings/ops/deep/nested-note.md": "---\ntitle: Nested note\n---\nDeep.\n",
    "skills/refund-helper/SKILL.md": "---\nname: refund-helper\ndescription: Refund a failed charge.\n---\nSteps.\n",
    "teamwiki/evidence/code/shop/modules/checkout.md": "---\ntitle: Checkout module\n---\nCalls the gateway.\n",
    "teamwiki/evidence/code/shop/overview.md": "# Shop\n\nThe shop codebase.\n",
}


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_the_manifest_lists_every_learnings_folder(tmp_path):
    team = write(tmp_path / "team", TREE)
    (team / "learnings" / ".git").mkdir()
    assert home_mod.learnings_namespaces(str(team)) == ["ops", "payments"]
    manifest = yaml.safe_load(home_mod.projects_manifest(["ops", "payments"]))
    (project,) = manifest["projects"]
    assert project["id"] == home_mod.TEAM_PROJECT and project["resources"]["learnings"] == ["ops", "payments"]


def test_one_namespace_is_listed_with_an_absent_one_so_contribute_stays_at_the_top():
    listed = yaml.safe_load(home_mod.projects_manifest(["only"]))["projects"][0]["resources"]["learnings"]
    assert listed[0] == "only" and len(listed) == 2


def test_make_home_switches_namespaces_on_and_leaves_the_team_tree_alone(tmp_path):
    team = write(tmp_path / "team", TREE)
    before = sorted(p.relative_to(team).as_posix() for p in team.rglob("*"))
    home = Path(home_mod.make_home(str(team), str(tmp_path / "work")))
    clone = home / ".teamai" / "team-repo"
    manifest = yaml.safe_load((clone / "manifest" / "projects.yaml").read_text(encoding="utf-8"))
    assert manifest["projects"][0]["resources"]["learnings"] == ["ops", "payments"]
    cfg = yaml.safe_load((home / ".teamai" / "config.yaml").read_text(encoding="utf-8"))
    assert cfg["projects"] == [home_mod.TEAM_PROJECT]
    assert sorted(p.relative_to(team).as_posix() for p in team.rglob("*")) == before


def test_a_tree_without_namespaces_gets_no_manifest(tmp_path):
    team = write(tmp_path / "team", {"learnings/a.md": "A\n", "rules/r.md": "R\n"})
    home = Path(home_mod.make_home(str(team), str(tmp_path / "work")))
    assert not (home / ".teamai" / "team-repo" / "manifest").exists()
    assert "projects" not in yaml.safe_load((home / ".teamai" / "config.yaml").read_text(encoding="utf-8"))


def test_printed_paths_map_to_tree_paths():
    home = os.path.join(os.sep, "h")
    synced = os.path.join(home, ".teamai", "learnings")
    clone = os.path.join(home, ".teamai", "team-repo")
    assert home_mod.tree_path(home, os.path.join(synced, "ops", "deep", "n.md")) == "learnings/ops/deep/n"
    assert home_mod.tree_path(home, os.path.join(clone, "learnings", "a.md")) == "learnings/a"
    assert home_mod.tree_path(home, os.path.join(clone, "skills", "s", "SKILL.md")) == "skills/s"
    assert home_mod.tree_path(home, os.path.join(clone, "rules", "f", "p.md")) == "rules/f/p.md"
    assert home_mod.tree_path(home, os.path.join(clone, "teamwiki", "x.md")) == "teamwiki/x.md"
    assert home_mod.tree_path(home, os.path.join(clone, "manifest", "projects.yaml")) is None
    assert home_mod.tree_path(home, os.path.join(os.sep, "elsewhere", "a.md")) is None


def test_wiki_pages_follow_the_default_depth_rule(tmp_path):
    write(tmp_path, {f"teamwiki/evidence/code/{rel}": "x\n" for rel in (
        "shop/modules/checkout.md", "shop/modules/deep/cart.md", "shop/overview.md", "shop/docs/api.md",
        "shop/index.md", "shop/router.md", "shop/notes.md", "shop/modules/index.md")})
    assert home_mod.wiki_pages(str(tmp_path)) == [
        f"teamwiki/evidence/code/shop/{rel}" for rel in (
            "docs/api.md", "modules/checkout.md", "modules/deep/cart.md", "modules/index.md", "overview.md")]


def reference_assets(team: Path, state: Path) -> dict[str, set[str]]:
    cfg = config.load({"TEAMAI_HOME": str(state)}, team=str(team))
    conn = index.open_index(cfg.active)
    index_build.refresh(conn, cfg.active, lambda _m: None)
    found: dict[str, set[str]] = {}
    for entry in index.entries(conn):
        found.setdefault(entry.kind, set()).add(entry.tree_path)
    return found


@pytest.fixture(scope="module")
def entry(teamai_cli: str) -> str:
    return teamai_cli


def test_0_25_indexes_the_assets_the_reference_indexes(entry, tmp_path):
    team = write(tmp_path / "team", TREE)
    env = home_mod.set_up(entry, str(team), str(tmp_path / "work"))
    peer = {kind: paths for kind, paths in home_mod.indexed_assets(env["HOME"]).items() if paths}
    assert peer == reference_assets(team, tmp_path / "state")
    assert "learnings/ops/deep/nested-note" in peer["learning"]


def test_0_25_keys_and_titles_a_nested_rule_by_its_path_under_rules(entry, tmp_path):
    """What 0.25 does with ``rules/finance/payments.md`` (no frontmatter title): the hit header
    and the ledger both use ``finance/payments``, not the base name or the heading."""
    team = write(tmp_path / "team", TREE)
    env = home_mod.set_up(entry, str(team), str(tmp_path / "work"))
    out = subprocess.run(["node", entry, "recall", "payments"], env=env, capture_output=True, text=True,
                         timeout=120).stdout
    assert "[rules] finance/payments [user]" in out
    ledger = yaml.safe_load((Path(env["HOME"]) / ".teamai" / "votes" / "bench.yaml").read_text(encoding="utf-8"))
    assert "finance/payments" in ledger["votes"] and "payments" not in ledger["votes"]
