"""Legends that list what is drawn and stay off the data, and figures drawn in their export proportions:
the Bokeh models the builders produce (the browser test tests/ui/test_legibility.py measures the frames)."""

import holoviews as hv
import numpy as np
import pandas as pd
from bokeh.models import Legend

from buviz import figures
from buviz.plots import discrete as dplots
from buviz.plots import style
from buviz.plots import uncertainty as pb
from buviz.plots.curve_displays import COLUMNS

hv.extension("bokeh")


def _sweep() -> pd.DataFrame:
    x = np.arange(-4.0, 5.0, 2.0)
    return pd.DataFrame({"log2_gamma": x, "L_val": 0.2 + 0.01 * x**2, "U_tr": 0.5 + 0.02 * x**2})


def _curves(table, columns=COLUMNS, current=None):
    """The static curves of an ErrorCurvesDisplay as the figure registry draws them (legend below)."""
    from buviz.figures.uncertainty import _error_curves

    return _error_curves(table, columns=columns, title="", current=current)


def _legends(fig):
    return {side: [r for r in getattr(fig, side) if isinstance(r, Legend)] for side in
            ("center", "right", "left", "above", "below")}


def _labels(legend) -> list[str]:
    return [getattr(item.label, "value", item.label) for item in legend.items]


def test_twin_axis_curves_list_only_the_curves_drawn_under_the_frame():
    fig = hv.render(_curves(_sweep(), ("L_val", "U_tr", "U1_tr")), backend="bokeh")
    legends = _legends(fig)
    assert legends["below"] and not legends["right"] and not legends["center"]  # off the frame's width and data
    labels = _labels(legends["below"][0])
    assert labels == ["L_val (CV)", "−Û_tr"]  # no Proposal 1 (not in the table), no current status (none)
    assert legends["below"][0].ncols == 2
    # with a current status the marker is drawn, and listed
    fig = hv.render(_curves(_sweep(), ("L_val", "U_tr"), current=0.0), backend="bokeh")
    assert "current status" in _labels(_legends(fig)["below"][0])


def test_every_legend_entry_draws_a_glyph():
    for fig in (hv.render(_curves(_sweep(), current=2.0), backend="bokeh"),
                hv.render(pb.cluster_zoom(None), backend="bokeh")):
        for legend in (lg for side in _legends(fig).values() for lg in side):
            for item in legend.items:
                assert any(len(next(iter(r.data_source.data.values()), [])) for r in item.renderers), item.label


def test_discrete_figures_keep_their_legends_off_the_curves():
    p = np.linspace(0, 1, 11)
    S = {m: np.sqrt(p * (1 - p)) / k for k, m in enumerate(dplots.LABELS, start=1)}
    tables = {m: np.tile(np.arange(6.0), (6, 1)) / 10 for m in dplots.LABELS}
    cells = dplots.CellEstimatesDisplay(tables=tables, N=20, n=4)
    for el in (figures.render("discrete_fig1", N=20, k=5, n=4), figures.render("discrete_fig2", N=20, k=5, n_p=11),
               dplots.RmsDeviationDisplay(p=p, S=S).element(), cells.element(panel="fig1"),
               cells.plot(panel="fig1")):  # the live figure, as the Discrete tab shows it
        legends = _legends(hv.render(el, backend="bokeh"))
        assert legends["below"] and not legends["center"]


def test_figures_are_drawn_in_their_export_proportions():
    cls = figures.get("uncertainty_fig8_real")
    el = style.screen_sized(figures.render("uncertainty_fig8_real", datasets=["banknote", "spambase"]), cls.size)
    grid = hv.render(el, backend="bokeh")
    sizes = {(c[0].width, c[0].height) for c in grid.children}
    w, h = cls.size
    assert sizes == {(round(w * style.SCREEN_DPI / 2), round(h * style.SCREEN_DPI))}  # two panels in a row
    single = style.screen_sized(figures.render("discrete_fig2", N=20, k=5, n_p=11), (6.0, 4.0))
    fig = hv.render(single, backend="bokeh")
    assert (fig.width, fig.height) == (600, 400)
    table = figures.render("discrete_table1", N=20)
    assert style.screen_sized(table, (7.0, 3.5)) is table


def test_projection_axes_say_what_they_are():
    from sklearn.datasets import make_classification

    from buviz.projection import fit_projection

    X, y = make_classification(300, n_features=6, n_informative=4, n_classes=3, random_state=0)
    pca, lda = fit_projection(X, y, method="pca"), fit_projection(X, y, method="lda")
    share = pca.explained_variance_ratio
    assert pca.axis_labels == (f"PC1 ({100 * share[0]:.0f} % of the variance)",
                               f"PC2 ({100 * share[1]:.0f} % of the variance)")
    assert lda.axis_labels == ("LD1 (discriminant axis)", "LD2 (discriminant axis)")
    two = fit_projection(X[y < 2], y[y < 2], method="lda")  # one discriminant axis, completed by a PC
    assert two.axis_labels == ("LD1 (discriminant axis)", "PC1⊥ (principal axis ⊥ LD1)")


def test_a_live_proposal1_legend_lists_N_B_once_a_later_status_has_it():
    """A live plot builds its legend entries from its first frame: Proposal 1's N_B starting empty must
    still get an entry (hidden), shown when a later status has N_B."""
    from buviz import datasets
    from buviz.classifiers import svm_status
    from buviz.plots.displays import SampleSpaceDisplay
    from buviz.uncertainty import Proposal1

    data = datasets.load("gmm_inclusion", n_train=150, n_test=0, random_state=0)
    status = svm_status(data.X_train, data.y_train, 4.0, C=1.0)
    res = Proposal1(R_T=1, random_state=0).fit(data.X_train, data.y_train).evaluate(status)
    d = SampleSpaceDisplay.from_result(None, data, proposal1=res, title="t")
    near, clusters = d.proposal1_near, d.proposal1_clusters
    assert len(near) > 0
    d.update(proposal1_near=np.empty((0, 2)), proposal1_clusters=np.array([], dtype=int))
    plot = hv.renderer("bokeh").get_plot(d.plot(panel="map", legend_position="right"))

    def shown(label):
        items = [it for lg in plot.state.select({"type": Legend}) for it in lg.items if _labels_of(it) == label]
        return [it.visible for it in items]

    assert shown("P1 N_B (near-boundary)") == [False]
    d.update(proposal1_near=near, proposal1_clusters=clusters)
    assert shown("P1 N_B (near-boundary)") == [True]


def _labels_of(item) -> str:
    return item.label.get("value") if isinstance(item.label, dict) else getattr(item.label, "value", item.label)
