"""The explorer's figure gallery without a browser: figures grouped by paper, widgets from the param
declarations, render on demand, errors as a message with the last figure kept, export bytes."""

from __future__ import annotations

import threading
import time

import holoviews as hv
import pandas as pd
import panel as pn
import pytest

from buviz import figures
from buviz.app.gallery import PAPER_TITLES, FigureGallery, out_of_range


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("BUVIZ_CACHE_DIR", str(tmp_path / "cache"))


def _rendered(g) -> bool:
    """Render, and wait for it on the gallery's bus (no server: the caller waits); whether it was asked for."""
    submitted = g.render()
    g.bus.wait()
    return submitted


def _curve_points(obj) -> int:
    return sum(len(el) for el in obj if isinstance(el, hv.Curve))


def test_lists_every_figure_grouped_by_paper():
    g = FigureGallery()
    groups = g.select.groups
    assert list(groups) == list(PAPER_TITLES.values())
    listed = [k for group in groups.values() for k in group.values()]
    assert sorted(listed) == sorted(figures.REGISTRY)
    for paper, title in PAPER_TITLES.items():
        assert all(figures.REGISTRY[k].paper == paper for k in groups[title].values())


def test_widgets_follow_the_param_declarations():
    g = FigureGallery(figure="discrete_fig2")
    assert list(g.widgets) == ["N", "k", "n_p"]
    n = g.widgets["N"]
    assert isinstance(n, pn.widgets.IntInput) and n.value == 50
    assert n.description == "sample size N (integer in [2, 400])"  # the declared range, in the tooltip
    g.figure = "extrapolation_fig11_synthetic"
    assert isinstance(g.widgets["methods"], pn.widgets.MultiSelect)  # Panel's widget for a ListSelector
    assert isinstance(g.widgets["classifier"], pn.widgets.Select)
    assert g.select.value == "extrapolation_fig11_synthetic"
    g.figure = "uncertainty_fig6_quick"
    assert g.widgets["log2_gamma"].value == [-6, -4, -2, 0, 2, 4, 6]
    assert g.widgets["n_train"].description.startswith("training samples")  # the doc as the tooltip
    g.widgets["cv"].value = 3
    assert g.values_of.cv == 3 and g.values() == {"cv": 3}  # the widget sets the figure's parameter


def test_renders_only_on_demand_and_a_parameter_change_changes_the_figure():
    g = FigureGallery(figure="discrete_fig2")
    assert g.plot.object is None  # nothing built before Render
    g.widgets["n_p"].value = 11
    assert g.plot.object is None  # a widget change does not render
    assert _rendered(g)
    first = g.plot.object
    assert _curve_points(first) == 4 * 11
    g.widgets["n_p"].value = 21
    g._on_render()  # the button's callback
    g.bus.wait()
    assert g.plot.object is not first and _curve_points(g.plot.object) == 4 * 21
    assert not g.message.visible and not g.rendering


def test_bad_value_shows_a_message_and_keeps_the_last_figure():
    g = FigureGallery(figure="discrete_fig1")
    g.widgets["N"].value = 20
    assert _rendered(g)
    shown = g.plot.object
    g.widgets["n"].value = 30  # n must not exceed N: a bound that depends on another parameter
    _rendered(g)  # asked for: the figure refuses n > N when it is built
    assert g.message.visible and "'n'" in g.message.object and "[0, 20]" in g.message.object
    assert g.plot.object is shown
    g.figure = "uncertainty_fig6_quick"
    with pytest.raises(ValueError, match="log2_gamma"):  # the declaration refuses it: a sweep needs two values
        g.widgets["log2_gamma"].value = [1]
    assert g.values_of.log2_gamma == [-6, -4, -2, 0, 2, 4, 6] and g.plot.object is shown


