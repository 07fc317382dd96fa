"""The explorer's data store: which snapshot a session shows, and how a change of its controls gets
there (scheduling, latest wins, revert on failure, prefetch).

:class:`SnapshotStore` owns no parameter of its own: it reads the controls of its
:class:`~buviz.app.state.ExplorerState` and publishes the derived ones (``snapshot``, ``computing``,
``message``, ``notice``). Applying a change:

- a setting whose every step is cached is shown at once, all views updated in one batch;
- served (``asynchronous=True``), an uncached setting is a job of the one runner
  (:mod:`buviz.app.runner`, slot of this session: latest wins) while the views keep the last picture
  and ``computing`` names what is being computed; changes that arrive meanwhile are coalesced, and
  when the job is done the session shows the newest controls (computing them in turn if needed),
  never a queue of stale positions;
- after a dataset, C, M, K or T̃ change, the γ row (and the neighbouring C) is prefetched at low
  priority, behind any user's own request;
- a new dataset smaller than M: M is capped at N(train), with a note (``notice``); an M the user
  types beyond N is refused (``message``) and the controls go back to the last valid settings.
"""

from __future__ import annotations

import time
import traceback

from buviz.app import timing
from buviz.app.compute import (
    Settings,
    Snapshot,
    compute_snapshot,
    dataset_for,
    lookup_snapshot,
    prefetch,
    prefetch_keys,
    status_cached,
)
from buviz.app.runner import RUNNER, USER

__all__ = ["SnapshotStore", "status_label"]


def status_label(s: dict) -> str:
    """The classifier status of control values ``s``, as the page names it."""
    if s["classifier"] == "SVM":
        return f"SVM γ = 2^{int(s['log2_gamma'])}, C = 2^{int(s['log2_C'])}"
    return f"MLP epoch {int(s['epoch'])}"


