"""Background sweeps shared by every session of one server process.

A sweep (21 γ × CV folds) is keyed by everything that defines its rows (dataset, C, folds, M, K, T̃,
seed, Proposal 1 column). Sessions with the same key *subscribe* to one :class:`SharedSweep`: it runs
once, in one background thread, and each session polls its rows. A running sweep is cancelled when its
last subscriber leaves (settings changed, session closed). Finished tables stay in a bounded LRU
(:data:`FINISHED_MAX` tables of 21 rows), so going back to earlier settings, or a second session
with the same settings, adopts the table at once.

Only one sweep runs at a time per process (:data:`RUN_LOCK`): joblib's worker pool must not be driven
by two generator-style ``Parallel`` calls at once, and one sweep already uses both cores. Queued
sweeps wait their turn; a sweep whose subscribers all left while it was queued never starts.
"""

from __future__ import annotations

import threading
import traceback
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["SharedSweep", "SweepCancelled", "acquire", "acquire_finished", "release", "clear"]

#: Finished sweep tables kept for the whole process (each is 21 rows; well under 1 MB together).
FINISHED_MAX = 32

#: ``runner(progress, on_row, cancelled)`` computes the rows: ``progress(done, total)``,
#: ``on_row(row)``; once ``cancelled()`` is true it raises :class:`SweepCancelled`. Returning means
#: every row was delivered.
Runner = Callable[[Callable[[int, int], None], Callable[[dict], None], Callable[[], bool]], None]


class SweepCancelled(Exception):
    """Raised inside a runner when every subscriber has left."""


@dataclass(eq=False)
class SharedSweep:
    """One sweep's progress, read by every subscribed session (``rows`` grow while it runs)."""

    key: tuple
    rows: list = field(default_factory=list)
    done: int = 0
    total: int = 0
    finished: bool = False
    error: str = ""
    cancelled: bool = False
    subscribers: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    thread: threading.Thread | None = None

    def snapshot(self) -> tuple[list, int, int]:
        """(rows so far, tasks done, tasks in total), read consistently."""
        with self.lock:
            return list(self.rows), self.done, self.total

    def wait(self, timeout: float | None = None) -> bool:
        if self.thread is not None:
            self.thread.join(timeout)
        return self.finished or bool(self.error) or self.cancelled


_LOCK = threading.Lock()  # guards the two dicts below and every ``subscribers`` count
#: Held while a sweep (or the sensitivity sweeps) drives the worker pool.
RUN_LOCK = threading.Lock()
_RUNNING: dict[tuple, SharedSweep] = {}
_FINISHED: OrderedDict[tuple, SharedSweep] = OrderedDict()


def acquire(key: tuple, runner: Runner, *, restart: bool = False) -> SharedSweep:
    """Subscribe to the sweep of ``key``: a finished one, the running one, or a new one started with ``runner``.

    ``restart`` recomputes a finished (or failed) sweep; it never restarts one that is running.
    Every :func:`acquire` must be paired with one :func:`release` of the returned job.
    """
    with _LOCK:
        job = _RUNNING.get(key)
        if job is None and not restart and key in _FINISHED:
            job = _FINISHED[key]
            _FINISHED.move_to_end(key)
        if job is None:
            _FINISHED.pop(key, None)
            job = SharedSweep(key=key)
            _RUNNING[key] = job
            job.thread = threading.Thread(target=_work, args=(job, runner), name="buviz-sweep", daemon=True)
            job.thread.start()
        job.subscribers += 1
        return job


def acquire_finished(key: tuple) -> SharedSweep | None:
    """Subscribe to the finished sweep of ``key`` if the process still holds it (else ``None``)."""
    with _LOCK:
        job = _FINISHED.get(key)
        if job is not None:
            _FINISHED.move_to_end(key)
            job.subscribers += 1
        return job


def release(job: SharedSweep | None) -> None:
    """Unsubscribe; the last subscriber of a running sweep cancels it (after its current task)."""
    if job is None:
        return
    with _LOCK:
        job.subscribers = max(0, job.subscribers - 1)
        if job.subscribers == 0 and not job.finished:
            job.cancelled = True
            if _RUNNING.get(job.key) is job:
                del _RUNNING[job.key]


def _work(job: SharedSweep, runner: Runner) -> None:
    def progress(done: int, total: int) -> None:
        if job.cancelled:
            raise SweepCancelled
        with job.lock:
            job.done, job.total = done, total

    def on_row(row: dict) -> None:
        with job.lock:
            job.rows.append(row)

    try:
        with RUN_LOCK:
            if job.cancelled:
                return
            runner(progress, on_row, lambda: job.cancelled)
    except SweepCancelled:
        return
    except Exception as exc:  # shown to the subscribers as the sweep's state; the server keeps running
        traceback.print_exc()
        job.error = str(exc) or type(exc).__name__
        with _LOCK:
            if _RUNNING.get(job.key) is job:
                del _RUNNING[job.key]
        return
    with _LOCK:  # complete, even if its last subscriber left meanwhile: keep the table
        job.cancelled = False
        job.finished = True
        if _RUNNING.get(job.key) is job:
            del _RUNNING[job.key]
        _FINISHED[job.key] = job
        while len(_FINISHED) > FINISHED_MAX:
            _FINISHED.popitem(last=False)


def finished_table_count() -> int:
    return len(_FINISHED)


def clear() -> None:
    """Forget finished tables and cancel running sweeps (tests, benchmarks)."""
    with _LOCK:
        for job in _RUNNING.values():
            job.cancelled = True
        _RUNNING.clear()
        _FINISHED.clear()
