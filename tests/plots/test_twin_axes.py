"""Twin-axis panels on screen: errors on the left axis and −Û on the right one in every panel, no axis
without its curve, a grid without empty cells (every twin-axis figure of the registry), and, for the real
data of Figs 6, 7 and 9 of the boundary uncertainty paper, a title that names the data."""

import holoviews as hv
import numpy as np
import pytest
from bokeh.models import Axis, Div, Plot

from buviz import figures
from buviz.plots._hv_compat import layout_columns

ERROR, NEG_U = "error rate", "−Û (best −1)"


def _side(fig, side: str) -> list[Axis]:
    """The axes on one side of a Bokeh figure (a legend or a colour bar placed there is no axis)."""
    return [a for a in getattr(fig, side) if isinstance(a, Axis)]


def _axes(fig) -> dict[str, list[str]]:
    """The y axis labels of a Bokeh figure by side."""
    return {side: [a.axis_label for a in _side(fig, side) if a.axis_label in (ERROR, NEG_U)]
            for side in ("left", "right")}


def _drawn(fig) -> set[str]:
    """The y axis labels of the curves a Bokeh figure draws with values (y range name → axis label)."""
    left = _side(fig, "left")
    names = {"default": left[0].axis_label if left else None}
    for side in ("left", "right"):
        for a in _side(fig, side):
            names[getattr(a, "y_range_name", "default")] = a.axis_label
    out = set()
    for r in fig.renderers:
        ys = r.data_source.data.get(r.glyph.y) if hasattr(r.glyph, "y") and isinstance(r.glyph.y, str) else None
        if ys is not None and np.isfinite(np.asarray(ys, dtype=float)).any():
            out.add(names.get(r.y_range_name, names["default"]))
    return out


@pytest.mark.parametrize("key", ["uncertainty_fig6", "uncertainty_fig7", "uncertainty_fig9"])
def test_errors_left_u_right_no_axis_without_its_curve_a_full_grid_and_the_data_named(key):
    layout = figures.render(key)
    panels = list(layout)
    assert len(panels) % min(layout_columns(layout), len(panels)) == 0, "an empty cell in the grid"
    title = layout.opts.get(backend="bokeh").kwargs.get("title", "")
    assert "N = " in title and "seeds" in title, title
    assert title == layout.opts.get(backend="matplotlib").kwargs.get("title")  # the export names it too
    root = hv.render(layout, backend="bokeh")
    assert any(title in d.text for d in root.select({"type": Div}))  # shown above the grid
    figs = list(root.select({"type": Plot}))
    assert len(figs) == len(panels)
    for fig in figs:
        axes = _axes(fig)
        assert set(axes["left"]) <= {ERROR} and set(axes["right"]) <= {NEG_U}, (fig.title.text, axes)
        assert set(axes["left"] + axes["right"]) == _drawn(fig), fig.title.text  # an axis only with its curve


#: Every figure of the registry drawn with twin y axes.
TWIN = [k for k, c in figures.REGISTRY.items() if c.twin_y]


@pytest.mark.slow
@pytest.mark.parametrize("key", TWIN)
def test_every_twin_axis_figure_keeps_each_quantity_on_one_side_and_fills_its_grid(key):
    """In every panel that draws an error rate, the errors are on the left and −Û on the right; a panel
    that draws −Û alone (the sensitivity figures) has one axis, on the same side in every such panel of
    the figure; no axis without its curve; panels of maps beside the curves (Figs 14, 15) are not
    twin-axis panels; the panels fill their grid."""
    layout = figures.render(key)
    panels = list(layout) if isinstance(layout, hv.Layout) else [layout]
    if isinstance(layout, hv.Layout):
        assert len(panels) % min(layout_columns(layout), len(panels)) == 0, "an empty cell in the grid"
    figs = list(hv.render(layout, backend="bokeh").select({"type": Plot}))
    alone = set()
    curves = 0
    for fig in figs:
        axes = _axes(fig)
        if not axes["left"] + axes["right"]:
            continue  # a map
        curves += 1
        assert set(axes["left"] + axes["right"]) == _drawn(fig), fig.title.text  # an axis only with its curve
        if ERROR in axes["left"] + axes["right"]:
            assert axes["left"] == [ERROR] and axes["right"] in ([], [NEG_U]), (fig.title.text, axes)
        else:
            alone.add("left" if axes["left"] else "right")
    assert curves and len(alone) <= 1, (key, alone)
