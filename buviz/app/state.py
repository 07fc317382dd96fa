"""Explorer state: the controls, the current snapshot and the session's background work.

One :class:`ExplorerState` (a ``param.Parameterized``) per session holds the controls and a
:class:`~buviz.app.compute.Snapshot` -- the dataset, the classifier status Λ evaluated once on the
contour grid and the test set, and the Proposal 2 result -- that every view draws from. Views never
recompute. The computations and their caches live in :mod:`buviz.app.compute` (pure, keyed by small
integer keys, shared by every session); the shared CV sweeps in :mod:`buviz.app.jobs`.

Applying a change (:meth:`ExplorerState.apply`):

- a setting whose every step is cached is shown at once, all views updated in one batch;
- served (``asynchronous=True``), an uncached setting is computed by the process's background
  worker while the views keep the last picture and :attr:`ExplorerState.computing` names what is
  being computed. Changes that arrive meanwhile are coalesced, latest wins: when the worker is done,
  the session shows the newest controls (computing them in turn if needed), never a queue of stale
  positions;
- after a dataset, C, M, K or T̃ change, the worker prefetches the whole γ row (and the neighbouring
  C) at low priority, behind any user's own request, so that after a short warm-up every γ step is
  cached.

Other bounded stores: uploaded CSV bytes, at most 16 (:data:`buviz.app.compute.UPLOADS_MAX`; each at
most ``datasets.MAX_CSV_BYTES`` = 5 MB, keyed by a digest -- never by the user's file name), and for
the whole process at most 32 finished sweep tables (:mod:`buviz.app.jobs`: sessions with the same
sweep settings share one background run and its table). The sweep's rows are also kept by
:mod:`buviz.sweep`'s on-disk row cache (``BUVIZ_CACHE_DIR``), outside the process memory.

Sessions: a state created inside a served session registers ``pn.state.on_session_destroyed``;
when the session ends :meth:`ExplorerState.close` leaves its sweep (cancelled if no other session
watches it), drops its prefetch batch, its snapshot and sweep table, so nothing per session outlives
it (the shared caches are bounded).

Bad input (an estimator rejecting M > N, an invalid CSV or mixture) never raises out of the
state: :attr:`ExplorerState.message` says what went wrong and the controls are reverted to the last
valid settings, so the views keep showing the previous valid state.
"""

from __future__ import annotations

import contextlib
import hashlib
import threading
import time
import traceback
import weakref

import numpy as np
import pandas as pd
import panel as pn
import param

import buviz.uncertainty as bu
from buviz import datasets
from buviz.app import jobs, timing
from buviz.app.compute import (
    DEFAULT_MIXTURE_JSON,
    GAMMA_GRID,
    GRID_RESOLUTION,
    MAX_EPOCH,
    MLP_EPOCHS,
    N_TEST,
    WORKER,
    Settings,
    Snapshot,
    StatusEval,
    bayes_info,
    bu_fitted,
    bu_result,
    compute_snapshot,
    dataset_for,
    lookup_snapshot,
    mlp_trajectory,
    parse_mixture,
    prefetch_keys,
    prototypes_per_class,
    status_cached,
    status_eval,
    store_upload,
)
from buviz.app.compute import clear_caches as _clear_compute

__all__ = ["ExplorerState", "Snapshot", "StatusEval", "parse_mixture", "DEFAULT_MIXTURE_JSON",
           "GAMMA_GRID", "MLP_EPOCHS", "GRID_RESOLUTION", "N_TEST", "CONTROL_PARAMS", "clear_caches",
           "compute_snapshot", "dataset_for", "bayes_info", "mlp_trajectory", "status_eval", "bu_fitted",
           "bu_result"]

K_CHOICES = ("aic", "1", "3", "10", "20", "40")
MIXTURE_CHOICES = (*datasets.MIXTURE_NAMES, "custom")
DATASET_CHOICES = (*MIXTURE_CHOICES, *datasets.REAL_NAMES, "csv")

