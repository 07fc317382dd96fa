"""The explorer's one background-job runner, shared by every tab and every session of a process.

Nothing here knows about widgets or documents. A *job* is a function of its :class:`Job` handle
(which it uses to report progress and to notice that it was cancelled); the runner runs it in one
of two *lanes*, each a daemon thread taking jobs by priority, then first come first served:

========  ==============================================================================
lane      jobs
========  ==============================================================================
compute   a session's uncached snapshot (priority :data:`USER`), Proposal 1, the discrete
          Monte Carlo, the extrapolation toy model, an upload being read
prefetch  the γ row computed ahead of the user (:data:`PREFETCH`), in a thread at
          :data:`PREFETCH_NICENESS` (Linux: the kernel gives the other lanes the cores first)
heavy     what drives the joblib worker pool: the CV sweeps, the sensitivity sweeps, the
          T̃-amplitude sweep (one at a time: :data:`RUN_LOCK` is held while one runs)
========  ==============================================================================

so a long sweep never delays a slider step, and a slider step never waits behind a prefetch, not even
one already running. A prefetch job cannot be stopped mid-way (one status at N = 4 999 and a large γ
takes up to 7 s on an idle core; the whole row of an uploaded 200 000-row table, 22 jobs, 44 s): in
the compute lane, every other session's γ step queued behind the one running.

*Latest wins*: a job submitted with a ``slot`` cancels every job of that slot still queued or
running (a running job stops at its next :meth:`Job.progress` or :meth:`Job.check`). A session
uses one slot per kind of work, so moving a control never leaves a queue of stale positions.
:meth:`JobRunner.cancel` drops a slot (its session ended).

*Fair share between sessions*: a session (the owner ``id`` in its slots ``(name, id)``) that used
more than :attr:`JobRunner.budget`'s seconds of lane time in the last minute has its new requests
queued behind every other session's (:class:`ComputeBudget`; off by default, ``buviz serve
--session-budget``, ``BUVIZ_SESSION_BUDGET``). Nothing is refused: on a server with one user the order does not change,
and in a class one student's 7 000-row upload or long sweep cannot make the others' γ steps wait
behind all of its follow-up requests.

Results reach a session through callbacks (:meth:`Job.add_done_callback`, run in the lane's
thread); :mod:`buviz.app.session` moves them onto the session's event loop.

Why not a library's pool: ``concurrent.futures.ThreadPoolExecutor`` (and ``pn.state.execute`` with
Panel's ``nthreads``, which runs on such a pool) serves first come first served and cannot stop a
started task, so a slider step waits behind the work queued ahead of the user, and a drag runs every
position it passed. ``benchmarks/bench_runner.py`` measures both (jobs of 40 ms, one worker; median
of five alternated runs on the project's 2-core machine): a step queued after a 20-job prefetch
waited 851 ms in the pool against 70 ms here (12.1×); the last position of a 12-position drag arrived
317 ms after its submission in the pool, which ran all 12 jobs, against 45 ms here, which ran 1
(7.1×).
"""

from __future__ import annotations

import collections
import itertools
import os
import queue
import sys
import threading
import time
import traceback
from collections.abc import Callable, Hashable

__all__ = ["Job", "JobCancelled", "JobRunner", "ComputeBudget", "RUNNER", "RUN_LOCK", "USER", "PREFETCH",
           "OVER_BUDGET", "LANES", "PREFETCH_NICENESS", "SESSION_BUDGET_S", "budget_from_environment",
           "SERVED_BLAS_THREADS", "one_blas_thread_when_served"]

