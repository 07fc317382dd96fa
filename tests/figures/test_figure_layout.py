"""Every figure exports without Matplotlib warnings and without overlapping or clipped text, at its own
default size and at the README's example size (6 x 4 inches)."""

import warnings

import matplotlib
import pytest

from buviz import figures
from buviz.cli import main
from buviz.plots import _matplotlib as mpl_export

matplotlib.use("Agg")

pytestmark = pytest.mark.slow  # about a minute for the whole registry


@pytest.mark.parametrize("name", list(figures.REGISTRY))
def test_figure_fits_at_default_and_small_size(name):
    fig_def = figures.REGISTRY[name]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        obj = figures.render(name)
        for width, height in (fig_def.size, (6.0, 4.0)):
            fig = mpl_export.draw(obj, fig_def.kind, width, height, 100, twin_y=fig_def.twin_y,
                                title=fig_def.description)
            assert tuple(fig.get_size_inches()) == (width, height)
            assert figures.layout_problems(fig) == [], f"{name} at {width} x {height} in"


def test_layout_problems_sees_overlap_and_clipping():
    import matplotlib.figure

    fig = matplotlib.figure.Figure(figsize=(3, 2))
    ax = fig.add_subplot(111)
    ax.text(0.5, 0.5, "one", transform=ax.transAxes)
    ax.text(0.52, 0.5, "two", transform=ax.transAxes)
    ax.text(1.5, 0.5, "outside", transform=ax.transAxes)
    problems = figures.layout_problems(fig)
    assert any("overlapping text 'one' / 'two'" in p for p in problems)
    assert any("clipped text 'outside'" in p for p in problems)


def test_cli_export_at_default_size_and_at_readme_size(tmp_path, capsys):
    from matplotlib.image import imread

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["figure", "extrapolation_fig7", "--out", str(tmp_path / "a.png"), "--dpi", "50"]) == 0
        assert main(["figure", "extrapolation_fig7", "--out", str(tmp_path / "b.png"), "--dpi", "50",
                     "--width", "6", "--height", "4"]) == 0
    w, h = figures.REGISTRY["extrapolation_fig7"].size
    assert imread(tmp_path / "a.png").shape[:2] == (round(h * 50), round(w * 50))
    assert imread(tmp_path / "b.png").shape[:2] == (200, 300)


def _numeric_bounds(text: str):
    """``(kind, low, high)`` of an accepted-values text such as 'integer ≥ 20' or 'number in [0, 10]'."""
    import re

    m = re.fullmatch(r"(integer|number) ≥ ([-\d.e]+)", text)
    if m:
        return m.group(1), float(m.group(2)), None
    m = re.fullmatch(r"(integer|number) in \[([-\d.]+), ([-\d.]+)\]", text)
    if m:
        return m.group(1), float(m.group(2)), float(m.group(3))
    return None


_BOUNDED = [(name, p, b) for name in figures.REGISTRY
            for p, text in figures.parameter_table(name)[["name", "bounds"]].itertuples(index=False)
            if (b := _numeric_bounds(text)) is not None]


@pytest.mark.parametrize("name, param, bounds", _BOUNDED, ids=[f"{n}-{p}" for n, p, _ in _BOUNDED])
def test_documented_bounds_are_enforced(name, param, bounds):
    """What ``buviz figure NAME --params`` prints is what the figure checks: a value just outside a
    documented bound is refused."""
    kind, low, high = bounds
    step = 1 if kind == "integer" else 1e-3 * max(1.0, abs(low))
    outside = [low - step] + ([high + step] if high is not None else [])
    for value in outside:
        value = int(value) if kind == "integer" else value
        with pytest.raises(ValueError):
            figures.render(name, **{param: value})


def test_a_uniform_twin_axis_grid_keeps_only_the_outer_y_labels():
    """Figs 8 and 11 (a grid of the same error / −Û pair): the inner labels repeat the outer ones and
    collided with the neighbour's at 6 x 4 in; a grid of different panels (Fig 6) keeps every label."""
    import matplotlib.figure

    def grid(labels_right):
        fig = matplotlib.figure.Figure(figsize=(6, 4))
        axes = fig.subplots(2, 2).ravel()
        for ax, right in zip(axes, labels_right, strict=True):
            ax.set_ylabel("error rate")
            if right:
                ax.twinx().set_ylabel(right)
        return fig

    fig = grid(["−Û"] * 4)
    assert mpl_export._outer_axis_labels_only(fig)
    left = [a.get_ylabel() for a in fig.axes if a.yaxis.get_label_position() == "left"]
    right = [a.get_ylabel() for a in fig.axes if a.yaxis.get_label_position() == "right"]
    assert left == ["error rate", "", "error rate", ""] and right == ["", "−Û", "", "−Û"]
    mixed = grid(["−Û", None, "−Û", None])
    assert not mpl_export._outer_axis_labels_only(mixed)
    assert all(a.get_ylabel() for a in mixed.axes)


def test_a_later_draw_or_save_keeps_the_ticks_that_were_checked():
    """The layout is checked inside the export's font settings; a later draw (a save, a notebook's repr)
    outside them must not re-pick the ticks (Fig 8's −Û axis went from −0.8 … 0.2 to −1.00 … 0.25, and
    the wider labels pushed '−Û (best −1)' off the figure at 6 x 4 in)."""
    fig_def = figures.REGISTRY["uncertainty_fig8"]
    fig = mpl_export.draw(figures.render("uncertainty_fig8"), fig_def.kind, 6.0, 4.0, 100, twin_y=True,
                          title=fig_def.description)
    ticks = [(list(ax.get_xticks()), list(ax.get_yticks())) for ax in fig.axes]
    fig.canvas.draw()
    assert [(list(ax.get_xticks()), list(ax.get_yticks())) for ax in fig.axes] == ticks
    assert figures.layout_problems(fig) == []