#: The controls (and URL query names) that define the current status and estimator.
CONTROL_PARAMS = ("dataset", "n_train", "seed", "classifier", "log2_gamma", "log2_C", "epoch", "M", "K",
                  "perturbation", "perturbation_mode", "tilde", "cv", "mixture_json", "csv_key")

#: Niceness of the sweep worker processes: the server's own (interactive) work comes first.
SWEEP_NICENESS = 10


def _upload_digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:16]


def _canonical(s: dict) -> dict:
    """Normalise settings so irrelevant controls do not split keys (the sweep's and Proposal 1's)."""
    k = Settings.of(s)
    s = dict(s)
    s["n_train"], s["seed"], s["payload"] = k.dataset[1], k.dataset[2], k.dataset[3]
    _, s["log2_gamma"], s["log2_C"], s["epoch"] = k.status
    s["pert"] = k.estimator[2]
    return s


def _status_label(s: dict) -> str:
    if s["classifier"] == "SVM":
        return f"SVM γ = 2^{int(s['log2_gamma'])}, C = 2^{int(s['log2_C'])}"
    return f"MLP epoch {int(s['epoch'])}"


def clear_caches() -> None:
    """Empty every cache of the compute layer and the finished sweep tables (tests and benchmarks)."""
    _clear_compute()
    jobs.clear()


def _sweep_rows(ds: datasets.Dataset, c: dict, with_p1: bool, progress, on_row, cancelled) -> None:
    from buviz import sweep

    kw = dict(cv=int(c["cv"]), M=int(c["M"]), K=prototypes_per_class(c["K"]), perturbation=c["pert"],
              perturbation_mode=c["perturbation_mode"], random_state=int(c["seed"]), n_jobs=2, cache=True,
              progress=progress, niceness=SWEEP_NICENESS)
    if c["classifier"] == "SVM":
        it = sweep.iter_svm_gamma_sweep(ds, 2.0 ** np.array(GAMMA_GRID, dtype=float), C=2.0 ** c["log2_C"],
                                        proposal1=with_p1, **kw)
        try:
            for row in it:
                if cancelled():
                    raise jobs.SweepCancelled
                on_row(row)
        finally:
            it.close()
    else:
        table = sweep.mlp_epoch_sweep(ds, MLP_EPOCHS, **kw)
        for row in table.to_dict("records"):
            on_row(row)


