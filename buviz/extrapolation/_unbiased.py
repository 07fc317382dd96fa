"""The paper's two unbiasedness claims, checked by Monte Carlo on the toy model (§4.1, §3 and §4.3).

Zheng, Achanta & Benjamini (2017) state (§3) that the test accuracy of a marginal classifier trained on k
randomly drawn classes with r training points each is unbiased for the average generalization accuracy
``AGA_{k,r}``, and so is its average over every k-subset of k1 observed classes (AverageTA_k, eq 3); and
(§4.3, after eq 13) that, because of this, the regression estimate

    β̂ = argmin_β Σ_k w_k ((1 − TA_k) − Σ_l β_l H_{l,k})²

is unbiased for β "under any choice of positive weights w_k". β is the coefficient vector of the linear
model (eq 9) ``D̄(u) = Σ_l β_l h_l(u)``, so the claim presupposes that D̄ lies in the span of the basis and
that β is identifiable (the k-by-m matrix H of full column rank; the paper's 10 000-spline fit to 19
accuracies is not), and it holds for the *unconstrained* least-squares estimate, which is linear in the
accuracies. The non-negative fit (β ≥ 0) that the paper's spline uses is not linear: where a true β_l is 0
its estimate is never negative, so it is biased upward.

The toy model's AGA_{k,r} is known exactly (:func:`toy_trained_average_accuracy`), which makes both claims
testable:

- :func:`test_accuracy_bias` -- E[TA_k] and E[AverageTA_k] against AGA_{k,r} for several k and r;
- :func:`regression_bias` -- E[β̂] against β for a basis that contains the true D̄ (toy-model D̄ curves at
  several ρ; the data come from one of them, so β is a unit vector), under several positive weightings,
  for the least-squares and the non-negative fit.

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017, §3, §4.1 and §4.3 (equation numbers are this text's); the
same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.optimize import nnls

from buviz._validation import InvalidParameterError, check_int, check_real

from ._core import _kernel_weights, check_ks
from ._toy import _check_rho, toy_average_risk, toy_trained_average_accuracy

__all__ = ["TA_ESTIMATORS", "WEIGHTINGS", "regression_bias", "test_accuracy_bias"]

#: The estimators of AGA_{k,r} simulated by :func:`test_accuracy_bias`. ``"resubstitution"`` (the
#: accuracy on the training points themselves) is the textbook biased one, shown for contrast.
TA_ESTIMATORS = ("test accuracy", "AverageTA (eq 3)", "resubstitution")
#: Positive weightings w_k of the regression (:func:`regression_bias`), by name.
WEIGHTINGS = {"w = 1": lambda k: np.ones(len(k)), "w = k": lambda k: k.astype(float),
              "w = 1/k": lambda k: 1.0 / k, "w = 1/k²": lambda k: 1.0 / k.astype(float) ** 2}


def _draw(rng, n, k, rho, r_train):
    """Labels, training points (or None) and class centres of n independent k-class toy problems."""
    s = np.sqrt(1.0 - rho**2)
    y = rng.standard_normal((n, k))
    if r_train is None:
        return y, None, rho * y
    train = rho * y[:, :, None] + s * rng.standard_normal((n, k, r_train))
    return y, train, train.mean(axis=2)


def _correct(points, centre):
    """points (n, k, r): is each point's own class centre the nearest? -> (n, k, r) bool."""
    n, k, r = points.shape
    d = np.abs(points.reshape(n, k * r, 1) - centre[:, None, :])                # (n, k r, k)
    own = np.repeat(np.arange(k), r)
    return (np.argmin(d, axis=2) == own[None, :]).reshape(n, k, r)


def _ranks(points, centre):
    """Rank (1 = worst, k = correct) of the true label among the k centres, per point: (n, k r)."""
    n, k, r = points.shape
    d = np.abs(points.reshape(n, k * r, 1) - centre[:, None, :])
    own = np.repeat(np.arange(k), r)
    true = d[:, np.arange(k * r), own][:, :, None]
    return np.count_nonzero(d >= true, axis=2)


def _check_shift(shift):
    return check_real(shift, "shift")


