"""The explorer's compute layer and the state's coalesced, latest-wins apply (no browser)."""

import dataclasses
import os
import threading
import time

import numpy as np
import pytest
from bokeh.document import Document

from buviz.app import compute
from buviz.app.bus import Requested
from buviz.app.controls import CONTROL_PARAMS, Controls
from buviz.app.runner import RUNNER
from buviz.app.store import SessionStore

SMALL = dict(n_train=200, auto_sweep=False)


def _settings(**kw):
    s = {p: Controls.param[p].default for p in CONTROL_PARAMS}
    s.update(n_train=200, **kw)
    return s


# -- LRUCache -------------------------------------------------------------------------------------
def test_lru_cache_computes_each_key_once_even_when_two_threads_ask_together():
    calls = []
    gate = threading.Event()

    def slow(x):
        calls.append(x)
        gate.wait(5)
        return x * 10

    cache = compute.LRUCache(slow, max_items=2)
    out = []
    threads = [threading.Thread(target=lambda: out.append(cache(3))) for _ in range(2)]
    for t in threads:
        t.start()
    time.sleep(0.1)
    gate.set()
    for t in threads:
        t.join(5)
    assert out == [30, 30] and calls == [3]


def test_lru_cache_evicts_the_least_recently_used_and_peek_never_computes():
    calls = []
    cache = compute.LRUCache(lambda x: calls.append(x) or x, max_items=2)
    assert cache.peek(1) is None and calls == []
    cache(1), cache(2), cache(1)  # 2 is now the least recently used
    cache(3)
    assert (1,) in cache and (3,) in cache and (2,) not in cache
    assert cache.peek(1) == 1 and calls == [1, 2, 3]


def test_a_failed_computation_is_not_cached_and_a_waiter_retries():
    n = {"calls": 0}

    def flaky(x):
        n["calls"] += 1
        if n["calls"] == 1:
            raise ValueError("first call fails")
        return x

    cache = compute.LRUCache(flaky, 4)
    with pytest.raises(ValueError):
        cache(7)
    assert cache(7) == 7 and n["calls"] == 2


# -- keys ---------------------------------------------------------------------------------------------
def test_keys_are_named_frozen_and_ignore_irrelevant_controls():
    a = compute.ResultKey.of(_settings(log2_gamma=-1))
    b = compute.ResultKey.of(_settings(log2_gamma=-2))
    assert a != b and a.status.log2_gamma == -1 and a.fit == b.fit and a.data == b.data
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.status.log2_gamma = 3  # a key never changes once made
    # hash(-1) == hash(-2) in CPython: the cache must tell such keys apart by equality, not by hash
    cache = compute.LRUCache(lambda key: key.log2_gamma, 4)
    assert cache(a.status) == -1 and cache(b.status) == -2 and cache(a.status) == -1 and len(cache) == 2
    mlp1 = compute.ResultKey.of(_settings(classifier="MLP", log2_gamma=3, epoch=5))
    mlp2 = compute.ResultKey.of(_settings(classifier="MLP", log2_gamma=-4, epoch=5))
    assert mlp1 == mlp2 and mlp1.status.value == 5  # γ plays no part in an MLP status
    off1 = compute.ResultKey.of(_settings(tilde=False, perturbation=0.3))
    off2 = compute.ResultKey.of(_settings(tilde=False, perturbation=1.5))
    assert off1 == off2 and off1.fit.perturbation == 0.0  # T̃ off: its amplitude plays no part


def test_prefetch_covers_the_gamma_row_and_the_neighbouring_C_within_the_cache_budget():
    k = compute.ResultKey.of(_settings(log2_gamma=3, log2_C=2))
    keys = compute.prefetch_keys(k)
    gammas = sorted(s.status.log2_gamma for s in keys if s.status.log2_C == 2)
    assert gammas == [g for g in compute.GAMMA_GRID if g != 3]
    assert {s.status.log2_C for s in keys} == {1, 2, 3}
    assert [abs(s.status.log2_gamma - 3) for s in keys[:3]] == [1, 1, 2]  # nearest γ first
    assert len(keys) < compute.status_eval.max_items and len(keys) < compute.bu_result.max_items


def test_lookup_snapshot_answers_only_from_the_caches_and_matches_a_computation():
    compute.clear_caches()
    s = _settings(log2_gamma=5)
    assert compute.lookup_snapshot(s) is None and not compute.status_cached(s)
    computed = compute.compute_snapshot(s)
    found = compute.lookup_snapshot(s)
    assert found is not None and found.result is computed.result and found.status is computed.status
    assert found.ks == computed.ks
    other = dict(s, M=30)  # same status, another estimator: status cached, Proposal 2 not
    assert compute.lookup_snapshot(other) is None and compute.status_cached(other)


