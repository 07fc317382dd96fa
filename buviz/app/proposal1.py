"""Proposal 1 (the paper's baseline, Figs 3 and 15) for the explorer's sample-space overlay.

:func:`proposal1_result` evaluates :class:`buviz.uncertainty.Proposal1` for the classifier status of
a snapshot, cached across sessions (``pn.cache``, LRU) on the same keys as the state's own caches, so
it reuses the status that the state already fitted and is computed only when the overlay is on.
"""

from __future__ import annotations

import panel as pn

from buviz.app import state as st
from buviz.uncertainty import Proposal1

__all__ = ["proposal1_result", "proposal1_for", "clear_cache"]


@pn.cache(max_items=24)
def proposal1_result(name: str, n_train: int, seed: int, payload: str, classifier: str, log2_gamma: int,
                     log2_C: int, epoch: int):
    """Proposal 1's result (anchors, N_B, TDC clusters, Û⁽¹⁾) for one status (seeded with the data seed)."""
    ds = st.dataset_for(name, n_train, seed, payload)
    status = st.status_eval(name, n_train, seed, payload, classifier, log2_gamma, log2_C, epoch)
    return Proposal1(random_state=seed).fit(ds.X_train, ds.y_train).evaluate(status.discriminant)


def _keys(settings: dict) -> tuple:
    c = st._canonical(settings)
    return (c["dataset"], int(c["n_train"]), int(c["seed"]), c["payload"], c["classifier"], c["log2_gamma"],
            c["log2_C"], int(c["epoch"]))


def proposal1_for(snapshot):
    """The Proposal 1 result of a :class:`~buviz.app.state.Snapshot` (None for no snapshot)."""
    if snapshot is None:
        return None
    return proposal1_result(*_keys(snapshot.settings))


def clear_cache() -> None:
    proposal1_result.clear()