def test_accuracy_bias(ks=(2, 5, 10, 20), r_trains=(1, 5, None), rho: float = 0.7, *, k1: int = 40,
                       r_test: int = 1, n_rep: int = 2000, shift: float = 0.0, random_state=0) -> pd.DataFrame:
    """Monte Carlo of E[TA_k] against the exact AGA_{k,r} of the toy model (§3, Theorem 4.1).

    For each r (training points per class; ``None`` = known centres) and each replicate: ``"test
    accuracy"`` draws k classes, estimates their centres from r training points each and classifies
    ``r_test`` fresh test points per class by the nearest centre; ``"AverageTA (eq 3)"`` draws k1 classes
    once and averages the test accuracy over every k-subset of them (eq 3, exact, from ranks);
    ``"resubstitution"`` classifies the training points themselves (finite r only) -- biased upward.

    Parameters
    ----------
    ks : sequence of int, default=(2, 5, 10, 20)
        Class counts k (each <= ``k1``).
    r_trains : sequence of int or None, default=(1, 5, None)
        Training points per class.
    rho : float, default=0.7
        Correlation ρ of the toy model, in (0, 1).
    k1 : int, default=40
        Observed classes of the eq 3 estimator.
    r_test : int, default=1
        Test points per class.
    n_rep : int, default=2000
        Monte Carlo replicates per (estimator, r); the k share them.
    shift : float, default=0.0
        Added to every estimate: a deliberately biased variant, for checking that a test of
        unbiasedness can fail.
    random_state : int, default=0
        Seed.

    Returns
    -------
    pandas.DataFrame
        One row per estimator, r and k: ``estimator``, ``r_train`` (``"∞"`` for known centres), ``k``,
        ``n_rep``, ``mean``, ``se`` (Monte Carlo standard error), ``truth`` (AGA_{k,r}), ``bias`` and
        ``z = bias / se``.

    Raises
    ------
    InvalidParameterError
        If a parameter is out of range.
    """
    ks = np.unique(check_ks(ks, "ks"))
    rho = _check_rho(rho)
    if rho == 0.0:
        raise InvalidParameterError("rho must be > 0")
    k1 = check_int(k1, "k1", low=int(ks.max()))
    r_test = check_int(r_test, "r_test", low=1)
    n_rep = check_int(n_rep, "n_rep", low=2)
    shift = _check_shift(shift)
    rng = np.random.default_rng(random_state)
    s = np.sqrt(1.0 - rho**2)
    W = _kernel_weights(ks, k1)                                              # eq 3's C(R-1,k-1)/C(k1-1,k-1)
    rows = []
    for r in r_trains:
        r = None if r is None else check_int(r, "r_trains", low=1)
        truth = toy_trained_average_accuracy(ks, rho, r)
        ta = np.empty((n_rep, len(ks)))
        resub = np.empty((n_rep, len(ks)))
        for a, k in enumerate(ks):
            y, train, centre = _draw(rng, n_rep, int(k), rho, r)
            test = rho * y[:, :, None] + s * rng.standard_normal((n_rep, int(k), r_test))
            ta[:, a] = _correct(test, centre).mean(axis=(1, 2))
            if train is not None:
                resub[:, a] = _correct(train, centre).mean(axis=(1, 2))
        rows += _rows("test accuracy", r, ks, ta + shift, truth)
        y, _, centre = _draw(rng, n_rep, k1, rho, r)
        test = rho * y[:, :, None] + s * rng.standard_normal((n_rep, k1, r_test))
        R = _ranks(test, centre)                                             # (n_rep, k1 r_test)
        counts = np.stack([np.bincount(row - 1, minlength=k1) for row in R]).astype(float)
        rows += _rows("AverageTA (eq 3)", r, ks, counts @ W.T / R.shape[1] + shift, truth)
        if r is not None:
            rows += _rows("resubstitution", r, ks, resub + shift, truth)
    return pd.DataFrame(rows)


def _rows(name, r, ks, values, truth):
    mean = values.mean(axis=0)
    se = values.std(axis=0, ddof=1) / np.sqrt(len(values))
    bias = mean - truth
    return [{"estimator": name, "r_train": "∞" if r is None else str(r), "k": int(k), "n_rep": len(values),
             "mean": float(mn), "se": float(e), "truth": float(t), "bias": float(b),
             "z": float(b / e) if e > 0 else (0.0 if b == 0 else np.inf)}
            for k, mn, e, t, b in zip(ks, mean, se, truth, bias, strict=True)]


