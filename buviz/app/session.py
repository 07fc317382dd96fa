"""Results of background jobs, delivered on a session's event loop: the one way every tab gets them.

A job of :mod:`buviz.app.runner` ends in a lane's thread; widgets and parameters must change on the
session's event loop. :class:`SessionLink` is that bridge:

- served (a Bokeh document is attached), a delivery is a next-tick callback of the document
  (Bokeh's one thread-safe document method), run with the document as ``curdoc`` and every change
  held until it returns, so it reaches the browser as one message;
- otherwise (a notebook, a script, a test), deliveries wait until :meth:`SessionLink.flush` runs
  them: :class:`BackgroundPoll` does so periodically in a notebook, only while something is pending,
  as a *background* callback (it never shows Panel's busy indicator); a test or a script waits for
  its session's jobs with :meth:`buviz.app.bus.JobBus.wait`, which flushes.

Deliveries with the same ``key`` coalesce (a sweep that sends rows faster than the page takes
them is delivered once per tick, with everything received so far). Nothing is polled while idle.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Hashable

import panel as pn

from buviz.app._panel_compat import background_callback, session_document
from buviz.app.runner import Job

__all__ = ["SessionLink", "BackgroundPoll"]


class SessionLink:
    """The bridge from background jobs to one session (see the module docstring)."""

    def __init__(self):
        self.doc = None
        self.closed = False
        self._lock = threading.Lock()
        self._pending: list[tuple[Hashable | None, Callable[[], None]]] = []
        self._keys: set = set()
        self._watched: list[Job] = []
        #: called (on the caller's thread) whenever a job is watched: a notebook starts its poll
        self.on_watch: list[Callable[[], None]] = []

    @classmethod
    def for_current_session(cls) -> SessionLink:
        """A link attached to the served session being built, if any (else one flushed by hand)."""
        link = cls()
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:
            link.attach(doc)
        return link

    def attach(self, doc) -> None:
        """Served: deliver on this Bokeh document's event loop (what is pending goes there now)."""
        self.doc = doc
        with self._lock:
            pending, self._pending = self._pending, []
            self._keys.clear()
        for key, fn in pending:
            self.deliver(fn, key)

    @property
    def served(self) -> bool:
        return self.doc is not None

    def close(self) -> None:
        """The session ended: nothing more is delivered."""
        self.closed = True
        self.doc = None
        with self._lock:
            self._pending.clear()
            self._keys.clear()
            self._watched.clear()

    def deliver(self, fn: Callable[[], None], key: Hashable | None = None) -> None:
        """Run ``fn()`` on the session's event loop (thread-safe); a pending delivery of the same
        ``key`` makes this one redundant."""
        if self.closed:
            return
        with self._lock:
            if key is not None:
                if key in self._keys:
                    return
                self._keys.add(key)
            doc = self.doc
            if doc is None:
                self._pending.append((key, fn))
                return
        with contextlib.suppress(Exception):  # the session may end meanwhile
            doc.add_next_tick_callback(self._on_loop(doc, key, fn))

    def _on_loop(self, doc, key, fn):
        def callback():
            self._done(key)
            if self.closed:
                return
            with session_document(doc), pn.io.hold(doc):
                fn()

        return callback

    def _done(self, key) -> None:
        if key is not None:
            with self._lock:
                self._keys.discard(key)

    def watch(self, job: Job, on_done: Callable[[Job], None],
              on_progress: Callable[[Job], None] | None = None) -> Job:
        """Deliver ``on_done(job)`` when ``job`` ends (and ``on_progress(job)`` at its progress
        reports, coalesced); returns ``job``."""
        with self._lock:
            self._watched = [j for j in self._watched if not j.settled] + [job]
        if on_progress is not None:
            job.add_progress_callback(lambda j: self.deliver(lambda: on_progress(j), key=("progress", id(j))))
        job.add_done_callback(lambda j: self.deliver(lambda: on_done(j)))
        for fn in list(self.on_watch):
            fn()
        return job

    def flush(self) -> bool:
        """Not served: run the pending deliveries here; whether there were any."""
        with self._lock:
            pending, self._pending = self._pending, []
            self._keys.clear()
        for _, fn in pending:
            if not self.closed:
                fn()
        return bool(pending)

    def busy(self) -> bool:
        """Whether a watched job is still running or a delivery waits to be flushed."""
        with self._lock:
            return bool(self._pending) or any(not j.settled for j in self._watched)


class BackgroundPoll:
    """Not served (a notebook): flush a :class:`SessionLink` every ``period`` ms while it is busy.

    A *background* periodic callback: Panel does not count it as a busy event, so the page's busy
    indicator rests. ``start()`` when work is submitted; it stops itself once nothing is pending.
    """

    def __init__(self, link: SessionLink, period: int = 400, after: Callable[[], None] | None = None,
                 busy: Callable[[], bool] | None = None):
        self.link, self.period, self.after = link, int(period), after
        self.busy = busy or link.busy  # whether results are still to come
        self._cb = None

    @property
    def running(self) -> bool:
        return self._cb is not None and self._cb.running

    def start(self) -> None:
        if self.running or self.link.served or not self.busy():
            return
        self._cb = background_callback(self._tick, self.period)
        with contextlib.suppress(RuntimeError):  # no event loop (plain Python): flush() by hand
            self._cb.start()

    def _tick(self) -> None:
        busy = self.busy()  # read before flushing: what arrives later is flushed next time
        if self.link.flush() and self.after is not None:
            self.after()
        if not busy:
            self.stop()

    def stop(self) -> None:
        cb, self._cb = self._cb, None
        if cb is not None:
            cb.stop()
