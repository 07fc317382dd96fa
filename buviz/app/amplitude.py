"""Explorer tab "T̃ amplitude": −Û_tr against γ for several T̃ amplitudes, next to the test error.

The paper leaves the perturbation law of Algorithm 1 (the perturbed training set T̃) unspecified
(D. Ha, S. Katagiri, H. Watanabe, M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", Journal of Signal Processing Systems, Springer, 2021,
doi:10.1007/s11265-021-01671-1). This view runs
:func:`buviz.model_selection.perturbation_amplitude_sweep` for the current dataset, C, M, K and seed
(RBF SVC, γ = 2⁻⁶ … 2⁶) on a button press, as a job of the one runner (:mod:`buviz.app.tasks`),
and draws the curves with :func:`buviz.plots.selection.amplitude_panels`. The panes are created once
and updated in place.
"""

from __future__ import annotations

import holoviews as hv
import panel as pn
import param

from buviz.app import tasks
from buviz.app.compute import Settings
from buviz.app.export import export_buttons
from buviz.app.mathmd import math_markdown
from buviz.app.viewbase import TabView, math_dollars
from buviz.plots import selection as psel

__all__ = ["AmplitudeView", "AMPLITUDES", "LOG2_GAMMAS"]

#: Amplitudes a drawn by the view (the study's grid; a = 0 is T̃ = T).
AMPLITUDES = tasks.AMPLITUDES
#: log₂ γ of the view's sweep.
LOG2_GAMMAS = tasks.AMPLITUDE_LOG2_GAMMAS

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
    """Tab "T̃ amplitude": −Û_tr over γ for the amplitudes of :data:`AMPLITUDES`, both modes, and L_te."""

    twin_y = True
    export_size = (12.0, 4.5)
    table = param.DataFrame(default=None, allow_None=True, doc="The latest amplitude sweep (tidy)")
    run_state = param.String(default="idle", doc="What the background computation is doing")

    def __init__(self, **params):
        super().__init__(**params)
        self.table_settings: dict | None = None  # the settings the shown table was computed for
        self.run_button = pn.widgets.Button(label="Run T̃ amplitude sweep", color="primary")
        self.run_button.on_click(lambda e: self.run())
        self.plot_pane = pn.pane.HoloViews(self._element(), linked_axes=False)
        self.status_pane = pn.pane.Markdown(self._status_text())
        self.param.watch(self._refresh, ["table", "run_state"])
        self.state.param.watch(self._refresh, "snapshot")
        self.job = None  # the runner's job of the sweep being computed

    # ------------------------------------------------------------------ what to compute
    def settings(self) -> dict | None:
        """The parameters of the sweep for the current snapshot (None when there is none)."""
        snap = self.state.snapshot
        if snap is None:
            return None
        s = snap.settings
        N = len(snap.ds.X_train)
        return {"C": 2.0 ** int(s["log2_C"]), "M": min(int(s["M"]), N), "K": s["K"], "seed": int(s["seed"]),
                "dataset": s["dataset"], "n_train": N}

    def _key(self) -> tuple:
        s = self.state.snapshot.settings
        k = Settings.of(s)
        return (*k.dataset, int(s["log2_C"]), k.estimator[0], k.estimator[1])

    def run(self, *, blocking: bool | None = None) -> None:
        """Ask the runner for the sweep of the current settings (heavy lane, latest wins); the table
        arrives on the session's event loop. ``blocking`` (default: when not served) waits for it."""
        if self.state.snapshot is None:
            self.run_state = "no status yet"
            return
        if self.job is not None and not self.job.finished:
            return
        link = self.state.link
        blocking = (not link.served) if blocking is None else blocking
        self.run_state = "running"
        cfg = self.settings()  # what the user clicked on, not what comes later
        self.job = tasks.job_for(tasks.amplitude_sweep, *self._key(), lane="heavy",
                                 slot=("amplitude", id(self)), label="T̃ amplitude sweep")
        link.watch(self.job, lambda job: self._done(job, cfg))
        if blocking:
            link.wait()

    def _done(self, job, cfg: dict) -> None:
        if job.status == "done":
            self.table_settings = cfg
            self.param.update(table=job.result, run_state="done")
        else:
            self.run_state = f"error: {job.error}" if job.status == "error" else "cancelled"

    # ------------------------------------------------------------------ presentation
    @staticmethod
    def _describe(cfg: dict | None) -> str:
        return (f"{cfg['dataset']}, N = {cfg['n_train']}, C = {cfg['C']:g}, M = {cfg['M']}, seed {cfg['seed']}"
                if cfg else "")

    def _status_text(self) -> str:
        cfg = self.settings()
        shown = self.table_settings
        if self.table is not None and shown is not None and shown != cfg and self.run_state != "running":
            return (f"Status: the curves are for {self._describe(shown)}; the current settings differ "
                    f"({self._describe(cfg)}): press Run")
        return f"Status: {self.run_state}" + (f" — {self._describe(cfg)}" if cfg else "")

    def _element(self):
        return hv.Layout([o.opts(width=560, height=360) for o in psel.amplitude_panels(self.table)]).cols(2)

    def _refresh(self, *events) -> None:
        self.status_pane.object = self._status_text()
        if any(e.name == "table" for e in events):
            self.plot_pane.object = self._element()

    def figure(self):
        return psel.amplitude_panels(self.table)

    def __panel__(self):
        return pn.Column(pn.Row(self.run_button, self.status_pane), self.plot_pane,
                         export_buttons(self, "amplitude"), math_markdown(AMPLITUDE_MD, sizing_mode="stretch_width"))