# -- the state ---------------------------------------------------------------------------------------
class ExplorerState(param.Parameterized):
    """Controls of the explorer, the current :class:`Snapshot` and the background sweep."""

    dataset = param.Selector(default="gmm", objects=list(DATASET_CHOICES), doc="Dataset")
    n_train = param.Integer(default=1000, bounds=(20, 5000), doc="Training-set size N (mixtures)")
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

    selected = param.Integer(default=-1, doc="Training sample shown up close (-1: the heaviest weight)")
    auto_sweep = param.Boolean(default=True, doc="Start the sweep whenever its settings change")

    snapshot = param.Parameter(default=None, doc="The current Snapshot (read-only for views)")
    message = param.String(default="", doc="Last error shown to the user ('' when none)")
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
        self._reverting = False
        self._doc = None  # the served session's Bokeh document (set by the app's server hooks)
        self._last_valid: dict | None = None
        self.sweeps = SweepClient(self)  # the shared CV sweep this session follows
        self.sensitivity_runner = SensitivityRunner(self)
        self._tick_scheduled = False  # an apply is scheduled on the event loop (coalesces changes)
        self._inflight: dict | None = None  # settings the worker computes for this session
        self._changed_at: float | None = None  # first control change not yet shown
        self._prefetched_for: tuple | None = None
        self.closed = False
        self._apply_now(self.settings(), time.perf_counter())
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
        self._doc = doc

    def close(self) -> None:
        """Cancel background work and drop everything this session holds (session destroyed)."""
        self.closed = True
        self.sweeps.cancel()
        WORKER.cancel(id(self))
        self._doc = None
        self.sensitivity_runner.close()
        self._last_valid = None
        self._reverting = True  # late widget events must not recompute anything
        # drop the references without notifying the views: their document is being destroyed
        with param.parameterized.discard_events(self):
            self.param.update(snapshot=None, sweep_table=None, sensitivity={})

    # ------------------------------------------------------------------ settings and snapshot
    def settings(self) -> dict:
        return {p: getattr(self, p) for p in CONTROL_PARAMS}

    @param.depends(*CONTROL_PARAMS, watch=True)
    def _on_controls(self):
        if self._reverting or self.closed:
            return
        if self._changed_at is None:
            self._changed_at = time.perf_counter()
        if self.asynchronous and self._doc is not None:
            if not self._tick_scheduled:  # changes until the next tick of the event loop coalesce
                self._tick_scheduled = True
                self._doc.add_next_tick_callback(self._on_event_loop(self._apply_latest))
        else:
            self.apply()

    def apply(self) -> bool:
        """Compute the snapshot of the current controls and show it; on failure keep the previous one
        (:attr:`message` says why). Returns whether the current controls are shown."""
        t0, self._changed_at = self._changed_at or time.perf_counter(), None
        return self._apply_now(self.settings(), t0)

    def _apply_now(self, s: dict, t0: float) -> bool:
        try:
            snap = compute_snapshot(s)
        except Exception as exc:  # every failure becomes a message; the server keeps running
            self._fail(exc)
            return False
        self._show(s, snap, t0)
        return True

    def _on_event_loop(self, fn):
        """``fn`` wrapped to run as a callback of the session's document (Panel sends what it changes)."""
        from panel.io.state import set_curdoc

        doc = self._doc

        def callback():
            if self.closed or doc is None:
                return
            with set_curdoc(doc):
                fn()

        return callback

    def _apply_latest(self) -> None:
        """Served: show the newest controls; cached -> now, else hand them to the background worker."""
        self._tick_scheduled = False
        if self.closed:
            return
        if self._inflight is not None:  # the worker is on this session: it comes back here when done
            return
        s = self.settings()
        if self._last_valid == s and self.snapshot is not None:
            self._changed_at = None
            if self.computing:
                self.computing = ""
            return
        snap = lookup_snapshot(s)
        if snap is not None:
            t0, self._changed_at = self._changed_at or time.perf_counter(), None
            self._show(s, snap, t0)
            return
        if status_cached(s):  # only Proposal 2's fit or evaluation to do (tens of ms): do it now
            t0, self._changed_at = self._changed_at or time.perf_counter(), None
            self._apply_now(s, t0)
            return
        self._inflight = s
        self.computing = _status_label(s)
        doc = self._doc

        def work():
            snap = err = None
            if not self.closed and self.settings() == s:  # stale by the time it would start: drop it
                try:
                    snap = compute_snapshot(s)
                except Exception as exc:
                    err = exc
            if doc is not None and not self.closed:
                with contextlib.suppress(Exception):  # the session may end meanwhile
                    doc.add_next_tick_callback(self._on_event_loop(lambda: self._computed(s, snap, err)))

        WORKER.submit(work)

    def _computed(self, s: dict, snap, err) -> None:
        """Served: the worker finished ``s`` (or dropped it as stale)."""
        self._inflight = None
        if self.settings() != s:  # the controls moved on meanwhile: latest wins
            self._apply_latest()
            return
        if err is not None:
            self.computing = ""
            self._changed_at = None
            self._fail(err)
            return
        if snap is not None:
            t0, self._changed_at = self._changed_at or time.perf_counter(), None
            self._show(s, snap, t0)
        else:
            self._apply_latest()

    def _fail(self, exc: Exception) -> None:
        msg = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
        if not isinstance(exc, ValueError):
            traceback.print_exception(exc)
        self._revert()
        self.message = f"Could not apply these settings: {msg}"

    def _show(self, s: dict, snap: Snapshot, t0: float) -> None:
        """Show ``snap`` (the snapshot of controls ``s``): every view updated in one batch."""
        old = self.snapshot
        changed = sorted(k for k, v in s.items() if self._last_valid is None or self._last_valid.get(k) != v)
        dataset_changed = old is None or old.ds is not snap.ds
        updates = {"snapshot": snap, "message": "", "computing": ""}
        if dataset_changed:
            updates["selected"] = -1
            updates["sensitivity"] = {}
        if self.selected >= len(snap.ds.X_train):
            updates["selected"] = -1
        if self.message == "":
            updates.pop("message")
        if self.computing == "":
            updates.pop("computing")
        self._last_valid = s
        with self.update_context():
            self.param.update(**updates)
        self.sweeps.follow()
        self._prefetch(s)
        timing.record_apply(time.perf_counter() - t0, changed)

    def _prefetch(self, s: dict) -> None:
        """After a dataset, C, M, K or T̃ change: the γ row (and the neighbouring C) in the background."""
        if not self.prefetch or self.closed:
            return
        k = Settings.of(s)
        group = (k.dataset, k.estimator, k.status[0], k.status[2])
        if group != self._prefetched_for:
            self._prefetched_for = group
            WORKER.prefetch(id(self), prefetch_keys(k))

    def update_context(self):
        """Context around the one batched update of the views: served, Panel holds every model
        change until the end, so a change reaches the browser as one websocket message."""
        doc = self._doc
        return contextlib.nullcontext() if doc is None else pn.io.hold(doc)

    def _revert(self):
        if self._last_valid is None:
            return
        changed = {k: v for k, v in self._last_valid.items() if getattr(self, k) != v}
        if changed:
            self._reverting = True
            try:
                self.param.update(**changed)
            finally:
                self._reverting = False

    def reset(self):
        """Back to the default controls (one recomputation)."""
        defaults = {p: self.param[p].default for p in CONTROL_PARAMS}
        self.param.update(**defaults)

    # ------------------------------------------------------------------ user actions
    def upload_csv(self, data: bytes, filename: str = "upload.csv") -> bool:
        """Validate an uploaded CSV and switch to it; on failure set :attr:`message` and keep the state."""
        try:
            if not data:
                raise ValueError("the uploaded file is empty")
            datasets.read_csv(data, random_state=self.seed)
        except ValueError as exc:
            self.message = f"CSV {filename!r} rejected: {exc}"
            return False
        digest = _upload_digest(data)
        store_upload(digest, data)
        self.param.update(csv_key=digest, dataset="csv")
        return self.snapshot is not None and self.snapshot.settings.get("csv_key") == digest

    def set_mixture(self, text: str) -> bool:
        """Validate a custom mixture (JSON) and switch to it; on failure set :attr:`message`."""
        try:
            mix = parse_mixture(text)
            datasets.from_mixture(mix, min(self.n_train, 200), 0, self.seed)  # every class drawn?
        except ValueError as exc:
            self.message = f"Custom mixture rejected: {exc}"
            return False
        self.param.update(mixture_json=text, dataset="custom")
        return self.snapshot is not None and self.snapshot.settings["mixture_json"] == text

    def select_at(self, x: float, y: float) -> int:
        """Select the training sample nearest to the data point (x, y) (a tap); returns its index."""
        snap = self.snapshot
        if snap is None or not snap.is_2d or x is None or y is None:
            return -1
        X = snap.ds.X_train
        idx = int(np.argmin((X[:, 0] - x) ** 2 + (X[:, 1] - y) ** 2))
        self.selected = idx
        return idx

    def selected_index(self) -> int:
        """The sample shown up close: the tapped one, else the sample with the largest weight."""
        snap = self.snapshot
        if snap is None:
            return -1
        if 0 <= self.selected < len(snap.ds.X_train):
            return int(self.selected)
        w = snap.result.near_boundary_weights
        return int(np.argmax(w)) if np.any(w > 0) else int(np.argmax(snap.result.k))

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
        """Move what the background threads finished into params (call periodically, from the
        server's event loop): sweep rows into :attr:`sweep_table`, sensitivity tables."""
        if self.closed:
            return False
        changed = self.sensitivity_runner.poll()
        return self.sweeps.poll() or changed

    def background_busy(self) -> bool:
        """Whether a background sweep or sensitivity run has results still to be polled."""
        return self.sweeps.busy() or self.sensitivity_runner.busy()

    def wait_sweep(self, timeout: float = 120.0) -> bool:
        """Block until the running sweep finishes (tests, benchmarks); then poll once."""
        return self.sweeps.wait(timeout)

    def run_sensitivity(self, kind: str = "M", values=None, *, blocking: bool = False, cv: int = 2) -> None:
        """−Û_tr over the γ sweep for several M (Fig 12) or K (Fig 13) (:meth:`SensitivityRunner.run`)."""
        self.sensitivity_runner.run(kind, values, blocking=blocking, cv=cv)


