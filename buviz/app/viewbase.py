"""What every boundary-uncertainty tab is built on: the view base class and the text-pane helper.

Shared code lives here, below the views, so that no view module imports a sibling view module
(the T̃-amplitude tab and the sample-space tabs both build on :class:`TabView`).
"""

from __future__ import annotations

from collections.abc import Callable

import holoviews as hv
import panel as pn
import param

from buviz.app.store import SessionStore
from buviz.plots import displays as pd_

__all__ = ["TabView", "PlaneView", "bound_pane", "math_dollars", "NOT_2D_MESSAGE"]

NOT_2D_MESSAGE = ("This dataset has more than two features: the sample-space maps need 2-D data. "
                  "The curves (tab *Error vs −Û*) and the numbers still work.")


def math_dollars(text: str) -> str:
    """Inline LaTeX: Panel's Markdown pane renders $$...$$ spans with MathJax."""
    return text.replace("$", "$$")


def bound_pane(pane, render: Callable[[], object], *deps: tuple[param.Parameterized, str],
               shown: tuple[param.Parameterized, str] | None = None):
    """``pane`` (created once) whose ``object`` is ``render()``, set again whenever one of ``deps``
    ((object, parameter name) pairs) changes. The pane is updated in place, never replaced, so the
    browser patches one model instead of building a new one (and laying out the page again).

    ``shown``: an (object, Boolean parameter name) pair saying whether the pane is on screen (its tab
    is open); while it is False the pane is left alone and it catches up when it turns True: a closed
    tab's pane is not redrawn for nothing (its model is out of the page; Panel would also point such a
    model's stylesheets at its CDN without :mod:`buviz.app._panel_compat`'s item 11).
    """

    def update(*events):
        if shown is not None and not getattr(*shown):
            return
        new = render()
        if new != pane.object:
            pane.object = new

    pane.object = render()
    for obj, name in deps:
        obj.param.watch(update, name)
    if shown is not None:
        shown[0].param.watch(update, shown[1])
    return pane


def _with_tap(display: pd_.Display, kdims, callback, panel: str | None = None,
              **style) -> tuple[hv.DynamicMap, hv.streams.Tap]:
    """``display.plot(layer, panel=panel, **style)``: its live figure (of one panel) with an empty
    layer ``layer`` on top that carries a Tap stream, and the stream.

    HoloViews attaches no tap callback when the source is a DynamicMap returning an Overlay; a
    separate one-layer DynamicMap as the source works, and Bokeh tap events are figure-wide, so
    taps anywhere in the plot arrive with data coordinates.
    """
    empty = hv.Points([], kdims=kdims).opts(tools=["tap"], show_legend=False)  # built once: the same every frame
    layer = hv.DynamicMap(lambda: empty)
    tap = hv.streams.Tap(source=layer)
    tap.add_subscriber(callback)
    return display.plot(layer, panel=panel, **style), tap


class TabView(pn.viewable.Viewer):
    """A tab of the explorer over the session's :class:`~buviz.app.store.SessionStore` (it only lays
    out panes and widgets and updates them from the store's parameters; it runs no job)."""

    store = param.ClassSelector(class_=SessionStore)
    tab_open = param.Boolean(default=True, doc="Whether the view's tab is open (its text panes follow the state)")

    def _pane(self, pane, render, *deps):
        """A text pane of this view, following ``deps`` while the view is shown (:func:`bound_pane`)."""
        return bound_pane(pane, render, *deps, shown=(self, "tab_open"))

    def _snap(self):
        return self.store.snapshot

    def _follow_when_open(self, follow: Callable[[], None], *state_params: str | tuple[param.Parameterized, str],
                          own: tuple[str, ...] = ()) -> None:
        """Call ``follow()`` now and whenever one of ``state_params`` (a name: of the session's store; an
        (object, name) pair: of one of its stores, :mod:`buviz.app.stores`) or ``own`` (of the view)
        changes while the tab is open; a closed tab catches up when it opens."""

        def run(*events):
            if self.tab_open:
                follow()

        for dep in state_params:
            obj, name = dep if isinstance(dep, tuple) else (self.store, dep)
            obj.param.watch(run, name)
        self.param.watch(run, ["tab_open", *own])
        follow()


#: The names of a map's two axes (what a tap on it reports).
_XY = ["x1", "x2"]


class PlaneView(TabView):
    """A view whose map draws the training samples: in their plane for d = 2, else in a plane fitted on T."""

    projection = param.Selector(default="pca", objects=["pca", "lda"],
                                doc="The plane of data with more than two features (fitted on T)")
    on_select = param.Callable(default=None, doc="Called with the index of a tapped training sample")

    def _plane_widget(self):
        """The projection choice, shown only for data with more than two features."""
        return pn.widgets.RadioButtonGroup.from_param(
            self.param.projection, options={"PCA": "pca", "LDA": "lda"}, color="light", width=140,
            visible=self.store.param.snapshot.rx().rx.pipe(lambda s: s is not None and not s.is_2d))

    def _tapped(self, x=None, y=None):
        """Tap on the map: select the training sample drawn nearest to it."""
        display = getattr(self, "display", None)
        if x is None or y is None or display is None:
            return
        idx = display.nearest(x, y)
        if idx >= 0:
            self._select(idx)

    def _select(self, idx: int) -> None:
        """A training sample was tapped: hand it to ``on_select`` (the app shows it up close)."""
        if self.on_select is not None:
            self.on_select(idx)
