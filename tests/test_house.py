"""House rules for the code itself: no import circles between modules, no module too long to read, and
no data file of the reference left out of what a wheel installs.

The import walk reads every import statement with ``ast`` (module level and inside functions alike,
``from __future__`` excluded); ``from pkg import name`` counts as importing ``pkg.name`` when that is
a module, else ``pkg``. Relative imports are resolved against the importing module's package (a
package's ``__init__`` is that package).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("reference", "conformance")
MAX_LINES = 500


def module_files(root: Path, packages: Iterable[str]) -> dict[str, Path]:
    """Every module under the packages, by dotted name (``pkg/sub/__init__.py`` is ``pkg.sub``)."""
    modules: dict[str, Path] = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            modules[".".join(parts)] = path
    return modules


def _imported(node: ast.Import | ast.ImportFrom, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of ``known`` that one import statement in module ``name`` imports."""
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names} & known
    if node.module == "__future__":
        return set()
    if node.level:
        package = name.split(".") if is_package else name.split(".")[:-1]
        base = package[: len(package) - (node.level - 1)]
        target = ".".join([*base, node.module] if node.module else base)
    else:
        target = node.module or ""
    found = set()
    for alias in node.names:
        child = f"{target}.{alias.name}"
        found.add(child if child in known else target)
    return found & known


def import_graph(root: Path, packages: Iterable[str]) -> dict[str, set[str]]:
    """Module name -> the modules (of the same packages) it imports anywhere in its text."""
    files = module_files(root, packages)
    known = set(files)
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        edges: set[str] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                edges |= _imported(node, name, path.name == "__init__.py", known)
        edges.discard(name)
        graph[name] = edges
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def _describe(graph: dict[str, set[str]], component: list[str]) -> str:
    members = set(component)
    edges = [f"{a} -> {b}" for a in component for b in sorted(graph[a] & members)]
    return f"{', '.join(component)} ({'; '.join(edges)})"


def test_no_module_imports_itself_back():
    graph = import_graph(ROOT, PACKAGES)
    assert len(graph) > 100, sorted(graph)
    found = circles(graph)
    assert not found, "import circles:\n" + "\n".join(_describe(graph, c) for c in found)


def test_no_module_is_longer_than_the_limit():
    long = [f"{path.relative_to(ROOT)}: {count}" for path in sorted(module_files(ROOT, PACKAGES).values())
            if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES]
    assert not long, f"modules over {MAX_LINES} lines:\n" + "\n".join(long)


def _write(root: Path, files: dict[str, str]) -> None:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def test_the_walker_finds_a_circle_through_any_kind_of_import(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "from pkg import sub\n",
        "pkg/a.py": "from __future__ import annotations\nfrom . import b\n",
        "pkg/b.py": "def late():\n    from .sub.c import thing\n    return thing\n",
        "pkg/sub/__init__.py": "from .. import d\n",
        "pkg/sub/c.py": "import pkg.a\nthing = 1\n",
        "pkg/d.py": "from pkg.sub import c\nfrom pkg import missing\nimport os\n",
        "pkg/e.py": "from . import a\n",
        "other/__init__.py": "",
    })
    graph = import_graph(tmp_path, ["pkg", "other"])
    assert graph == {
        "pkg": {"pkg.sub"},
        "pkg.a": {"pkg.b"},
        "pkg.b": {"pkg.sub.c"},
        "pkg.sub": {"pkg.d"},
        "pkg.sub.c": {"pkg.a"},
        "pkg.d": {"pkg.sub.c", "pkg"},
        "pkg.e": {"pkg.a"},
        "other": set(),
    }
    # pkg -> pkg.sub -> pkg.d -> pkg closes a second circle; pkg.d -> pkg.sub.c is a bridge between them.
    assert circles(graph) == [["pkg", "pkg.d", "pkg.sub"], ["pkg.a", "pkg.b", "pkg.sub.c"]]
    assert "pkg.b -> pkg.sub.c" in _describe(graph, ["pkg.a", "pkg.b", "pkg.sub.c"])


def test_the_walker_finds_no_circle_where_imports_flow_one_way(tmp_path):
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/low.py": "import json\n",
        "pkg/mid.py": "from .low import x\n",
        "pkg/top.py": "from pkg import mid, low\n",
    })
    graph = import_graph(tmp_path, ["pkg"])
    assert graph["pkg.top"] == {"pkg.mid", "pkg.low"}
    assert circles(graph) == []


def test_every_data_file_of_the_reference_is_in_its_package_data():
    """A file recall reads (a word list) that a wheel leaves out works in a checkout and fails
    once installed: every file under ``reference/`` that is not Python is listed."""
    import fnmatch
    import tomllib

    listed = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"].get("reference", [])
    data = [path.relative_to(ROOT / "reference").as_posix() for path in (ROOT / "reference").rglob("*")
            if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts]
    assert data, "the reference ships its word lists as data files"
    assert [d for d in data if not any(fnmatch.fnmatch(d, pattern) for pattern in listed)] == []
