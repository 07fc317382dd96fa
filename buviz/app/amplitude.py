"""Explorer tab "T̃ amplitude": −Û_tr against γ for several T̃ amplitudes, next to the test error.

The paper leaves the perturbation law of Algorithm 1 (the perturbed training set T̃) unspecified
(D. Ha, S. Katagiri, H. Watanabe, M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", Journal of Signal Processing Systems, Springer, 2021,
doi:10.1007/s11265-021-01671-1). This view runs
:func:`buviz.model_selection.perturbation_amplitude_sweep` for the current dataset, C, M, K and seed
(RBF SVC, γ = 2⁻⁶ … 2⁶) on a button press, through the session's store
(:meth:`buviz.app.stores.AmplitudeSweep.run`), and draws the curves through a
:class:`buviz.plots.selection.AmplitudeDisplay`, one pane per T̃ mode: created once, a new table
updates the display (their Bokeh figures stay).
"""

from __future__ import annotations

import panel as pn

from buviz.app import tasks
from buviz.app._panel_compat import WrappingRow
from buviz.app.export import export_buttons
from buviz.app.mathmd import math_markdown
from buviz.app.viewbase import TabView, math_dollars
from buviz.plots import selection as psel

__all__ = ["AmplitudeView", "AMPLITUDES", "LOG2_GAMMAS"]

#: Amplitudes a drawn by the view (the study's grid; a = 0 is T̃ = T).
AMPLITUDES = tasks.AMPLITUDES
#: log₂ γ of the view's sweep.
LOG2_GAMMAS = tasks.AMPLITUDE_LOG2_GAMMAS
#: The T̃ modes drawn, one plot each.
MODES = ("features", "scalar")

AMPLITUDE_MD = math_dollars(r"""
**The T̃ law** (Algorithm 1): $\tilde x = x + r_x \odot \lVert x - x^{(1)}\rVert$, $r_x \sim U[-a, a]$,
one draw per feature (*features* mode) or one per sample shared by its features (*scalar* mode).
The paper does not say which law, nor which $a$. Each curve is $-\hat U_{tr}$ over the RBF-SVC γ sweep
for one amplitude $a$ ($a = 0$: $\tilde{\mathcal T} = \mathcal T$, grey dashed); red: the test error
$\hat L_{te}$. Diamonds: the γ that $\hat U_{tr}$ selects (min of $-\hat U$); star: the best γ on the test set.
Where the diamonds of small $a$ drift right of the star, the perturbed points stay too close to $\mathcal T$
for an over-fitted boundary to be penalised. $\hat U_{te}$ (Proposal 2 with the test set as input, on
at most $N$ test points) is in the exported table.
""")


class AmplitudeView(TabView):
    """Tab "T̃ amplitude": −Û_tr over γ for the amplitudes of :data:`AMPLITUDES`, both modes, and L_te
    (the session's :class:`~buviz.app.stores.AmplitudeSweep` table, computed on a button press)."""

    twin_y = True
    export_size = (12.0, 4.5)

    def __init__(self, **params):
        super().__init__(**params)
        self.run_button = pn.widgets.Button(label="Run T̃ amplitude sweep", color="primary")
        self.run_button.on_click(lambda e: self.store.amplitude.run())
        # one display for both modes, a pane per mode (the row wraps): a new table changes their data,
        # never their figures. 450 px frames with the legend outside: side by side at 1600 px, one below
        # the other on a 1280 px screen
        self.display = psel.AmplitudeDisplay(table=self.table, modes=MODES, amplitudes=AMPLITUDES)
        self.mode_panes = {mode: pn.pane.HoloViews(self.display.plot(panel=mode, width=450, height=360),
                                                   linked_axes=False) for mode in self.display.panels}
        self.plot_pane = WrappingRow(*self.mode_panes.values())
        self.status_pane = pn.pane.Markdown(self._status_text())
        self.store.amplitude.param.watch(self._refresh, ["table", "state"])
        self.store.param.watch(self._refresh, "snapshot")

    @property
    def table(self):
        """The amplitude sweep shown (the session's amplitude store's ``table``)."""
        return self.store.amplitude.table

    # ------------------------------------------------------------------ presentation
    @staticmethod
    def _describe(cfg: dict | None) -> str:
        return (f"{cfg['dataset']}, N = {cfg['n_train']}, C = {cfg['C']:g}, M = {cfg['M']}, seed {cfg['seed']}"
                if cfg else "")

    def _status_text(self) -> str:
        st = self.store.amplitude
        cfg, shown = st.config(), st.settings
        if self.table is not None and shown is not None and shown != cfg and st.state != "running":
            return (f"Status: the curves are for {self._describe(shown)}; the current settings differ "
                    f"({self._describe(cfg)}): press Run")
        return f"Status: {st.state}" + (f" — {self._describe(cfg)}" if cfg else "")

    def _refresh(self, *events) -> None:
        self.status_pane.object = self._status_text()
        if any(e.name == "table" for e in events):
            self.display.update(table=self.table)

    def figure(self):
        return psel.AmplitudeDisplay.from_table(self.table, modes=MODES).element()

    def __panel__(self):
        return pn.Column(pn.Row(self.run_button, self.status_pane), self.plot_pane,
                         export_buttons(self, "amplitude"), math_markdown(AMPLITUDE_MD, sizing_mode="stretch_width"))
