"""Explorer state: the session's controls and what it shows, as parameters; the roles behind them.

One :class:`ExplorerState` (a ``param.Parameterized``) per session holds the *controls* (dataset,
classifier status, estimator, sweep options; mirrored in the URL) and the *published data* the views
draw from (``snapshot``, ``sweep_table``, ``sensitivity``, ``message``, ``notice``, ``computing``).
Everything else is done by one object per role, each in its own module:

=====================================  ===========================================================
role                                   object
=====================================  ===========================================================
data store, scheduling, latest wins    :class:`~buviz.app.store.SnapshotStore` (``state.store``)
the shared CV sweep                    :class:`~buviz.app.sweeps.SweepClient` (``state.sweeps``)
sensitivity sweeps (Figs 12, 13)       :class:`~buviz.app.sweeps.SensitivityRunner`
ingestion of a CSV or a mixture        :mod:`buviz.app.upload`
results delivered on the event loop    :class:`~buviz.app.session.SessionLink` (``state.link``)
computation and caching                :mod:`buviz.app.compute`, :mod:`buviz.app.tasks`,
                                       one runner (:mod:`buviz.app.runner`), one cache
                                       (:mod:`buviz.app.cache`)
=====================================  ===========================================================

Sessions: a state created inside a served session registers ``pn.state.on_session_destroyed``;
when the session ends :meth:`ExplorerState.close` leaves its sweep (cancelled if no other session
watches it), cancels its jobs and drops its snapshot and sweep table, so nothing per session outlives
it (the shared caches are bounded).

Bad input (an estimator rejecting M > N, an invalid CSV or mixture) never raises out of the
state: :attr:`ExplorerState.message` says what went wrong and the controls are reverted to the last
valid settings, so the views keep showing the previous valid state. A state some view cannot draw is
refused whole in the same way (:meth:`SnapshotStore.view_failed`), and the notices follow the status
shown: ``notice`` says what the explorer did with the data, ``status_notice`` what the status's numbers
rest on when it is degenerate.
"""

from __future__ import annotations

import contextlib
import weakref

import numpy as np
import panel as pn
import param

import buviz.uncertainty as bu
from buviz import datasets
from buviz.app.compute import (
    DEFAULT_MIXTURE_JSON,
    GAMMA_GRID,
    GRID_RESOLUTION,
    MAX_EPOCH,
    MLP_EPOCHS,
    N_TEST,
    Snapshot,
    StatusEval,
    bayes_info,
    bu_fitted,
    bu_result,
    compute_snapshot,
    dataset_for,
    mlp_trajectory,
    parse_mixture,
    status_eval,
    store_upload,
)
from buviz.app.compute import clear_caches as _clear_compute
from buviz.app.session import SessionLink
from buviz.app.store import SnapshotStore
from buviz.app.sweeps import SensitivityRunner, SweepClient, canonical
from buviz.app.upload import check_mixture_text, prepare_csv

__all__ = ["ExplorerState", "Snapshot", "StatusEval", "parse_mixture", "DEFAULT_MIXTURE_JSON",
           "GAMMA_GRID", "MLP_EPOCHS", "GRID_RESOLUTION", "N_TEST", "CONTROL_PARAMS", "clear_caches",
           "compute_snapshot", "dataset_for", "bayes_info", "mlp_trajectory", "status_eval", "bu_fitted",
           "bu_result", "canonical"]

K_CHOICES = ("aic", "1", "3", "10", "20", "40")
MIXTURE_CHOICES = (*datasets.MIXTURE_NAMES, "custom")
DATASET_CHOICES = (*MIXTURE_CHOICES, *datasets.REAL_NAMES, *datasets.UCI_NAMES, "csv")

#: The controls (and URL query names) that define the current status and estimator.
CONTROL_PARAMS = ("dataset", "n_train", "seed", "classifier", "log2_gamma", "log2_C", "epoch", "M", "K",
                  "perturbation", "perturbation_mode", "tilde", "cv", "mixture_json", "csv_key")


def clear_caches() -> None:
    """Empty every cache of the explorer, finished sweep tables included (tests and benchmarks)."""
    _clear_compute()


