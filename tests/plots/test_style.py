"""The shared style (:mod:`buviz.plots.style`): titles that fit their panels. That every figure's export
shows the screen's colours is checked with its export (``tests/figures/test_figures.py``)."""

from __future__ import annotations

import holoviews as hv

from buviz import figures
from buviz.plots import style


def test_a_title_too_long_for_its_panel_is_broken_into_lines_that_fit():
    """wrapped_title breaks at spaces into lines of at most (width − margin) / char-width characters,
    keeps a title that fits and loses no word; screen_sized wraps the titles of panels drawn narrower
    than their title (Zheng et al.'s Fig 1 at 640 px: its two titles lost their ends on screen)."""
    title = "(b) training set: r = 10 per class (◆ its mean)"
    most = int((320 - style.TITLE_MARGIN_PX) / style.TITLE_CHAR_PX)
    lines = style.wrapped_title(title, 320).split("\n")
    assert len(lines) == 2 and all(len(line) <= most for line in lines) and " ".join(lines) == title
    assert style.wrapped_title(title, 1000) == title
    fig = style.screen_sized(figures.render("extrapolation_fig1"), (6.4, 4.5))  # two panels of 320 px
    titles = [hv.Store.lookup_options("bokeh", p, "plot").kwargs["title"] for p in fig]
    assert all("\n" in t and all(len(line) <= most for line in t.split("\n")) for t in titles), titles
