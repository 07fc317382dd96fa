"""One session's snapshot store: what the explorer derives from its controls, as read-only parameters.

:class:`SessionStore` is the *DataStore* role of Panel's architecture guidance. It holds its
:class:`~buviz.app.controls.Controls` (a ``ClassSelector``), watches them and publishes what the
views draw: ``snapshot`` and the messages (``message``, ``notice``, ``status_notice``,
``computing``). The stores beside the snapshot are its parts (:mod:`buviz.app.stores`):
:attr:`SessionStore.cv_sweep` (the shared CV sweep's rows, Figs 6-9), :attr:`SessionStore.sensitivity`
(Figs 12-13), :attr:`SessionStore.proposal1` (the overlay) and :attr:`SessionStore.amplitude` (the
T̃-amplitude sweep), each with outputs of its own. Views depend on these parameters, never on each
other, and never run a job: they call a store method, and the result comes back as a parameter.

The session's one way to the runner (:mod:`buviz.app.runner`) is its :attr:`SessionStore.bus`, a
:class:`~buviz.app.bus.JobBus`: submit, progress, latest wins in a named slot, cancellation when the
session ends; it never waits (where no server runs -- tests, notebooks, scripts -- the caller waits
explicitly, :meth:`SessionStore.wait`). The other tabs (Discrete, Extrapolation, Figures) keep each
result they ask for in a :class:`~buviz.app.bus.Requested` store of their own on the same bus.

Applying a change of the controls:

- a setting whose every step is cached is shown at once, all views updated in one batch;
- served (``asynchronous=True``), an uncached setting is requested in the background (latest wins)
  while the views keep the last picture and ``computing`` names what is being computed; changes that
  arrive meanwhile coalesce, and the session then shows the newest controls, never a queue of stale
  positions;
- after a dataset, C, M, K or T̃ change, the γ row (and the neighbouring C) is prefetched at low
  priority, behind any user's own request;
- the store never writes the controls: what the controls changed on their own for new data (γ at
  ``gamma="scale"``, M lowered to N(train): :meth:`Controls._follow_data
  <buviz.app.controls.Controls._follow_data>`) is shown as ``notice`` with the new data's snapshot;
- settings that cannot be computed (an M set beyond N(train), K larger than a class) are refused:
  ``message`` says why, the controls keep what the user set (to correct it), and the views keep the
  last settings that worked, which ``applied`` holds;
- a snapshot that some view cannot draw is refused whole (:meth:`SessionStore.view_failed`): the
  outputs and every view go back to the last state every view drew and ``message`` says what failed
  (one warning line in the server log, no traceback).

Sessions: a store created inside a served session is closed when the session is destroyed
(:meth:`SessionStore.close`: its sweep left, its jobs cancelled, its outputs and every result store's
value on its bus dropped).
"""

from __future__ import annotations

import contextlib
import logging
import time

import panel as pn
import param

from buviz.app import timing
from buviz.app.bus import WAIT_TIMEOUT_S, JobBus, Outputs, close_with_session, output
from buviz.app.compute import (
    ResultKey,
    Snapshot,
    compute_ahead,
    compute_snapshot,
    dataset_for,
    lookup_snapshot,
    prefetch_enabled,
    prefetch_keys,
    snapshot_budget,
    status_cached,
    store_upload,
)
from buviz.app.controls import CONTROL_PARAMS, Controls
from buviz.app.notes import status_label, status_notes
from buviz.app.runner import PREFETCH, Job, JobCancelled
from buviz.app.session import SessionLink
from buviz.app.stores import AmplitudeSweep, CVSweep, Proposal1Overlay, SensitivitySweeps
from buviz.app.upload import check_mixture_text, file_size_text, prepare_csv
from buviz.plots.displays import class_names

__all__ = ["SessionStore", "SHOWN_PARAMS"]

_LOG = logging.getLogger(__name__)
#: What the store publishes with a snapshot and puts back when a later one cannot be shown.
SHOWN_PARAMS = ("snapshot", "applied", "notice", "status_notice")
#: How many shown states are kept to go back to.
HISTORY = 4


def _describe(exc: Exception) -> str:
    return str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"


