"""The session's stores beside the snapshot: the shared CV sweep's rows, the sensitivity sweeps, the
Proposal 1 overlay and the T̃-amplitude sweep, each a :class:`param.Parameterized` with read-only
outputs of its own.

Each follows the snapshot the session shows (:attr:`buviz.app.store.SessionStore.snapshot`) and runs
its work on the session's job bus (:attr:`buviz.app.store.SessionStore.bus`; the CV sweep, one run for
every session with the same settings, through :mod:`buviz.app.sweeps`' registry), so a view depends on
the one store whose outputs it draws:

- :class:`SensitivitySweeps` -- outputs ``tables`` (kind -> {label: table}) and ``state``;
  :meth:`SensitivitySweeps.run`: −Û_tr over γ for several M (Fig 12) or K (Fig 13), heavy lane.
- :class:`Proposal1Overlay` -- output ``result`` ((status, result)): Proposal 1 of each status shown
  while ``wanted``, compute lane.
- :class:`AmplitudeSweep` -- outputs ``table``, ``settings`` and ``state``; :meth:`AmplitudeSweep.run`:
  −Û_tr over γ for several T̃ amplitudes, heavy lane.
- :class:`CVSweep` -- outputs ``table``, ``progress`` and ``state``: the rows of the CV sweep of the
  shown settings (Figs 6-9), shared with every session of the process that has the same settings.

D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021,
https://doi.org/10.1007/s11265-021-01671-1 (§6.4.3, Figs 12-13; Proposal 1: §4).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
import param

from buviz.app import sweeps, tasks
from buviz.app.bus import Outputs, output
from buviz.app.compute import ResultKey, Snapshot, StatusKey
from buviz.app.controls import status_column
from buviz.app.runner import Job

if TYPE_CHECKING:
    from buviz.app.store import SessionStore

__all__ = ["SensitivitySweeps", "Proposal1Overlay", "AmplitudeSweep", "CVSweep"]

#: How many datasets' sensitivity tables are kept to go back to (the session's history of shown states).
KEPT_DATASETS = 4


class _SessionPart(Outputs):
    """A store that follows one session's snapshot and works on its bus."""

    def __init__(self, session: SessionStore, **params):
        super().__init__(**params)
        self.session = session

    def _state_of(self, job: Job) -> str:
        return f"error: {job.error}" if job.status == "error" else job.status


class SensitivitySweeps(_SessionPart):
    """−Û_tr over the γ sweep for several M (Ha et al., Fig 12) or K (Fig 13), of the dataset shown.

    ``tables`` are those of the dataset of the session's snapshot: another dataset shows none (or the
    ones computed for it before, when the session goes back to it).
    """

    tables = output({}, "kind ('M' or 'K') -> {label: sweep table} of the dataset shown", cls=param.Dict)
    state = output("idle", "idle, 'running ...', done, cancelled or 'error: ...'", cls=param.String)

    def __init__(self, session: SessionStore, **params):
        super().__init__(session, **params)
        self._job: Job | None = None
        self._kept: list[tuple[object, dict]] = []  # (dataset, tables), newest last
        session.param.watch(self._on_snapshot, "snapshot")

    def _tables_of(self, ds) -> dict:
        return next((t for d, t in self._kept if d is ds), {})

    def _keep(self, ds, tables: dict) -> None:
        """``tables`` as ``ds``'s, the most recent of the :data:`KEPT_DATASETS` kept."""
        others = [(d, t) for d, t in self._kept if d is not ds]
        self._kept = [*others[max(0, len(others) - KEPT_DATASETS + 1):], (ds, tables)]

    def _on_snapshot(self, event) -> None:
        ds = None if event.new is None else event.new.ds
        tables = self._tables_of(ds)
        if tables:
            self._keep(ds, tables)  # shown again: the last to be forgotten
        if tables is not self.tables:
            self._publish(tables=tables)

    def run(self, kind: str = "M", values=None, *, cv: int = 2) -> None:
        """The sweeps of ``kind`` (``"M"``: M = 20 … 160; ``"K"``: K = 3 … 40 and AIC) into :attr:`tables`.

        CV errors are not needed here, so the sweeps use ``cv`` = 2 folds (the cheapest allowed). They run
        in the background (not served, :meth:`buviz.app.bus.JobBus.wait` waits for them).

        Raises
        ------
        ValueError
            If ``kind`` is neither ``"M"`` nor ``"K"``.
        """
        session = self.session
        if session.shown()["classifier"] != "SVM":
            session.report("The sensitivity sweeps use the SVM γ sweep: select the SVM classifier")
            return
        if kind not in ("M", "K"):
            raise ValueError("kind must be 'M' or 'K'")
        if self._job is not None and not self._job.finished:
            session.report("The sensitivity sweeps are still running: wait for them to finish")
            return
        values = values or ((20, 40, 80, 120, 160) if kind == "M" else ("3", "10", "20", "40", "aic"))
        snap = session.snapshot
        if kind == "M":
            values = [v for v in values if int(v) <= len(snap.ds.X_train)]

        def progress(job):
            if job.total and not job.finished:
                self._publish(state=f"running {kind} = {values[job.done]} ({job.done + 1}/{job.total})")

        def done(job):
            if job.status != "done":
                self._publish(state=self._state_of(job))
                return
            tables = {**self._tables_of(snap.ds), kind: job.result}
            self._keep(snap.ds, tables)
            if session.snapshot is not None and session.snapshot.ds is snap.ds:
                self._publish(state="done", tables=tables)
            else:  # the data changed meanwhile: kept for the data it was run on, not shown on these
                self._publish(state=f"done for the data shown before (N = {len(snap.ds.X_train)}): run again here")

        self._publish(state=f"running {kind} sweeps")
        self._job = session.bus.request(
            "sensitivity", sweeps.sensitivity_tables, snap.ds, sweeps.canonical(snap.settings), kind, values, cv,
            with_job=True, lane="heavy", on_done=done, on_progress=progress, label=f"sensitivity {kind}")

    def clear(self) -> None:
        """Drop every table without notifying anyone (the session's document is being destroyed)."""
        self._kept = []
        with param.parameterized.discard_events(self):
            self._publish(tables={})