#: Priorities: a user's own request before work done ahead of the user.
USER, PREFETCH = 0, 1
#: Added to the priority of a request from a session over its :class:`ComputeBudget`: its request
#: and its prefetch queue behind every other session's, in the same order among themselves.
OVER_BUDGET = 2
#: Default lane seconds a session may use per minute before its requests go behind the others'
#: (``BUVIZ_SESSION_BUDGET``): 0, the fair share is off unless a lecturer sets it. Counting wall-clock
#: time, in the suite's load test (20 browsers and a hostile student on 2 cores) a budget of 20 s put
#: ordinary sessions over it and one session's last change landed more than 60 s late; counting the
#: compute lane's CPU time, one run ended right but with a server time per change of p90 41 s, against
#: 2-20 s in three runs without it (docs/deployment.md): it has not been shown to help.
SESSION_BUDGET_S = 0.0
#: The lanes of :data:`RUNNER` (see the module docstring).
LANES = ("compute", "prefetch", "heavy")
#: Niceness added to the prefetch lane's thread (Linux threads have their own; elsewhere nothing
#: changes), as the sweeps' joblib workers run at niceness 10: work ahead of the users yields the
#: cores to their own requests and to the server's event loop.
PREFETCH_NICENESS = 10
#: Held while a job drives the joblib worker pool (the heavy lane, and the figure gallery).
RUN_LOCK = threading.Lock()


class JobCancelled(Exception):
    """Raised inside a job (by :meth:`Job.progress` or :meth:`Job.check`) once it was cancelled."""


