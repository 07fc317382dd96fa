"""Sweeps shared across sessions: many sessions on one server run each sweep once."""

from __future__ import annotations

import os
import threading
import time

import pytest

from buviz.app import sweeps as jobs


@pytest.fixture(autouse=True)
def _empty_registry():
    jobs.clear()
    yield
    jobs.clear()


class FakeRunner:
    """A runner emitting ``n`` rows; each row waits for ``gate`` so a test controls the pace."""

    def __init__(self, n: int = 3, fail_at: int | None = None):
        self.n, self.fail_at = n, fail_at
        self.calls = 0
        self.gate = threading.Semaphore(0)

    def __call__(self, progress, on_row, cancelled):
        self.calls += 1
        for i in range(self.n):
            self.gate.acquire(timeout=30)
            if cancelled():
                raise jobs.SweepCancelled
            if i == self.fail_at:
                raise RuntimeError("worker lost")
            on_row({"i": i})
            progress(i + 1, self.n)

    def release_all(self):
        for _ in range(self.n):
            self.gate.release()


def test_sessions_with_the_same_key_share_one_run():
    run = FakeRunner()
    a = jobs.acquire(("k",), run)
    b = jobs.acquire(("k",), run)
    assert a is b and a.subscribers == 2
    run.release_all()
    assert a.wait(30) and a.finished
    assert run.calls == 1 and [r["i"] for r in a.rows] == [0, 1, 2] and (a.done, a.total) == (3, 3)
    # a later session adopts the finished table without running anything
    assert jobs.acquire_finished(("k",)) is a and jobs.acquire(("k",), run) is a and run.calls == 1


def test_last_subscriber_leaving_cancels_the_run():
    run = FakeRunner()
    a = jobs.acquire(("k",), run)
    jobs.acquire(("k",), run)
    deadline = time.monotonic() + 30
    while run.calls == 0 and time.monotonic() < deadline:  # running, not queued
        time.sleep(0.01)
    run.gate.release()  # one row
    jobs.release(a)
    assert not a.cancelled  # one session still watches it
    jobs.release(a)
    assert a.cancelled
    run.release_all()
    a.wait(30)
    assert not a.finished and jobs.acquire_finished(("k",)) is None
    # the next request for the key starts a fresh run
    b = jobs.acquire(("k",), run)
    assert b is not a
    run.release_all()
    assert b.wait(30) and b.finished and run.calls == 2


def test_a_run_that_completes_as_its_last_subscriber_leaves_keeps_its_table():
    done = threading.Event()

    def runner(progress, on_row, cancelled):
        on_row({"i": 0})
        done.wait(30)  # the subscriber leaves here, after the last row

    a = jobs.acquire(("k",), runner)
    while not a.rows:
        time.sleep(0.01)
    jobs.release(a)
    done.set()
    a.wait(30)
    assert a.finished and jobs.acquire_finished(("k",)) is a


def test_a_failed_run_reports_its_error_and_can_be_restarted():
    bad = FakeRunner(fail_at=1)
    a = jobs.acquire(("k",), bad)
    bad.release_all()
    a.wait(30)
    assert a.error == "worker lost" and not a.finished
    good = FakeRunner()
    b = jobs.acquire(("k",), good)
    assert b is not a
    good.release_all()
    assert b.wait(30) and b.finished


def test_restart_recomputes_a_finished_run_and_finished_tables_are_bounded():
    run = FakeRunner(n=1)
    run.release_all()
    a = jobs.acquire(("k",), run)
    a.wait(30)
    run.release_all()
    b = jobs.acquire(("k",), run, restart=True)
    assert b is not a and b.wait(30) and b.finished and run.calls == 2
    for i in range(jobs.FINISHED_MAX + 5):
        r = FakeRunner(n=1)
        r.release_all()
        jobs.acquire((i,), r).wait(30)
    assert jobs.finished_table_count() == jobs.FINISHED_MAX
    assert jobs.acquire_finished((0,)) is None and jobs.acquire_finished((jobs.FINISHED_MAX + 4,)) is not None


def test_one_run_at_a_time():
    first, second = FakeRunner(n=1), FakeRunner(n=1)
    a = jobs.acquire(("a",), first)
    deadline = time.monotonic() + 30
    while first.calls == 0 and time.monotonic() < deadline:  # a holds the pool before b asks for it
        time.sleep(0.01)
    b = jobs.acquire(("b",), second)
    second.release_all()  # b is ready but must wait for a to leave the worker pool
    assert not b.wait(0.5)
    first.release_all()
    assert a.wait(30) and b.wait(30) and a.finished and b.finished


@pytest.mark.slow
def test_two_states_with_the_same_settings_share_the_sweep():
    from buviz.app.store import SessionStore

    s1 = SessionStore(n_train=120, cv=2, auto_sweep=False)
    s2 = SessionStore(n_train=120, cv=2, auto_sweep=False)
    s1.cv_sweep.start()
    s2.cv_sweep.start()
    assert s1.cv_sweep.shared is s2.cv_sweep.shared and s1.cv_sweep.shared.subscribers == 2
    assert s1.cv_sweep.wait(240) and s2.cv_sweep.wait(240)
    assert s1.cv_sweep.table.equals(s2.cv_sweep.table) and s2.cv_sweep.state == "done"
    # a third session with other settings does not see that table; going back adopts it at once
    s3 = SessionStore(n_train=120, cv=2, M=30, auto_sweep=False)
    assert s3.cv_sweep.table is None and s3.cv_sweep.state == "idle"
    s3.controls.M = 40
    assert s3.cv_sweep.state == "done" and s3.cv_sweep.table.equals(s1.cv_sweep.table)
    s1.close()
    s2.close()
    s3.close()


def test_sweep_workers_run_niced_and_the_caller_is_not():
    from joblib import delayed
    from joblib.externals.loky import get_reusable_executor

    from buviz.sweep import _run_tasks

    before = os.getpriority(os.PRIO_PROCESS, 0)
    try:
        out = dict(_run_tasks([delayed(os.getpriority)(os.PRIO_PROCESS, 0) for _ in range(4)], 2, {}, niceness=10))
        assert len(out) == 4 and min(out.values()) >= 10
        # in-process (n_jobs=1) the caller keeps its priority
        list(_run_tasks([delayed(os.getpriority)(os.PRIO_PROCESS, 0)], 1, {}, niceness=10))
        assert os.getpriority(os.PRIO_PROCESS, 0) == before
    finally:
        get_reusable_executor().shutdown(wait=True)  # later tests get fresh, un-niced workers
