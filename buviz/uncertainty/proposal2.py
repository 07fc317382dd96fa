"""Proposal 2: boundary uncertainty Û⁽³⁾ of a classifier status from the training set.

Ha et al. (2021), §4.4-4.6, eq 25-40. ``fit`` does the work shared by all statuses once
(neighbourhoods, T̃, Î*: eq 41-42); ``evaluate`` does the per-status work (eq 43) as (N, M) array
operations, in row chunks so memory stays bounded, spread over threads (numpy releases the GIL in
its ufuncs).

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1
"""

from __future__ import annotations

import time
import warnings
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.preprocessing import LabelEncoder
from sklearn.utils.validation import check_is_fitted

from buviz._validation import (
    RANDOM_STATE,
    InstanceOf,
    Interval,
    InvalidParameterError,
    Options,
    Satisfies,
    SequenceOf,
    check_int,
    check_params,
    check_real,
    check_Xy,
    fit_context,
)
from buviz._values import freeze_fields, seal, sealed, value_array
from buviz.classifiers import Discriminant, as_discriminant
from buviz.grid import top2, top2_difference
from buviz.uncertainty._kernel import chunk_kernel, neighbourhood_values, quartile_positions, silverman_bandwidth
from buviz.uncertainty.neighbours import PERTURBATION_MODES, neighbourhoods, perturbed_training_set
from buviz.uncertainty.prototypes import AIC_FORMS, DEFAULT_K_RANGE, TruePairEstimate, estimate_true_pairs

__all__ = ["BoundaryUncertainty", "BoundaryUncertaintyResult", "PairValues", "pair_uncertainty", "case3_error",
           "SEPARABILITY_RULES", "DEFAULT_SEPARABILITY", "DEFAULT_SEPARABILITY_N0", "PAPER_SEPARABILITY",
           "TOLERANCE_SEPARABILITY", "TOLERANCE_WEIGHT_TOL", "ZERO_WEIGHT",
           "U_MAX", "U_MIN", "local_uncertainty", "silverman_bandwidth",
           "neighbourhood_values", "quartile_positions", "FlatDiscriminantWarning", "FeatureMismatchWarning"]

U_MAX = 1.0
U_MIN = 0.0
_PHI0 = 1.0 / np.sqrt(2 * np.pi)  # φ(0), the kernel value of a sample lying on B(Λ)
#: Share of T̃ with a flat neighbourhood (h_x = 0) above which :class:`FlatDiscriminantWarning` is raised.
FLAT_WARN_SHARE = 0.5


def _is_torch_device(value) -> bool:
    return type(value).__name__ == "device" and type(value).__module__.split(".")[0] == "torch"


class FlatDiscriminantWarning(UserWarning):
    """The near-boundary measurement is constant on most neighbourhoods of T̃ (h_x = 0, k̂ = 0).

    Typical of a classifier whose scores saturate (probabilities exactly 0 or 1 read through
    logarithms, a 1-NN): Û then rests on the few samples left and says little.
    """


class FeatureMismatchWarning(UserWarning):
    """The classifier does far worse on T̃ than a constant prediction.

    It was probably fitted on other features (e.g. raw data scored against a standardised copy).
    Only a gross mismatch is caught.
    """