class SweepClient:
    """A session's subscription to the shared background CV sweep of its settings.

    The sweeps themselves run in :mod:`buviz.app.jobs` (one run per settings, shared by every session
    of the process); this object knows which one the session follows and moves its rows into the
    state's ``sweep_table``, ``sweep_progress`` and ``sweep_state``.
    """

    def __init__(self, state: ExplorerState):
        self.state = state
        self.job: jobs.SharedSweep | None = None
        self._rows = -1  # rows of ``job`` already moved into ``sweep_table``

    def key(self) -> tuple:
        """The shared sweep's key for the state's last valid settings."""
        st = self.state
        c = _canonical(st._last_valid or st.settings())
        status = ("SVM", c["log2_C"]) if c["classifier"] == "SVM" else ("MLP",)
        return (st.snapshot.ds.key, *status, int(c["cv"]), int(c["M"]), c["K"], c["pert"], c["perturbation_mode"],
                int(c["seed"]), bool(st.sweep_proposal1))

    def follow(self) -> None:
        """After a settings change: start (or join) their sweep, or with ``auto_sweep`` off adopt
        a finished table for them if the process has one -- never keep showing another setting's."""
        st = self.state
        if st.auto_sweep:
            self.start()
            return
        key = self.key()
        if self.job is not None and self.job.key == key:
            return
        self.cancel()
        self.job, self._rows = jobs.acquire_finished(key), -1
        if self.job is None:
            st.param.update(sweep_table=None, sweep_progress=0, sweep_state="idle")
        else:
            self.poll()

    def start(self, force: bool = False) -> None:
        """Subscribe to the sweep of the current settings (shared with every session of the process).

        A finished table for these settings is adopted at once; a sweep already running for them
        (in this or another session) is joined; otherwise one starts in the background. ``force``
        recomputes a finished or failed sweep (rows still come from the on-disk row cache); a failed
        sweep is not retried by later changes of γ, only by ``force`` (the *Restart sweep* button).
        """
        st = self.state
        if st.snapshot is None or st.closed:
            return
        key = self.key()
        job = self.job
        if not force and job is not None and job.key == key and not job.cancelled:
            return
        c = _canonical(st._last_valid)
        ds = st.snapshot.ds
        with_p1 = bool(st.sweep_proposal1)

        def runner(progress, on_row, cancelled):
            _sweep_rows(ds, c, with_p1, progress, on_row, cancelled)

        new = jobs.acquire(key, runner, restart=force)
        jobs.release(job)
        self.job, self._rows = new, -1
        st.param.update(sweep_table=None, sweep_progress=0, sweep_state="running")
        self.poll()

    def cancel(self) -> None:
        """Leave the current sweep (session closed); the last session to leave a running sweep stops it."""
        job, self.job = self.job, None
        jobs.release(job)

    def poll(self) -> bool:
        """Move the rows received so far into the state; whether anything changed."""
        job, st = self.job, self.state
        if job is None:
            return False
        rows, done, total = job.snapshot()
        updates = {}
        if rows and len(rows) != self._rows:
            updates["sweep_table"] = pd.DataFrame(rows)
            self._rows = len(rows)
        pct = 100 if job.finished else int(100 * done / total) if total else 0
        if pct != st.sweep_progress:
            updates["sweep_progress"] = pct
        state = f"error: {job.error}" if job.error else "done" if job.finished else "running"
        if state != st.sweep_state:
            updates["sweep_state"] = state
        if updates:
            st.param.update(**updates)
        return bool(updates)

    def busy(self) -> bool:
        """Whether the followed sweep is still running (rows may still arrive)."""
        job = self.job
        return job is not None and not (job.finished or job.error or job.cancelled)

    def wait(self, timeout: float = 120.0) -> bool:
        """Block until the running sweep finishes (tests, benchmarks); then poll once."""
        job = self.job
        if job is not None:
            job.wait(timeout)
        self.state.poll_sweep()
        return job is None or job.finished


