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
  types beyond N is refused (``message``) and the controls go back to the last valid settings;
- a snapshot that some view cannot draw (found while the views take it, or when a tab opened later
  catches up) is refused whole: the controls, the snapshot, the notices and every view go back to
  the last state every view drew, ``computing`` is cleared and ``message`` says what failed. Nothing
  reaches the server log as a traceback (one warning line).
"""

from __future__ import annotations

import logging
import time

import numpy as np

from buviz import datasets
from buviz.app import timing
from buviz.app.compute import (
    GAMMA_GRID,
    Settings,
    Snapshot,
    compute_snapshot,
    dataset_for,
    lookup_snapshot,
    prefetch,
    prefetch_keys,
    real_sizes,
    status_cached,
)
from buviz.app.runner import RUNNER, USER
from buviz.plots.cases import pairs_text
from buviz.plots.displays import class_names
from buviz.uncertainty.proposal2 import FLAT_WARN_SHARE

__all__ = ["SnapshotStore", "status_label", "status_notes", "scale_log2_gamma"]

_LOG = logging.getLogger(__name__)
#: What the store publishes with a snapshot and puts back when a later one cannot be shown.
SHOWN_PARAMS = ("snapshot", "sensitivity", "notice", "status_notice")
#: How many shown states are kept to go back to.
HISTORY = 4


def status_label(s: dict) -> str:
    """The classifier status of control values ``s``, as the page names it."""
    if s["classifier"] == "SVM":
        return f"SVM γ = 2^{int(s['log2_gamma'])}, C = 2^{int(s['log2_C'])}"
    return f"MLP epoch {int(s['epoch'])}"


#: A Case 2 pair whose near-boundary mean averages fewer effective samples than this is called out.
FEW_SAMPLES = 20
#: Pairs of one kind (few samples, Case 1, Case 3) are called out when they hold this share of T.
NOTABLE_SHARE = 0.1


def _pair_list(pairs, idx, classes, shown: int = 6) -> str:
    return pairs_text([pairs[n] for n in idx], classes, shown)


def status_notes(result, classes) -> str:
    """What the numbers of a Proposal 2 result rest on when it is degenerate, one paragraph each
    ('' for an ordinary status); pairs are named by ``classes`` as the plots name them.

    - the classifier is flat around most samples (the condition of
      :class:`~buviz.uncertainty.FlatDiscriminantWarning`: h_x = 0 on more than half of T̃);
    - no training sample carries a weight: Û is the Case 1/3 value of eq 39 for every pair;
    - otherwise, pairs holding at least ``NOTABLE_SHARE`` of T whose Û_kl is mostly the Case 1
      (U_max) or Case 3 (U_min) value, or a near-boundary mean over fewer than ``FEW_SAMPLES``
      effective samples.

    Pairs are counted from 1, as in the numbers table.
    """
    if result is None or not len(result.pairs):
        return ""
    notes = []
    h = np.asarray(result.bandwidth)
    flat = float(np.mean(h == 0)) if len(h) else 0.0
    if flat > FLAT_WARN_SHARE:
        notes.append(f"**Flat classifier**: f(x;Λ) is constant (h_x = 0, k̂ = 0) on the neighbourhoods of "
                     f"{100 * flat:.0f}% of T̃; those samples get no weight and Û rests on the remaining "
                     f"ones, so it says little about this status (a very large γ, or saturated scores, "
                     f"make f constant around the samples).")
    pairs, case = result.pairs, np.asarray(result.pair_case)
    n_eff, prob = np.asarray(result.pair_effective_size), np.asarray(result.pair_probabilities)
    share = {c: float(prob[case == c].sum()) for c in (1, 3)}
    if not np.any(np.asarray(result.near_boundary_weights) > 0):
        notes.append(f"**No near-boundary sample**: every weight k̂/w is 0 (no neighbour reading of f lies near "
                     f"B(Λ) within its kernel width), so Û_tr is the Case 1/3 value of eq 39 for every pair: "
                     f"U_min (Case 3, Λ errs on the perturbed pair) for P̂ = {share[3]:.2f} of T, U_max (Case 1, "
                     f"no error) for {share[1]:.2f}.")
        return "\n\n".join(notes)
    few = np.flatnonzero((case == 2) & (n_eff < FEW_SAMPLES))
    if len(few) and prob[few].sum() >= NOTABLE_SHARE:
        sizes = ", ".join(f"{n_eff[n]:.0f}" for n in few[:6])
        notes.append(f"**Few samples**: Û_kl of pair {_pair_list(pairs, few, classes)} "
                     f"(P̂ = {prob[few].sum():.2f} of T) "
                     f"is a near-boundary mean over an effective n_eff = {sizes} samples (fewer than "
                     f"{FEW_SAMPLES}): a noisy value.")
    for c, meaning in ((1, "U_max: no error on the perturbed pair, B(Λ) in an empty band"),
                       (3, "U_min: B(Λ) outside the pair's data")):
        idx = np.flatnonzero(case == c)
        if len(idx) and share[c] >= NOTABLE_SHARE:
            notes.append(f"**Case {c}** (eq 39): pair {_pair_list(pairs, idx, classes)} (P̂ = {share[c]:.2f} of T) has "
                         f"(almost) no near-boundary samples, so Û_kl is mostly {meaning}.")
    return "\n\n".join(notes)


def scale_log2_gamma(X, grid=GAMMA_GRID) -> int:
    """log₂ of scikit-learn's ``gamma="scale"`` RBF width, 1 / (d · Var X) over every entry of the
    (standardised) training data ``X``, snapped to the nearest point of ``grid`` (log₂ values)."""
    X = np.asarray(X, dtype=float)
    var = float(np.var(X))
    if not (np.isfinite(var) and var > 0):
        return 0
    g = -np.log2(X.shape[1] * var)
    return int(min(grid, key=lambda v: (abs(v - g), v)))


def _describe(exc: Exception) -> str:
    return str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"


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
        #: (controls, published values) of the last states every open view drew, newest last
        self._good: list[tuple[dict, dict]] = []
        #: the first settings name a dataset but no γ: γ starts at the data's "scale" value
        self.gamma_from_data = False
        #: the next change is taken as given (a reset to the defaults): γ is not fitted to the data
        self.as_given = False

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
        return self._show(s, snap, t0)

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
        """The current controls, fitted to the data they name:

        - a UCI dataset's N is capped at its training rows (the slider never reads more than is used);
        - after a change of dataset with γ left as it was (and at the first settings when they name a
          dataset but no γ), γ starts at scikit-learn's ``gamma="scale"`` for the new data, snapped to
          the γ grid (:func:`scale_log2_gamma`), with a note;
        - after a change of dataset to one with fewer than M training samples, M is capped at
          N(train) (with a note) rather than refused.
        """
        st = self.state
        s = st.settings()
        last = self._shown
        as_given, self.as_given = self.as_given, False
        name = s["dataset"]
        if name in datasets.UCI_NAMES:
            full = real_sizes(name)[0]
            if int(s["n_train"]) > full:
                self._set_quietly(n_train=full)
                s = st.settings()
        new_data = last is not None and Settings.of(s).dataset != Settings.of(last).dataset
        if not new_data and not (last is None and self.gamma_from_data):
            return s  # the first settings (URL, notebook arguments) are taken as given
        self.gamma_from_data = False
        notes = [self.data_notes.get(Settings.of(s).dataset[3], "")] if new_data else []
        try:
            ds = dataset_for(*Settings.of(s).dataset)
        except Exception:  # a bad dataset is reported by the computation itself
            ds = None
        new_gamma = last is None or (name != last["dataset"] and s["log2_gamma"] == last["log2_gamma"])
        if ds is not None and new_gamma and not as_given and len(ds.X_train) > 1:
            g = scale_log2_gamma(ds.X_train)
            if g != s["log2_gamma"]:
                notes.append(f"γ set to 2^{g}, nearest to scikit-learn's gamma = \"scale\" = 1/(d·Var X) = "
                             f"{1 / (ds.n_features * float(np.var(ds.X_train))):.3g} for these data")
                self._set_quietly(log2_gamma=g)
                s = st.settings()
        N = None if ds is None else len(ds.X_train)
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
        msg = _describe(exc)
        if not isinstance(exc, ValueError):
            _LOG.warning("buviz: could not compute %s: %s", status_label(self.state.settings()), msg)
        self.revert()
        if self._good and self.state.notice != self._good[-1][1]["notice"]:
            self.state.notice = self._good[-1][1]["notice"]  # the shown data's note, not the refused one's
        self.state.message = f"Could not apply these settings: {msg}"

    def revert(self) -> None:
        """Put the controls back to the last valid settings."""
        if self._shown is None:
            return
        st = self.state
        changed = {k: v for k, v in self._shown.items() if getattr(st, k) != v}
        if changed:
            self._set_quietly(**changed)

    def view_failed(self, exc: Exception, *, drop_current: bool = False) -> None:
        """A view could not draw the state published: go back, everywhere, to the last state every
        view drew (controls, snapshot, notices, sensitivity tables) and say why in ``message``.

        ``drop_current``: the state on screen is the one that failed (a tab opened later caught up
        with it), so it is dropped from the states to go back to.
        """
        st = self.state
        failed = status_label(st.settings())
        what = f"dataset {st.dataset!r} at {failed}"
        _LOG.warning("buviz: a view could not draw %s: %s (the previous state is shown again)", what, _describe(exc))
        if drop_current and self._good:
            self._good.pop()
        while self._good:
            s, values = self._good[-1]
            self._shown = dict(s)
            self.revert()
            try:
                with st.update_context():
                    st.param.update(**values, computing="")
                    # the failed update may have set some of these to the values now restored, and
                    # stopped before their watchers ran: the panes showing them are told again
                    st.param.trigger(*[p for p in ("computing", *SHOWN_PARAMS) if p != "snapshot"])
                break
            except Exception:  # that one cannot be drawn any more either (a tab opened since)
                self._good.pop()
        else:
            self._shown = None
        if st.computing:
            st.computing = ""
        st.message = (f"Could not show {what}: {_describe(exc)}. "
                      + ("The previous data and status are shown again." if self._good else ""))

    def _show(self, s: dict, snap: Snapshot, t0: float) -> bool:
        """Show ``snap`` (the snapshot of controls ``s``): every view updated in one batch; whether
        every view could draw it (else the last good state is back, :meth:`view_failed`)."""
        st = self.state
        old = st.snapshot
        changed = sorted(k for k, v in s.items() if self._shown is None or self._shown.get(k) != v)
        dataset_changed = old is None or old.ds is not snap.ds
        updates = {"snapshot": snap, "message": "", "computing": "",
                   "status_notice": status_notes(snap.result, class_names(snap.ds))}
        if dataset_changed:
            updates["sensitivity"] = {}
        if st.message == "":
            updates.pop("message")
        if st.computing == "":
            updates.pop("computing")
        self._shown = dict(s)
        try:
            with st.update_context():
                st.param.update(**updates)
        except Exception as exc:  # a view cannot draw it: the whole page goes back to the last good state
            self.view_failed(exc)
            return False
        self._good = [*self._good[1 - HISTORY:], (dict(s), {p: getattr(st, p) for p in SHOWN_PARAMS})]
        st.sweeps.follow()
        self._prefetch(s)
        timing.record_apply(time.perf_counter() - t0, changed)
        return True

    def _prefetch(self, s: dict) -> None:
        """After a dataset, C, M, K or T̃ change: the γ row (and the neighbouring C) in the background."""
        if not self.state.prefetch or self.state.closed:
            return
        k = Settings.of(s)
        group = (k.dataset, k.estimator, k.status[0], k.status[2])
        if group != self._prefetched_for:
            self._prefetched_for = group
            prefetch(id(self), prefetch_keys(k))
