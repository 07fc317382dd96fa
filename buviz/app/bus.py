"""A session's one job bus, and the typed result store of one kind of request.

:class:`JobBus` is how a session's stores reach the runner (:mod:`buviz.app.runner`): it submits a
job in a named slot of the session (latest wins: a newer request of the same name cancels the older
one), delivers its end on the session's event loop (:class:`~buviz.app.session.SessionLink`), and
cancels every slot the session used when the session ends (it asks for nothing after that). It never
waits: where no server runs (tests, notebooks, scripts) the caller waits explicitly, with
:meth:`JobBus.wait`. Every store of a session shares its bus
(:attr:`buviz.app.store.SessionStore.bus`). The one exception is the shared CV sweep, one run for every
session with the same settings: :class:`~buviz.app.stores.CVSweep` subscribes to it through
:mod:`buviz.app.sweeps`' registry, and leaves it when the session closes.

:class:`Requested` is a store of one result a tab asks for: the discrete tables, the Monte Carlo of
Fig 2, the extrapolation curves, a rendered paper figure. Its outputs are read-only parameters --
``key`` (what the result answers), ``value`` and ``state`` -- so a view depends on the one result it
draws, by name, and no view reads a string-keyed dictionary of everybody's results.
"""

from __future__ import annotations

import contextlib
import threading
import time
import weakref
from collections.abc import Callable, Hashable

import panel as pn
import param

from buviz.app.cache import LRUCache
from buviz.app.runner import RUNNER, USER, Job
from buviz.app.session import SessionLink

__all__ = ["JobBus", "Requested", "Outputs", "output", "close_with_session", "WAIT_TIMEOUT_S"]

#: Default seconds :meth:`JobBus.wait` waits, in all, before it names the job still running.
WAIT_TIMEOUT_S = 300.0


def close_with_session(obj) -> None:
    """Served: call ``obj.close()`` when the session being built is destroyed (its page closed). Holds
    a weak reference only, so the session keeps nothing alive; does nothing where no Bokeh server runs."""
    if pn.state.curdoc is None or pn.state.curdoc.session_context is None:
        return
    ref = weakref.ref(obj)

    def _destroyed(session_context):
        target = ref()
        if target is not None:
            target.close()

    with contextlib.suppress(Exception):  # not served by a Bokeh server
        pn.state.on_session_destroyed(_destroyed)


def output(default=None, doc: str = "", **kw):
    """A read-only output of a store (set only by the store itself, through :meth:`Outputs._publish`)."""
    cls = kw.pop("cls", param.Parameter)
    return cls(default=default, constant=True, doc=doc, **kw)


class Outputs(param.Parameterized):
    """A store whose outputs are read-only parameters (:func:`output`): only the store sets them."""

    def _publish(self, **values) -> None:
        """Set outputs (read-only for everyone else), watchers told once for all of them."""
        with param.edit_constant(self):
            self.param.update(**values)