def local_uncertainty(posterior: np.ndarray) -> np.ndarray:
    """Return the triangle local uncertainty ``Û(x) = 1 − |2 P̂(C_m|x) − 1|`` (Ha et al. 2021, eq 37).

    Parameters
    ----------
    posterior : ndarray
        P̂(C_m | x), the estimated posterior of one class of the pair, in [0, 1].

    Returns
    -------
    ndarray
        Û(x) in [0, 1], 1 where the two posteriors are equal.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    return 1.0 - np.abs(2.0 * posterior - 1.0)


SEPARABILITY_RULES = ("literal", "threshold", "shrinkage", "graded")
#: The default rule of eq 39's Case 1/3 branch and its n0, chosen by the second pre-registered study
#: (docs/model_selection.md, which compared ``"threshold"`` with ``"shrinkage"``); ``"literal"`` is
#: eq 39 as printed in Ha et al. (2021).
DEFAULT_SEPARABILITY, DEFAULT_SEPARABILITY_N0 = "shrinkage", 10.0
#: Eq 39 as printed, "w_kl = 0" read literally: the rule of the paper's figures and tables
#: (:mod:`buviz.reproduce`, :mod:`buviz.figures`).
PAPER_SEPARABILITY = "literal"
#: buviz's tolerance reading of eq 39, "w_kl = 0" read as ω_kl < :data:`TOLERANCE_WEIGHT_TOL`
#: (rule ``"threshold"``); the reproduction reports it beside :data:`PAPER_SEPARABILITY`.
TOLERANCE_SEPARABILITY = "threshold"
#: τ of the tolerance reading (``weight_tol``'s default); see :class:`BoundaryUncertainty`.
TOLERANCE_WEIGHT_TOL = 0.05
#: The numerical zero of eq 39's "w_kl = 0": w_kl ≤ ZERO_WEIGHT counts as zero under every rule.
#: w_kl = Σ k̂(x) is a sum of non-negative Gaussian kernel readings; it is exactly 0.0 when every
#: reading underflowed (∣f∣/h beyond about 38.6). The smallest normal float64 (2.2e-308) differs
#: from 0.0 only where every reading of the pair is subnormal (∣f∣/h between about 37.5 and 38.6):
#: there the mean Ū_kl = Σ k̂ Û / w_kl would be a ratio of numbers with fewer than 53 significant
#: bits, so it is read as zero too. Without it (``w_kl > 0``), such a pair would take the
#: near-boundary mean of readings carrying less than 10⁻³⁰⁰ of one sample's weight.
ZERO_WEIGHT = float(np.finfo(float).tiny)


@dataclass(frozen=True)
class PairValues:
    """Per-pair outcome of eq 39 under one separability rule (see :func:`pair_uncertainty`).

    Parameters
    ----------
    values : ndarray
        Û_kl⁽³⁾ of each pair in Î*.
    weights : ndarray
        w_kl (eq 29).
    weight_share : ndarray
        ``ω_kl = w_kl / (φ(0) |B̂*(k,l)|)``.
    effective_size : ndarray
        Kish's effective sample size of the near-boundary weights, n_eff = (Σ k̂)² / Σ k̂² over
        B̂*(k,l) (0 where w_kl = 0).
    blend : ndarray
        λ_kl ∈ [0, 1], the weight of the near-boundary average (eq 30-31) in Û_kl; 1 − λ_kl goes to
        the Case 1/3 value. The threshold rule has λ ∈ {0, 1}.
    case : ndarray of int
        The separability case of §4.5 that dominates: 2 where λ_kl ≥ ½, else 1 (L̃_tr^kl = 0) or 3.
    sample_weights : ndarray of shape (N,)
        The weight of Û(x) in its pair's Û_kl, λ_kl k̂(x) / w_kl.
    """

    values: np.ndarray
    weights: np.ndarray
    weight_share: np.ndarray
    effective_size: np.ndarray
    blend: np.ndarray
    case: np.ndarray
    sample_weights: np.ndarray

    def __post_init__(self):
        freeze_fields(self)


def pair_uncertainty(k: np.ndarray, local: np.ndarray, pair_match: np.ndarray, pair_index: np.ndarray,
                     error_tilde: np.ndarray, n_pairs: int, *, rule: str = DEFAULT_SEPARABILITY,
                     weight_tol: float = TOLERANCE_WEIGHT_TOL, n0: float = DEFAULT_SEPARABILITY_N0,
                     case3_error: np.ndarray | None = None) -> PairValues:
    """Return the two-class boundary uncertainties Û_kl⁽³⁾ of eq 39 under a separability rule.

    Eq 39 of Ha et al. (2021) has three branches. Where the near-boundary weight w_kl = Σ k̂(x)
    (eq 29, x ∈ B̂*(k,l)) is zero, Û_kl = U_max if Λ makes no error on the perturbed B̂*(k,l)
    (Case 1: B(Λ) in the empty band between the classes) and U_min otherwise (Case 3: B(Λ) outside
    the data); else Û_kl is the k̂-weighted mean Ū_kl = Σ k̂(x) Û(x) [pair match] / w_kl (eq 30-31,
    Case 2). Call u⁰_kl the Case 1/3 value.

    ``rule="literal"`` is eq 39 as printed: Û_kl = u⁰_kl where w_kl = 0 (w_kl ≤ :data:`ZERO_WEIGHT`,
    the numerical zero), else Ū_kl. Gaussian tails rarely vanish in float64 (a reading underflows
    beyond about 38.6 bandwidths), so Cases 1 and 3 are rare: a pair whose boundary passes far
    from its samples still gets the mean of Û(x) with tiny weights.

    ``rule="threshold"`` is buviz's tolerance reading: "w_kl = 0" as
    ``ω_kl = w_kl / (φ(0) |B̂*(k,l)|)`` < ``weight_tol`` (:data:`TOLERANCE_WEIGHT_TOL` = 0.05 by
    default), so Û_kl = 1[ω_kl ≥ τ] Ū_kl + 1[ω_kl < τ] u⁰_kl; at ``weight_tol=0`` it is the
    literal rule. It is discontinuous: a status whose boundary
    crosses a thin layer of samples (ω just above τ) gets the mean of Û(x) over a handful of
    samples, which can be near U_max for a near-chance classifier (on ``winequality_red``, Û = 0.90
    from an effective 22-31 samples while its neighbours score 0), and just below τ it gets u⁰.

    ``rule="shrinkage"`` treats the two branches as two sources of evidence on the same quantity.
    Ū_kl is a weighted mean; by Kish's formula its weights k̂(x)/w_kl average as many independent
    samples as n_eff = (Σ k̂)² / Σ k̂² (its variance is σ²/n_eff for per-sample variance σ²). But
    n_eff is scale-free: k̂ values all tiny (no sample of the pair really near B(Λ)) can have a large
    n_eff. The kernel mass w_kl/φ(0) counts the neighbour readings that fall on B(Λ) (each adds
    φ(0) to w_kl, eq 27-29), so the near-boundary evidence is at most that; the rule uses

        n_kl = min(n_eff, w_kl / φ(0)),

    which is 0 when w_kl = 0 and continuous in the k̂'s. The Case 1/3 value u⁰_kl is taken as a
    prior mean worth n0 pseudo-samples; the posterior mean of a normal (or beta) mean with a
    conjugate prior is the precision-weighted average

        Û_kl = λ_kl Ū_kl + (1 − λ_kl) u⁰_kl,    λ_kl = n_kl / (n_kl + n0).

    λ_kl Ū_kl = n_kl/(n_kl + n0) · Σ k̂ Û [match] / w_kl is bounded by n_kl/n0 → 0 as w_kl → 0,
    so Û_kl is continuous in w_kl (and in ω_kl) and tends to the paper's Case 1/3 value where the
    pair has no near-boundary evidence, and to the paper's Case 2 value when n_kl ≫ n0. The
    threshold rule is the limit λ_kl = 1[ω_kl ≥ τ]. What stays discontinuous is u⁰ itself (it
    flips when one sample of the pair becomes misclassified), now with weight 1 − λ_kl.

    ``rule="graded"`` is the shrinkage rule with a Case 1/3 value that is continuous too. Case 1 is
    a boundary in the empty band between the pair's classes (L̃_tr^kl = 0, U_max); Case 3 a boundary
    outside the pair's data, which puts all of B̂*(k,l) on one side and so errs on at least the
    pair's minority share ``e³_kl = 1 − max_c n_c / |B̂*(k,l)|``, n_c the pair's samples of class c (``case3_error``).
    Between the two, the Case 1/3 value falls linearly with the error,

        u⁰_kl = U_max − (U_max − U_min) · min(1, L̃_tr^kl / e³_kl)

    (u⁰ = U_min at any error when e³_kl = 0, a pair of one class). Under "shrinkage" u⁰ = U_min
    at any error, so on overlapping classes (every pair errs somewhat) shrinkage is a penalty
    λ_kl on boundaries that cross few samples and favours wiggly boundaries (the first
    pre-registered study, ``abalone``); "graded" keeps u⁰ near U_max for a status that errs on
    few of the pair's samples.

    Parameters
    ----------
    k : ndarray of shape (N,)
        k̂(x) = k̂^i(x) + k̂^j(x) (eq 28).
    local : ndarray of shape (N,)
        Û(x) (eq 37).
    pair_match : ndarray of bool, shape (N,)
        Whether the classifier's top-2 pair at x is x's estimated true pair (eq 36).
    pair_index : ndarray of int, shape (N,)
        Index of x's estimated true pair in Î* (x ∈ B̂*(k,l)).
    error_tilde : ndarray of shape (n_pairs,)
        L̃_tr^kl, the error rate of Λ on the perturbed B̂*(k,l).
    n_pairs : int
        The number of pairs in Î*.
    rule : {"literal", "threshold", "shrinkage", "graded"}, default="shrinkage"
        The reading of eq 39's "w_kl = 0" (see above); "literal" is eq 39 as printed, "threshold"
        buviz's tolerance.
    weight_tol : float, default=0.05
        τ, the threshold on ω_kl of ``rule="threshold"`` (unused by the other rules).
    n0 : float, default=10.0
        The pseudo-sample weight of the Case 1/3 value of ``rule="shrinkage"`` and ``"graded"`` (> 0).
    case3_error : ndarray of shape (n_pairs,) or None, default=None
        e³_kl, the pair's minority share (the error of a boundary outside its data); required by
        ``rule="graded"``.

    Returns
    -------
    PairValues
        Û_kl, w_kl, ω_kl, n_eff, λ_kl, the dominant case and the per-sample weights.

    Raises
    ------
    InvalidParameterError
        If ``rule`` is unknown, ``weight_tol`` < 0, ``n0`` ≤ 0, or ``case3_error`` is missing
        (or has the wrong length) under ``rule="graded"``.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1

    L. Kish, *Survey Sampling*, Wiley, New York, 1965 (the effective sample size of weighted means).
    """
    if rule not in SEPARABILITY_RULES:
        raise InvalidParameterError(f"separability must be one of {SEPARABILITY_RULES}, got {rule!r}")
    check_real(weight_tol, "weight_tol", low=0.0)
    if rule not in ("literal", "threshold"):
        check_real(n0, "separability_n0", low=0.0)
        if not n0 > 0:
            raise InvalidParameterError(f"separability_n0 must be > 0, got {n0}")
    size = np.bincount(pair_index, minlength=n_pairs)
    w = np.bincount(pair_index, weights=k, minlength=n_pairs)  # eq 29
    w2 = np.bincount(pair_index, weights=k * k, minlength=n_pairs)
    positive = w > ZERO_WEIGHT  # eq 39's "w_kl ≠ 0"
    omega = w / (_PHI0 * np.maximum(size, 1))
    n_eff = np.where(positive, w * w / np.where(w2 > 0, w2, 1.0), 0.0)
    if rule == "literal":
        blend = positive.astype(float)
    elif rule == "threshold":
        blend = ((omega >= weight_tol) & positive).astype(float)
    else:
        n_kl = np.minimum(n_eff, w / _PHI0)
        blend = n_kl / (n_kl + n0)
    w_safe = np.where(positive, w, 1.0)
    sample_weights = np.where(positive[pair_index], blend[pair_index] * k / w_safe[pair_index], 0.0)
    weighted_mean_part = np.bincount(pair_index, weights=sample_weights * local * pair_match, minlength=n_pairs)
    if rule == "graded":
        if case3_error is None or np.shape(case3_error) != (n_pairs,):
            raise InvalidParameterError(f"case3_error must have shape ({n_pairs},) under separability='graded', "
                                        f"got {None if case3_error is None else np.shape(case3_error)}")
        e3 = np.asarray(case3_error, dtype=float)
        share = np.where(e3 > 0, np.minimum(1.0, error_tilde / np.where(e3 > 0, e3, 1.0)),
                         (error_tilde > 0).astype(float))
        u0 = U_MAX - (U_MAX - U_MIN) * share  # Case 1 at no error, Case 3 at the minority share
    else:
        u0 = np.where(error_tilde == 0, U_MAX, U_MIN)  # Cases 1 and 3
    values = weighted_mean_part + (1.0 - blend) * u0  # eq 39
    case = np.where(blend >= 0.5, 2, np.where(error_tilde == 0, 1, 3))
    seal(values, w, omega, n_eff, blend, case, sample_weights)
    return PairValues(values=values, weights=w, weight_share=omega, effective_size=n_eff, blend=blend,
                      case=case, sample_weights=sample_weights)


def case3_error(pair_index: np.ndarray, y: np.ndarray, n_pairs: int) -> np.ndarray:
    """Return e³_kl, each pair's minority share: the error on B̂*(k,l) of a boundary outside its data.

    A boundary outside the data (Case 3 of §4.5 in Ha et al., 2021) gives every sample of B̂*(k,l)
    one label, at best the pair's most frequent one, so it errs on ``1 − max_c n_c / |B̂*(k,l)|``.
    See :func:`pair_uncertainty` (``rule="graded"``).

    Parameters
    ----------
    pair_index : ndarray of int, shape (N,)
        Index of each sample's estimated true pair in Î*.
    y : ndarray of int, shape (N,)
        Class labels 0 … J − 1.
    n_pairs : int
        The number of pairs in Î*.

    Returns
    -------
    ndarray of shape (n_pairs,)
        e³_kl (0 for an empty pair).
    """
    n_classes = int(y.max()) + 1 if len(y) else 1
    counts = np.bincount(pair_index * n_classes + y, minlength=n_pairs * n_classes).reshape(n_pairs, n_classes)
    size = counts.sum(axis=1)
    return np.where(size > 0, 1.0 - counts.max(axis=1) / np.maximum(size, 1), 0.0)


def _flat_advice(est) -> str:
    """What to try when a status is flat on most neighbourhoods: it depends on what the classifier offers."""
    if est is None:
        return "scores that step or saturate; give a callable continuous scores"
    if hasattr(est, "predict_proba") and hasattr(est, "decision_function"):
        return ("saturated scores? it has predict_proba: read it through its probabilities, "
                "as_discriminant(model, response='predict_proba')")
    if hasattr(est, "predict_proba"):
        return ("read through log-probabilities? use response='predict_proba'; else its probabilities are constant "
                "around most samples, as for a classifier that interpolates the training set (e.g. 1-NN)")
    return ("its decision_function is constant around most samples: this status fits the training set so closely "
            "(e.g. a very large RBF γ) that Û says little about it")


#: The fitted arrays results may view: read-only from ``fit`` (and after unpickling) on.
_FITTED_ARRAYS = ("X_", "y_", "neighbours_", "neighbour_labels_", "nn_distance_", "X_tilde_")

#: The hyper-parameters :meth:`BoundaryUncertainty.evaluate` reads (the others act in ``fit``).
_EVALUATE_PARAMS = ("weight_tol", "separability", "separability_n0", "pair_at", "chunk_size", "array_backend",
                    "device", "n_jobs")


class BoundaryUncertainty(BaseEstimator):
    """Boundary uncertainty of classifier statuses, Proposal 2 (Û⁽³⁾, eq 40).

    A scikit-learn estimator (``get_params``, ``set_params``, ``clone``): ``fit(X, y)`` does the
    per-training-set work once, ``evaluate(classifier)`` scores one classifier status. Labels may
    be any values (strings, ±1, non-contiguous integers); they are mapped once to codes 0..J−1
    with a :class:`~sklearn.preprocessing.LabelEncoder`.

    Parameters
    ----------
    M : int, default=40
        Neighbourhood size ``|N^M(x)|`` (x and its M − 1 nearest neighbours, eq 26); 2 ≤ M ≤ N.
    K : "aic", int or sequence of int, default="aic"
        Prototypes per class for Î* (§4.4.3): chosen per class by AIC over ``K_range``, or fixed.
        Unused for two classes (Î* = {{1, 2}}).
    perturbation : float, default=0.5
        Amplitude a of T̃: x̃ = x + r ⊙ ||x − x⁽¹⁾||, r ~ U[−a, a] (Alg 1). 0 gives T̃ = T.
    perturbation_mode : {"features", "scalar"}, default="features"
        One draw per feature, or one per sample shared by its features.
    K_range : "auto" or iterable of int, default="auto"
        The K tried per class when ``K="aic"``. ``"auto"``: every K_j below the number of distinct
        samples of the class, AIC computed for all of them from one Ward tree per class and the
        search stopping at AIC's first local maximum; a sequence (e.g. ``PAPER_K_RANGE``, the
        K ∈ {1, 3, ..., 39} of §6.3): those candidates, one K-means each, as in §6.3. See
        :func:`~buviz.uncertainty.prototypes.estimate_true_pairs`.
    kmeans_iter : int, default=20
        i_K, K-means iterations.
    aic_form : {"literal", "isotropic"}, default="literal"
        Eq 48 as printed, or its d-dimensional isotropic version.
    weight_tol : float, default=0.05
        τ of ``separability="threshold"`` (buviz's tolerance reading of eq 39; unused by the other
        rules): the relative threshold under which w_kl is treated as zero (the separability Cases 1
        and 3 of §4.5). Gaussian tails never vanish, so "w_kl = 0" is read on a scale-free quantity,
        the pair's near-boundary kernel mass per sample in units of φ(0),
        ``ω_kl = w_kl / (φ(0) |B̂*(k,l)|)`` (eq 29: each neighbour reading on B(Λ) adds about φ(0);
        k̂(x) sums M of them, so ω_kl lies in [0, M]).
        Measured on ``gmm_separable`` (N = 150 … 2000, 8 seeds, SVC γ = 2⁻⁶ … 2⁴ with zero error
        on T̃, boundary in the empty band): ω ≤ 0.021; boundaries through a class crowd or
        through overlapping classes: ω ≥ 0.6. An absolute threshold is not scale-free: the same
        zero-error SVC got Û 0.15–0.34 at N = 300 and 1.0 at N = 2000 with ``w_kl < 1e-3``.
    chunk_size : int or None, default=None
        Rows of the (N, M) work done at once; None picks about 2·10⁶ array cells per chunk.
    array_backend : {"numpy", "torch"}, default="numpy"
        Where the per-status (N, M) work runs. "torch" runs it with PyTorch on ``device`` (e.g.
        "cuda" for a GPU; PyTorch is then required); results equal the numpy path to rounding.
    device : str, torch.device or None, default=None
        PyTorch device for ``array_backend="torch"`` (default "cuda" if available, else "cpu").
    n_jobs : int, default=2
        Threads for the chunked (N, M) work and the KD-tree query (-1: all cores).
    random_state : int, Generator or None, default=0
        Seeds T̃ and K-means.
    separability : {"literal", "threshold", "shrinkage", "graded"}, default="shrinkage"
        The reading of eq 39's Case 1/3 branch (§4.5): "literal" (eq 39 as printed, the rule of
        :mod:`buviz.reproduce` and the paper's figures) takes the Case 1/3 value only where w_kl = 0
        (:data:`ZERO_WEIGHT`); "threshold" (buviz's tolerance, reported beside it) switches to the
        Case 1/3 value when ω_kl < ``weight_tol`` (discontinuous in ω_kl); "shrinkage" shrinks the pair's near-boundary
        mean toward the Case 1/3 value with weight n_kl / (n_kl + n0), n_kl the effective number of
        near-boundary samples (continuous); "graded" does the same with a Case 1/3 value that falls
        linearly from U_max at no error on the perturbed pair to U_min at the pair's minority share.
        Derivation: :func:`pair_uncertainty`. The default is the second pre-registered study's
        pick (mean regret of the SVC's γ over the paper's ten datasets, fresh seeds: 0.0144 against
        0.0306 for "threshold"; ``docs/model_selection.md``). The whole difference comes from
        Letter Recognition subsampled to 1 500 points (without it: 0.0077 against 0.0076), and on
        the fresh seeds n0 = 30 and the "graded" rule scored lower still (0.0063-0.0069), a
        post-hoc observation that did not change the pick.
    separability_n0 : float, default=10.0
        n0 of ``separability="shrinkage"`` and ``"graded"``: the Case 1/3 value counts as n0
        near-boundary samples.
    pair_at : {"x", "x_tilde"}, default="x"
        Where the classifier's top-2 pair {i, j} of eq 36 is read for J > 2: at the training
        sample x (the paper; the status is then evaluated on T and on T̃) or at its perturbed copy
        x̃ (one evaluation, on T̃ only). The two agree for two classes and when T̃ = T
        (``perturbation=0``); otherwise they differ only at samples whose top-2 pair changes
        between x and x̃, i.e. near a junction of three classes' boundaries.

    Attributes
    ----------
    X_ : ndarray of shape (N, d)
        The training set (the estimator's own copy). This and the other fitted arrays are read-only:
        results hold views of them, and a refit rebinds them instead of writing into them.
    y_ : ndarray of shape (N,)
        Its labels as codes 0..J-1.
    n_classes_ : int
        J.
    classes_ : ndarray
        The original labels, ``classes_[code]``.
    n_features_in_ : int
        d.
    neighbours_ : ndarray of shape (N, M)
        Indices of N^M(x), x itself in column 0.
    neighbour_labels_ : ndarray of shape (N, M)
        Given labels y(x') of the members of N^M(x).
    nn_distance_ : ndarray of shape (N,)
        ||x − x⁽¹⁾||.
    X_tilde_ : ndarray of shape (N, d)
        The perturbed training set T̃.
    true_pairs_ : TruePairEstimate
        Î*, B̂*(k,l) and K_j (:class:`~buviz.uncertainty.prototypes.TruePairEstimate`).
    fit_time_ : float
        Seconds spent in ``fit``.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """

    _parameter_constraints: dict = {
        "M": [Interval("int", 2, None)],
        "K": [Options("aic"), Interval("int", 1, None), SequenceOf(Interval("int", 1, None))],
        "perturbation": [Interval("real", 0, None)],
        "perturbation_mode": [Options(*PERTURBATION_MODES)],
        "K_range": [Options("auto"), SequenceOf(Interval("int", 1, None))],
        "kmeans_iter": [Interval("int", 1, None)],
        "aic_form": [Options(*AIC_FORMS)],
        "weight_tol": [Interval("real", 0, None)],
        "chunk_size": [None, Interval("int", 1, None)],
        "array_backend": [Options("numpy", "torch")],
        "device": [None, InstanceOf(str, description="a torch device name such as 'cpu' or 'cuda'"),
                   Satisfies(_is_torch_device, description="a torch.device")],
        "n_jobs": [None, Options(-1), Interval("int", 1, None)],
        "random_state": RANDOM_STATE,
        "separability": [Options(*SEPARABILITY_RULES)],
        "separability_n0": [Interval("real", 0, None, closed="neither")],
        "pair_at": [Options("x", "x_tilde")],
    }

    def __init__(self, *, M: int = 40, K="aic", perturbation: float = 0.5, perturbation_mode: str = "features",
                 K_range=DEFAULT_K_RANGE, kmeans_iter: int = 20, aic_form: str = "literal",
                 weight_tol: float = TOLERANCE_WEIGHT_TOL, chunk_size: int | None = None, array_backend: str = "numpy",
                 device: str | None = None, n_jobs: int = 2, random_state=0,
                 separability: str = DEFAULT_SEPARABILITY,
                 separability_n0: float = DEFAULT_SEPARABILITY_N0, pair_at: str = "x"):
        self.M = M
        self.K = K
        self.perturbation = perturbation
        self.perturbation_mode = perturbation_mode
        self.K_range = K_range
        self.kmeans_iter = kmeans_iter
        self.aic_form = aic_form
        self.weight_tol = weight_tol
        self.chunk_size = chunk_size
        self.array_backend = array_backend
        self.device = device
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.separability = separability
        self.separability_n0 = separability_n0
        self.pair_at = pair_at

    # -- shared work -------------------------------------------------------------------------
    @fit_context
    def fit(self, X, y) -> BoundaryUncertainty:
        """Do the precomputation shared by all statuses: N^M(x), T̃ and Î* (eq 41-42).

        Parameters
        ----------
        X : array-like of shape (N, d)
            The training set T.
        y : array-like of shape (N,)
            Its labels (any values, at least two classes).

        Returns
        -------
        BoundaryUncertainty
            The fitted estimator (``self``).

        Raises
        ------
        InvalidParameterError
            If a parameter is outside its declared constraints (``_parameter_constraints``), or
            out of range for this training set (``M`` > N, ``K`` above a class's size).
        """
        t0 = time.perf_counter()
        X, y, classes = check_Xy(X, y)
        X = X.copy()  # the estimator's own T (sealed below): results hold views of it, the caller's X may change
        encoder = LabelEncoder().fit(classes)
        y = encoder.transform(classes[y]).astype(np.intp)
        N = len(X)
        M = int(self.M)
        if M > N:
            raise InvalidParameterError(f"M must be <= {N} (the number of training samples), got {M}")
        if self.array_backend == "torch":
            try:
                import torch  # noqa: F401
            except ImportError:
                raise InvalidParameterError("array_backend='torch' needs PyTorch installed") from None
        if not isinstance(self.K, str):
            counts = np.bincount(y)
            ks = np.broadcast_to(np.asarray(self.K), (len(classes),))
            for j, k in enumerate(ks):
                check_int(k, "K", low=1, high=int(counts[j]))
        rng = np.random.default_rng(self.random_state)
        self.X_, self.y_, self.classes_ = X, y, encoder.classes_
        self.label_encoder_ = encoder
        self.n_classes_ = len(classes)
        self.n_features_in_ = X.shape[1]
        self.neighbours_, self.nn_distance_ = neighbourhoods(X, M, workers=self._workers())
        self.neighbour_labels_ = y.astype(np.int8 if self.n_classes_ < 128 else np.intp)[self.neighbours_]
        self.X_tilde_ = perturbed_training_set(X, self.nn_distance_, self.perturbation,
                                               self.perturbation_mode, random_state=rng)
        self.true_pairs_: TruePairEstimate = estimate_true_pairs(
            X, y, self.n_classes_, self.K, K_range=self.K_range, max_iter=self.kmeans_iter,
            aic_form=self.aic_form, random_state=int(rng.integers(2**31)))
        # read-only: results hold views of these arrays, so nothing may write into them (a refit rebinds)
        self._seal_fitted()
        self.fit_time_ = time.perf_counter() - t0
        return self

    def _seal_fitted(self) -> None:
        """Make the fitted arrays read-only (copied once where one views a writeable array)."""
        for name in _FITTED_ARRAYS:
            if name in self.__dict__:
                setattr(self, name, sealed(self.__dict__[name]))

    def __setstate__(self, state):
        # unpickled arrays come back writeable (or as joblib memmaps): seal them once here, so that the
        # results of an estimator shipped to a worker view them instead of copying them per status
        super().__setstate__(state)
        self._seal_fitted()

    def _workers(self) -> int:
        return -1 if self.n_jobs in (None, -1) else max(1, int(self.n_jobs))

    def with_perturbation(self, perturbation: float, perturbation_mode: str | None = None) -> BoundaryUncertainty:
        """Return a fitted copy of this estimator whose T̃ is drawn with another law (Alg 1).

        N^M(x), ||x − x⁽¹⁾|| and Î* do not depend on T̃: the copy shares them with this estimator
        (the same read-only arrays, no work redone). Its T̃ is drawn from
        ``numpy.random.default_rng(random_state)`` exactly as :meth:`fit` draws it, so with an integer
        ``random_state`` it equals the T̃ of ``fit`` with these parameters; Î* is this
        fit's (for J > 2, a fresh ``fit`` seeds K-means after the T̃ draw, which changes with the law).
        This estimator is left unchanged.

        Parameters
        ----------
        perturbation : float
            Amplitude a >= 0 of T̃ (0 gives T̃ = T).
        perturbation_mode : {"features", "scalar"} or None, default=None
            One draw per feature or one per sample; None keeps this estimator's mode.

        Returns
        -------
        BoundaryUncertainty
            A new fitted estimator with ``perturbation`` and ``perturbation_mode`` set.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If this estimator is not fitted.
        InvalidParameterError
            If ``perturbation`` or ``perturbation_mode`` is invalid.

        Examples
        --------
        >>> import numpy as np
        >>> rng = np.random.default_rng(0)
        >>> X, y = rng.normal(size=(60, 2)), np.arange(60) % 2
        >>> bu = BoundaryUncertainty(M=10).fit(X, y)
        >>> wide = bu.with_perturbation(2.0)
        >>> wide.perturbation, wide.neighbours_ is bu.neighbours_, bu.perturbation
        (2.0, True, 0.5)
        """
        check_is_fitted(self, "X_tilde_", msg="This %(name)s instance is not fitted yet: call fit(X, y) before "
                                              "with_perturbation.")
        mode = self.perturbation_mode if perturbation_mode is None else perturbation_mode
        new = {"perturbation": perturbation, "perturbation_mode": mode}
        check_params(new, {k: self._parameter_constraints[k] for k in new}, "BoundaryUncertainty.with_perturbation")
        out = clone(self).set_params(**new)
        out.__dict__.update({k: v for k, v in vars(self).items() if k.endswith("_") and not k.startswith("_")})
        out.X_tilde_ = perturbed_training_set(self.X_, self.nn_distance_, perturbation, mode,
                                              random_state=np.random.default_rng(self.random_state))
        out.X_tilde_ = sealed(out.X_tilde_)
        return out

    # -- per-status work ---------------------------------------------------------------------
    def evaluate(self, discriminant, *, train_scores: bool = False) -> BoundaryUncertaintyResult:
        """Return Û⁽³⁾(Λ) of one classifier status (Ha et al. 2021, eq 27-40).

        The status is evaluated once on T̃ (and, for J > 2 with ``pair_at="x"``, once on T to get
        the classifier's top-2 pair {i(x;Λ), j(x;Λ)} at each training sample; or when
        ``train_scores``).

        Parameters
        ----------
        discriminant : Discriminant, fitted classifier or callable
            A :class:`~buviz.classifiers.Discriminant`, a fitted scikit-learn classifier (fitted
            on the same features and labels as ``fit``; its columns are matched to ``classes_``;
            see :func:`~buviz.classifiers.as_discriminant` for how g is read) or a callable
            X -> (n, J) with columns in ``classes_`` order.
        train_scores : bool, default=False
            Also keep the discriminants on T (``g_train``, hence ``f_train``, the f(T) of Fig 10)
            where Û itself does not need them (J = 2, or ``pair_at="x_tilde"``): one more classifier
            evaluation, on T, not counted in ``classifier_time``.

        Returns
        -------
        BoundaryUncertaintyResult
            Û⁽³⁾(Λ) and everything computed on the way.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If ``fit`` was not called.
        ValueError
            If the classifier does not match the training set.

        Warns
        -----
        FlatDiscriminantWarning
            When f is constant on the neighbourhoods of more than half of T̃.
        FeatureMismatchWarning
            When a scikit-learn classifier's error on T̃ exceeds the constant majority
            prediction's error e₀ by more than half of 1 − e₀ (an under-fitted status predicting
            the minority class stays below that line).

        Notes
        -----
        The result's ``discriminant`` reads a copy of a fitted classifier
        (:meth:`~buviz.classifiers.Discriminant.frozen`): refitting the classifier afterwards does not
        change what the result computes.
        """
        return self._evaluate(discriminant, train_scores=train_scores, copy_discriminant=True)

    def _evaluate(self, discriminant, *, train_scores: bool = False,
                  copy_discriminant: bool = True) -> BoundaryUncertaintyResult:
        """:meth:`evaluate`; the package's sweeps and scorers, which keep only the numbers of a result,
        pass ``copy_discriminant=False`` (no copy of the classifier per status)."""
        check_is_fitted(self, "neighbours_", msg="This %(name)s instance is not fitted yet: call fit(X, y) "
                                                 "on the training set before evaluate.")
        # the hyper-parameters evaluate reads, checked again: set_params may have changed them since fit
        check_params({k: getattr(self, k) for k in _EVALUATE_PARAMS},
                     {k: self._parameter_constraints[k] for k in _EVALUATE_PARAMS}, "BoundaryUncertainty")
        disc = as_discriminant(discriminant, n_classes=self.n_classes_, classes=self.classes_)
        n_in = getattr(disc.estimator, "n_features_in_", None)
        if n_in is not None and n_in != self.n_features_in_:
            raise ValueError(f"the classifier was fitted on {n_in} features, the training set has "
                             f"{self.n_features_in_}")
        if disc.n_classes != self.n_classes_:
            raise ValueError(f"discriminant has {disc.n_classes} classes, the training set has {self.n_classes_}")
        t0 = time.perf_counter()
        J, N = self.n_classes_, len(self.X_)
        g_tilde = disc(self.X_tilde_)
        t_classifier = time.perf_counter() - t0
        if not np.all(np.isfinite(g_tilde)):
            raise ValueError("discriminant returned NaN or infinite values on T̃")
        if J == 2:
            pair_i = np.zeros(N, dtype=np.intp)
            pair_j = np.ones(N, dtype=np.intp)
            f_all = g_tilde[:, 0] - g_tilde[:, 1]
            g_train = None
        elif self.pair_at == "x_tilde":  # eq 36's pair read at x̃: no evaluation on T
            pair_i, pair_j = top2(g_tilde)
            g_train = None
            f_all = None
        else:
            t1 = time.perf_counter()
            g_train = disc(self.X_)
            pair_i, pair_j = top2(g_train)
            t_classifier += time.perf_counter() - t1
            f_all = None
        if train_scores and g_train is None:
            g_train = disc(self.X_)

        chunks = self._chunks(N)
        args = (g_tilde, f_all, self.neighbours_, self.neighbour_labels_, pair_i, pair_j)
        if self.array_backend == "torch":
            from buviz.uncertainty._torch import kernel_on_device

            h, k_i, k_j = kernel_on_device(self.device, chunks, *args)
        else:
            parts = self._map(lambda sl: chunk_kernel(sl, *args), chunks)
            h, k_i, k_j = (np.concatenate([p[n] for p in parts]) for n in range(3))
        k = k_i + k_j
        with np.errstate(invalid="ignore", divide="ignore"):
            posterior = np.where(k > 0, k_i / k, 0.0)  # eq 38
        local = local_uncertainty(posterior)  # eq 37

        tp = self.true_pairs_
        est = np.asarray(tp.pairs)[tp.pair_index]
        pair_match = (pair_i == est[:, 0]) & (pair_j == est[:, 1])
        P = len(tp.pairs)
        mis = (np.argmax(g_tilde, axis=1) != self.y_).astype(float)
        size = np.bincount(tp.pair_index, minlength=P)
        err_tilde = np.bincount(tp.pair_index, weights=mis, minlength=P) / np.maximum(size, 1)
        e3 = case3_error(tp.pair_index, self.y_, P) if self.separability == "graded" else None  # only it reads e³
        pv = pair_uncertainty(k, local, pair_match, tp.pair_index, err_tilde, P, rule=self.separability,
                              weight_tol=self.weight_tol, n0=self.separability_n0, case3_error=e3)  # eq 29-31, 39
        u_pair, w, omega, weights = pv.values, pv.weights, pv.weight_share, pv.sample_weights
        weighted = pv.blend > 0
        p_pair = size / N
        value = float(np.dot(p_pair, u_pair))  # eq 40
        flat_share = float(np.mean(h == 0))
        if flat_share > FLAT_WARN_SHARE:
            advice = _flat_advice(disc.estimator)
            warnings.warn(f"{disc.name or 'the discriminant'} is flat (f constant, h_x = 0) on the neighbourhoods "
                          f"of {100 * flat_share:.0f}% of T̃: Û rests on the remaining samples ({advice}).",
                          FlatDiscriminantWarning, stacklevel=2)
        if disc.estimator is not None:
            baseline = 1.0 - np.bincount(self.y_).max() / N
            if mis.mean() > baseline + 0.5 * (1.0 - baseline):
                warnings.warn(f"{disc.name} misclassifies {100 * mis.mean():.0f}% of T̃, far more than the constant "
                              f"majority prediction ({100 * baseline:.0f}%): was it fitted on the same features "
                              f"as the X given to fit (e.g. raw data against a standardised copy)?",
                              FeatureMismatchWarning, stacklevel=2)
        elapsed = time.perf_counter() - t0
        seal(pair_i, pair_j, pair_match, h, k_i, k_j, k, posterior, local, err_tilde, p_pair, weighted)
        # ^ fresh arrays, handed over (the estimator's own are read-only since fit); the classifier's output
        #   may be an array its caller keeps: copied if writeable, never frozen in place
        g_tilde, g_train = value_array(g_tilde), None if g_train is None else value_array(g_train)
        return BoundaryUncertaintyResult(
            value=value, pairs=tp.pairs, pair_values=u_pair, pair_probabilities=p_pair,
            pair_weights=w, pair_weight_share=omega, pair_error_tilde=err_tilde, pair_weighted=weighted,
            g_tilde=g_tilde, pair_i=pair_i, pair_j=pair_j, true_pair_index=tp.pair_index,
            pair_match=pair_match, bandwidth=h, k_i=k_i, k_j=k_j, k=k, posterior=posterior,
            local_uncertainty=local, near_boundary_weights=weights,
            pair_effective_size=pv.effective_size, pair_blend=pv.blend, pair_case=pv.case,
            evaluate_time=elapsed, classifier_time=t_classifier,
            X=self.X_, y=self.y_, X_tilde=self.X_tilde_, neighbours=self.neighbours_, g_train=g_train,
            discriminant=disc.frozen() if copy_discriminant else disc,  # a later refit cannot reach it
        )

    def _chunks(self, N: int) -> list[slice]:
        M = self.neighbours_.shape[1]
        size = self.chunk_size or max(1, 2_000_000 // M)
        if self.chunk_size is None and self._workers() != 1 and N * M >= 1_000_000:
            size = min(size, max(1, -(-N // 2)))  # at least two chunks, so both cores work (threads cost ~1 ms)
        return [slice(s, min(s + size, N)) for s in range(0, N, size)]

    def _map(self, fn, chunks):
        workers = self._workers()
        if workers == -1:
            import os
            workers = os.cpu_count() or 1
        if workers == 1 or len(chunks) == 1:
            return [fn(c) for c in chunks]
        with ThreadPoolExecutor(workers) as pool:
            return list(pool.map(fn, chunks))

    def neighbourhood_values(self, g_tilde: np.ndarray, pair_i: np.ndarray, pair_j: np.ndarray,
                             rows: slice | np.ndarray = slice(None)) -> np.ndarray:
        """Return the neighbourhood values F of eq 27 on this fitted training set.

        See :func:`neighbourhood_values` (the same with this estimator's N^M(x)).

        Parameters
        ----------
        g_tilde : ndarray of shape (N, J)
            The status's discriminants on T̃.
        pair_i, pair_j : ndarray of shape (N,)
            The classifier's top-2 pair at each training sample.
        rows : slice or ndarray, default=slice(None)
            The training samples (rows of T) to compute.

        Returns
        -------
        ndarray of shape (n_rows, M)
            The neighbourhood values of each requested row.
        """
        return neighbourhood_values(g_tilde, self.neighbours_, pair_i, pair_j, rows)


@dataclass(frozen=True, eq=False)
class BoundaryUncertaintyResult:
    """Everything Proposal 2 computed for one classifier status (Ha et al. 2021, eq 27-40).

    Returned by :meth:`BoundaryUncertainty.evaluate`; per-pair arrays are aligned with ``pairs``
    (Î*), per-sample arrays have length N. The properties ``f_tilde`` (f(x̃;Λ) with the pair at
    x̃), ``f_train`` (f(x;Λ) on T) and ``F`` ((N, M) neighbourhood values, large for big N) are
    computed on first use.

    Parameters
    ----------
    value : float
        Û⁽³⁾(Λ) ∈ [0, 1] (eq 40); 1 is best (U_max), plots show −Û.
    pairs : tuple of tuple of int
        The class pairs (k, l) in Î*.
    pair_values : ndarray
        Û_kl⁽³⁾ (eq 39).
    pair_probabilities : ndarray
        P̂(C_kl) (eq 33-34).
    pair_weights : ndarray
        w_kl (eq 29).
    pair_weight_share : ndarray
        ``ω_kl = w_kl / (φ(0) |B̂*(k,l)|)``, the pair's near-boundary kernel mass per sample in
        units of φ(0) (in [0, M]).
    pair_error_tilde : ndarray
        L̃_tr^kl, the error rate on perturbed B̂*(k,l).
    pair_weighted : ndarray of bool
        True where the near-boundary mean enters Û_kl (λ_kl > 0; the third branch of eq 39: under
        the literal rule w_kl > 0, under the threshold rule ω_kl ≥ weight_tol).
    g_tilde : ndarray of shape (N, J)
        Discriminants on T̃.
    pair_i, pair_j : ndarray of shape (N,)
        The classifier's top-2 pair at x.
    true_pair_index : ndarray of shape (N,)
        Index into ``pairs`` of x's estimated true pair (x ∈ B̂*(k,l)).
    pair_match : ndarray of bool, shape (N,)
        {i(x;Λ), j(x;Λ)} = {î*(x), ĵ*(x)} (eq 18, 36).
    bandwidth : ndarray of shape (N,)
        h_x (eq 32).
    k_i, k_j, k : ndarray of shape (N,)
        k̂^i, k̂^j and k̂ (eq 27-28).
    posterior : ndarray of shape (N,)
        P̂(C_i | x) (eq 38).
    local_uncertainty : ndarray of shape (N,)
        Û(x) (eq 37).
    near_boundary_weights : ndarray of shape (N,)
        The weight of Û(x) in its pair's Û_kl: λ_kl k̂(x)/w_kl (eq 30; λ_kl = ``pair_blend``).
    pair_effective_size : ndarray
        n_eff = (Σ k̂)² / Σ k̂² over B̂*(k,l), Kish's effective number of near-boundary samples.
    pair_blend : ndarray
        λ_kl, the weight of the near-boundary mean in Û_kl (1 − λ_kl: the Case 1/3 value);
        0 or 1 under ``separability="literal"`` and ``"threshold"`` (see :func:`pair_uncertainty`).
    pair_case : ndarray of int
        The dominant separability case of §4.5: 2 where λ_kl ≥ ½, else 1 (no error on the
        perturbed B̂*(k,l)) or 3.
    evaluate_time, classifier_time : float
        Seconds in ``evaluate``, and of which in the classifier.
    X : ndarray of shape (N, d)
        The training set T the status was scored on (read-only).
    y : ndarray of shape (N,)
        Its labels as codes 0..J-1 (read-only).
    X_tilde : ndarray of shape (N, d)
        The perturbed training set T̃ (Alg 1; read-only).
    neighbours : ndarray of shape (N, M)
        Indices of N^M(x), x itself in column 0 (eq 26; read-only).
    g_train : ndarray of shape (N, J) or None
        Discriminants on T where ``evaluate`` computed them (J > 2 with the top-2 pair at x, or
        ``train_scores=True``); else None.
    discriminant : Discriminant
        The scored status, for a display that evaluates it elsewhere (a grid, a test set). The
        result's own numbers never call it again.

    Notes
    -----
    A result is a value: frozen (assigning a field raises ``dataclasses.FrozenInstanceError``),
    holding read-only arrays (its own, or views of the estimator's fitted arrays, which are
    read-only too and only ever rebound by a refit), never a link to the estimator that made it;
    so refitting that estimator, or writing into its attributes, leaves the result unchanged.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """

    value: float
    pairs: list
    pair_values: np.ndarray
    pair_probabilities: np.ndarray
    pair_weights: np.ndarray
    pair_weight_share: np.ndarray
    pair_error_tilde: np.ndarray
    pair_weighted: np.ndarray
    g_tilde: np.ndarray
    pair_i: np.ndarray
    pair_j: np.ndarray
    true_pair_index: np.ndarray
    pair_match: np.ndarray
    bandwidth: np.ndarray
    k_i: np.ndarray
    k_j: np.ndarray
    k: np.ndarray
    posterior: np.ndarray
    local_uncertainty: np.ndarray
    near_boundary_weights: np.ndarray
    pair_effective_size: np.ndarray
    pair_blend: np.ndarray
    pair_case: np.ndarray
    evaluate_time: float
    classifier_time: float
    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    X_tilde: np.ndarray = field(repr=False)
    neighbours: np.ndarray = field(repr=False)
    g_train: np.ndarray | None = field(repr=False)
    discriminant: Discriminant = field(repr=False)

    def __post_init__(self):
        freeze_fields(self)

    @cached_property
    def f_tilde(self) -> np.ndarray:
        """The values f(x̃;Λ) on T̃ with the top-2 pair taken at x̃ (the f(T̃) map), shape (N,)."""
        return sealed(top2_difference(self.g_tilde))

    @cached_property
    def f_train(self) -> np.ndarray:
        """The values f(x;Λ) on T with the top-2 pair taken at x, shape (N,).

        From ``g_train``: a result never calls its classifier again, whatever became of it since.

        Raises
        ------
        ValueError
            If ``evaluate`` did not keep the discriminants on T (J = 2 or ``pair_at="x_tilde"``
            without ``train_scores=True``).
        """
        if self.g_train is None:
            raise ValueError("f_train needs the discriminants on T: evaluate(status, train_scores=True) keeps them")
        return sealed(top2_difference(self.g_train))

    @cached_property
    def F(self) -> np.ndarray:
        """The (N, M) neighbourhood values F of eq 27 (:func:`neighbourhood_values`)."""
        return sealed(neighbourhood_values(self.g_tilde, self.neighbours, self.pair_i, self.pair_j))

    def covariate_shift(self, f_test) -> dict[str, float]:
        """Return how far f(T) and f(T̃) are from f(X_te) (Ha et al. 2021, Fig 10).

        Parameters
        ----------
        f_test : array-like of shape (n_test,)
            f(x;Λ) on a test set, with the top-2 pair taken at each test point
            (:func:`buviz.grid.top2_difference` of the test discriminants).

        Returns
        -------
        dict of str to float
            Two-sample Kolmogorov-Smirnov statistics, keys ``"f(T)"`` and ``"f(T̃)"``.

        Raises
        ------
        InvalidParameterError
            If ``f_test`` is not a non-empty 1-D array.
        """
        from scipy.stats import ks_2samp

        f_test = np.asarray(f_test, dtype=float)
        if f_test.ndim != 1 or len(f_test) == 0:
            raise InvalidParameterError("f_test must be a non-empty 1-D array of f(x;Λ) on test samples")
        return {"f(T)": float(ks_2samp(self.f_train, f_test).statistic),
                "f(T̃)": float(ks_2samp(self.f_tilde, f_test).statistic)}

    def sample_view(self, index: int) -> dict:
        """Return the Fig 4 picture (Ha et al. 2021) for one training sample.

        Parameters
        ----------
        index : int
            The training sample, 0..N-1.

        Returns
        -------
        dict
            Its neighbourhood (``neighbours``), F values, labels, top-2 pair, h_x, k̂^i, k̂^j,
            posterior, Û(x) and near-boundary weight.

        Raises
        ------
        InvalidParameterError
            If ``index`` is out of range.
        """
        index = check_int(index, "index", low=0, high=len(self.k) - 1)
        nbr = self.neighbours[index]
        F = neighbourhood_values(self.g_tilde, self.neighbours, self.pair_i, self.pair_j, np.array([index]))[0]
        return {
            "index": index,
            "neighbours": nbr,
            "F": F,
            "labels": self.y[nbr],
            "pair": (int(self.pair_i[index]), int(self.pair_j[index])),
            "bandwidth": float(self.bandwidth[index]),
            "k_i": float(self.k_i[index]),
            "k_j": float(self.k_j[index]),
            "posterior": float(self.posterior[index]),
            "local_uncertainty": float(self.local_uncertainty[index]),
            "weight": float(self.near_boundary_weights[index]),
        }

    def __repr__(self) -> str:
        return f"BoundaryUncertaintyResult(value={self.value:.4f}, pairs={self.pairs})"
