"""A session's curves over the classifier status: its subscription to the shared CV sweep, and the
sensitivity sweeps of Figs 12-13. Both run as jobs of the one runner (:mod:`buviz.app.runner`,
heavy lane) and reach the session through its :class:`~buviz.app.session.SessionLink`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from buviz import datasets
from buviz.app import jobs
from buviz.app.compute import GAMMA_GRID, MLP_EPOCHS, Settings, prototypes_per_class
from buviz.app.runner import RUNNER, USER

__all__ = ["SweepClient", "SensitivityRunner", "canonical", "SWEEP_NICENESS"]

#: Niceness of the sweep worker processes: the server's own (interactive) work comes first.
SWEEP_NICENESS = 10


def canonical(s: dict) -> dict:
    """Control values normalised so that irrelevant controls do not split keys (the sweep's)."""
    k = Settings.of(s)
    s = dict(s)
    s["n_train"], s["seed"], s["payload"] = k.dataset[1], k.dataset[2], k.dataset[3]
    _, s["log2_gamma"], s["log2_C"], s["epoch"] = k.status
    s["pert"] = k.estimator[2]
    return s


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


class SweepClient:
    """A session's subscription to the shared background CV sweep of its settings.

    The sweeps run in :mod:`buviz.app.jobs` (one run per settings, shared by every session of the
    process); this object knows which one the session follows and moves its rows into the state's
    ``sweep_table``, ``sweep_progress`` and ``sweep_state`` on the session's event loop.
    """

    def __init__(self, state):
        self.state = state
        self.job: jobs.SharedSweep | None = None
        self._rows = -1  # rows of ``job`` already moved into ``sweep_table``

    def _listener(self, sweep: jobs.SharedSweep) -> None:  # in the runner's thread
        self.state.link.deliver(self.poll, key="sweep")

    def _settings(self) -> dict:
        st = self.state
        return canonical(st.store.shown_settings or st.settings())

    def key(self) -> tuple:
        """The shared sweep's key for the state's last valid settings."""
        st = self.state
        c = self._settings()
        status = ("SVM", c["log2_C"]) if c["classifier"] == "SVM" else ("MLP",)
        return (st.snapshot.ds.key, *status, int(c["cv"]), int(c["M"]), c["K"], c["pert"], c["perturbation_mode"],
                int(c["seed"]), bool(st.sweep_proposal1))

    def _adopt(self, sweep: jobs.SharedSweep | None) -> None:
        old, self.job, self._rows = self.job, sweep, -1
        if old is not None:
            old.unlisten(self._listener)
            jobs.release(old)
        if sweep is not None:
            sweep.listen(self._listener)

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
        self._adopt(jobs.acquire_finished(key))
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
        c = self._settings()
        ds = st.snapshot.ds
        with_p1 = bool(st.sweep_proposal1)

        def runner(progress, on_row, cancelled):
            _sweep_rows(ds, c, with_p1, progress, on_row, cancelled)

        self._adopt(jobs.acquire(key, runner, restart=force))
        st.param.update(sweep_table=None, sweep_progress=0, sweep_state="running")
        self.poll()

    def cancel(self) -> None:
        """Leave the current sweep (session closed); the last session to leave a running sweep stops it."""
        self._adopt(None)

    def poll(self) -> bool:
        """Move the rows received so far into the state; whether anything changed."""
        job, st = self.job, self.state
        if job is None or st.closed:
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
        """Block until the running sweep finishes (tests, benchmarks); then move its rows in."""
        job = self.job
        if job is not None:
            job.wait(timeout)
        if not self.state.link.served:
            self.state.link.flush()
        self.poll()
        return job is None or job.finished


class SensitivityRunner:
    """−Û_tr over the γ sweep for several M (Fig 12) or K (Fig 13): a job of the runner's heavy lane
    per run; its tables reach the state's ``sensitivity`` on the session's event loop."""

    def __init__(self, state):
        self.state = state
        self.job = None

    def close(self) -> None:
        if self.job is not None:
            self.job.cancel()

    def busy(self) -> bool:
        return self.job is not None and not self.job.finished

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
        if self.busy():
            st.message = "The sensitivity sweeps are still running: wait for them to finish"
            return
        values = values or ((20, 40, 80, 120, 160) if kind == "M" else ("3", "10", "20", "40", "aic"))
        snap = st.snapshot
        base = canonical(snap.settings)
        N = len(snap.ds.X_train)
        if kind == "M":
            values = [v for v in values if int(v) <= N]

        def work(job):
            from buviz import sweep

            out = {}
            for n, v in enumerate(values):
                job.progress(n, len(values))
                M = int(v) if kind == "M" else int(base["M"])
                K = prototypes_per_class(str(v)) if kind == "K" else prototypes_per_class(base["K"])
                out[f"{kind} = {v}"] = sweep.svm_gamma_sweep(
                    snap.ds, 2.0 ** np.array(GAMMA_GRID, dtype=float), C=2.0 ** base["log2_C"], cv=cv,
                    M=M, K=K, perturbation=base["pert"], perturbation_mode=base["perturbation_mode"],
                    random_state=int(base["seed"]), n_jobs=2, cache=True, niceness=SWEEP_NICENESS)
            return kind, out, values

        def progress(job):
            if job.total and not job.finished:
                st.sensitivity_state = f"running {kind} = {values[job.done]} ({job.done + 1}/{job.total})"

        def done(job):
            if job.status == "done":
                k, out, _ = job.result
                st.param.update(sensitivity={**st.sensitivity, k: out}, sensitivity_state="done")
            elif job.status == "error":
                st.sensitivity_state = f"error: {job.error}"
            else:
                st.sensitivity_state = "cancelled"

        st.sensitivity_state = f"running {kind} sweeps"
        self.job = RUNNER.submit(work, lane="heavy", priority=USER, slot=("sensitivity", id(self)),
                                 label=f"sensitivity {kind}")
        st.link.watch(self.job, done, progress)
        if blocking:
            self.job.wait()
            st.link.wait()
