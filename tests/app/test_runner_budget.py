"""The runner's fair share between sessions (buviz.app.runner.ComputeBudget)."""

from __future__ import annotations

import threading
import time

import pytest

from buviz.app.runner import OVER_BUDGET, PREFETCH, USER, ComputeBudget, JobRunner, budget_from_environment


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def test_the_budget_counts_the_lane_seconds_of_the_last_window_only():
    clock = Clock()
    budget = ComputeBudget(20.0, window=60.0, clock=clock)
    budget.charge("a", 15.0)
    clock.now += 30
    budget.charge("a", 6.0)
    assert budget.used("a") == 21.0 and budget.over("a") and not budget.over("b")
    clock.now += 31  # the first charge left the window
    assert budget.used("a") == 6.0 and not budget.over("a")
    clock.now += 60
    assert budget.used("a") == 0.0


def _order_after_a_blocker(runner: JobRunner, submissions) -> list[str]:
    """Hold the compute lane with a blocker, submit ``(label, slot, priority)`` in order, release it:
    the order in which the lane ran them."""
    gate, ran = threading.Event(), []
    runner.submit(lambda job: gate.wait(10), label="blocker")
    jobs = [runner.submit(lambda job, name=name: ran.append(name), slot=slot, priority=prio, label=name)
            for name, slot, prio in submissions]
    gate.set()
    for job in jobs:
        assert job.wait(10)
    return ran


def test_a_session_over_its_share_queues_behind_the_other_sessions_but_keeps_its_own_order():
    clock = Clock()
    runner = JobRunner(budget=ComputeBudget(20.0, clock=clock))
    runner.budget.charge("student", 25.0)  # e.g. its 7 000-row upload's fit
    order = _order_after_a_blocker(runner, [
        ("student step", ("snapshot", "student"), USER),
        ("student prefetch", ("prefetch", "student"), PREFETCH),
        ("other step", ("snapshot", "other"), USER),
        ("other prefetch", ("prefetch", "other"), PREFETCH),
    ])
    assert order == ["other step", "other prefetch", "student step", "student prefetch"]
    # without the budget: by priority, then first come first served
    plain = _order_after_a_blocker(JobRunner(), [
        ("student step", ("snapshot", "student"), USER),
        ("student prefetch", ("prefetch", "student"), PREFETCH),
        ("other step", ("snapshot", "other"), USER),
        ("other prefetch", ("prefetch", "other"), PREFETCH),
    ])
    assert plain == ["student step", "other step", "student prefetch", "other prefetch"]
    clock.now += 61  # a minute later the student's share is back
    assert _order_after_a_blocker(runner, [
        ("other prefetch", ("prefetch", "other"), PREFETCH),
        ("student step", ("snapshot", "student"), USER),
    ]) == ["student step", "other prefetch"]


def _busy(seconds: float) -> None:
    """Use ``seconds`` of this thread's CPU time."""
    start = time.thread_time()
    while time.thread_time() - start < seconds:
        pass


def test_the_cpu_time_of_each_job_is_charged_to_its_session_and_waiting_is_not():
    runner = JobRunner(budget=ComputeBudget(20.0))
    gate = threading.Event()
    job = runner.submit(lambda job: _busy(0.3), slot=("snapshot", "s1"))
    idle = runner.submit(lambda job: gate.wait(0.5), slot=("snapshot", "s2"))  # waits, uses no CPU
    assert job.wait(10) and idle.wait(10)
    assert 0.25 < runner.budget.used("s1") < 5.0
    assert runner.budget.used("s2") < 0.1  # wall-clock would charge it 0.5 s
    assert not job.over_budget and OVER_BUDGET > PREFETCH


def test_a_job_waiting_for_the_run_lock_is_not_charged_for_the_wait():
    """A locked lane's job that waits while another holds the run lock is charged only its own run."""
    from buviz.app.runner import RUN_LOCK

    runner = JobRunner(budget=ComputeBudget(20.0), locked=("compute",))
    with RUN_LOCK:  # another session's job holds it for 0.5 s
        job = runner.submit(lambda job: _busy(0.05), slot=("snapshot", "s1"))
        time.sleep(0.5)
    assert job.wait(10)
    assert 0.04 < runner.budget.used("s1") < 0.3


@pytest.mark.parametrize(("value", "seconds"), [("", None), ("20", 20.0), ("7.5", 7.5), ("0", None)])
def test_the_environment_names_the_budget(value, seconds):
    budget = budget_from_environment({"BUVIZ_SESSION_BUDGET": value})
    assert (budget.seconds if budget else None) == seconds


@pytest.mark.parametrize("value", ["-1", "abc", "nan"])
def test_a_bad_budget_is_refused_naming_the_variable(value):
    with pytest.raises(ValueError, match="BUVIZ_SESSION_BUDGET"):
        budget_from_environment({"BUVIZ_SESSION_BUDGET": value})
    with pytest.raises(ValueError, match="seconds must be positive"):
        ComputeBudget(0)



def test_a_heavy_job_is_charged_its_wall_clock_time_from_when_it_holds_the_run_lock():
    """A heavy-lane job hands its work to worker processes (a sweep's joblib workers; here a wait stands
    in for them), which its thread's CPU time would miss: it is charged wall-clock seconds, from when it
    holds the run lock, not for the wait before."""
    from buviz.app.runner import RUN_LOCK

    runner = JobRunner(budget=ComputeBudget(20.0))
    with RUN_LOCK:  # another job holds it for 0.5 s
        job = runner.submit(lambda job: threading.Event().wait(0.3), lane="heavy", slot=("sensitivity", "s1"))
        time.sleep(0.5)
    assert job.wait(10)
    assert 0.25 < runner.budget.used("s1") < 0.5  # its 0.3 s of work; 0.8 s with the wait, ~0 as thread CPU