class Proposal1Overlay(_SessionPart):
    """Proposal 1 (Ha et al. 2021, §4) of every status shown while ``wanted``: the overlay of the
    sample-space map and the numbers beside it."""

    wanted = param.Boolean(default=False, doc="Compute Proposal 1 for every status shown (the overlay)")
    result = output(None, "(StatusKey, Proposal 1 result or None) of the latest overlay delivered")

    @param.depends("wanted", watch=True)
    def follow(self) -> None:
        """With the overlay wanted: Proposal 1 of the shown status into :attr:`result` (the session calls
        this after each snapshot it shows)."""
        session, s = self.session, self.session.snapshot
        if not self.wanted or s is None or session.closed:
            return
        key = ResultKey.of(s.settings).status
        if self.result is not None and self.result[0] == key:
            return

        def done(job):
            if job.status == "error":  # drawn without the overlay, the error in the message bar
                session.report(f"Proposal 1: {job.error}")
            if job.status in ("done", "error"):
                self._publish(result=(key, job.result if job.status == "done" else None))

        session.bus.request("proposal1", tasks.proposal1_result, key, on_done=done, label="Proposal 1")

    def for_snapshot(self, snapshot: Snapshot) -> tuple[bool, object]:
        """(whether :attr:`result` answers for ``snapshot``'s status, its result or None)."""
        got = self.result
        key: StatusKey = ResultKey.of(snapshot.settings).status
        return (True, got[1]) if got is not None and got[0] == key else (False, None)

    def clear(self) -> None:
        """Drop the overlay without notifying anyone (the session's document is being destroyed)."""
        with param.parameterized.discard_events(self):
            self._publish(result=None)


class AmplitudeSweep(_SessionPart):
    """−Û_tr over γ for several T̃ amplitudes (both T̃ modes) and the test error, of the current dataset,
    C, M, K and seed (:func:`buviz.model_selection.perturbation_amplitude_sweep`), on a button press."""

    table = output(None, "The latest T̃-amplitude sweep (tidy DataFrame), or None")
    settings = output(None, "The settings the table was computed for (:meth:`config` at the request)")
    state = output("idle", "idle, running, done, cancelled, 'no status yet' or 'error: ...'", cls=param.String)

    def __init__(self, session: SessionStore, **params):
        super().__init__(session, **params)
        self._job: Job | None = None

    def config(self) -> dict | None:
        """What the sweep of the current snapshot is computed for (None without one)."""
        snap = self.session.snapshot
        if snap is None:
            return None
        s, N = snap.settings, len(snap.ds.X_train)
        return {"C": 2.0 ** int(s["log2_C"]), "M": min(int(s["M"]), N), "K": s["K"], "seed": int(s["seed"]),
                "dataset": s["dataset"], "n_train": N}

    def run(self) -> None:
        """The sweep of the current settings (heavy lane, in the background; not served,
        :meth:`buviz.app.bus.JobBus.wait` waits for it) into :attr:`table`."""
        session = self.session
        if session.snapshot is None:
            self._publish(state="no status yet")
            return
        if self._job is not None and not self._job.finished:
            return
        cfg = self.config()  # what the user clicked on, not what comes later

        def done(job):
            if job.status == "done":
                self._publish(settings=cfg, table=job.result, state="done")
            else:
                self._publish(state=self._state_of(job))

        self._publish(state="running")
        self._job = session.bus.request("amplitude", tasks.amplitude_sweep,
                                        tasks.AmplitudeKey.of(session.snapshot.settings), lane="heavy",
                                        on_done=done, label="T̃ amplitude sweep")

    def clear(self) -> None:
        """Drop the table without notifying anyone (the session's document is being destroyed)."""
        with param.parameterized.discard_events(self):
            self._publish(table=None)