class SensitivityRunner:
    """−Û_tr over the γ sweep for several M (Fig 12) or K (Fig 13), one background thread per session;
    its tables reach the state's ``sensitivity`` through :meth:`poll` (from the event loop)."""

    def __init__(self, state: ExplorerState):
        self.state = state
        self._thread: threading.Thread | None = None
        self._pending: tuple | None = None  # (result or None, status text), written by the thread

    def close(self) -> None:
        self._pending = None

    def busy(self) -> bool:
        """Whether the sweeps are running or their finished tables wait to be polled."""
        pending = self._pending
        return (self._thread is not None and self._thread.is_alive()) or (pending is not None
                                                                          and pending[0] is not None)

    def run(self, kind: str = "M", values=None, *, blocking: bool = False, cv: int = 2) -> None:
        """Start the sweeps of ``kind`` ("M" or "K") for ``values``.

        CV errors are not needed here, so the sweeps use ``cv`` = 2 folds (the cheapest allowed).
        """
        st = self.state
        if st.classifier != "SVM":
            st.message = "The sensitivity sweeps use the SVM γ sweep: select the SVM classifier"
            return
        if kind not in ("M", "K"):
            raise ValueError("kind must be 'M' or 'K'")
        if self._thread is not None and self._thread.is_alive():
            st.message = "The sensitivity sweeps are still running: wait for them to finish"
            return
        values = values or ((20, 40, 80, 120, 160) if kind == "M" else ("3", "10", "20", "40", "aic"))
        snap = st.snapshot
        base = _canonical(snap.settings)
        N = len(snap.ds.X_train)
        if kind == "M":
            values = [v for v in values if int(v) <= N]

        def work():
            from buviz import sweep

            out = {}
            try:
                for n, v in enumerate(values):
                    if st.closed:  # the session ended: leave the worker pool to the others
                        return
                    self._pending = (None, f"running {kind} = {v} ({n + 1}/{len(values)})")
                    M = int(v) if kind == "M" else int(base["M"])
                    K = prototypes_per_class(str(v)) if kind == "K" else prototypes_per_class(base["K"])
                    with jobs.RUN_LOCK:  # per value, so the shared sweeps interleave
                        out[f"{kind} = {v}"] = sweep.svm_gamma_sweep(
                            snap.ds, 2.0 ** np.array(GAMMA_GRID, dtype=float), C=2.0 ** base["log2_C"], cv=cv,
                            M=M, K=K, perturbation=base["pert"], perturbation_mode=base["perturbation_mode"],
                            random_state=int(base["seed"]), n_jobs=2, cache=True, niceness=SWEEP_NICENESS)
                self._pending = ((kind, out), "done")
            except Exception as exc:
                traceback.print_exc()
                self._pending = (None, f"error: {exc}")

        self._pending = (None, f"running {kind} sweeps")
        if blocking:
            work()
            st.poll_sweep()
        else:
            self._thread = threading.Thread(target=work, name="buviz-sensitivity", daemon=True)
            self._thread.start()
            self.poll()  # "running ..." now: a viewer that polls only while work runs sees it start

    def poll(self) -> bool:
        """Move a finished table and the status text into the state; whether anything changed."""
        pending, st = self._pending, self.state
        if pending is None:
            return False
        result, text = pending
        updates = {}
        if result is not None:
            self._pending = None
            sens = dict(st.sensitivity)
            sens[result[0]] = result[1]
            updates["sensitivity"] = sens
        if text != st.sensitivity_state:
            updates["sensitivity_state"] = text
        if updates:
            st.param.update(**updates)
        return bool(updates)
