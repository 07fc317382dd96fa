"""The explorer's job runner against ``concurrent.futures.ThreadPoolExecutor``: what a slider step waits.

``buviz.app.runner.JobRunner`` is written here rather than taken from a library; this script measures
what it buys the explorer over the standard library's pool (``pn.state.execute`` with Panel's
``nthreads`` runs callbacks on such a pool, first come first served, with no priority and no
cancellation of a started task). Two scenarios, each job ``--job-ms`` long, spent in 5 ms sleeps (so
the scheduling is measured apart from the GIL, which numpy and scikit-learn release while they
compute; a running job checks for its cancellation between slices, as the explorer's steps do):

1. **Prefetch, then a step.** A session queues the γ row ahead of the user (``--prefetch`` jobs at
   priority PREFETCH), then the user moves γ (one job at priority USER). Latency of the user's job,
   submit to done.
2. **A drag.** The user drags γ across ``--drag`` positions, one job each, submitted every
   ``--drag-gap-ms``; only the last position matters. Time from the last submission to its result,
   and the number of jobs that ran to the end.

The pool runs with one worker, as the runner's compute lane does (a second worker would only share
the same two cores). Prints each latency, medians over ``--repeats`` and the ratios pool / runner.

    python benchmarks/bench_runner.py [--job-ms 40] [--prefetch 20] [--drag 12] [--repeats 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

from buviz.app.runner import PREFETCH, USER, JobRunner


def burn(ms: float, job=None) -> None:
    """A job of ``ms`` milliseconds in 5 ms slices (checking for cancellation between them when given
    a job)."""
    end = time.perf_counter() + ms / 1000
    while (left := end - time.perf_counter()) > 0:
        time.sleep(min(0.005, left))
        if job is not None:
            job.check()


def prefetch_then_step_runner(job_ms: float, n_prefetch: int) -> float:
    runner = JobRunner(lanes=("compute",), locked=())
    for g in range(n_prefetch):
        runner.submit(lambda job: burn(job_ms, job), priority=PREFETCH, slot=("prefetch", g), label="prefetch")
    time.sleep(job_ms / 4000)
    t0 = time.perf_counter()
    step = runner.submit(lambda job: burn(job_ms, job), priority=USER, slot="snapshot")
    step.wait(60)
    latency = time.perf_counter() - t0
    for g in range(n_prefetch):
        runner.cancel(("prefetch", g))
    runner.join(60)
    return latency


def prefetch_then_step_pool(job_ms: float, n_prefetch: int) -> float:
    with ThreadPoolExecutor(max_workers=1) as pool:
        for _ in range(n_prefetch):
            pool.submit(burn, job_ms)
        time.sleep(job_ms / 4000)
        t0 = time.perf_counter()
        pool.submit(burn, job_ms).result(60)
        return time.perf_counter() - t0


def drag_runner(job_ms: float, n_drag: int, gap_ms: float) -> tuple[float, int]:
    runner = JobRunner(lanes=("compute",), locked=())
    before = runner.completed
    last = None
    for _ in range(n_drag):
        time.sleep(gap_ms / 1000)
        t0 = time.perf_counter()
        last = runner.submit(lambda job: burn(job_ms, job), priority=USER, slot="snapshot")
    last.wait(60)
    latency = time.perf_counter() - t0
    runner.join(60)
    return latency, runner.completed - before


def drag_pool(job_ms: float, n_drag: int, gap_ms: float) -> tuple[float, int]:
    with ThreadPoolExecutor(max_workers=1) as pool:
        futures = []
        for _ in range(n_drag):
            time.sleep(gap_ms / 1000)
            t0 = time.perf_counter()
            futures.append(pool.submit(burn, job_ms))
        futures[-1].result(60)
        return time.perf_counter() - t0, sum(f.done() for f in futures)


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--job-ms", type=float, default=40.0)
    ap.add_argument("--prefetch", type=int, default=20)
    ap.add_argument("--drag", type=int, default=12)
    ap.add_argument("--drag-gap-ms", type=float, default=15.0)
    ap.add_argument("--repeats", type=int, default=5)
    a = ap.parse_args(argv)
    runs = {"step: runner": [], "step: pool": [], "drag: runner": [], "drag: pool": []}
    ran = {"drag: runner": [], "drag: pool": []}
    for _ in range(a.repeats):  # alternated, so both see the same machine
        runs["step: runner"].append(prefetch_then_step_runner(a.job_ms, a.prefetch))
        runs["step: pool"].append(prefetch_then_step_pool(a.job_ms, a.prefetch))
        for name, fn in (("drag: runner", drag_runner), ("drag: pool", drag_pool)):
            latency, n = fn(a.job_ms, a.drag, a.drag_gap_ms)
            runs[name].append(latency)
            ran[name].append(n)
    print(f"job {a.job_ms:.0f} ms; {a.prefetch} prefetch jobs; drag of {a.drag} positions every "
          f"{a.drag_gap_ms:.0f} ms; {a.repeats} repeats, alternated")
    for name, values in runs.items():
        extra = f", jobs run {statistics.median(ran[name]):.0f} of {a.drag}" if name in ran else ""
        print(f"{name:>13}: median {1000 * statistics.median(values):7.1f} ms "
              f"(runs: {', '.join(f'{1000 * v:.0f}' for v in values)}){extra}")
    for scenario in ("step", "drag"):
        ratio = statistics.median(runs[f"{scenario}: pool"]) / statistics.median(runs[f"{scenario}: runner"])
        print(f"{scenario}: ThreadPoolExecutor / JobRunner latency = {ratio:.1f}x")


if __name__ == "__main__":
    main()