class CVSweep(_SessionPart):
    """The session's side of the shared CV sweep of the shown settings (Ha et al. 2021, Figs 6-9).

    It follows one :class:`~buviz.app.sweeps.SharedSweep` (:attr:`shared`) of the settings shown and
    copies the rows received so far into :attr:`table`, :attr:`progress` and :attr:`state`. With the
    session's ``auto_sweep`` on, every settings change starts (or joins) the sweep of the new
    settings; off, a finished table of those settings is adopted if the process has one.
    """

    table = output(None, "Sweep rows received so far (a DataFrame, or None)")
    progress = output(0, "Sweep progress in percent", cls=param.Integer)
    state = output("idle", "idle, running, done or 'error: ...'", cls=param.String)

    def __init__(self, session: SessionStore, **params):
        super().__init__(session, **params)
        #: the shared sweep this session follows (None: none)
        self.shared: sweeps.SharedSweep | None = None
        self._rows = -1

    def current_row(self) -> dict | None:
        """The sweep row of the current status, when the sweep has reached it."""
        session = self.session
        t, col = self.table, status_column(session.shown())
        if t is None or not len(t) or col not in t or session.snapshot is None:
            return None
        hit = t[np.isclose(t[col].to_numpy(float), session.snapshot.status_value)]
        return hit.iloc[0].to_dict() if len(hit) else None

    def _key(self) -> sweeps.SweepKey:
        session = self.session
        return sweeps.SweepKey.of(session.shown(), session.controls.sweep_proposal1)

    def on_settings(self, *events) -> None:
        """The sweep's own settings changed (Proposal 1 column, ``auto_sweep``): follow the new ones."""
        if self.session.snapshot is not None and not self.session.closed:
            self.follow()

    def _listen(self, sweep: sweeps.SharedSweep | None) -> None:
        old, self.shared, self._rows = self.shared, sweep, -1
        if old is not None:
            old.unlisten(self._listener)
            sweeps.release(old)
        if sweep is not None:
            sweep.listen(self._listener)

    def _listener(self, sweep: sweeps.SharedSweep) -> None:  # in the runner's thread
        self.session.link.deliver(self._take_rows, key="sweep")

    def follow(self) -> None:
        """After a settings change: start (or join) their sweep, or with ``auto_sweep`` off adopt a
        finished table for them if the process has one -- never keep showing another setting's."""
        if self.session.auto_sweep:
            self.start()
            return
        key = self._key()
        if self.shared is not None and self.shared.key == key:
            return
        self._listen(sweeps.acquire_finished(key))
        if self.shared is None:
            self._publish(table=None, progress=0, state="idle")
        else:
            self._take_rows()

    def start(self, force: bool = False) -> None:
        """Subscribe to the sweep of the current settings (shared with every session of the process).

        A finished table for these settings is adopted at once; a sweep already running for them is
        joined; otherwise one starts in the background. ``force`` recomputes a finished or failed
        sweep (rows still come from the on-disk row cache); a failed sweep is not retried by later
        changes of γ, only by ``force`` (the *Restart sweep* button).
        """
        session = self.session
        if session.snapshot is None or session.closed:
            return
        key = self._key()
        if not force and self.shared is not None and self.shared.key == key and not self.shared.cancelled:
            return
        c, ds = sweeps.canonical(session.shown()), session.snapshot.ds

        def rows(progress, on_row, cancelled):
            sweeps.sweep_rows(ds, c, key.proposal1, progress, on_row, cancelled)

        self._listen(sweeps.acquire(key, rows, restart=force))
        self._publish(table=None, progress=0, state="running")
        self._take_rows()

    def cancel(self) -> None:
        """Leave the current sweep; the last session to leave a running sweep stops it."""
        self._listen(None)

    @property
    def busy(self) -> bool:
        """Whether the followed sweep still has rows to come."""
        s = self.shared
        return s is not None and not (s.finished or s.error or s.cancelled)

    def _take_rows(self) -> bool:
        """Move the followed sweep's rows received so far into the outputs; whether anything changed."""
        sweep = self.shared
        if sweep is None or self.session.closed:
            return False
        rows, done, total = sweep.snapshot()
        updates = {}
        if rows and len(rows) != self._rows:
            updates["table"] = pd.DataFrame(rows)
            self._rows = len(rows)
        pct = 100 if sweep.finished else int(100 * done / total) if total else 0
        if pct != self.progress:
            updates["progress"] = pct
        state = f"error: {sweep.error}" if sweep.error else "done" if sweep.finished else "running"
        if state != self.state:
            updates["state"] = state
        if updates:
            self._publish(**updates)
        return bool(updates)

    def wait(self, timeout: float = 120.0) -> bool:
        """Block until the followed sweep finishes (tests, benchmarks); then take its rows."""
        sweep = self.shared
        if sweep is not None:
            sweep.wait(timeout)
        if not self.session.link.served:
            self.session.link.flush()
        self._take_rows()
        return sweep is None or sweep.finished

    def clear(self) -> None:
        """Drop the rows without notifying anyone (the session's document is being destroyed)."""
        with param.parameterized.discard_events(self):
            self._publish(table=None)