class Job:
    """One unit of background work: its state, progress, result and completion callbacks.

    Attributes
    ----------
    slot : hashable or None
        The latest-wins slot the job was submitted to.
    status : {"queued", "running", "done", "error", "cancelled"}
    result : object
        What the job returned (``status == "done"``).
    error : str
        What went wrong (``status == "error"``).
    exception : Exception or None
        The exception the job raised (``status == "error"``).
    done, total : int
        The progress the job reported (tasks done out of ``total``).
    """

    def __init__(self, fn: Callable[[Job], object], slot: Hashable | None = None, label: str = ""):
        self.fn, self.slot, self.label = fn, slot, label
        self.status = "queued"
        self.result: object = None
        self.error = ""
        self.exception: BaseException | None = None
        self.done = self.total = 0
        self._cancel = threading.Event()
        self._finished = threading.Event()
        self._settled = threading.Event()  # ended, and every done callback has run
        self._lock = threading.Lock()
        self._callbacks: list[Callable[[Job], None]] = []
        self._progress_callbacks: list[Callable[[Job], None]] = []

    # -- inside the job
    def progress(self, done: int, total: int) -> None:
        """Report progress (``done`` of ``total``); raises :class:`JobCancelled` once cancelled."""
        self.check()
        self.done, self.total = int(done), int(total)
        for cb in list(self._progress_callbacks):
            cb(self)

    def check(self) -> None:
        """Raise :class:`JobCancelled` if the job was cancelled (call between steps)."""
        if self._cancel.is_set():
            raise JobCancelled

    # -- outside
    @property
    def cancelled(self) -> bool:
        return self._cancel.is_set()

    @property
    def finished(self) -> bool:
        """Whether the job ended (done, failed or cancelled)."""
        return self._finished.is_set()

    @property
    def settled(self) -> bool:
        """Whether the job ended and its done callbacks have run (what they deliver is then queued)."""
        return self._settled.is_set()

    def cancel(self) -> None:
        """Ask the job to stop (a queued job never starts; a running one stops at its next check)."""
        self._cancel.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the job ends and its done callbacks have run (a delivery they queue is then
        pending); whether it did."""
        return self._settled.wait(timeout)

    def add_done_callback(self, fn: Callable[[Job], None]) -> None:
        """Call ``fn(job)`` when the job ends (at once if it has; otherwise in the lane's thread)."""
        with self._lock:
            if not self._finished.is_set():
                self._callbacks.append(fn)
                return
        fn(self)

    def add_progress_callback(self, fn: Callable[[Job], None]) -> None:
        """Call ``fn(job)`` at every progress report (in the lane's thread)."""
        self._progress_callbacks.append(fn)

    def _end(self, status: str) -> None:
        with self._lock:
            self.status = status
            self._finished.set()
            callbacks, self._callbacks = self._callbacks, []
        try:
            for cb in callbacks:
                try:
                    cb(self)
                except Exception:  # a callback's failure must not stop the lane
                    traceback.print_exc()
        finally:
            self._settled.set()

    def run(self) -> None:
        """Run the job here (its lane does this; a cached answer and a closed session's job run here too)."""
        if self._cancel.is_set():
            self._end("cancelled")
            return
        self.status = "running"
        try:
            self.result = self.fn(self)
        except JobCancelled:
            self._end("cancelled")
        except Exception as exc:  # shown to the user as the job's error; the server keeps running
            traceback.print_exc()
            self.error = str(exc) or type(exc).__name__
            self.exception = exc
            self._end("error")
        else:
            self._end("done")

    def __repr__(self) -> str:
        return f"<Job {self.label or self.slot!r} {self.status}>"


class ComputeBudget:
    """Lane seconds per session over a sliding window: who is over its share.

    Parameters
    ----------
    seconds : float
        Lane time a session may use in any ``window`` seconds before :meth:`over` says so, summed over
        lanes: the CPU seconds of the lane thread for jobs that work in it, wall-clock seconds for jobs
        that hand work to worker processes (:class:`JobRunner`'s ``in_thread``); never the wait for
        :data:`RUN_LOCK`. Must be positive.
    window : float, default=60.0
        Length of the sliding window, in seconds.
    clock : callable, default=time.monotonic
        The time source (a test passes its own).
    """

    def __init__(self, seconds: float, window: float = 60.0, clock: Callable[[], float] = time.monotonic):
        if not seconds > 0:
            raise ValueError(f"seconds must be positive (0 or None turns the budget off), got {seconds!r}")
        if not window > 0:
            raise ValueError(f"window must be positive, got {window!r}")
        self.seconds, self.window, self.clock = float(seconds), float(window), clock
        self._lock = threading.Lock()
        self._spent: dict[Hashable, collections.deque] = {}

    def charge(self, owner: Hashable, seconds: float) -> None:
        """Record that ``owner``'s job ran ``seconds`` of lane time, ending now."""
        with self._lock:
            self._spent.setdefault(owner, collections.deque()).append((self.clock(), float(seconds)))

    def used(self, owner: Hashable) -> float:
        """Lane seconds ``owner``'s jobs used that ended within the last ``window`` seconds."""
        since = self.clock() - self.window
        with self._lock:
            spent = self._spent.get(owner)
            if spent is None:
                return 0.0
            while spent and spent[0][0] < since:
                spent.popleft()
            if not spent:
                del self._spent[owner]
                return 0.0
            return sum(sec for _, sec in spent)

    def over(self, owner: Hashable) -> bool:
        """Whether ``owner`` used more than its share in the last ``window`` seconds."""
        return self.used(owner) > self.seconds


def budget_from_environment(environ=None) -> ComputeBudget | None:
    """The budget ``BUVIZ_SESSION_BUDGET`` names (seconds per minute; default :data:`SESSION_BUDGET_S`, off;
    ``0`` turns it off), for :data:`RUNNER`.

    Raises
    ------
    ValueError
        If ``BUVIZ_SESSION_BUDGET`` is not a number ≥ 0.
    """
    text = (os.environ if environ is None else environ).get("BUVIZ_SESSION_BUDGET", "")
    try:
        seconds = float(text) if text.strip() else SESSION_BUDGET_S
    except ValueError:
        seconds = -1.0
    if not seconds >= 0:
        raise ValueError(f"BUVIZ_SESSION_BUDGET must be a number of seconds ≥ 0 (0: no budget), got {text!r}")
    return ComputeBudget(seconds) if seconds > 0 else None


def _owner(slot: Hashable | None) -> Hashable | None:
    """The session a slot ``(name, id)`` belongs to, or None for work nobody owns (a shared sweep)."""
    return slot[1] if isinstance(slot, tuple) and len(slot) == 2 else None


class JobRunner:
    """Background lanes running :class:`Job` objects by priority, with latest-wins slots.

    Parameters
    ----------
    lanes : tuple of str
        One daemon thread per lane (started on first use).
    locked : tuple of str
        Lanes whose jobs run holding :data:`RUN_LOCK`.
    niceness : dict of str to int, optional
        Niceness added to a lane's thread when it starts (default: :data:`PREFETCH_NICENESS` for the
        ``"prefetch"`` lane).
    budget : ComputeBudget or None
        The sessions' fair share (module docstring); None: first come first served by priority.
    in_thread : tuple of str
        Lanes whose jobs do their work in the lane's own thread (snapshots, uploads, prefetch): a
        session is charged their CPU seconds (``time.thread_time``). The other lanes' jobs hand work to
        worker processes (the heavy lane's sweeps run joblib workers), which a thread's CPU time would
        miss: they are charged wall-clock seconds, counted from when the job holds :data:`RUN_LOCK`.
    """

    def __init__(self, lanes: tuple[str, ...] = LANES, locked: tuple[str, ...] = ("heavy",),
                 budget: ComputeBudget | None = None, niceness: dict[str, int] | None = None,
                 in_thread: tuple[str, ...] = ("compute", "prefetch")):
        self.budget = budget
        self._in_thread = set(in_thread)
        self.niceness = {"prefetch": PREFETCH_NICENESS} if niceness is None else dict(niceness)
        self._queues = {lane: queue.PriorityQueue() for lane in lanes}
        self._threads: dict[str, threading.Thread] = {}
        self._locked = set(locked)
        self._seq = itertools.count()
        self._lock = threading.Lock()
        self._slots: dict[Hashable, list[Job]] = {}
        self.busy = threading.Event()  # set while a USER job runs in the compute lane
        self.completed = 0  # jobs run to the end (tests, benchmarks)

    def submit(self, fn: Callable[[Job], object], *, lane: str = "compute", priority: int = USER,
               slot: Hashable | None = None, latest_wins: bool = True, label: str = "") -> Job:
        """Queue ``fn(job)`` in ``lane``; with a ``slot`` and ``latest_wins``, the slot's earlier
        jobs are cancelled first. Returns the job's handle at once."""
        if lane not in self._queues:
            raise ValueError(f"unknown lane {lane!r}; lanes: {sorted(self._queues)}")
        job = Job(fn, slot, label)
        owner = _owner(slot)
        job.over_budget = self.budget is not None and owner is not None and self.budget.over(owner)
        if job.over_budget:
            priority += OVER_BUDGET
        with self._lock:
            if slot is not None:
                old = self._slots.get(slot, [])
                if latest_wins:
                    for j in old:
                        j.cancel()
                    old = []
                self._slots[slot] = [j for j in old if not j.finished] + [job]
            self._ensure(lane)
        job.add_done_callback(self._forget)
        self._queues[lane].put((priority, next(self._seq), job))
        return job

    def cancel(self, slot: Hashable) -> None:
        """Cancel every queued or running job of ``slot``."""
        with self._lock:
            jobs = self._slots.pop(slot, [])
        for j in jobs:
            j.cancel()

    def jobs(self, slot: Hashable) -> list[Job]:
        """The slot's jobs that have not ended."""
        with self._lock:
            return [j for j in self._slots.get(slot, []) if not j.finished]

    def active_slots(self) -> list[Hashable]:
        """The slots that hold a job not yet ended (a session's ``(name, id)``: what it still runs)."""
        with self._lock:
            return [slot for slot, jobs in self._slots.items() if any(not j.finished for j in jobs)]

    def idle(self, lane: str | None = None) -> bool:
        """Whether ``lane`` (default: every lane) has nothing queued or running."""
        lanes = [lane] if lane else list(self._queues)
        return all(self._queues[k].unfinished_tasks == 0 for k in lanes)

    def join(self, timeout: float = 120.0, lane: str | None = None) -> bool:
        """Wait until every queued job of ``lane`` (default: every lane) ran (tests, benchmarks)."""
        end = time.monotonic() + timeout
        while not self.idle(lane) and time.monotonic() < end:
            time.sleep(0.02)
        return self.idle(lane)

    def _forget(self, job: Job) -> None:
        if job.slot is None:
            return
        with self._lock:
            jobs = self._slots.get(job.slot)
            if jobs is not None and job in jobs:
                jobs.remove(job)
                if not jobs:
                    del self._slots[job.slot]

    def _ensure(self, lane: str) -> None:
        t = self._threads.get(lane)
        if t is None or not t.is_alive():
            t = threading.Thread(target=self._run, args=(lane,), name=f"buviz-{lane}", daemon=True)
            self._threads[lane] = t
            t.start()

    def _run(self, lane: str) -> None:
        q = self._queues[lane]
        if self.niceness.get(lane):
            _lower_thread_priority(self.niceness[lane])
        while True:
            prio, _, job = q.get()
            try:
                if job.cancelled:
                    job.run()  # ends it as cancelled (callbacks run) without calling fn
                    continue
                user = lane == "compute" and prio in (USER, USER + OVER_BUDGET)
                if user:
                    self.busy.set()
                spent, clock = [0.0], time.thread_time if lane in self._in_thread else time.monotonic
                try:
                    if lane in self._locked:
                        with RUN_LOCK:
                            _run_timed(job, spent, clock)
                    else:
                        _run_timed(job, spent, clock)
                finally:
                    if user:
                        self.busy.clear()
                    owner = _owner(job.slot)
                    if self.budget is not None and owner is not None:
                        self.budget.charge(owner, spent[0])
                if job.status == "done":
                    self.completed += 1
            finally:
                q.task_done()


def _run_timed(job: Job, spent: list[float], clock: Callable[[], float]) -> None:
    """Run ``job``, adding to ``spent[0]`` the seconds of ``clock`` it took: what a session is charged
    (:class:`ComputeBudget`). For a job working in the lane's thread the clock is ``time.thread_time``,
    its CPU seconds: wall-clock time would also charge the session for waiting for a core while the
    server is loaded, so that every session's γ step cost more the busier the class was. Work done in
    other threads for such a job (a multithreaded BLAS product's helpers) is not counted; libsvm's fits,
    which dominate the largest of them (an uploaded table's statuses), run in this thread. Either way the
    wait for :data:`RUN_LOCK` is not charged: the clock starts once the job holds it."""
    start = clock()
    try:
        job.run()
    finally:
        spent[0] += clock() - start


def _lower_thread_priority(increment: int) -> None:
    """Add ``increment`` to the calling thread's niceness (Linux, where ``setpriority`` on a thread id
    applies to that thread only); elsewhere, or if refused, nothing changes."""
    if not sys.platform.startswith("linux"):
        return
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + int(increment))
    except OSError:
        pass


