"""Notebook 04's "Try it: ρ" cell follows its slider in place: the cell's own code, run as the notebook
runs it, drawn to Bokeh models; a slider step changes the figures' data and titles and keeps their data
sources (no figure is rebuilt, the flicker pattern of a function returning a new layout). The cell draws
through the toy model's display, :class:`~buviz.plots.displays.ToyModelDisplay`."""

import ast
import json
from pathlib import Path

import holoviews as hv
import numpy as np
import panel as pn
import param
from bokeh.document import Document
from bokeh.models import ColumnDataSource, Title

from buviz import extrapolation as ex
from buviz.plots.displays import ToyModelDisplay

NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "04_accuracy_extrapolation.ipynb"


def _run_cell(marker: str):
    """Run the notebook's code cell containing ``marker`` with the notebook's imports; its last value."""
    cells = json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"]
    (source,) = ["".join(c["source"]) for c in cells if c["cell_type"] == "code" and marker in "".join(c["source"])]
    tree = ast.parse(source)
    last = ast.Expression(tree.body.pop().value)
    ns = {"np": np, "hv": hv, "pn": pn, "ex": ex, "ToyModelDisplay": ToyModelDisplay}
    exec(compile(tree, NOTEBOOK.name, "exec"), ns)  # noqa: S102 -- the project's own notebook
    return eval(compile(last, NOTEBOOK.name, "eval"), ns), ns  # noqa: S307


def _sums(root) -> dict:
    def total(v):  # a column of numbers, or of arrays (an image's rows, a path's pieces)
        try:
            return float(np.nansum(np.asarray(v, dtype=float)))
        except ValueError:
            return float(sum(np.nansum(np.asarray(x, dtype=float)) for x in v))

    return {m.id: sum(total(v) for v in m.data.values()) for m in root.select({"type": ColumnDataSource})}


def test_the_rho_cell_updates_its_figures_in_place():
    hv.extension("bokeh")
    layout, ns = _run_cell('pn.widgets.FloatSlider(name="rho"')
    rho = ns["rho"]
    root = layout.get_root(Document())
    before = _sums(root)
    titles = sorted(t.text for t in root.select({"type": Title}))
    assert len(before) >= 2 and any("ρ = 0.7" in t for t in titles), titles
    with param.edit_constant(rho):  # what a release of the slider does in the browser
        rho.param.update(value=0.5, value_throttled=0.5)
    after = _sums(root)
    assert set(after) == set(before), "a slider step rebuilt a figure instead of updating it"
    # every panel but the reference curves follows ρ: the level sets, "this ρ", the risks
    assert sum(after[k] != before[k] for k in before) >= 6, "the figures kept the data of the old ρ"
    assert sorted(t.text for t in root.select({"type": Title})) == sorted(t.replace("0.7", "0.5") for t in titles)
    toy = ns["toy"]
    assert toy.rho == 0.5
    this = [s for s in root.select({"type": ColumnDataSource}) if len(s.data.get("Dbar", [])) == 201]
    assert any(np.allclose(s.data["Dbar"], ex.toy_dbar(s.data["u"], 0.5)) for s in this)
