"""Panel views over the γ (or epoch) sweep: the selection curves with the separability cases (Figs
6-9, tab *Error vs −Û*) and the sensitivity of −Û_tr to M and K (Figs 12-13). Both read the session's
:class:`~buviz.app.store.SessionStore` (its CV sweep store's ``cv_sweep.table``) and its sensitivity store
(``sensitivity.tables``) and update panes created once.
"""

from __future__ import annotations

import holoviews as hv
import numpy as np
import panel as pn

from buviz.app._panel_compat import WrappingRow
from buviz.app.export import export_buttons, sweep_download
from buviz.app.gallery import HA_SCHEMATICS, SCHEMATICS_TAB, FigureGallery
from buviz.app.mathmd import math_markdown
from buviz.app.viewbase import TabView, _with_tap, math_dollars
from buviz.plots import cases as pcases
from buviz.plots import displays as pd_

__all__ = ["CurvesView", "SensitivityView"]

CURVES_MD = math_dollars(r"""
**Selection curves** (Figs 6-9): errors on the left axis ($\hat L_{te}$ test, $\hat L_{val}$ CV
validation, $L_{HO}$ hold-out, $\hat L_{tr}$ CV training), $-\hat U_{tr}$ (Proposal 2 on $\mathcal T$)
and $-\hat U_{te}$ (on the test set) on the right axis. A good status has low error **and** $-\hat U$
near $-1$. *Click a point to select that status.* Right: the same sweep as a parametric curve.
Below: for each class pair of $\hat{\mathcal I}^{\ast}$, the separability case of §4.5 that dominates
$\hat U_{kl}$ along the sweep (Case 1: no error on the perturbed $\hat B^{\ast}(k,l)$, $U_{max}$; Case 2:
the near-boundary mean; Case 3: $U_{min}$; hover: $\lambda_{kl}$) and the effective number of
near-boundary samples $n_{eff} = (\sum \hat k)^2 / \sum \hat k^2$ the near-boundary mean rests on.
""")

SENS_MD = math_dollars(r"""
**Sensitivity** of $-\hat U_{tr}$ to $M$ (Fig 12: $M$ = 20 … 160) and to the number $K$ of prototypes
per class used for $\hat{\mathcal I}^{\ast}$ (Fig 13: $K$ = 3 … 40 and AIC). For two classes $\hat{\mathcal I}^{\ast}
= \{\{1,2\}\}$ and $K$ has no influence. The sweeps run on demand in the background (2-fold CV, cached).
""")


