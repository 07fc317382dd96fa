"""What the explorer says about a status in words: its label, what its numbers rest on when it is
degenerate (:func:`status_notes`), the sizes of the data shown (:func:`dataset_size_text`), and the γ
it starts a new dataset at (:func:`scale_log2_gamma`)."""

from __future__ import annotations

import numpy as np

from buviz import datasets
from buviz.app.compute import GAMMA_GRID, real_sizes
from buviz.plots.cases import pairs_text
from buviz.uncertainty.proposal2 import FLAT_WARN_SHARE

__all__ = ["status_label", "status_notes", "scale_log2_gamma", "dataset_size_text", "FEW_SAMPLES",
           "NOTABLE_SHARE"]


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


def dataset_size_text(snapshot) -> str:
    """What the sidebar says under the N slider: the training and test sizes of the data shown,
    whether N is the dataset's own (fixed), a live subsample of a real dataset, or drawn (a mixture)."""
    if snapshot is None:
        return ""
    ds, name = snapshot.ds, snapshot.settings["dataset"]
    n_tr, n_te = len(ds.X_train), len(ds.X_test)
    shape = f"d = {ds.n_features}, J = {ds.n_classes}"
    if name in datasets.UCI_NAMES:
        full_tr, full_te = real_sizes(name)
        sub = " *(subsampled live: N sets it)*" if n_tr < full_tr else ""
        return f"N(train) = {n_tr} of {full_tr}{sub}, N(test) = {n_te} of {full_te}, {shape}"
    sizes = f"N(train) = {n_tr}, N(test) = {n_te}, {shape}"
    fixed = name in datasets.REAL_NAMES or name == "csv"
    return f"{sizes} *(fixed by this dataset)*" if fixed else sizes