# -- the runner ----------------------------------------------------------------------------------------
def test_a_sessions_prefetch_runs_beside_a_users_job_and_a_newer_row_drops_the_older(monkeypatch):
    """The γ row is requested on the session's job bus (priority PREFETCH, one batch per row) in the
    runner's own prefetch lane: a user's job runs at once even while a prefetch job is running (a status
    at N = 4 999 takes seconds and cannot be stopped mid-way), and a new row cancels what is left of the
    previous one."""
    from buviz.app import bus as bus_module
    from buviz.app import store as store_module
    from buviz.app.runner import JobRunner

    r = JobRunner()
    monkeypatch.setattr(bus_module, "RUNNER", r)
    order = []
    gate = threading.Event()
    monkeypatch.setattr(compute, "compute_keys", lambda k: order.append(("prefetch", k.status.log2_gamma)))
    state = SessionStore(**SMALL)  # computed in the foreground: no server runs
    rows = iter([[11, 12], [13, 14]])
    monkeypatch.setattr(store_module, "prefetch_keys",
                        lambda k: [k.with_status(log2_gamma=g) for g in next(rows)])
    running = r.submit(lambda job: gate.wait(5), lane="prefetch")  # a prefetch job that runs on
    state.prefetch = True
    state._prefetch(state.settings())
    state._prefetch({**state.settings(), "log2_C": state.settings()["log2_C"] + 1})  # a new row: C changed
    user = r.submit(lambda job: order.append(("user", 0)))
    assert user.wait(5) and not running.finished  # the user's job did not wait for the running prefetch
    gate.set()
    assert r.join(10)
    assert order == [("user", 0), ("prefetch", 13), ("prefetch", 14)]
    state.close()


def test_the_prefetch_lane_runs_at_a_lower_priority_than_the_users_lane():
    """On Linux the prefetch lane's thread has its own niceness, PREFETCH_NICENESS above the compute
    lane's: the kernel gives the users' requests and the event loop the cores first."""
    import sys

    from buviz.app.runner import PREFETCH_NICENESS, JobRunner

    if not sys.platform.startswith("linux"):
        pytest.skip("per-thread niceness is Linux's")

    def niceness(job):
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    r = JobRunner()
    user, ahead = r.submit(niceness), r.submit(niceness, lane="prefetch")
    assert user.wait(10) and ahead.wait(10)
    assert ahead.result == min(user.result + PREFETCH_NICENESS, 19), (user.result, ahead.result)


def test_latest_wins_in_a_slot_and_a_running_job_stops_at_its_next_check():
    from buviz.app.runner import JobRunner

    r = JobRunner()
    started, gate = threading.Event(), threading.Event()

    def long(job):
        started.set()
        for i in range(100):
            gate.wait(5)
            job.progress(i + 1, 100)
        return "long"

    first = r.submit(long, slot="s")
    assert started.wait(5)
    queued = r.submit(lambda job: "stale", slot="other")  # another slot: untouched
    second = r.submit(lambda job: "second", slot="s")  # cancels the running first job
    gate.set()
    assert second.wait(10) and first.wait(10) and queued.wait(10)
    assert first.status == "cancelled" and first.done == 0  # stopped at its first progress report
    assert second.status == "done" and second.result == "second" and queued.result == "stale"
    failing = r.submit(lambda job: 1 / 0)
    assert failing.wait(10) and failing.status == "error" and "division" in failing.error
    r.cancel("s")  # nothing left in the slot: harmless