class SnapshotStore:
    """Derived data and scheduling of one session (see the module docstring)."""

    def __init__(self, state):
        self.state = state
        self.reverting = False  # the store is putting controls back: their watchers do nothing
        self._shown: dict | None = None
        self._inflight: dict | None = None
        self._changed_at: float | None = None
        self._prefetched_for: tuple | None = None
        #: what ingestion said about an uploaded CSV or mixture (payload -> note), shown with it
        self.data_notes: dict[str, str] = {}

    @property
    def shown_settings(self) -> dict | None:
        """The control values of the snapshot on screen (the last valid settings), a copy."""
        return None if self._shown is None else dict(self._shown)

    def close(self) -> None:
        RUNNER.cancel(("snapshot", id(self)))
        from buviz.app.compute import cancel_prefetch

        cancel_prefetch(id(self))
        self._shown = None
        self.reverting = True  # late widget events must not recompute anything

    # ------------------------------------------------------------------ entry points
    def controls_changed(self) -> None:
        """A control moved (its watcher, on the event loop)."""
        st = self.state
        if self.reverting or st.closed:
            return
        if self._changed_at is None:
            self._changed_at = time.perf_counter()
        if st.asynchronous and st.link.served:
            st.link.deliver(self.apply_latest, key="apply")  # changes until the next tick coalesce
        else:
            self.apply()

    def apply(self) -> bool:
        """Compute the snapshot of the current controls and show it; on failure keep the previous one
        (``message`` says why). Returns whether the current controls are shown."""
        t0, self._changed_at = self._changed_at or time.perf_counter(), None
        return self.apply_now(self._fit_to_data(), t0)

    def apply_now(self, s: dict, t0: float) -> bool:
        try:
            snap = compute_snapshot(s)
        except Exception as exc:  # every failure becomes a message; the server keeps running
            self._fail(exc)
            return False
        self._show(s, snap, t0)
        return True

    def apply_latest(self) -> None:
        """Served: show the newest controls; cached -> now, else hand them to the runner."""
        st = self.state
        if st.closed or self._inflight is not None:  # the runner is on this session: it comes back
            return
        s = self._fit_to_data()
        if self._shown == s and st.snapshot is not None:
            self._changed_at = None
            if st.computing:
                st.computing = ""
            return
        snap = lookup_snapshot(s)
        if snap is not None or status_cached(s):  # at most Proposal 2's step left (tens of ms): now
            t0, self._changed_at = self._changed_at or time.perf_counter(), None
            if snap is not None:
                self._show(s, snap, t0)
            else:
                self.apply_now(s, t0)
            return
        self._inflight = s
        st.computing = status_label(s)

        def work(job):
            if st.closed or st.settings() != s:  # stale by the time it would start: drop it
                return None
            return compute_snapshot(s)

        job = RUNNER.submit(work, priority=USER, slot=("snapshot", id(self)), label=status_label(s))
        st.link.watch(job, lambda j: self._computed(s, j))

    def _computed(self, s: dict, job) -> None:
        """Served: the runner finished ``s`` (or dropped it as stale)."""
        st = self.state
        self._inflight = None
        if st.settings() != s:  # the controls moved on meanwhile: latest wins
            self.apply_latest()
            return
        if job.status == "error":
            st.computing = ""
            self._changed_at = None
            self._fail(ValueError(job.error))
            return
        if job.result is not None:
            t0, self._changed_at = self._changed_at or time.perf_counter(), None
            self._show(s, job.result, t0)
        else:
            self.apply_latest()

    # ------------------------------------------------------------------ helpers
    def _fit_to_data(self) -> dict:
        """The current controls; after a change of dataset to one with fewer than M training samples,
        M capped at N(train) (with a note) rather than refused."""
        st = self.state
        s = st.settings()
        last = self._shown
        if last is None or Settings.of(s).dataset == Settings.of(last).dataset:
            return s  # the first settings (URL, notebook arguments) are taken as given
        notes = [self.data_notes.get(Settings.of(s).dataset[3], "")]
        try:
            N = len(dataset_for(*Settings.of(s).dataset).X_train)
        except Exception:  # a bad dataset is reported by the computation itself
            N = None
        if N is not None and int(s["M"]) > N >= 2:
            notes.append(f"M = {s['M']} is more than the {N} training samples of this dataset: "
                         f"M set to {N} (the neighbourhood N^M(x) cannot exceed N)")
            self._set_quietly(M=N)
            s = st.settings()
        st.notice = "; ".join(n for n in notes if n)
        return s

    def _set_quietly(self, **values) -> None:
        self.reverting = True
        try:
            self.state.param.update(**values)
        finally:
            self.reverting = False

    def _fail(self, exc: Exception) -> None:
        msg = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
        if not isinstance(exc, ValueError):
            traceback.print_exception(exc)
        self.revert()
        self.state.message = f"Could not apply these settings: {msg}"

    def revert(self) -> None:
        """Put the controls back to the last valid settings."""
        if self._shown is None:
            return
        st = self.state
        changed = {k: v for k, v in self._shown.items() if getattr(st, k) != v}
        if changed:
            self._set_quietly(**changed)

    def _show(self, s: dict, snap: Snapshot, t0: float) -> None:
        """Show ``snap`` (the snapshot of controls ``s``): every view updated in one batch."""
        st = self.state
        old = st.snapshot
        changed = sorted(k for k, v in s.items() if self._shown is None or self._shown.get(k) != v)
        dataset_changed = old is None or old.ds is not snap.ds
        updates = {"snapshot": snap, "message": "", "computing": ""}
        if dataset_changed:
            updates["sensitivity"] = {}
        if st.message == "":
            updates.pop("message")
        if st.computing == "":
            updates.pop("computing")
        self._shown = dict(s)
        with st.update_context():
            st.param.update(**updates)
        st.sweeps.follow()
        self._prefetch(s)
        timing.record_apply(time.perf_counter() - t0, changed)

    def _prefetch(self, s: dict) -> None:
        """After a dataset, C, M, K or T̃ change: the γ row (and the neighbouring C) in the background."""
        if not self.state.prefetch or self.state.closed:
            return
        k = Settings.of(s)
        group = (k.dataset, k.estimator, k.status[0], k.status[2])
        if group != self._prefetched_for:
            self._prefetched_for = group
            prefetch(id(self), prefetch_keys(k))