#: BLAS threads of a serving process (:func:`one_blas_thread_when_served`).
SERVED_BLAS_THREADS = 1


def one_blas_thread_when_served() -> None:
    """Give the serving process's BLAS (OpenBLAS, MKL) :data:`SERVED_BLAS_THREADS` thread, once the
    explorer is served.

    The explorer already computes in parallel: its lanes are threads, its sweeps run in worker
    processes (joblib limits theirs). A BLAS call made by the prefetch lane woke OpenBLAS's own thread
    pool, whose threads spin for a while after each call at the server's priority (a thread's
    niceness does not reach them): on two cores they took the cores from the event loop and the
    browser. ``python benchmarks/bench_browser.py --quick --browsers --letter 0``, the cached γ step
    while a page's γ row is prefetched, two alternating runs each: 146 and 144 ms with the default two
    BLAS threads, 105 and 103 ms with one; the first render 2.35–2.60 s against 1.69–2.36 s; the
    uncached step 220–258 ms against 193–218 ms (``docs/explorer_performance.md``). Only a served
    process is changed (``threadpoolctl``, scikit-learn's own tool): a notebook kernel that uses the
    explorer keeps its BLAS threads. It is called where a session is built, on the server loop's
    thread, which is the main thread under ``buviz serve`` and ``panel serve``: OpenBLAS 0.3.30 ignored
    a limit set from another thread once the main thread had set one (a ``threaded=True`` server).
    """
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=SERVED_BLAS_THREADS, user_api="blas")


#: The process's runner (shared by every session and tab of a server), with the budget of
#: ``BUVIZ_SESSION_BUDGET``.
RUNNER = JobRunner(budget=budget_from_environment())
