"""CV sweeps over the classifier status: the registry that shares one run per settings among every
session of a server process, and the work functions of the CV sweep and of the sensitivity sweeps
(Figs 12-13). Everything runs as jobs of the one runner (:mod:`buviz.app.runner`, heavy lane: one
pool-driving job at a time); a session follows a sweep through its
:class:`~buviz.app.stores.CVSweep` store (``store.cv_sweep``).

A sweep (21 γ × CV folds) is keyed by everything that defines its rows (:class:`SweepKey`: dataset,
C, folds, M, K, T̃, seed, Proposal 1 column). Sessions with the same key *subscribe* to one
:class:`SharedSweep`: it runs once and tells its listeners as rows arrive. A running sweep is
cancelled when its last subscriber leaves (settings changed, session closed); one whose subscribers
all left while it was queued never starts. Finished tables stay in the one cache
(:mod:`buviz.app.cache`, :data:`FINISHED_MAX` tables of 21 rows), so going back to earlier settings,
or a second session with the same settings, adopts the table at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from buviz import datasets
from buviz.app.cache import LRUCache
from buviz.app.compute import GAMMA_GRID, MLP_EPOCHS, DataKey, ResultKey, uncertainty_estimator
from buviz.app.runner import RUN_LOCK, RUNNER, USER, Job, JobCancelled

__all__ = ["SharedSweep", "SweepKey", "SweepCancelled", "acquire", "acquire_finished", "release", "clear",
           "RUN_LOCK", "FINISHED_MAX", "canonical", "sweep_rows", "sensitivity_tables", "SWEEP_NICENESS"]

#: Niceness of the sweep worker processes: the server's own (interactive) work comes first.
SWEEP_NICENESS = 10


@dataclass(frozen=True)
class SweepKey:
    """Everything that defines a sweep's rows."""

    data: DataKey
    classifier: str
    log2_C: int  # 0 for the MLP
    cv: int
    M: int
    K: str
    perturbation: float
    perturbation_mode: str
    proposal1: bool

    @classmethod
    def of(cls, settings: dict, proposal1: bool) -> SweepKey:
        """The sweep of the control values ``settings`` (with the Proposal 1 column or not)."""
        k = ResultKey.of(settings)
        svm = settings["classifier"] == "SVM"
        return cls(k.data, settings["classifier"], int(settings["log2_C"]) if svm else 0, int(settings["cv"]),
                   k.fit.M, k.fit.K, k.fit.perturbation, k.fit.perturbation_mode, bool(proposal1 and svm))


def canonical(s: dict) -> dict:
    """Control values normalised so that irrelevant controls do not split keys (the sweep's)."""
    k = ResultKey.of(s)
    s = dict(s)
    s["n_train"], s["seed"], s["payload"] = k.data.n_train, k.data.seed, k.data.payload
    s["log2_gamma"], s["log2_C"], s["epoch"] = k.status.log2_gamma, k.status.log2_C, k.status.epoch
    s["pert"] = k.fit.perturbation
    return s


def sweep_rows(ds: datasets.Dataset, c: dict, with_p1: bool, progress, on_row, cancelled) -> None:
    """The CV sweep's rows of dataset ``ds`` at the canonical settings ``c`` (:func:`canonical`), one
    ``on_row(row)`` per status, ``progress(done, total)`` as folds finish; stops (raising
    :class:`SweepCancelled`) once ``cancelled()``."""
    from buviz import sweep

    template = uncertainty_estimator(c["M"], c["K"], c["pert"], c["perturbation_mode"], c["seed"])
    kw = dict(cv=int(c["cv"]), uncertainty=template, random_state=int(c["seed"]), n_jobs=2, cache=True,
              progress=progress, niceness=SWEEP_NICENESS)
    if c["classifier"] == "SVM":
        it = sweep.iter_svm_gamma_sweep(ds, 2.0 ** np.array(GAMMA_GRID, dtype=float), C=2.0 ** c["log2_C"],
                                        proposal1=with_p1, **kw)
        try:
            for row in it:
                if cancelled():
                    raise SweepCancelled
                on_row(row)
        finally:
            it.close()
    else:
        table = sweep.mlp_epoch_sweep(ds, MLP_EPOCHS, **kw)
        for row in table.to_dict("records"):
            on_row(row)


def sensitivity_tables(job: Job, ds: datasets.Dataset, base: dict, kind: str, values, cv: int) -> dict:
    """−Û_tr over the γ sweep of dataset ``ds`` at the canonical settings ``base`` for every M (``kind``
    "M", Fig 12) or K ("K", Fig 13) of ``values``: {"M = 20": table, ...}; progress on ``job``."""
    from buviz import sweep

    out = {}
    for n, v in enumerate(values):
        job.progress(n, len(values))
        M = v if kind == "M" else base["M"]
        K = str(v) if kind == "K" else base["K"]
        template = uncertainty_estimator(M, K, base["pert"], base["perturbation_mode"], base["seed"])
        out[f"{kind} = {v}"] = sweep.svm_gamma_sweep(
            ds, 2.0 ** np.array(GAMMA_GRID, dtype=float), C=2.0 ** base["log2_C"], cv=cv, uncertainty=template,
            random_state=int(base["seed"]), n_jobs=2, cache=True, niceness=SWEEP_NICENESS)
    return out


# -- the registry of shared sweeps ---------------------------------------------------------------------
#: Finished sweep tables kept for the whole process (each is 21 rows; well under 1 MB together).
FINISHED_MAX = 32