def regression_bias(rho: float = 0.7, dictionary=(0.3, 0.7, 0.95), weightings=tuple(WEIGHTINGS), *, k1: int = 20,
                    r_test: int = 5, n_rep: int = 2000, shift: float = 0.0, random_state=0) -> pd.DataFrame:
    """Monte Carlo of E[β̂] against β for the moment method's regression (§4.3, after eq 13).

    The basis is the toy model's own D̄ at the correlations of ``dictionary``, ``h_l(u) = D̄_{ρ_l}(u)``,
    so ``H_{l,k} = AvRisk_k(ρ_l)`` (:func:`toy_average_risk`); the data come from the toy model's Bayes rule
    at ``rho``, one of them, so eq 9 holds with ``β_l = 1{ρ_l = rho}``. Each replicate draws k1 classes
    with ``r_test`` test points each, computes AverageTA_k at k = 2..k1 (eq 3, exact from ranks) and fits
    β̂ by weighted least squares (the paper's estimate, linear in the accuracies) and by non-negative least
    squares (β ≥ 0, as the paper's spline fit), for every weighting.

    Parameters
    ----------
    rho : float, default=0.7
        The data's correlation; must be one of ``dictionary``.
    dictionary : sequence of float, default=(0.3, 0.7, 0.95)
        Correlations whose D̄ form the basis (distinct, in (0, 1)).
    weightings : sequence of str, default=all of :data:`WEIGHTINGS`
        Names of the positive weightings w_k.
    k1 : int, default=20
        Observed classes (the regression uses k = 2..k1).
    r_test : int, default=5
        Test points per class.
    n_rep : int, default=2000
        Monte Carlo replicates (shared by every weighting and fit).
    shift : float, default=0.0
        Added to every observed accuracy before the fit: a deliberately biased variant.
    random_state : int, default=0
        Seed.

    Returns
    -------
    pandas.DataFrame
        One row per weighting, fit (``"least squares"``, ``"non-negative"``) and basis function:
        ``weighting``, ``fit``, ``rho_l``, ``beta`` (the true β_l), ``n_rep``, ``mean``, ``se``, ``bias``, ``z``.

    Raises
    ------
    InvalidParameterError
        If ``rho`` is not in ``dictionary``, a weighting is unknown, or a parameter is out of range.
    """
    rho = _check_rho(rho)
    dic = np.array([_check_rho(r) for r in dictionary])
    if len(dic) < 1 or len(np.unique(dic)) != len(dic) or np.any(dic == 0):
        raise InvalidParameterError(f"dictionary must hold distinct correlations in (0, 1), got {dictionary!r}")
    if not np.any(np.isclose(dic, rho, rtol=0, atol=1e-12)):
        raise InvalidParameterError(f"rho must be one of dictionary {tuple(dic)} (eq 9 must hold), got {rho}")
    unknown = [w for w in weightings if w not in WEIGHTINGS]
    if unknown or not weightings:
        raise InvalidParameterError(f"weightings must be among {tuple(WEIGHTINGS)}, got {weightings!r}")
    k1 = check_int(k1, "k1", low=len(dic) + 1)
    r_test = check_int(r_test, "r_test", low=1)
    n_rep = check_int(n_rep, "n_rep", low=2)
    shift = _check_shift(shift)
    ks = np.arange(2, k1 + 1)
    H = np.column_stack([toy_average_risk(ks, r) for r in dic])              # (k1 - 1, L)
    beta = np.isclose(dic, rho, rtol=0, atol=1e-12).astype(float)
    rng = np.random.default_rng(random_state)
    s = np.sqrt(1.0 - rho**2)
    y, _, centre = _draw(rng, n_rep, k1, rho, None)
    test = rho * y[:, :, None] + s * rng.standard_normal((n_rep, k1, r_test))
    R = _ranks(test, centre)
    counts = np.stack([np.bincount(row - 1, minlength=k1) for row in R]).astype(float)
    risk = 1.0 - (counts @ _kernel_weights(ks, k1).T / R.shape[1] + shift)   # (n_rep, k1 - 1)
    rows = []
    for name in weightings:
        sw = np.sqrt(WEIGHTINGS[name](ks))
        A = H * sw[:, None]
        ls = np.linalg.lstsq(A, (risk * sw).T, rcond=None)[0].T               # (n_rep, L)
        nn = np.array([nnls(A, b * sw)[0] for b in risk])
        for fit, est in (("least squares", ls), ("non-negative", nn)):
            mean = est.mean(axis=0)
            se = est.std(axis=0, ddof=1) / np.sqrt(n_rep)
            for j in range(len(dic)):
                b = mean[j] - beta[j]
                rows.append({"weighting": name, "fit": fit, "rho_l": float(dic[j]), "beta": float(beta[j]),
                             "n_rep": n_rep, "mean": float(mean[j]), "se": float(se[j]), "bias": float(b),
                             "z": float(b / se[j]) if se[j] > 0 else (0.0 if b == 0 else np.inf)})
    return pd.DataFrame(rows)