class CurvesView(TabView):
    """Tab 4: its *Curves* sub-tab, errors and −Û over the sweep (twin axes), a marker at the current
    status, tap to select; an :class:`~buviz.plots.displays.ErrorCurvesDisplay` (a new sweep row feeds
    the curves, a status step moves the markers only). Its *Schematics* sub-tab: Ha et al.'s schematic
    figures (:data:`buviz.app.gallery.HA_SCHEMATICS`)."""

    twin_y = True  # export: errors on the left axis, −Û on the right
    export_size = (11.0, 4.5)
    _CURVES = dict(width=640, height=420, tools=["tap", "hover"], toolbar="right")
    _PARAM = dict(width=460, height=420, tools=["tap", "hover"], toolbar="right")

    def __init__(self, **params):
        super().__init__(**params)
        self.display: pd_.ErrorCurvesDisplay | None = None
        self.curves_pane = pn.pane.HoloViews(None, linked_axes=False)
        self.param_pane = pn.pane.HoloViews(None, linked_axes=False)
        # the separability case of each pair and n_eff along the sweep (eq 39, §4.5), below the curves
        # (two panes, not one Layout: a Bokeh grid swapped into a pane lays out with empty frames); a new
        # sweep table changes their data, never their Bokeh models (replacing a pane's plot while a busy
        # page switches tabs left the browser with references it never received)
        h1, h2 = self._CASES
        self.cases = pcases.SeparabilityCasesDisplay()
        self.cases_panes = [pn.pane.HoloViews(self.cases.plot(panel=name, responsive=True, height=h, toolbar="right"),
                                              linked_axes=False, sizing_mode="stretch_width")
                            for name, h in (("cases", h1), ("n_eff", h2))]
        self.restart = pn.widgets.Button(label="Restart sweep", color="default", width=130)
        self.restart.on_click(lambda e: self.store.cv_sweep.start(force=True))
        self.download = sweep_download(self.store)
        #: Ha et al.'s schematic figures (Fig 1: selection by a metric, what this tab does), in the
        #: *Schematics* sub-tab, which draws Fig 1 when it first opens: about 0.1 s, in the compute lane,
        #: not behind the sweep this tab starts (Render uses the heavy lane)
        self.schematics = FigureGallery(bus=self.store.bus, keys=list(HA_SCHEMATICS), result="ha-schematic",
                                        screen_width=self._CURVES["width"], first_lane="compute")
        self._follow_when_open(self._follow, "snapshot", (self.store.cv_sweep, "table"))

    #: The sub-tabs: the sweep's curves, and Ha et al.'s schematic figures (Figs 1, 2 and Fig 15's inset)
    SUB_TABS = ("Curves", SCHEMATICS_TAB)

    def _x(self, s):
        return "log2_gamma" if s is None or s.settings["classifier"] == "SVM" else "epoch"

    def _follow(self) -> None:
        s = self._snap()
        x, t = self._x(s), self.store.cv_sweep.table
        cur = s.status_value if s is not None else None
        if self.display is None or self.display.x != x:
            self.display = pd_.ErrorCurvesDisplay.from_table(t, x, cur)
            shown, self.tap = _with_tap(self.display, [x, "error"], self._on_tap, panel="curves", **self._CURVES)
            pshown, self.tap2 = _with_tap(self.display, ["neg_U", "error"], self._on_parametric_tap,
                                          panel="parametric", **self._PARAM)
            self.curves_pane.object, self.param_pane.object = shown, pshown
        else:
            self.display.update(table=t, current=cur, x=x)
        self._follow_cases(t)

    #: heights of the case markers (room for pcases.MAX_PAIRS rows; more pairs are summarised) and of
    #: the n_eff curves; both stretch to the width of the page
    _CASES = (pcases.pair_cases_height(pcases.MAX_PAIRS), 300)

    def _follow_cases(self, t) -> None:
        """Send the sweep table to the cases plots (a status step, the same table, sends nothing)."""
        s = self._snap()
        self.cases.update(table=t, class_names=pd_.class_names(s.ds) if s is not None else None)

    def plot(self, sweep_table=None, snapshot=None):
        """Errors and −Û of ``sweep_table`` with the marker of ``snapshot`` (a static overlay)."""
        s = snapshot if snapshot is not None else self._snap()
        return pd_.ErrorCurvesDisplay.from_table(sweep_table, self._x(s), s.status_value if s is not None else None
                                                 ).element(panel="curves", **self._CURVES)

    def parametric(self, sweep_table=None, snapshot=None):
        """Error against −Û of ``sweep_table`` (a static overlay)."""
        s = snapshot if snapshot is not None else self._snap()
        return pd_.ErrorCurvesDisplay.from_table(sweep_table, self._x(s), s.status_value if s is not None else None
                                                 ).element(panel="parametric", **self._PARAM)

    def _on_tap(self, x=None, y=None):
        self.store.controls.set_status_from_tap(x)

    def figure(self):
        s, t = self._snap(), self.store.cv_sweep.table
        return hv.Layout([self.plot(t, s), self.parametric(t, s)]).cols(2)

    def _on_parametric_tap(self, x=None, y=None):
        """Tap on the parametric curve: the sweep point nearest to (−Û, error)."""
        t = self.store.cv_sweep.table
        if x is None or y is None or t is None or not len(t) or "U_tr" not in t:
            return
        col = self.store.controls.status_column()
        d = (-t["U_tr"].to_numpy(float) - x) ** 2 + (t["L_te"].to_numpy(float) - y) ** 2
        self.store.controls.set_status_from_tap(float(t[col].to_numpy(float)[int(np.nanargmin(d))]))

    def progress_text(self) -> str:
        st = self.store.cv_sweep.state
        n = 0 if self.store.cv_sweep.table is None else len(self.store.cv_sweep.table)
        return {"running": f"Sweep running in the background: {n} statuses done",
                "done": f"Sweep done: {n} statuses (cached on disk)",
                "idle": "Sweep not started"}.get(st, st)

    def progress(self):
        """The sweep's progress bar and state (created once, updated in place)."""
        s = self.store
        bar = pn.indicators.Progress(value=int(s.cv_sweep.progress), max=100, width=260, bar_color="primary",
                                     active=s.cv_sweep.state == "running")

        def follow(*events):
            if not self.tab_open:
                return
            # only what changed (Panel re-sends a bar's stylesheets with every bar_color it is given)
            new = {"value": int(s.cv_sweep.progress), "active": s.cv_sweep.state == "running",
                   "bar_color": "success" if s.cv_sweep.state == "done" else "primary"}
            changed = {k: v for k, v in new.items() if getattr(bar, k) != v}
            if changed:
                bar.param.update(**changed)

        s.cv_sweep.param.watch(follow, ["progress", "state"])
        self.param.watch(follow, "tab_open")
        text = self._pane(pn.pane.Markdown(margin=(0, 10)), self.progress_text, (s.cv_sweep, "state"),
                          (s.cv_sweep, "progress"), (s.cv_sweep, "table"))
        return WrappingRow(bar, text, self.restart, self.download)  # wraps on narrow screens

    def __panel__(self):
        curves = pn.Column(
            self.progress(),
            # the second plot wraps below the first where the main area is narrower than both (1280 px)
            WrappingRow(self.curves_pane, self.param_pane),
            *self.cases_panes,
            export_buttons(self, "curves"),
            math_markdown(CURVES_MD, sizing_mode="stretch_width"),
            sizing_mode="stretch_width",  # the main area's width, not the widest row's: the Row can wrap
        )
        # a sub-tab, not a section below the notes: a Bokeh grid of plots added there laid out with empty
        # frames (0 x 0 px in Chromium, Fig 1 at any width), as it does not in a tab of its own
        return self.schematics.schematics_tabs((self.SUB_TABS[0], curves))