class JobBus:
    """One session's way to the runner: named slots, latest wins, deliveries on the session's loop.

    Parameters
    ----------
    link : SessionLink, optional
        Where results are delivered; by default the link of the served session being built (else one
        flushed by hand: tests, notebooks).
    """

    def __init__(self, link: SessionLink | None = None):
        #: background results, delivered on this session's event loop
        self.link = link if link is not None else SessionLink.for_current_session()
        #: set by :meth:`close`: the session ended, nothing more is asked for or delivered
        self.closed = False
        self._lock = threading.Lock()
        self._jobs: list[Job] = []  # jobs asked for and not seen to end (what :meth:`wait` waits for)
        self._names: set[str] = set()  # every slot this session has used (cancelled when it closes)
        #: the result stores on this bus (their values are dropped with the session)
        self._results: weakref.WeakSet[Requested] = weakref.WeakSet()
        close_with_session(self)

    def register(self, result: Requested) -> None:
        """Count ``result`` among this bus's result stores (their values are dropped when it closes)."""
        self._results.add(result)

    @property
    def served(self) -> bool:
        """Whether the session is served (deliveries then run on its Bokeh document's event loop)."""
        return self.link.served

    def slot(self, name: str) -> tuple[str, int]:
        """The runner's slot of this session's ``name`` (the runner's fair share reads the owner id)."""
        return name, id(self)

    def request(self, name: str, fn: Callable, *args, on_done: Callable[[Job], None] | None = None,
                on_progress: Callable[[Job], None] | None = None, lane: str = "compute",
                with_job: bool = False, label: str = "", priority: int = USER,
                latest_wins: bool = True, latest: Callable[[Job], None] | None = None) -> Job:
        """Compute ``fn(*args)`` (``fn(job, *args)`` with ``with_job``) in the background for this session.

        The job runs in ``lane`` of the one runner, in this session's slot ``name``: a newer request of
        the same name cancels it (latest wins; with ``latest_wins=False`` it joins the slot's batch
        instead, which :meth:`cancel` drops), and so does the end of the session. ``priority``
        :data:`~buviz.app.runner.PREFETCH` queues work done ahead of the user behind every user's own
        request. ``on_done(job)`` and ``on_progress(job)`` run on the session's event loop (not served:
        at :meth:`wait`, or a notebook's :class:`~buviz.app.session.BackgroundPoll`). A cached step
        (``fn`` an :class:`~buviz.app.cache.LRUCache` holding ``args``) is answered without a thread hop.
        ``latest(job)`` is called with the new job before anything is delivered. Never waits: returns
        the job's handle at once.
        """
        slot = self.slot(name)
        work = (lambda j: fn(j, *args)) if with_job else (lambda j: fn(*args))
        if self.closed:  # a late widget event of a closed session: nothing is asked for, nothing delivered
            job = Job(work, slot, label or name)
            job.cancel()
            job.run()
            return job
        self._names.add(name)
        if isinstance(fn, LRUCache) and not with_job and fn.has(*args):
            job = Job(work, slot, label or name)
            job.run()
        else:
            job = RUNNER.submit(work, lane=lane, priority=priority, slot=slot, latest_wins=latest_wins,
                                label=label or name)
        with self._lock:
            self._jobs = [j for j in self._jobs if not j.settled] + [job]
        if latest is not None:
            latest(job)
        if on_done is not None:
            self.link.watch(job, on_done, on_progress)
        return job

    def wait(self, timeout: float = WAIT_TIMEOUT_S) -> None:
        """Not served (a test, a notebook cell, a script): block until every job this session asked
        for has ended, and deliver the results here, with whatever those deliveries ask for in turn.

        A served session never waits (its event loop is the page's): its results arrive on that loop
        and its stores' outputs change then.

        Parameters
        ----------
        timeout : float, default=WAIT_TIMEOUT_S
            Seconds to wait in all.

        Raises
        ------
        ValueError
            If the session is served.
        TimeoutError
            If a job is still running after ``timeout`` seconds (it names the job).
        """
        if self.link.served:
            raise ValueError("wait() in a served session would hold the page's event loop: follow the "
                             "stores' outputs instead")
        deadline = time.monotonic() + float(timeout)
        while True:
            with self._lock:
                jobs = list(self._jobs)
            for job in jobs:
                if not job.wait(max(0.0, deadline - time.monotonic())):
                    raise TimeoutError(f"timeout: {job.label or job.slot!r} still running after {timeout} s")
            delivered = self.link.flush()
            with self._lock:
                self._jobs = [j for j in self._jobs if not j.settled]  # ended and delivered to the link
                idle = not self._jobs
            if idle and not delivered:
                return

    @property
    def busy(self) -> bool:
        """Whether a job this session asked for is still to end or to be delivered."""
        with self._lock:
            running = any(not j.settled for j in self._jobs)
        return running or self.link.busy()

    def cancel(self, name: str) -> None:
        """Cancel every queued or running job of this session's slot ``name``."""
        RUNNER.cancel(self.slot(name))

    def close(self, *names: str) -> None:
        """The session ended: cancel every slot it used (and ``names``), drop every result store's value
        and deliver nothing more (closing again does nothing more)."""
        self.closed = True
        for name in {*names, *self._names}:
            self.cancel(name)
        for result in list(self._results):
            result.clear()
        self.link.close()