# -- the state: coalesced, latest wins --------------------------------------------------------------------
class _Loop:
    """A served session's event loop, stepped by hand: a real Bokeh document whose next-tick
    callbacks are queued here."""

    def __init__(self):
        self.doc = Document()
        self.pending = []
        self.doc.add_next_tick_callback = self.pending.append

    def run(self, timeout=60.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            RUNNER.join(timeout)
            if not self.pending:
                if RUNNER.idle():
                    return
                continue
            cb = self.pending.pop(0)
            cb()
        raise AssertionError("the session did not settle")


def _status_computed(state, g) -> bool:
    return compute.status_eval.has(compute.ResultKey.of({**state.settings(), "log2_gamma": g}).status)


@pytest.fixture
def served():
    compute.clear_caches()
    state = SessionStore(asynchronous=True, **SMALL)
    loop = _Loop()
    state.attach(loop.doc)
    yield state, loop
    state.close()


def test_changes_before_the_next_tick_coalesce_into_one_computation(served):
    state, loop = served
    for g in (1, 2, 3):
        state.controls.log2_gamma = g
    assert len(loop.pending) == 1  # one apply scheduled for the three changes
    loop.run()
    assert state.snapshot.settings["log2_gamma"] == 3 and state.computing == ""
    assert _status_computed(state, 3) and not _status_computed(state, 1) and not _status_computed(state, 2)


def test_a_change_during_a_computation_wins_and_the_stale_one_is_never_computed(served):
    state, loop = served
    gate = threading.Event()
    RUNNER.submit(lambda job: gate.wait(10))  # the lane is busy (another session's request)
    state.controls.log2_gamma = 5
    loop.pending.pop(0)()  # the tick: γ = 5 is uncached -> queued for the worker
    assert state.computing.startswith("SVM γ = 2^5") and state.snapshot.settings["log2_gamma"] == 0
    state.controls.log2_gamma = 6
    loop.pending.pop(0)()  # the worker is on this session: nothing more is queued
    gate.set()
    loop.run()
    assert state.snapshot.settings["log2_gamma"] == 6 and state.computing == ""
    assert not _status_computed(state, 5)  # dropped as stale before it started
    np.testing.assert_allclose(state.snapshot.result.value,
                               compute.compute_snapshot(state.settings()).result.value)


def test_a_refusal_after_a_computation_clears_computing(served, monkeypatch):
    """An uncached γ is being computed in the background when an M beyond N arrives: the γ's status
    arrives (cached now), the newest controls are refused at once, and nothing says "computing" any more."""
    state, loop = served
    started = threading.Event()
    real = compute.compute_snapshot

    def slow(settings, check=None):
        started.set()
        time.sleep(0.3)
        return real(settings, check)

    import buviz.app.store as store_module

    monkeypatch.setattr(store_module, "compute_snapshot", slow)
    state.controls.log2_gamma = 4
    loop.pending.pop(0)()  # the tick: γ = 4 is uncached -> the worker starts on it
    assert started.wait(10) and state.computing.startswith("SVM γ = 2^4")
    state.controls.M = 1000  # while the worker computes γ = 4
    loop.run()
    assert "M must be <= 200" in state.message and state.computing == ""
    assert state.applied["M"] == 40 and state.controls.M == 1000


def test_a_note_queued_for_data_left_before_they_arrived_is_not_shown_later(served):
    state, loop = served
    gate = threading.Event()
    RUNNER.submit(lambda job: gate.wait(10))
    state.controls.dataset = "wine"  # γ fitted to wine, its note queued with wine's snapshot
    loop.pending.pop(0)()
    state.controls.update_as_given(dataset="gmm", log2_gamma=0)  # back to the data shown, before wine arrives
    gate.set()
    loop.run()
    assert state.applied["dataset"] == "gmm" and "γ set" not in state.notice
    state.controls.log2_C = 1  # the next change of the same data shows no stale note either
    loop.run()
    assert state.applied["log2_C"] == 1 and "γ set" not in state.notice


def test_a_cached_status_is_shown_within_the_tick_without_the_worker(served):
    state, loop = served
    state.controls.log2_gamma = 2
    loop.run()
    state.controls.log2_gamma = 0
    loop.pending.pop(0)()
    assert state.snapshot.settings["log2_gamma"] == 0 and not loop.pending and state.computing == ""


def test_bad_settings_computed_in_the_background_are_reported_and_left_to_the_user(served):
    state, loop = served
    state.controls.M = 1000  # more than N = 200
    loop.run()
    assert "M must be <= 200" in state.message and state.controls.M == 1000
    assert state.snapshot.settings["M"] == 40 == state.applied["M"]


@pytest.mark.slow
def test_prefetch_fills_the_gamma_row_after_a_C_change():
    compute.clear_caches()
    state = SessionStore(prefetch=True, **SMALL)
    assert RUNNER.join(120)
    state.controls.log2_C = 1
    assert RUNNER.join(120)
    for g in compute.GAMMA_GRID:
        assert compute.lookup_snapshot({**state.settings(), "log2_gamma": g}) is not None, g
    for c in (0, 2):  # the neighbouring C at the current γ
        assert compute.lookup_snapshot({**state.settings(), "log2_C": c}) is not None
    state.close()


def test_upload_store_keeps_the_newest_uploads_within_its_bound():
    store = compute.UploadStore(max_items=2)
    for name in ("a", "b", "a", "c"):  # "a" is uploaded again: "b" is now the oldest
        store.put(name, name.encode() * 3)
    assert store.get("b") is None and store.get("a") == b"aaa" and store.get("c") == b"ccc" and len(store) == 2


def test_a_served_session_refuses_to_wait_and_keeps_working(served):
    """Its event loop is the page's: waiting is refused (saying why), and the request is delivered on
    the session's loop."""
    state, loop = served
    total = Requested(state.bus, "sum", lambda key: sum(key))
    job = total.request((1, 2))
    with pytest.raises(ValueError, match="wait\\(\\) in a served session"):
        state.wait()
    assert total.state == "running" and total.value is None
    loop.run()
    assert job.result == 3 and total.value_for((1, 2)) == 3 and total.state == "done"


# -- a snapshot is computed within a time budget, checked between its steps ---------------------------------
def _jumping_clock(monkeypatch, step_s: float) -> None:
    """The time budget's clock moves ``step_s`` seconds at every reading (a saturated or slow server)."""
    from types import SimpleNamespace

    from buviz.app import timebudget

    ticks = iter(range(0, 1_000_000, int(step_s)))
    monkeypatch.setattr(timebudget, "time", SimpleNamespace(monotonic=lambda: float(next(ticks))))


@pytest.mark.parametrize("asynchronous", [False, True], ids=["notebook", "served"])
def test_a_snapshot_over_its_time_budget_is_refused_between_steps_and_the_next_try_goes_on(monkeypatch,
                                                                                          asynchronous):
    """Past ``SNAPSHOT_TIME_BUDGET_S`` the steps left are not started: the page keeps the last settings that
    worked and says why; the steps done stay cached, so the same setting asked again goes on from there."""
    compute.clear_caches()
    state = SessionStore(asynchronous=asynchronous, **SMALL)
    loop = _Loop()
    if asynchronous:
        state.attach(loop.doc)
    shown = state.snapshot
    _jumping_clock(monkeypatch, 0.6 * compute.SNAPSHOT_TIME_BUDGET_S)  # two readings pass the budget
    state.controls.log2_gamma = 4
    if asynchronous:
        loop.run()
    assert f"took more than {compute.SNAPSHOT_TIME_BUDGET_S:.0f} s" in state.message
    assert state.snapshot is shown and state.applied["log2_gamma"] == 0 and state.controls.log2_gamma == 4
    assert state.computing == ""
    k = compute.ResultKey.of(state.settings())
    assert compute.status_eval.has(k.status) and not compute.bu_result.has(k)  # stopped after the status step
    monkeypatch.undo()
    state.controls.log2_gamma = 0
    state.controls.log2_gamma = 4  # asked again, with time enough
    if asynchronous:
        loop.run()
    assert state.message == "" and state.snapshot.settings["log2_gamma"] == 4
    state.close()


def test_the_budget_check_stops_a_cancelled_job_between_steps():
    from buviz.app.runner import Job, JobCancelled

    job = Job(lambda j: None)
    check = compute.snapshot_budget(job.check)
    check()  # within the budget, not cancelled: nothing happens
    job.cancel()
    with pytest.raises(JobCancelled):
        check()


def test_newer_controls_stop_the_snapshot_being_computed_at_its_next_step(served, monkeypatch):
    """Served, a snapshot under way when the controls move on stops at its next step (latest wins), and
    the newest controls are computed and shown."""
    import buviz.app.store as store_module

    state, loop = served
    started, go, finished = threading.Event(), threading.Event(), []
    real = compute.compute_snapshot

    def stepwise(settings, check=None):
        if settings["log2_gamma"] != 4:
            return real(settings, check)
        started.set()
        go.wait(10)
        check()  # the first step's end: the controls moved on meanwhile
        finished.append(settings["log2_gamma"])
        return real(settings, check)

    monkeypatch.setattr(store_module, "compute_snapshot", stepwise)
    state.controls.log2_gamma = 4
    loop.pending.pop(0)()  # the tick: γ = 4 is uncached -> the worker starts on it
    assert started.wait(10)
    state.controls.log2_gamma = 5  # while γ = 4 is computed
    go.set()
    loop.run()
    assert finished == [] and state.snapshot.settings["log2_gamma"] == 5 and state.computing == ""
