"""No module of ``buviz`` depends on itself through its imports.

The rule: module A depends on module B when A's source holds ``import B``, ``from B import name``
or ``from B.parent import B`` **anywhere** (module level or inside a function; relative imports
resolved), except under ``if TYPE_CHECKING:``. A function-level import delays the cycle to run time
but is still a mutual dependency: the two modules can be neither understood nor tested apart, and
the import order decides which half sees the other half-initialised. Importing ``pkg.mod`` is an
edge to ``pkg.mod`` only, not to ``pkg`` (Python initialises the parent package first whatever the
importer does; counting it would make every package a cycle with its own ``__init__``). Only
``buviz`` modules count; the graph is read from the source with :mod:`ast`, nothing is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "buviz"

def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, name: str, is_package: bool, modules: set[str]) -> set[str]:
    """The ``buviz`` modules that the module ``name`` imports (see the module docstring for the rule)."""
    out: set[str] = set()
    here = name if is_package else name.rpartition(".")[0]

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names if alias.name in modules)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[:len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                if sub in modules:
                    out.add(sub)
                elif target in modules:
                    out.add(target)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    out.discard(name)
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the ``buviz`` modules it imports, for every module of the package."""
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    return {name: _imports(ast.parse(p.read_text()), name, p.name == "__init__.py", modules)
            for name, p in paths.items()}


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.add(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(frozenset(comp))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_the_graph_is_read():
    graph = import_graph()
    assert "buviz.uncertainty.proposal2" in graph["buviz.model_selection"]
    assert "buviz.uncertainty._kernel" in graph["buviz.uncertainty._torch"]
    # a function-level import is an edge too
    assert "buviz.uncertainty._torch" in graph["buviz.uncertainty.proposal2"]


def test_cycle_finder_finds_a_planted_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [frozenset({"a", "b", "c"})]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles():
    found = cycles(import_graph())
    assert [sorted(c) for c in found] == [], "import cycles in buviz"