def test_a_number_out_of_range_is_kept_reported_and_refused():
    """The boxes carry no bounds (a browser would clamp a typed value silently): the value stays, the
    message names the parameter and its range, Render builds nothing, and the class keeps its bounds."""
    g = FigureGallery(figure="discrete_fig2")
    box = g.widgets["n_p"]
    assert box.start is None and box.end is None and "[3, 2001]" in box.description
    submitted = []
    g.rendered.param.watch(lambda e: submitted.append(e), "state")
    box.value = 5000
    assert g.values_of.n_p == 5000 and box.value == 5000
    assert g.message.visible and "n_p = 5000" in g.message.object and "[3, 2001]" in g.message.object
    assert not _rendered(g) and g.plot.object is None and submitted == []
    with pytest.raises(ValueError, match="n_p"):
        type(g.values_of)(n_p=5000)  # the declaration itself is unchanged
    box.value = 0  # below the lower bound too
    assert "n_p = 0" in g.message.object
    box.value = 11
    assert not g.message.visible
    assert _rendered(g) and _curve_points(g.plot.object) == 4 * 11
    g.widgets["N"].value = 401
    assert "N = 401" in g.message.object
    g.figure = "discrete_fig1"  # a new figure's boxes start at its defaults: nothing to report
    assert not g.message.visible and out_of_range(g.values_of) == {}


def test_table_and_export_bytes():
    g = FigureGallery(figure="discrete_table2")
    g.widgets["N"].value = 20
    assert _rendered(g)
    assert isinstance(g.obj, pd.DataFrame) and g.table.visible
    assert g.table.object.startswith("<table") and "NaN" not in g.table.object  # the cells m > n: marked, said
    assert not g.plot_box.visible and g.plot.object is None
    assert g.figure_bytes("png")[:8] == b"\x89PNG\r\n\x1a\n"
    g.figure = "discrete_fig2"
    g.widgets["N"].value = 20
    g.widgets["n_p"].value = 11
    assert _rendered(g)
    svg = g.figure_bytes("svg")
    assert svg.lstrip().startswith(b"<?xml") and b"<svg" in svg
    assert g.figure_bytes("pdf")[:4] == b"%PDF"


def test_the_explorer_has_a_figures_tab():
    from buviz.app.layout import ExplorerApp

    app = ExplorerApp()
    assert "Figures" in app.tab_names
    app.tabs.active = app.tab_names.index("Figures")
    view = app.other_views["Figures"]
    assert isinstance(view, FigureGallery)
    assert app._other_controls["Figures"].visible and not app.boundary_controls.visible


def test_export_before_render_asks_for_render_and_builds_nothing(monkeypatch):
    """A download callback runs on the server's event loop: it must never build a figure itself."""
    g = FigureGallery(figure="discrete_fig2")
    built = []
    monkeypatch.setattr(figures, "render", lambda *a, **k: built.append(a))
    with pytest.raises(ValueError, match="Render"):
        g.figure_bytes("svg")
    assert built == [] and g.obj is None


def test_render_waits_for_a_running_sweep():
    """Figures that sweep γ use joblib: a render is a job of the runner's heavy lane, so it waits for
    the shared background sweep (or any job holding the worker pool) to finish."""
    from buviz.app.runner import RUNNER

    gate = threading.Event()
    RUNNER.submit(lambda job: gate.wait(30), lane="heavy")  # a running sweep holds the lane
    g = FigureGallery(figure="discrete_fig2")
    assert g.render() and g.rendering
    time.sleep(0.5)
    assert g.bus.link.busy() and g.plot.object is None  # not built while the lane is held
    gate.set()
    g.bus.wait(60)
    assert g.plot.object is not None and not g.rendering


def test_info_names_a_former_key_only_when_there_is_one():
    g = FigureGallery(figure="discrete_fig2")
    assert "formerly `nedelko_fig2`" in g.info.object
    g.figure = "uncertainty_amplitude"
    assert "formerly" not in g.info.object


def test_a_figure_that_cannot_be_drawn_is_said_and_the_gallery_keeps_working(monkeypatch):
    g = FigureGallery(figure="discrete_fig2")
    assert _rendered(g)
    shown = g.plot.object

    def fail(obj):
        raise AttributeError("'NoneType' object has no attribute 'design'")

    monkeypatch.setattr(g, "_draw", fail)  # what Panel raised converting a figure it could not place
    _rendered(g)
    assert g.message.visible and "design" in g.message.object
    assert not g.rendering and not g.render_button.loading and g.plot.object is shown
    monkeypatch.undo()
    assert _rendered(g) and not g.message.visible  # the next render works


