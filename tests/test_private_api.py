"""No private attribute of HoloViews, Bokeh, Panel or param is used outside the two gate modules.

The gates, ``buviz/app/_panel_compat.py`` and ``buviz/plots/_hv_compat.py``, hold every internal the
app relies on, each with a test that fails when a release changes it. Everywhere else buviz reads the
syntax tree of each module and refuses:

- an attribute ``obj._name`` (one leading underscore, not a dunder) whose name buviz itself never
  defines (a ``def``/``class``, a name assigned at module or class level, ``self._name = ...``, or a
  ``_buviz_*`` marker buviz sets on a foreign object) — so ``pn.state._periodic`` or a Viewer
  subclass reading ``self._param_watchers`` is found whatever the name;
- the same through a string: ``getattr(obj, "_name")``, ``setattr``, ``hasattr``;
- ``obj._name`` on a name bound to one of those packages (``hv._x``, ``pn.state._x``), even if buviz
  defines a ``_name`` of its own;
- an import of a private name or from a private module of those packages.

Three reads of other libraries' private attributes (scikit-learn's and Matplotlib's) are listed in
:data:`OTHER_READS`, each with why no public attribute gives the value.
"""

from __future__ import annotations

import ast
import pathlib

import buviz

GATES = {"_panel_compat.py", "_hv_compat.py"}
FOREIGN = ("holoviews", "bokeh", "panel", "param")
#: Private attributes of scikit-learn and Matplotlib read outside the gates, and why.
OTHER_READS = {
    "_gamma": "SVC's γ as resolved at fit ('scale' is 1 / (d · Var X) of the training X, which the "
              "estimator does not keep): buviz.classifiers evaluates a fitted SVC's kernel rows",
    "_fit_method": "NearestNeighbors' algorithm as resolved at fit from 'auto': the k-NN candidates of "
                   "select_by_uncertainty share one search per resolved algorithm",
    "_colorbar": "Matplotlib marks a colorbar's axes with it: the static export moves HoloViews' colorbars "
                 "beside their panels and leaves them out of the panel grid",
}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _defined_names(trees: dict[pathlib.Path, ast.Module]) -> set[str]:
    """The private names buviz defines itself (outside the gates)."""
    out: set[str] = set()
    for path, tree in trees.items():
        if path.name in GATES:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                out.add(node.name)
            targets = []
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, ast.AnnAssign | ast.AugAssign):
                targets = [node.target]
            for t in targets:
                for sub in ast.walk(t):
                    if isinstance(sub, ast.Name):
                        out.add(sub.id)
                    elif isinstance(sub, ast.Attribute) and (
                            (isinstance(sub.value, ast.Name) and sub.value.id in ("self", "cls"))
                            or sub.attr.startswith("_buviz_")):
                        out.add(sub.attr)
            if isinstance(node, ast.arg | ast.keyword) and getattr(node, "arg", None):
                out.add(node.arg)
    return out


def _foreign_aliases(tree: ast.Module) -> set[str]:
    """Names a module binds to HoloViews, Bokeh, Panel or param (``hv``, ``pn``, ``Legend``, ...)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {(a.asname or a.name).split(".")[0] for a in node.names if a.name.split(".")[0] in FOREIGN}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in FOREIGN:
            out |= {a.asname or a.name for a in node.names}
    return out


def _root_name(node: ast.expr) -> str | None:
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def private_uses(tree: ast.Module, defined: set[str]) -> list[tuple[int, str]]:
    """(line, what) for every private use of a foreign object in ``tree`` (see the module docstring)."""
    aliases = _foreign_aliases(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            if node.attr in OTHER_READS:
                continue
            if node.attr not in defined or _root_name(node.value) in aliases:
                found.append((node.lineno, f".{node.attr}"))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id in ("getattr", "setattr", "hasattr", "delattr") and len(node.args) >= 2
              and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            name = node.args[1].value
            if _private(name) and name not in OTHER_READS and (
                    name not in defined or _root_name(node.args[0]) in aliases):
                found.append((node.lineno, f"{node.func.id}(…, {name!r})"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in FOREIGN:
            if any(_private(part) for part in node.module.split(".")):
                found.append((node.lineno, f"from {node.module} import …"))
            found += [(node.lineno, f"from {node.module} import {a.name}") for a in node.names if _private(a.name)]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, f"import {a.name}") for a in node.names
                      if a.name.split(".")[0] in FOREIGN and any(_private(p) for p in a.name.split("."))]
    return found


def _buviz_trees() -> dict[pathlib.Path, ast.Module]:
    root = pathlib.Path(buviz.__file__).parent
    return {p: ast.parse(p.read_text(encoding="utf-8")) for p in sorted(root.rglob("*.py"))}


def test_no_private_attribute_of_holoviz_or_bokeh_outside_the_gates():
    trees = _buviz_trees()
    defined = _defined_names(trees)
    root = pathlib.Path(buviz.__file__).parent
    found = [f"{p.relative_to(root)}:{line}: {what}" for p, tree in trees.items() if p.name not in GATES
             for line, what in private_uses(tree, defined)]
    assert not found, "private attributes of other packages outside the gate modules:\n" + "\n".join(found)


def test_the_scan_finds_each_kind_of_private_use():
    """The guard itself: each way of reaching a foreign internal is found, buviz's own names are not."""
    snippet = '''
import panel as pn
import holoviews as hv
from bokeh.server.views.ws import _private_thing
from panel.io._internal import helper
import bokeh._hidden

class View(pn.viewable.Viewer):
    def __init__(self):
        self._mine = 1
        self._mine += self._param_watchers
        pn.state._periodic.clear()
        getattr(doc, "_held_events")
        hv._mine
        widget._buviz_marker = True
        getattr(widget, "_buviz_marker")
'''
    tree = ast.parse(snippet)
    defined = _defined_names({pathlib.Path("snippet.py"): tree})
    found = {what for _, what in private_uses(tree, defined)}
    assert found == {"from bokeh.server.views.ws import _private_thing", "from panel.io._internal import …",
                     "import bokeh._hidden", "._param_watchers", "._periodic", "getattr(…, '_held_events')",
                     "._mine"}, found
