"""CV sweeps shared by every session of one server process, run by the one runner.

A sweep (21 γ × CV folds) is keyed by everything that defines its rows (dataset, C, folds, M, K, T̃,
seed, Proposal 1 column). Sessions with the same key *subscribe* to one :class:`SharedSweep`: it runs
once, as a job in the runner's *heavy* lane (:mod:`buviz.app.runner`; one pool-driving job at a time),
and tells its listeners as rows arrive. A running sweep is cancelled when its last subscriber leaves
(settings changed, session closed); one whose subscribers all left while it was queued never starts.
Finished tables stay in the one cache (:mod:`buviz.app.cache`, :data:`FINISHED_MAX` tables of 21
rows), so going back to earlier settings, or a second session with the same settings, adopts the
table at once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from buviz.app.cache import LRUCache
from buviz.app.runner import RUN_LOCK, RUNNER, USER, Job, JobCancelled

__all__ = ["SharedSweep", "SweepCancelled", "acquire", "acquire_finished", "release", "clear", "RUN_LOCK",
           "FINISHED_MAX"]

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

    def __init__(self, key: tuple):
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
_RUNNING: dict[tuple, SharedSweep] = {}


def _not_finished(key):
    return None


#: Finished sweeps of the process (in the one cache).
_FINISHED = LRUCache(_not_finished, FINISHED_MAX)
_FINISHED.__name__ = "finished_sweeps"


def acquire(key: tuple, runner: Runner, *, restart: bool = False) -> SharedSweep:
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


def acquire_finished(key: tuple) -> SharedSweep | None:
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