def test_the_menu_lists_short_names_and_the_caption_is_shown_beside_it():
    from buviz.app.gallery import MENU_LABEL_MAX

    g = FigureGallery(figure="uncertainty_fig13")
    labels = [label for group in g.select.groups.values() for label in group]
    assert len(set(labels)) == len(figures.REGISTRY)  # one label per figure
    assert max(len(label) for label in labels) <= MENU_LABEL_MAX  # captions run to 1 054 characters
    fig13 = figures.REGISTRY["uncertainty_fig13"]
    assert len(fig13.description) > MENU_LABEL_MAX and fig13.description in g.info.object
    assert {k: v for group in g.select.groups.values() for k, v in group.items()}[
        "Fig 13 (the ten datasets of Table 2) · uncertainty_fig13"] == "uncertainty_fig13"


def test_a_gallery_of_chosen_figures_offers_only_those_and_keeps_its_own_result():
    """A gallery restricted to some figures (the Extrapolation tab's schematics) lists only those,
    starts at the first, refuses any other, and renders under its own result name: the session's
    Figures tab, on the same job bus, keeps its own figure."""
    keys = ["extrapolation_fig3", "extrapolation_fig9"]
    small = FigureGallery(keys=keys, result="schematic")
    assert small.figure == "extrapolation_fig3"
    assert [k for group in small.select.groups.values() for k in group.values()] == keys
    assert list(small.select.groups) == ["Accuracy extrapolation (Zheng et al. 2017)"]
    with pytest.raises(ValueError, match="figure"):
        small.figure = "discrete_fig2"
    with pytest.raises(ValueError, match="keys"):
        FigureGallery(keys=["extrapolation_fig99"])
    with pytest.raises(ValueError, match="figure"):
        FigureGallery(keys=keys, figure="discrete_fig1")
    full = FigureGallery(bus=small.bus, figure="discrete_fig2")
    assert len(full.param.figure.objects) == len(figures.REGISTRY)  # the class's menu is untouched
    assert _rendered(small) and _rendered(full)
    assert small.rendered_key == "extrapolation_fig3" and full.rendered_key == "discrete_fig2"
    assert small.plot.object is small.obj and full.plot.object is full.obj and small.obj is not full.obj


def _panel_sizes(obj) -> list[tuple[int, int]]:
    """(width, height) of each Bokeh panel of a rendered figure, as its plot options set them."""
    panels = list(obj) if isinstance(obj, hv.Layout) else [obj]
    return [(o["width"], o["height"]) for o in (hv.Store.lookup_options("bokeh", p, "plot").kwargs for p in panels)]


@pytest.mark.parametrize("key", ["extrapolation_fig10", "extrapolation_fig1", "extrapolation_fig9"])
def test_a_figure_drawn_within_a_width_keeps_its_data_and_its_exports_height(key):
    """render_within draws a figure wider than ``width`` at that width, each panel keeping its share of
    the width and its height at export size, with the same data."""
    from buviz.app.gallery import render_within

    full, fitted = figures.render(key), render_within(key, 640)
    big, small = _panel_sizes(full), _panel_sizes(fitted)
    w, h = figures.get(key).size
    assert sum(x for x, _ in big) == pytest.approx(w * 100, abs=len(big))  # export size, 100 px per inch
    assert sum(x for x, _ in small) == pytest.approx(640, abs=len(small))
    scale = 640 / (w * 100)
    for (bw, bh), (sw, sh) in zip(big, small, strict=True):
        assert sw / bw == pytest.approx(scale, abs=0.01) and sh == bh
    data = [o.traverse(lambda el: el.dframe(), [hv.Element]) for o in (full, fitted)]
    for a, b in zip(*data, strict=True):
        pd.testing.assert_frame_equal(a, b)
    assert _panel_sizes(render_within(key, 5000)) == big and _panel_sizes(render_within(key)) == big
    with pytest.raises(ValueError, match="width"):
        render_within(key, 0)
