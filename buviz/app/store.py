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
session ends, and -- only where no server runs (tests, notebooks, scripts) -- a blocking wait for the
result. The other tabs (Discrete, Extrapolation, Figures) keep each result they ask for in a
:class:`~buviz.app.bus.Requested` store of their own on the same bus.

Applying a change of the controls:

- a setting whose every step is cached is shown at once, all views updated in one batch;
- served (``asynchronous=True``), an uncached setting is requested in the background (latest wins)
  while the views keep the last picture and ``computing`` names what is being computed; changes that
  arrive meanwhile coalesce, and the session then shows the newest controls, never a queue of stale
  positions;
- after a dataset, C, M, K or T̃ change, the γ row (and the neighbouring C) is prefetched at low
  priority, behind any user's own request;
- a new dataset smaller than M: M is capped at N(train), with a note (``notice``); an M the user
  types beyond N is refused (``message``) and the controls go back to the last valid settings;
- a snapshot that some view cannot draw is refused whole (:meth:`SessionStore.view_failed`): the
  controls, the outputs and every view go back to the last state every view drew and ``message``
  says what failed (one warning line in the server log, no traceback).

Sessions: a store created inside a served session is closed when the session is destroyed
(:meth:`SessionStore.close`: its sweep left, its jobs cancelled, its outputs and every result store's
value on its bus dropped).
"""

from __future__ import annotations

import contextlib
import logging
import time

import numpy as np
import panel as pn
import param

from buviz import datasets
from buviz.app import timing
from buviz.app.bus import JobBus, Outputs, close_with_session, output
from buviz.app.compute import (
    ResultKey,
    Snapshot,
    compute_ahead,
    compute_snapshot,
    dataset_for,
    lookup_snapshot,
    prefetch_enabled,
    prefetch_keys,
    real_sizes,
    status_cached,
    store_upload,
)
from buviz.app.controls import CONTROL_PARAMS, Controls
from buviz.app.notes import scale_log2_gamma, status_label, status_notes
from buviz.app.runner import PREFETCH, Job
from buviz.app.session import SessionLink
from buviz.app.stores import AmplitudeSweep, CVSweep, Proposal1Overlay, SensitivitySweeps
from buviz.app.upload import check_mixture_text, file_size_text, prepare_csv
from buviz.plots.displays import class_names

__all__ = ["SessionStore", "SHOWN_PARAMS"]

_LOG = logging.getLogger(__name__)
#: What the store publishes with a snapshot and puts back when a later one cannot be shown.
SHOWN_PARAMS = ("snapshot", "notice", "status_notice")
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
    message = output("", "Last error shown to the user ('' when none)", cls=param.String)
    notice = output("", ("What the explorer did on its own with the current data (a CSV's delimiter or header "
                       "inferred, M capped at N(train)); '' when nothing"), cls=param.String)
    status_notice = output("", "What the current status's numbers rest on when it is degenerate ('' when nothing)",
                         cls=param.String)
    computing = output("", "The status being computed for this session ('' when idle)", cls=param.String)

    def __init__(self, controls: Controls | None = ..., **params):
        values = {k: params.pop(k) for k in list(params) if k in Controls.param and k != "name"}
        if controls is ...:
            controls = Controls(**values)
        link = params.pop("link", None)
        gamma_from_data = "dataset" in values and "log2_gamma" not in values
        super().__init__(controls=controls, **params)
        self.closed = False
        #: the session's one way to the runner, shared by every store of the session
        self.bus = JobBus(link)
        #: the stores beside the snapshot (:mod:`buviz.app.stores`), following it on the same bus
        self.cv_sweep = CVSweep(self)
        self.sensitivity = SensitivitySweeps(self)
        self.proposal1 = Proposal1Overlay(self)
        self.amplitude = AmplitudeSweep(self)
        self._shown: dict | None = None
        self._inflight: dict | None = None
        self._changed_at: float | None = None
        self._prefetched_for: tuple | None = None
        self._reverting = False  # the store is putting controls back: their watchers do nothing
        self._next_notice: str | None = None  # the notice of the data being computed, shown with them
        #: what ingestion said about an uploaded CSV or mixture (payload -> note), shown with it
        self.data_notes: dict[str, str] = {}
        #: (controls, published values) of the last states every open view drew, newest last
        self._good: list[tuple[dict, dict]] = []
        #: the first settings name a dataset but no γ: γ starts at the data's "scale" value
        self._gamma_from_data = gamma_from_data
        self._as_given = False  # the next change is taken as given (a reset): γ not fitted to the data
        if self.controls is not None:
            self.controls.param.watch(self._on_controls, list(CONTROL_PARAMS))
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
        self._shown = None
        self._reverting = True  # late widget events must not recompute anything
        self.bus.close("snapshot", "proposal1", "sensitivity", "amplitude", "prefetch")
        # drop the references without notifying the views: their document is being destroyed
        with param.parameterized.discard_events(self):
            self._publish(snapshot=None)
        for part in (self.cv_sweep, self.sensitivity, self.proposal1, self.amplitude):
            part.clear()

    # ------------------------------------------------------------------ controls -> snapshot
    def settings(self) -> dict:
        """The current control values."""
        return self.controls.settings()

    @property
    def shown_settings(self) -> dict | None:
        """The control values of the snapshot on screen (the last valid settings), a copy."""
        return None if self._shown is None else dict(self._shown)

    def _on_controls(self, *events) -> None:
        if self._reverting or self.closed:
            return
        if self._changed_at is None:
            self._changed_at = time.perf_counter()
        if self.asynchronous and self.link.served:
            self.link.deliver(self._apply_latest, key="apply")  # changes until the next tick coalesce
        else:
            self.apply()

    def reset(self) -> None:
        """Back to the default controls (one recomputation; γ as given, not fitted to the data)."""
        self._as_given = not self.controls.is_default()
        self.controls.reset()

    def apply(self) -> bool:
        """Compute the snapshot of the current controls and show it; on failure keep the previous one
        (:attr:`message` says why). Returns whether the current controls are shown."""
        t0, self._changed_at = self._changed_at or time.perf_counter(), None
        return self._apply_now(self._fit_to_data(), t0)

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
        s = self._fit_to_data()
        if self._shown == s and self.snapshot is not None:
            self._changed_at = None
            if self.computing:
                self._publish(computing="")
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

        def work():
            if self.closed or self.settings() != s:  # stale by the time it would start: drop it
                return None
            return compute_snapshot(s)

        self.bus.request("snapshot", work, on_done=lambda job: self._computed(s, job), label=status_label(s),
                     blocking=False)

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

    def _fit_to_data(self) -> dict:
        """The current controls, fitted to the data they name:

        - a UCI dataset's N is capped at its training rows (the slider never reads more than is used);
        - after a change of dataset with γ left as it was (and at the first settings when they name a
          dataset but no γ), γ starts at scikit-learn's ``gamma="scale"`` for the new data, snapped to
          the γ grid (:func:`~buviz.app.notes.scale_log2_gamma`), with a note;
        - after a change of dataset to one with fewer than M training samples, M is capped at
          N(train) (with a note) rather than refused.
        """
        s = self.settings()
        last = self._shown
        as_given, self._as_given = self._as_given, False
        name = s["dataset"]
        if name in datasets.UCI_NAMES and int(s["n_train"]) > real_sizes(name)[0]:
            s = self._set_quietly(n_train=real_sizes(name)[0])
        new_data = last is not None and ResultKey.of(s).data != ResultKey.of(last).data
        if not new_data and not (last is None and self._gamma_from_data):
            return s  # the first settings (URL, notebook arguments) are taken as given
        self._gamma_from_data = False
        key = ResultKey.of(s).data
        notes = [self.data_notes.get(key.payload, "")] if new_data else []
        try:
            ds = dataset_for(key)
        except Exception:  # a bad dataset is reported by the computation itself
            ds = None
        new_gamma = last is None or (name != last["dataset"] and s["log2_gamma"] == last["log2_gamma"])
        if ds is not None and new_gamma and not as_given and len(ds.X_train) > 1:
            g = scale_log2_gamma(ds.X_train)
            if g != s["log2_gamma"]:
                notes.append(f"γ set to 2^{g}, nearest to scikit-learn's gamma = \"scale\" = 1/(d·Var X) = "
                             f"{1 / (ds.n_features * float(np.var(ds.X_train))):.3g} for these data")
                s = self._set_quietly(log2_gamma=g)
        N = None if ds is None else len(ds.X_train)
        if N is not None and int(s["M"]) > N >= 2:
            notes.append(f"M = {s['M']} is more than the {N} training samples of this dataset: "
                         f"M set to {N} (the neighbourhood N^M(x) cannot exceed N)")
            s = self._set_quietly(M=N)
        # published with the data's snapshot (:meth:`_show`), never before: a note about data still being
        # computed (or refused later) would sit above the old data
        self._next_notice = "; ".join(n for n in notes if n)
        return s

    def _set_quietly(self, **values) -> dict:
        """Set controls without recomputing (the store corrects or reverts them); the new settings."""
        self._reverting = True
        try:
            self.controls.param.update(**values)
        finally:
            self._reverting = False
        return self.settings()

    def _fail(self, exc: Exception) -> None:
        msg = _describe(exc)
        self._next_notice = None
        if not isinstance(exc, ValueError):
            _LOG.warning("buviz: could not compute %s: %s", status_label(self.settings()), msg)
        self.revert()
        if self._good and self.notice != self._good[-1][1]["notice"]:
            self._publish(notice=self._good[-1][1]["notice"])  # the shown data's note, not the refused one's
        self.report(f"Could not apply these settings: {msg}")

    def revert(self) -> None:
        """Put the controls back to the last valid settings."""
        if self._shown is not None:
            changed = {k: v for k, v in self._shown.items() if getattr(self.controls, k) != v}
            if changed:
                self._set_quietly(**changed)

    def view_failed(self, exc: Exception, *, drop_current: bool = False) -> None:
        """A view could not draw the state published: go back, everywhere, to the last state every
        view drew (controls, snapshot, notices, sensitivity tables) and say why in ``message``.

        ``drop_current``: the state on screen is the one that failed (a tab opened later caught up
        with it), so it is dropped from the states to go back to.
        """
        what = f"dataset {self.controls.dataset!r} at {status_label(self.settings())}"
        _LOG.warning("buviz: a view could not draw %s: %s (the previous state is shown again)", what, _describe(exc))
        self._next_notice = None
        if drop_current and self._good:
            self._good.pop()
        while self._good:
            s, values = self._good[-1]
            self._shown = dict(s)
            self.revert()
            try:
                with self.update_context():
                    self._publish(**values, computing="")
                    # the failed update may have set some of these to the values now restored, and
                    # stopped before their watchers ran: the panes showing them are told again
                    self.param.trigger(*[p for p in ("computing", *SHOWN_PARAMS) if p != "snapshot"])
                break
            except Exception:  # that one cannot be drawn any more either (a tab opened since)
                self._good.pop()
        else:
            self._shown = None
        if self.computing:
            self._publish(computing="")
        self.report(f"Could not show {what}: {_describe(exc)}. "
                    + ("The previous data and status are shown again." if self._good else ""))

    def _show(self, s: dict, snap: Snapshot, t0: float) -> bool:
        """Show ``snap`` (the snapshot of controls ``s``): every view updated in one batch; whether
        every view could draw it (else the last good state is back, :meth:`view_failed`)."""
        changed = sorted(k for k, v in s.items() if self._shown is None or self._shown.get(k) != v)
        updates = {"snapshot": snap, "message": "", "computing": "",
                   "status_notice": status_notes(snap.result, class_names(snap.ds))}
        if self._next_notice is not None:
            updates["notice"], self._next_notice = self._next_notice, None
        for p in ("message", "computing"):
            if getattr(self, p) == "":
                updates.pop(p)
        self._shown = dict(s)
        try:
            with self.update_context():
                self._publish(**updates)
        except Exception as exc:  # a view cannot draw it: the whole page goes back to the last good state
            self.view_failed(exc)
            return False
        self._good = [*self._good[1 - HISTORY:], (dict(s), {p: getattr(self, p) for p in SHOWN_PARAMS})]
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
                                     latest_wins=False, blocking=False)

    # ------------------------------------------------------------------ user actions
    def upload_csv(self, data: bytes | str, filename: str = "upload.csv") -> bool:
        """Check an uploaded CSV (:func:`buviz.app.upload.prepare_csv`: delimiter and header sniffed,
        two or more numeric feature columns, more rows than the explorer's N range subsampled by
        class) and switch to it; on failure set :attr:`message` and keep the state.

        The file is read in the background (the session's ``"upload"`` slot: a newer upload, or the end
        of the session, cancels it) within :data:`~buviz.app.upload.UPLOAD_TIME_BUDGET_S`. The page then
        ends in one state: the new data with :attr:`notice` saying what was inferred and kept (the
        message bar cleared), or the old data with the refusal in :attr:`message`. Not served, this
        waits for the outcome; returns whether the upload is shown (served: whether it was accepted
        for reading).
        """
        if isinstance(data, str):  # the file dropper hands text files over decoded
            data = data.encode("utf-8")
        seed, reading = self.controls.seed, f"CSV {filename!r} ({file_size_text(len(data))}): reading"
        accepted: list[str] = []

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
            accepted.append(up.digest)
            settings = {**self.settings(), "dataset": "csv", "csv_key": up.digest}
            dataset_for.put(ResultKey.of(settings).data, up.dataset)  # read once, not again on the event loop
            shown = self._shown or {}
            if shown.get("dataset") == "csv" and shown.get("csv_key") == up.digest and self.snapshot is not None:
                self._publish(message="", notice=self.data_notes[up.digest])  # the same file again
            else:
                self.controls.param.update(csv_key=up.digest, dataset="csv")

        self._publish(computing=reading)
        self.bus.request("upload", work, with_job=True, on_done=done, label=f"reading {filename}")
        if self.link.served:
            return True
        return bool(accepted) and self.snapshot is not None and self.snapshot.settings.get("csv_key") == accepted[-1]

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