class SessionStore(Outputs):
    """One session's derived data and background work (see the module docstring).

    Parameters
    ----------
    controls : Controls or None, optional
        The session's controls; by default new ones, from the control values given as keywords
        (``SessionStore(n_train=300)``). ``None``: a store for background work only (its :attr:`bus`).
    """

    controls = param.ClassSelector(class_=Controls, default=None, allow_None=True, constant=True)

    # -- options (the app sets them; not controls of the user)
    auto_sweep = param.Boolean(default=True, doc="Start the sweep whenever its settings change")
    asynchronous = param.Boolean(default=False, doc=(
        "Compute an uncached setting in the background (served app: the views keep the last picture "
        "meanwhile, later changes coalesce, latest wins); off: a change is computed before it returns"))
    prefetch = param.Boolean(default=False, doc=(
        "After a dataset, C, M, K or T̃ change, compute the γ row (and the neighbouring C) ahead of the "
        "user in the background, behind every user's own request"))

    # -- outputs (read-only)
    snapshot = output(doc="The current Snapshot")
    applied = output(None, ("The control values of the snapshot shown (the last settings that worked); "
                            "the controls differ from them after a refusal"), cls=param.Dict)
    message = output("", "Last error shown to the user ('' when none)", cls=param.String)
    notice = output("", ("What the explorer did on its own with the current data (a CSV's delimiter or header "
                       "inferred, γ or M set by the controls for new data); '' when nothing"), cls=param.String)
    status_notice = output("", "What the current status's numbers rest on when it is degenerate ('' when nothing)",
                         cls=param.String)
    computing = output("", "The status being computed for this session ('' when idle)", cls=param.String)

    def __init__(self, controls: Controls | None = ..., **params):
        values = {k: params.pop(k) for k in list(params) if k in Controls.param and k != "name"}
        if controls is ...:
            controls = Controls(**values)
        link = params.pop("link", None)
        super().__init__(controls=controls, **params)
        self.closed = False
        #: the session's one way to the runner, shared by every store of the session
        self.bus = JobBus(link)
        #: the stores beside the snapshot (:mod:`buviz.app.stores`), following it on the same bus
        self.cv_sweep = CVSweep(self)
        self.sensitivity = SensitivitySweeps(self)
        self.proposal1 = Proposal1Overlay(self)
        self.amplitude = AmplitudeSweep(self)
        self._inflight: dict | None = None
        self._changed_at: float | None = None
        self._prefetched_for: tuple | None = None
        self._next_notice: str | None = None  # the notice of the data being computed, shown with them
        #: what ingestion said about an uploaded CSV or mixture (payload -> note), shown with it
        self.data_notes: dict[str, str] = {}
        #: the published values (:data:`SHOWN_PARAMS`) of the last states every open view drew, newest last
        self._good: list[dict] = []
        if self.controls is not None:
            # after the controls' own data watcher (precedence 0), which may change γ, N and M first
            self.controls.param.watch(self._on_controls, list(CONTROL_PARAMS), precedence=1)
            self.controls.param.watch(self.cv_sweep.on_settings, "sweep_proposal1")
            self.apply()
        close_with_session(self)

    # ------------------------------------------------------------------ background work
    @property
    def link(self) -> SessionLink:
        """Where background results are delivered: the session's event loop (the bus's link)."""
        return self.bus.link

    def report(self, message: str) -> None:
        """Show ``message`` to the user (the message bar); '' clears it."""
        self._publish(message=message)

    def attach(self, doc) -> None:
        """Served: the session's Bokeh document, where background results are shown (and updates
        are batched: one message per change)."""
        self.link.attach(doc)

    def update_context(self):
        """Context around one batched update of the views: served, Panel holds every model change
        until the end, so a change reaches the browser as one websocket message."""
        doc = self.link.doc
        return contextlib.nullcontext() if doc is None else pn.io.hold(doc)

    def poll_sweep(self) -> bool:
        """Not served: run the background results waiting for this session here; whether there were any."""
        return False if self.closed else self.link.flush()

    def background_busy(self) -> bool:
        """Whether a background sweep or job has results still to come."""
        return self.cv_sweep.busy or self.link.busy()

    def close(self) -> None:
        """Cancel background work and drop everything this session holds (session destroyed)."""
        self.closed = True
        self.cv_sweep.cancel()
        self.bus.close("snapshot", "proposal1", "sensitivity", "amplitude", "prefetch")
        # drop the references without notifying the views: their document is being destroyed
        with param.parameterized.discard_events(self):
            self._publish(snapshot=None, applied=None)
        for part in (self.cv_sweep, self.sensitivity, self.proposal1, self.amplitude):
            part.clear()

    # ------------------------------------------------------------------ controls -> snapshot
    def settings(self) -> dict:
        """The current control values."""
        return self.controls.settings()

    def shown(self) -> dict:
        """The control values of the snapshot on screen (:attr:`applied`), else (nothing shown yet) the
        current controls; a copy."""
        return dict(self.applied or self.settings())

    def _on_controls(self, *events) -> None:
        if self.closed:  # late widget events must not recompute anything
            return
        if self.controls.following:  # the controls adjust themselves to new data: the change that caused it
            return  # reaches this watcher next, with the adjusted values
        if self._changed_at is None:
            self._changed_at = time.perf_counter()
        if self.asynchronous and self.link.served:
            self.link.deliver(self._apply_latest, key="apply")  # changes until the next tick coalesce
        else:
            self.apply()

    def reset(self) -> None:
        """Back to the default controls (one recomputation; γ as given, not fitted to the data)."""
        self.controls.reset()

    def apply(self) -> bool:
        """Compute the snapshot of the current controls and show it; on failure keep the previous one
        (:attr:`message` says why). Returns whether the current controls are shown."""
        t0, self._changed_at = self._changed_at or time.perf_counter(), None
        s = self._with_notice()
        if self._back_to_shown(s):
            return True
        return self._apply_now(s, t0)

    def _back_to_shown(self, s: dict) -> bool:
        """Whether controls ``s`` are those shown; if so, a message about other controls is gone (the
        user corrected a refused setting, or set the shown one again)."""
        if self.applied != s or self.snapshot is None:
            return False
        self._changed_at = None
        self._publish(**{p: "" for p in ("message", "computing") if getattr(self, p)})
        return True

    def _apply_now(self, s: dict, t0: float) -> bool:
        try:
            snap = compute_snapshot(s)
        except Exception as exc:  # every failure becomes a message; the server keeps running
            self._fail(exc)
            return False
        return self._show(s, snap, t0)

    def _apply_latest(self) -> None:
        """Served: show the newest controls; cached -> now, else request them in the background."""
        if self.closed or self._inflight is not None:  # a request for this session is out: it comes back
            return
        s = self._with_notice()
        if self._back_to_shown(s):
            return
        snap = lookup_snapshot(s)
        if snap is not None or status_cached(s):  # at most Proposal 2's step left (tens of ms): now
            t0, self._changed_at = self._changed_at or time.perf_counter(), None
            if snap is not None:
                self._show(s, snap, t0)
            else:
                self._apply_now(s, t0)
            return
        self._inflight = s
        self._publish(computing=status_label(s))

        def stale() -> bool:  # the page closed, or newer controls: they are computed next (latest wins)
            return self.closed or self.settings() != s

        def current(job: Job) -> None:
            job.check()  # the page closed
            if stale():
                raise JobCancelled

        def work(job: Job):
            if stale():  # stale by the time it would start: drop it
                return None
            # stopped between its steps by newer controls, the page's end, or the time budget
            return compute_snapshot(s, check=snapshot_budget(lambda: current(job)))

        self.bus.request("snapshot", work, with_job=True, on_done=lambda job: self._computed(s, job),
                         label=status_label(s))

    def _computed(self, s: dict, job: Job) -> None:
        """Served: the runner finished ``s`` (or dropped it as stale)."""
        self._inflight = None
        if self.settings() != s:  # the controls moved on meanwhile: latest wins
            self._apply_latest()
            return
        if job.status == "error":
            self._publish(computing="")
            self._changed_at = None
            self._fail(ValueError(job.error))
        elif job.result is not None:
            t0, self._changed_at = self._changed_at or time.perf_counter(), None
            self._show(s, job.result, t0)
        else:
            self._apply_latest()

    def _with_notice(self) -> dict:
        """The current controls, with the notice to show with their snapshot when they name new data:
        what ingestion said about an uploaded CSV or mixture, and what the controls changed on their
        own for these data (:attr:`Controls.adjusted <buviz.app.controls.Controls.adjusted>`)."""
        s = self.settings()
        last = self.applied
        if last is None or ResultKey.of(s).data != ResultKey.of(last).data:
            notes = [self.data_notes.get(ResultKey.of(s).data.payload, ""), self.controls.adjusted]
            # published with the data's snapshot (:meth:`_show`), never before: a note about data still
            # being computed (or refused later) would sit above the old data
            self._next_notice = "; ".join(n for n in notes if n)
        else:  # the shown data again: a note queued for other data is stale
            self._next_notice = None
        return s

    def _fail(self, exc: Exception) -> None:
        msg = _describe(exc)
        self._next_notice = None
        if self.computing:  # nothing is being computed for this session any more
            self._publish(computing="")
        if not isinstance(exc, ValueError):
            _LOG.warning("buviz: could not compute %s: %s", status_label(self.settings()), msg)
        if self._good and self.notice != self._good[-1]["notice"]:
            self._publish(notice=self._good[-1]["notice"])  # the shown data's note, not the refused one's
        kept = " The plots show the last settings that worked." if self.snapshot is not None else ""
        self.report(f"Could not apply these settings: {msg.rstrip('.')}.{kept}")

    def view_failed(self, exc: Exception, *, drop_current: bool = False) -> None:
        """A view could not draw the state published: go back, everywhere, to the last state every
        view drew (snapshot, applied settings, notices) and say why in ``message``; the controls keep
        what the user set.

        ``drop_current``: the state on screen is the one that failed (a tab opened later caught up
        with it), so it is dropped from the states to go back to.
        """
        failed = self.applied or self.settings()  # published with the snapshot that could not be drawn
        what = f"dataset {failed['dataset']!r} at {status_label(failed)}"
        _LOG.warning("buviz: a view could not draw %s: %s (the previous state is shown again)", what, _describe(exc))
        self._next_notice = None
        if drop_current and self._good:
            self._good.pop()
        while self._good:
            values = self._good[-1]
            try:
                with self.update_context():
                    self._publish(**values, computing="")
                    # the failed update may have set some of these to the values now restored, and
                    # stopped before their watchers ran: the panes showing them are told again
                    self.param.trigger(*[p for p in ("computing", *SHOWN_PARAMS) if p not in ("snapshot", "applied")])
                break
            except Exception:  # that one cannot be drawn any more either (a tab opened since)
                self._good.pop()
        else:
            self._publish(applied=None)
        if self.computing:
            self._publish(computing="")
        self.report(f"Could not show {what}: {_describe(exc)}. "
                    + ("The previous data and status are shown again." if self._good else ""))

    def _show(self, s: dict, snap: Snapshot, t0: float) -> bool:
        """Show ``snap`` (the snapshot of controls ``s``): every view updated in one batch; whether
        every view could draw it (else the last good state is back, :meth:`view_failed`)."""
        last = self.applied
        changed = sorted(k for k, v in s.items() if last is None or last.get(k) != v)
        updates = {"snapshot": snap, "applied": dict(s), "message": "", "computing": "",
                   "status_notice": status_notes(snap.result, class_names(snap.ds))}
        if self._next_notice is not None:
            updates["notice"], self._next_notice = self._next_notice, None
        for p in ("message", "computing"):
            if getattr(self, p) == "":
                updates.pop(p)
        try:
            with self.update_context():
                self._publish(**updates)
        except Exception as exc:  # a view cannot draw it: the whole page goes back to the last good state
            self.view_failed(exc)
            return False
        self._good = [*self._good[1 - HISTORY:], {p: getattr(self, p) for p in SHOWN_PARAMS}]
        self.cv_sweep.follow()
        self.proposal1.follow()
        self._prefetch(s)
        timing.record_apply(time.perf_counter() - t0, changed)
        return True

    def _prefetch(self, s: dict) -> None:
        """After a dataset, C, M, K or T̃ change: the γ row (and the neighbouring C) in the background."""
        if not self.prefetch or self.closed:
            return
        k = ResultKey.of(s)
        group = (k.data, k.fit, k.status.classifier, k.status.log2_C)
        if group != self._prefetched_for:
            self._prefetched_for = group
            self.bus.cancel("prefetch")  # the previous row's rest is stale
            if prefetch_enabled():
                for key in prefetch_keys(k):
                    self.bus.request("prefetch", compute_ahead, key, lane="prefetch", priority=PREFETCH,
                                     latest_wins=False)

    # ------------------------------------------------------------------ user actions
    def upload_csv(self, data: bytes | str, filename: str = "upload.csv") -> Job:
        """Check an uploaded CSV (:func:`buviz.app.upload.prepare_csv`: delimiter and header sniffed,
        two or more numeric feature columns, more rows than the explorer's N range subsampled by
        class) and switch to it; on failure set :attr:`message` and keep the state.

        The file is read in the background (the session's ``"upload"`` slot: a newer upload, or the end
        of the session, cancels it) within :data:`~buviz.app.upload.UPLOAD_TIME_BUDGET_S`. The page then
        ends in one state: the new data with :attr:`notice` saying what was inferred and kept (the
        message bar cleared), or the old data with the refusal in :attr:`message`. Returns the reading
        job's handle at once; not served, :meth:`wait` waits for the outcome.
        """
        if isinstance(data, str):  # the file dropper hands text files over decoded
            data = data.encode("utf-8")
        seed, reading = self.controls.seed, f"CSV {filename!r} ({file_size_text(len(data))}): reading"

        def work(job: Job):
            try:
                return prepare_csv(data, random_state=seed, check=job.check)
            except ValueError as exc:  # a refusal is a result, not a server error
                return exc

        def done(job: Job) -> None:
            if self.computing == reading:
                self._publish(computing="")
            if self.closed or job.status == "cancelled":
                return
            if job.status == "error" or isinstance(job.result, Exception):
                self.report(f"CSV {filename!r} rejected: {job.error or job.result}")
                return
            up = job.result
            store_upload(up.digest, up.data)
            self.data_notes[up.digest] = f"CSV {filename!r}: " + "; ".join(up.notes)
            settings = {**self.settings(), "dataset": "csv", "csv_key": up.digest}
            dataset_for.put(ResultKey.of(settings).data, up.dataset)  # read once, not again on the event loop
            if self.settings() != settings:
                self.controls.param.update(csv_key=up.digest, dataset="csv")
            elif self._back_to_shown(settings):
                self._publish(notice=self.data_notes[up.digest])  # the file on screen, uploaded again
            else:  # the controls name this file but it is not shown (it was refused): try it again
                self._on_controls()

        self._publish(computing=reading)
        return self.bus.request("upload", work, with_job=True, on_done=done, label=f"reading {filename}")

    def wait(self, timeout: float = WAIT_TIMEOUT_S) -> None:
        """Not served (a test, a notebook, a script): wait for everything this session's stores asked
        for in the background -- an upload, Proposal 1's overlay, the sensitivity and T̃-amplitude
        sweeps, a served-style snapshot request -- and deliver it here (:meth:`JobBus.wait
        <buviz.app.bus.JobBus.wait>`). The shared CV sweep has its own, :meth:`CVSweep.wait
        <buviz.app.stores.CVSweep.wait>`.

        Raises
        ------
        ValueError
            If the session is served (its page's event loop never waits).
        TimeoutError
            If a job is still running after ``timeout`` seconds.
        """
        self.bus.wait(timeout)

    def set_mixture(self, text: str) -> bool:
        """Validate a custom mixture (JSON) and switch to it; on failure set :attr:`message`."""
        try:
            _, notes = check_mixture_text(text, self.controls.n_train, self.controls.seed)
        except ValueError as exc:
            self.report(f"Custom mixture rejected: {exc}")
            return False
        self.data_notes[text] = "; ".join(notes)
        self.controls.param.update(mixture_json=text, dataset="custom")
        return self.snapshot is not None and self.snapshot.settings["mixture_json"] == text

    @param.depends("auto_sweep", watch=True)
    def _on_auto_sweep(self) -> None:
        self.cv_sweep.on_settings()