#: ``runner(progress, on_row, cancelled)`` computes the rows: ``progress(done, total)``,
#: ``on_row(row)``; once ``cancelled()`` is true it raises :class:`SweepCancelled`. Returning means
#: every row was delivered.
Runner = Callable[[Callable[[int, int], None], Callable[[dict], None], Callable[[], bool]], None]

#: Raised inside a runner when every subscriber has left (the runner's :class:`JobCancelled`).
SweepCancelled = JobCancelled


class SharedSweep:
    """One sweep's progress, read by every subscribed session (``rows`` grow while it runs).

    Listeners (:meth:`listen`) are called, in the runner's thread, after every row, progress report
    and at the end; a session's listener hands the call to its event loop.
    """

    def __init__(self, key: SweepKey):
        self.key = key
        self.rows: list = []
        self.subscribers = 0
        self.job: Job | None = None
        self._lock = threading.Lock()
        self._listeners: list[Callable[[SharedSweep], None]] = []

    # -- state, read from the job
    @property
    def done(self) -> int:
        return self.job.done if self.job else 0

    @property
    def total(self) -> int:
        return self.job.total if self.job else 0

    @property
    def finished(self) -> bool:
        return self.job is not None and self.job.status == "done"

    @property
    def error(self) -> str:
        return self.job.error if self.job else ""

    @property
    def cancelled(self) -> bool:
        return self.job is not None and self.job.cancelled and not self.finished

    def snapshot(self) -> tuple[list, int, int]:
        """(rows so far, tasks done, tasks in total), read consistently."""
        with self._lock:
            return list(self.rows), self.done, self.total

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the sweep ends; whether it ended (done, failed or cancelled)."""
        return self.job is None or self.job.wait(timeout)

    # -- listeners
    def listen(self, fn: Callable[[SharedSweep], None]) -> None:
        with self._lock:
            self._listeners.append(fn)

    def unlisten(self, fn: Callable[[SharedSweep], None]) -> None:
        with self._lock:
            if fn in self._listeners:
                self._listeners.remove(fn)

    def notify(self, *_) -> None:
        """Call every listener (after a row, a progress report, the end)."""
        with self._lock:
            listeners = list(self._listeners)
        for fn in listeners:
            fn(self)

    def run(self, runner: Runner, job: Job) -> None:
        """The job's body: ``runner``'s rows into :attr:`rows`; once complete, into the finished store."""

        def on_row(row: dict) -> None:
            with self._lock:
                self.rows.append(row)
            self.notify()

        runner(job.progress, on_row, lambda: job.cancelled)
        with _LOCK:  # complete, even if its last subscriber left meanwhile: keep the table
            if _RUNNING.get(self.key) is self:
                del _RUNNING[self.key]
            _FINISHED.put(self.key, self)

    def __repr__(self) -> str:
        return f"<SharedSweep {self.key!r} {self.job.status if self.job else 'new'}, {len(self.rows)} rows>"


_LOCK = threading.Lock()  # guards _RUNNING and every ``subscribers`` count
_RUNNING: dict[SweepKey, SharedSweep] = {}


def _not_finished(key):
    return None


#: Finished sweeps of the process (in the one cache).
_FINISHED = LRUCache(_not_finished, FINISHED_MAX)
_FINISHED.__name__ = "finished_sweeps"


def acquire(key: SweepKey, runner: Runner, *, restart: bool = False) -> SharedSweep:
    """Subscribe to the sweep of ``key``: a finished one, the running one, or a new one started with ``runner``.

    ``restart`` recomputes a finished (or failed) sweep; it never restarts one that is running.
    Every :func:`acquire` must be paired with one :func:`release` of the returned job.
    """
    with _LOCK:
        sweep = _RUNNING.get(key)
        if sweep is None and not restart:
            sweep = _FINISHED.get(key)
        if sweep is None:
            _FINISHED.pop(key)
            sweep = SharedSweep(key)
            _RUNNING[key] = sweep
            sweep.job = RUNNER.submit(lambda job, s=sweep: s.run(runner, job), lane="heavy", priority=USER,
                                      label=f"sweep {key!r}")
            sweep.job.add_progress_callback(sweep.notify)
            sweep.job.add_done_callback(lambda job, s=sweep: _ended(s))
        sweep.subscribers += 1
        return sweep


def _ended(sweep: SharedSweep) -> None:
    with _LOCK:
        if _RUNNING.get(sweep.key) is sweep:  # failed or cancelled
            del _RUNNING[sweep.key]
    sweep.notify()


def acquire_finished(key: SweepKey) -> SharedSweep | None:
    """Subscribe to the finished sweep of ``key`` if the process still holds it (else ``None``)."""
    with _LOCK:
        sweep = _FINISHED.get(key)
        if sweep is not None:
            sweep.subscribers += 1
        return sweep


def release(sweep: SharedSweep | None) -> None:
    """Unsubscribe; the last subscriber of a running sweep cancels it (after its current task)."""
    if sweep is None:
        return
    with _LOCK:
        sweep.subscribers = max(0, sweep.subscribers - 1)
        if sweep.subscribers == 0 and not sweep.finished and sweep.job is not None:
            sweep.job.cancel()
            if _RUNNING.get(sweep.key) is sweep:
                del _RUNNING[sweep.key]


def finished_table_count() -> int:
    return len(_FINISHED)


def clear() -> None:
    """Forget finished tables and cancel running sweeps (tests, benchmarks)."""
    with _LOCK:
        for sweep in _RUNNING.values():
            if sweep.job is not None:
                sweep.job.cancel()
        _RUNNING.clear()
    _FINISHED.clear()