class ExplorerState(param.Parameterized):
    """The session's controls and the data published for its views (the roles behind them: see the
    module docstring)."""

    dataset = param.Selector(default="gmm", objects=list(DATASET_CHOICES), doc="Dataset")
    n_train = param.Integer(default=1000, bounds=(20, 5000),
                            doc="Training-set size N (mixtures; the live subsample of a large real dataset)")
    seed = param.Integer(default=0, bounds=(0, 1_000_000), doc="Random seed (sampling, T̃, K-means, folds)")
    classifier = param.Selector(default="SVM", objects=["SVM", "MLP"], doc="Classifier family")
    log2_gamma = param.Integer(default=0, bounds=(-15, 15), doc="log₂ γ of the RBF kernel")
    log2_C = param.Integer(default=0, bounds=(-5, 10), doc="log₂ C of the SVC")
    epoch = param.Integer(default=20, bounds=(1, MAX_EPOCH), doc="MLP training epoch")
    M = param.Integer(default=40, bounds=(2, 5000), doc="Neighbourhood size M (2 ≤ M ≤ N)")
    K = param.Selector(default="aic", objects=list(K_CHOICES), doc="Prototypes per class (Î*)")
    perturbation = param.Number(default=0.5, bounds=(0.0, 2.0), step=0.05, doc="Amplitude a of T̃")
    perturbation_mode = param.Selector(default="features", objects=list(bu.PERTURBATION_MODES))
    tilde = param.Boolean(default=True, doc="Evaluate f on T̃ (off: on T, the paper's 'bis' panels)")
    cv = param.Integer(default=10, bounds=(2, 40), doc="CV folds of the sweep")
    mixture_json = param.String(default=DEFAULT_MIXTURE_JSON, doc="Custom mixture (JSON)")
    csv_key = param.String(default="", doc="Digest of the uploaded CSV")
    sweep_proposal1 = param.Boolean(default=False, doc="Add Proposal 1 (U1_tr) to the sweep (about twice as long)")

    auto_sweep = param.Boolean(default=True, doc="Start the sweep whenever its settings change")

    snapshot = param.Parameter(default=None, doc="The current Snapshot (read-only for views)")
    message = param.String(default="", doc="Last error shown to the user ('' when none)")
    notice = param.String(default="", doc=(
        "What the explorer did on its own with the current data (a CSV's delimiter or header inferred, "
        "M capped at N(train)); '' when nothing"))
    status_notice = param.String(default="", doc=(
        "What the current status's numbers rest on when it is degenerate (a flat classifier, few "
        "near-boundary samples, Case 1/3 pairs; :func:`buviz.app.store.status_notes`); '' when nothing"))
    sweep_table = param.DataFrame(default=None, allow_None=True, doc="Sweep rows received so far")
    sweep_progress = param.Integer(default=0, bounds=(0, 100))
    sweep_state = param.String(default="idle")
    sensitivity = param.Dict(default={}, doc="kind -> {label: sweep table} (Figs 12, 13)")
    sensitivity_state = param.String(default="idle")

    asynchronous = param.Boolean(default=False, doc=(
        "Compute an uncached setting in the background worker (served app: the views keep the last "
        "picture meanwhile, later changes coalesce, latest wins); off: apply() computes before returning"))
    prefetch = param.Boolean(default=False, doc=(
        "After a dataset, C, M, K or T̃ change, compute the γ row (and the neighbouring C) ahead of the "
        "user in the background worker, behind every user's own request"))
    computing = param.String(default="", doc="The status the worker computes for this session ('' when idle)")

    def __init__(self, **params):
        super().__init__(**params)
        self.closed = False
        self.link = SessionLink()  # background results, delivered on this session's event loop
        self.store = SnapshotStore(self)  # the snapshot shown and how a change gets there
        # a dataset named without a γ (URL, notebook arguments) starts at its "scale" γ
        self.store.gamma_from_data = "dataset" in params and "log2_gamma" not in params
        self.sweeps = SweepClient(self)  # the shared CV sweep this session follows
        self.sensitivity_runner = SensitivityRunner(self)
        self.store.apply()
        self._register_session_cleanup()

    def _register_session_cleanup(self) -> None:
        """Inside a served session: release this state when the session is destroyed."""
        if pn.state.curdoc is None or pn.state.curdoc.session_context is None:
            return
        ref = weakref.ref(self)

        def _destroyed(session_context):  # holds a weak reference only
            state = ref()
            if state is not None:
                state.close()

        with contextlib.suppress(Exception):  # not served by a Bokeh server
            pn.state.on_session_destroyed(_destroyed)

    def attach(self, doc) -> None:
        """Served: the session's Bokeh document, where background results are shown (and updates
        are batched: one message per change)."""
        self.link.attach(doc)

    def close(self) -> None:
        """Cancel background work and drop everything this session holds (session destroyed)."""
        self.closed = True
        self.sweeps.cancel()
        self.store.close()
        self.sensitivity_runner.close()
        self.link.close()
        # drop the references without notifying the views: their document is being destroyed
        with param.parameterized.discard_events(self):
            self.param.update(snapshot=None, sweep_table=None, sensitivity={})

    # ------------------------------------------------------------------ settings and snapshot
    def settings(self) -> dict:
        """The current control values (``CONTROL_PARAMS``)."""
        return {p: getattr(self, p) for p in CONTROL_PARAMS}

    @param.depends(*CONTROL_PARAMS, watch=True)
    def _on_controls(self):
        self.store.controls_changed()

    def apply(self) -> bool:
        """Compute the snapshot of the current controls and show it; on failure keep the previous one
        (:attr:`message` says why). Returns whether the current controls are shown."""
        return self.store.apply()

    def update_context(self):
        """Context around the one batched update of the views: served, Panel holds every model
        change until the end, so a change reaches the browser as one websocket message."""
        doc = self.link.doc
        return contextlib.nullcontext() if doc is None else pn.io.hold(doc)

    def reset(self):
        """Back to the default controls (one recomputation)."""
        defaults = {p: self.param[p].default for p in CONTROL_PARAMS}
        self.store.as_given = any(getattr(self, p) != v for p, v in defaults.items())  # γ too, as given
        self.param.update(**defaults)

    # ------------------------------------------------------------------ user actions
    def upload_csv(self, data: bytes, filename: str = "upload.csv") -> bool:
        """Check an uploaded CSV (:func:`buviz.app.upload.prepare_csv`: delimiter and header sniffed,
        two or more numeric feature columns) and switch to it; on failure set :attr:`message` and
        keep the state. :attr:`notice` says what was inferred."""
        try:
            up = prepare_csv(data, random_state=self.seed)
        except ValueError as exc:
            self.message = f"CSV {filename!r} rejected: {exc}"
            return False
        store_upload(up.digest, up.data)
        self.store.data_notes[up.digest] = f"CSV {filename!r}: " + "; ".join(up.notes)
        self.param.update(csv_key=up.digest, dataset="csv")
        return self.snapshot is not None and self.snapshot.settings.get("csv_key") == up.digest

    def set_mixture(self, text: str) -> bool:
        """Validate a custom mixture (JSON) and switch to it; on failure set :attr:`message`."""
        try:
            _, notes = check_mixture_text(text, self.n_train, self.seed)
        except ValueError as exc:
            self.message = f"Custom mixture rejected: {exc}"
            return False
        self.store.data_notes[text] = "; ".join(notes)
        self.param.update(mixture_json=text, dataset="custom")
        return self.snapshot is not None and self.snapshot.settings["mixture_json"] == text

    def set_status_from_tap(self, x: float | None) -> None:
        """Curve tap: move to the sweep status nearest to x (log₂ γ or epoch)."""
        if x is None or not np.isfinite(x):
            return
        if self.classifier == "SVM":
            lo, hi = self.param.log2_gamma.bounds
            self.log2_gamma = int(np.clip(round(float(x)), lo, hi))
        else:
            self.epoch = int(min(MLP_EPOCHS, key=lambda e: abs(e - float(x))))

    # ------------------------------------------------------------------ sweep
    def status_column(self) -> str:
        return "log2_gamma" if self.classifier == "SVM" else "epoch"

    def current_row(self) -> dict | None:
        """The sweep row of the current status, when the sweep has reached it."""
        t = self.sweep_table
        col = self.status_column()
        if t is None or not len(t) or col not in t or self.snapshot is None:
            return None
        hit = t[np.isclose(t[col].to_numpy(float), self.snapshot.status_value)]
        return hit.iloc[0].to_dict() if len(hit) else None

    @param.depends("sweep_proposal1", "auto_sweep", watch=True)
    def _sweep_settings_changed(self) -> None:
        if self.snapshot is not None and not self.closed:
            self.sweeps.follow()

    def start_sweep(self, force: bool = False) -> None:
        """Subscribe to the sweep of the current settings (:meth:`SweepClient.start`)."""
        self.sweeps.start(force)

    def cancel_sweep(self) -> None:
        """Leave the current sweep (:meth:`SweepClient.cancel`)."""
        self.sweeps.cancel()

    def poll_sweep(self) -> bool:
        """Not served: run the background results waiting for this session (sweep rows, sensitivity
        tables, finished jobs) here; whether there were any. Served, they arrive by themselves."""
        if self.closed:
            return False
        return self.link.flush()

    def background_busy(self) -> bool:
        """Whether a background sweep or job has results still to come."""
        return self.sweeps.busy() or self.sensitivity_runner.busy() or self.link.busy()

    def wait_sweep(self, timeout: float = 120.0) -> bool:
        """Block until the running sweep finishes (tests, benchmarks); then take its rows."""
        return self.sweeps.wait(timeout)

    def run_sensitivity(self, kind: str = "M", values=None, *, blocking: bool = False, cv: int = 2) -> None:
        """−Û_tr over the γ sweep for several M (Fig 12) or K (Fig 13) (:meth:`SensitivityRunner.run`)."""
        self.sensitivity_runner.run(kind, values, blocking=blocking, cv=cv)