class Requested(Outputs):
    """The latest result of one kind of request a tab makes (one slot of the session's :class:`JobBus`).

    :meth:`request` computes ``fn(key)`` in the background; when it ends its outputs change together:
    ``key`` and ``value`` (a success), ``state`` (always). A request that a newer one replaced publishes
    nothing, and a failure keeps the last value (its ``state`` says why).

    Parameters
    ----------
    bus : JobBus
        The session's job bus.
    slot : str
        The name of the bus slot (requests of the same slot replace each other, latest wins: give each
        result store of a session a slot of its own).
    fn : callable or None
        ``fn(key)`` computes the value for ``key`` (a cached step of :mod:`buviz.app.tasks`, usually);
        None: every :meth:`request` names its own ``fn``.
    lane : str, default="compute"
        The runner lane.
    label : str, optional
        What the status line calls the job (default: ``slot``).
    """

    key = output(None, "What the value was computed for (None before the first)")
    value = output(None, "The latest result delivered (None before the first)")
    state = output("", "'' before the first request, then 'running', 'done', 'cancelled' or 'error: ...'",
                   cls=param.String)

    def __init__(self, bus: JobBus, slot: str, fn: Callable[[Hashable], object] | None, *, lane: str = "compute",
                 label: str = "", **params):
        super().__init__(**params)
        self.bus, self.slot, self.fn, self.lane, self.label = bus, slot, fn, lane, label or slot
        self._latest: Job | None = None
        bus.register(self)

    def request(self, key: Hashable, *, fn: Callable[[], object] | None = None, lane: str | None = None,
                label: str | None = None) -> Job:
        """Compute the value for ``key`` (``fn()`` instead of ``fn(key)`` where given) in the background.

        The outputs change at once when the answer was cached, else when the job's end is delivered (on
        the session's event loop; not served, at :meth:`JobBus.wait`). Returns the job's handle.
        """
        if fn is None and self.fn is None:
            raise ValueError(f"fn: the result store {self.slot!r} has no fn of its own, so request() needs one")
        if self.bus.closed:
            return self.bus.request(self.slot, fn or self.fn, key)  # cancelled at once, nothing published
        self._publish(state="running")
        job = self.bus.request(self.slot, fn if fn is not None else self.fn, *(() if fn is not None else (key,)),
                               on_done=lambda j: self._deliver(key, j), lane=lane or self.lane,
                               label=label or self.label, latest=self._set_latest)
        if job.finished and self._latest is job:
            self._deliver(key, job)  # answered already (cached): shown at once
        return job

    def _set_latest(self, job: Job) -> None:
        self._latest = job  # before any delivery: those run on the session's loop, later

    def _deliver(self, key: Hashable, job: Job) -> None:
        if self._latest is not job or self.bus.closed:
            return
        self._latest = None
        if job.status == "done":
            self._publish(key=key, value=job.result, state="done")
        else:
            self._publish(state=f"error: {job.error}" if job.status == "error" else job.status)

    def value_for(self, key: Hashable):
        """The value if it was computed for ``key``, else None."""
        return self.value if self.value is not None and self.key == key else None

    @property
    def running(self) -> bool:
        """Whether a request is under way."""
        return self.state == "running"

    @property
    def error(self) -> str | None:
        """What the last request failed with, or None."""
        return self.state.removeprefix("error: ") if self.state.startswith("error: ") else None

    def clear(self) -> None:
        """Drop the value without notifying anyone (the session's document is being destroyed)."""
        with param.parameterized.discard_events(self):
            self._publish(key=None, value=None)