class SensitivityView(TabView):
    """Tab 6: −Û_tr for several M (Fig 12) and K (Fig 13), computed on demand by the store; one plot
    per kind, created once, whose data follow ``store.sensitivity.tables`` and ``store.cv_sweep.table``."""

    twin_y = True
    export_size = (10.0, 4.0)

    def __init__(self, **params):
        super().__init__(**params)
        self.run_M = pn.widgets.Button(label="Run M sensitivity (Fig 12)", color="primary")
        self.run_K = pn.widgets.Button(label="Run K sensitivity (Fig 13)", color="primary")
        self.run_M.on_click(lambda e: self.store.sensitivity.run("M"))
        self.run_K.on_click(lambda e: self.store.sensitivity.run("K"))
        self.hint = pn.pane.Markdown("*Press a button: each setting runs a 21-γ sweep (cached).*")
        # one plot per kind (M, K), a SensitivityDisplay made when the kind's tables first arrive and then
        # updated (a new reference sweep); dropped when the tables go (another dataset), never hidden while
        # it lives: Bokeh builds no views for a hidden plot, and an update of one fails in the browser
        # ("cannot find a view for Legend")
        self.displays: dict[str, pd_.SensitivityDisplay] = {}
        self.kind_boxes = {kind: pn.Column(visible=False) for kind in self.KINDS}
        self.plot_pane = WrappingRow(*self.kind_boxes.values(), visible=False)
        self._follow_when_open(self._follow, (self.store.sensitivity, "tables"), (self.store.cv_sweep, "table"))

    #: The hyper-parameters of Û whose sensitivity the tab shows (Figs 12 and 13).
    KINDS = ("M", "K")
    #: The frame of each kind's plot.
    _SIZE = dict(width=620, height=380)

    @staticmethod
    def _display(kind: str, tables: dict, reference) -> pd_.SensitivityDisplay:
        """−Û_tr over γ for each setting of ``kind`` in ``tables``, beside the ``reference`` sweep."""
        return pd_.SensitivityDisplay(tables=tables, reference=reference, title=f"−Û_tr for several {kind}")

    def _follow(self) -> None:
        shown = self.store.sensitivity.tables
        for kind, box in self.kind_boxes.items():
            if kind not in shown:
                if kind in self.displays:  # its tables are gone: so is its plot
                    box.visible, box.objects = False, []
                    del self.displays[kind]
                continue
            if kind not in self.displays:
                self.displays[kind] = self._display(kind, shown[kind], self.store.cv_sweep.table)
                box.objects, box.visible = [pn.pane.HoloViews(self.displays[kind].plot(**self._SIZE),
                                                              linked_axes=False)], True
            else:  # new tables or a new reference sweep: new data (a layer whose data is the same stays)
                self.displays[kind].update(tables=shown[kind], reference=self.store.cv_sweep.table)
        if self.plot_pane.visible != bool(shown):
            self.plot_pane.visible, self.hint.visible = bool(shown), not shown

    def figure(self):
        ref = self.store.cv_sweep.table
        items = [self._display(kind, tables, ref).element(**self._SIZE)
                 for kind, tables in self.store.sensitivity.tables.items()]
        return hv.Layout(items or [pd_.SensitivityDisplay(tables={}, reference=ref,
                                                          title="−Û_tr (no sensitivity sweep run yet)"
                                                          ).element(**self._SIZE)]).cols(2)

    def __panel__(self):
        status = self._pane(pn.pane.Markdown(), lambda: f"Status: {self.store.sensitivity.state}",
                            (self.store.sensitivity, "state"))
        return pn.Column(pn.Row(self.run_M, self.run_K, status), self.hint, self.plot_pane,
                         export_buttons(self, "sensitivity"), math_markdown(SENS_MD, sizing_mode="stretch_width"))
