"""The explorer's *One sample* tab (Fig 4): one training sample, its cluster N^M(x) and its kernel
estimate in f-space, a :class:`~buviz.plots.displays.OneSampleDisplay` hosted by :class:`SampleView`."""

from __future__ import annotations

import numpy as np
import panel as pn
import param

from buviz.app.export import export_buttons
from buviz.app.mathmd import math_markdown
from buviz.app.viewbase import _XY, PlaneView, _with_tap, math_dollars
from buviz.plots import displays as pd_

__all__ = ["SampleView", "SAMPLE_MD"]

SAMPLE_MD = math_dollars(r"""
**One sample up close** (Fig 4): the cluster $\mathcal N^M(x)$ (x and its $M-1$ nearest neighbours)
projected on the $f$ axis through the perturbed members $\tilde x'$; Parzen kernels of width
$h_x = 0.9\min(\hat\sigma_x, \mathrm{IQR}_x/1.34)\,M^{-1/5}$ (eq 32) counted at $f = 0$ give
$\hat k^i, \hat k^j$ (dashed: their sums along $f$, divided by $M$); $\hat P(C_i\mid x) = \hat k^i/\hat k$
(eq 38) and $\hat U(x) = 1 - |2\hat P - 1|$ (eq 37).
""")


class SampleView(PlaneView):
    """Tab 5: one training sample, its cluster N^M(x) and its kernel estimate in f-space (Fig 4); a
    :class:`~buviz.plots.displays.OneSampleDisplay`, at every d."""

    export_size = (10.0, 4.5)
    _MAP = dict(width=600, height=460, tools=["tap", "hover"], active_tools=["wheel_zoom"], toolbar="above")
    _ZOOM = dict(width=600, height=340, toolbar="above")

    selected = param.Integer(default=-1, precedence=-1,
                             doc="The tapped training sample shown up close (-1: the one with the largest weight)")

    def __init__(self, **params):
        super().__init__(**params)
        self.display: pd_.OneSampleDisplay | None = None
        self._key = None
        self._selected_in = None  # the training set the tap chose from: a new one forgets the selection
        self.map_pane = pn.pane.HoloViews(None, linked_axes=False)
        self.zoom_pane = pn.pane.HoloViews(None, linked_axes=False)
        self._follow_when_open(self._follow, "snapshot", own=("projection", "selected"))

    def select(self, index: int) -> None:
        """Show training sample ``index`` of the current training set up close (a tap here or on
        another tab's map)."""
        s = self.store.snapshot
        self._selected_in = None if s is None else s.ds
        if self.selected == int(index):  # the same index, perhaps of a training set since forgotten
            self.param.trigger("selected")
        else:
            self.selected = int(index)

    def _select(self, idx: int) -> None:
        self.select(idx)
        super()._select(idx)

    def tapped_index(self) -> int:
        """The tapped sample, if it belongs to the training set shown (else -1)."""
        s = self.store.snapshot
        ok = s is not None and s.ds is self._selected_in and 0 <= self.selected < len(s.ds.X_train)
        return int(self.selected) if ok else -1

    def selected_index(self) -> int:
        """The sample shown up close: the tapped one, else the sample with the largest weight."""
        s = self.store.snapshot
        if s is None:
            return -1
        if self.tapped_index() >= 0:
            return self.tapped_index()
        w = s.result.near_boundary_weights
        return int(np.argmax(w)) if np.any(w > 0) else int(np.argmax(s.result.k))

    def _index(self) -> int | None:
        idx = self.selected_index() if self._snap() is not None else -1
        return idx if idx >= 0 else None

    def _follow(self) -> None:
        s = self._snap()
        if s is None:
            return
        grid = s.status if s.is_2d else None
        key = (id(s.ds), self.projection)
        if key != self._key or self.display is None:
            self.display = pd_.OneSampleDisplay.from_result(s.result, s.ds, self._index(), grid=grid,
                                                            projection=self.projection)
            shown, self.tap = _with_tap(self.display, _XY, self._tapped, panel="map", **self._MAP)
            self._key = key
            self.map_pane.object, self.zoom_pane.object = shown, self.display.plot(panel="zoom", **self._ZOOM)
        else:
            self.display.update(result=s.result, dataset=s.ds, index=self._index(), grid=grid)

    def view_data(self):
        s = self._snap()
        idx = self._index()
        return s.result.sample_view(idx) if s is not None and idx is not None else None

    def zoom_plot(self, snapshot=None, selected=None):
        """N^M(x) of the shown sample on the f axis (a static overlay; tests)."""
        s = snapshot if snapshot is not None else self._snap()
        d = pd_.OneSampleDisplay.from_result(s.result, s.ds, self._index(), grid=s.status if s.is_2d else None,
                                             projection=self.projection)
        return d.element(panel="zoom", **self._ZOOM)

    def figure(self):
        if self.display is None:
            s = self._snap()
            return pd_.OneSampleDisplay.from_result(s.result, s.ds, self._index()).element()
        return self.display.element(map=self._MAP, zoom=self._ZOOM)

    def details(self) -> str:
        v = self.view_data()
        s = self._snap()
        if v is None or s is None:
            return "**No sample selected.** Tap a training sample in the Sample space tab."
        names = pd_.class_names(s.ds)
        i, j = v["pair"]
        how = "tapped" if self.tapped_index() >= 0 else "largest weight (tap to choose)"
        labels = np.bincount(v["labels"], minlength=len(names))
        rows = [  # bold, not a heading: the text keeps one size whatever is selected
            f"**Sample #{v['index']} ({how})**",
            "",
            f"label **{names[s.ds.y_train[v['index']]]}**, classifier pair {{{names[i]}, {names[j]}}}",
            "",
            "| quantity | value |", "|---|---|",
            f"| h_x | {v['bandwidth']:.4g} |",
            f"| k̂^i ({names[i]}) | {v['k_i']:.4g} |",
            f"| k̂^j ({names[j]}) | {v['k_j']:.4g} |",
            f"| P̂(C_i given x) | {v['posterior']:.4f} |",
            f"| local Û(x) | {v['local_uncertainty']:.4f} |",
            f"| weight k̂/w | {v['weight']:.4g} |",
            f"| labels in N^M(x) | {', '.join(f'{n}: {c}' for n, c in zip(names, labels, strict=True))} |",
        ]
        return "\n".join(rows)

    def __panel__(self):
        return pn.FlexBox(
            pn.Column(self._plane_widget(), self.map_pane, export_buttons(self, "one_sample")),
            pn.Column(self.zoom_pane,
                      pn.Row(self._pane(pn.pane.Markdown(width=290), self.details, (self.store, "snapshot"),
                                        (self, "selected")),
                             math_markdown(SAMPLE_MD, width=290))),
            sizing_mode="stretch_width",
        )
