"""Ranks, test accuracy (eq 1-2) and the exact subsampling estimate AverageTA_k (eq 3).

Notation follows Zheng, Achanta & Benjamini, *Extrapolating expected accuracies for multi-class
classification* (manuscript, 2017): ``k1`` observed classes, ``r2`` test points per class, margin
matrix ``M[i, j, l]`` = score of class ``l`` at the ``j``-th test point of class ``i``.

Rank convention: ``R_iji = sum_m I{M_iji >= M_ijm}`` **including** ``m = i``, so the rank of
the correct label is ``k1`` exactly when it is predicted (the printed sum over ``m != l`` is
inconsistent with the text's own claim that the top rank is ``k1``).

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017 (equation and section numbers are this text's); the
same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from buviz._validation import InvalidParameterError

from .._math import log_comb
from .._validation import check_int

__all__ = [
    "ranks_from_margins",
    "test_accuracy",
    "average_accuracy_from_ranks",
    "average_accuracy",
    "average_accuracy_bruteforce",
    "check_ks",
    "default_ks",
]


def check_ks(ks, name: str = "ks", *, k_max: int | None = None, low: int = 2) -> np.ndarray:
    """Validate a scalar or 1-D sequence of class counts ``k``; return a 1-D int array.

    Parameters
    ----------
    ks : int or sequence of int
        Class counts.
    name : str, default="ks"
        The parameter's name, for the message.
    k_max : int, optional
        Largest allowed k (e.g. ``k1`` in eq 3).
    low : int, default=2
        Smallest allowed k (``k < 2`` is meaningless: one class is always right).

    Returns
    -------
    ndarray of int
        The class counts, 1-D.

    Raises
    ------
    InvalidParameterError
        Naming ``name`` when an entry is not an integer or is out of range.
    """
    try:
        arr = np.asarray(ks)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"{name} must be an integer or a 1-D sequence of integers, got {ks!r}") from None
    if arr.ndim > 1 or arr.size == 0:
        raise InvalidParameterError(f"{name} must be an integer or a non-empty 1-D sequence of integers, got {ks!r}")
    out = np.array([check_int(v, name, low=low, high=k_max) for v in np.atleast_1d(arr).tolist()],
                   dtype=np.int64)
    return out


def check_margins(margins, labels) -> tuple[np.ndarray, np.ndarray]:
    """Validate a margin matrix (n_test, k1) and its true-label indexes; ValueError naming the problem."""
    M = np.asarray(margins, dtype=float)
    if M.ndim != 2 or M.shape[0] == 0:
        raise InvalidParameterError(f"margins must be a non-empty 2-D array (n_test, k1), got shape {M.shape}")
    if M.shape[1] < 2:
        raise InvalidParameterError(f"margins must hold at least 2 observed classes (columns), got {M.shape[1]}")
    if not np.all(np.isfinite(M)):
        raise InvalidParameterError("margins contains NaN or infinite values")
    return M, _check_labels(labels, M.shape)


def ranks_from_margins(margins, labels, *, ties: str = "max", random_state=0) -> np.ndarray:
    """Return the rank of the true label among all ``k1`` classes for each test point (above eq 2).

    Parameters
    ----------
    margins : array (n_test, k1)
        Score ``m_l(x)`` of every observed class ``l`` at each test point (higher = more likely).
    labels : array (n_test,)
        Index ``0 .. k1-1`` of the true class of each test point.
    ties : {"max", "random"}, default="max"
        ``"max"``: ``R = #{m : M_true >= M_m}`` (the project's convention; ties count in favour of the true
        label). ``"random"``: ties are broken by a random priority order (drawn with
        ``random_state``), which is an honest tie-breaking rule -- eq 3 then stays exact for it.
        Use ``"random"`` for scores with many ties (k-NN vote shares).
    random_state : int, Generator or None, default=0
        Seed of the random priority order of ``ties="random"``.

    Returns
    -------
    ndarray of int, shape (n_test,)
        Ranks in ``1 .. k1``; 1 = worst, ``k1`` = correctly classified.

    Raises
    ------
    InvalidParameterError
        If ``margins`` or ``labels`` is malformed or ``ties`` unknown.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    M, y = check_margins(margins, labels)
    true = M[np.arange(len(y)), y][:, None]
    if ties == "max":
        return np.count_nonzero(M <= true, axis=1).astype(np.int64)
    if ties == "random":
        rng = np.random.default_rng(random_state)
        below = np.count_nonzero(M < true, axis=1)
        tied = np.count_nonzero(M == true, axis=1) - 1          # other classes tied with the truth
        return (below + 1 + rng.integers(0, tied + 1)).astype(np.int64)
    raise InvalidParameterError(f"ties must be 'max' or 'random', got {ties!r}")


def _check_labels(labels, shape) -> np.ndarray:
    y = np.asarray(labels)
    if y.ndim != 1 or len(y) != shape[0]:
        raise InvalidParameterError(f"labels must be 1-D of length n_test={shape[0]}, got shape {y.shape}")
    if y.size and not np.issubdtype(y.dtype, np.integer):
        if not (np.issubdtype(y.dtype, np.floating) and np.all(np.mod(y, 1) == 0)):
            raise InvalidParameterError("labels must hold integer class indexes 0 .. k1-1")
    y = y.astype(np.int64)
    if y.size and (y.min() < 0 or y.max() >= shape[1]):
        raise InvalidParameterError(f"labels must lie in 0 .. k1-1 = {shape[1] - 1}")
    return y


def test_accuracy(ranks, k1: int | None = None) -> float:
    """Return the test accuracy TA = (1 / (r2 k1)) sum_ij I{R_iji = k1} (eq 1-2).

    Parameters
    ----------
    ranks : array-like of int
        Ranks of the true labels, shape (k1, r2), or any shape with ``k1`` given.
    k1 : int, optional
        Number of observed classes; required unless ``ranks`` is 2-D.

    Returns
    -------
    float
        The share of test points whose true label has the top rank.

    Raises
    ------
    InvalidParameterError
        If ``k1`` is missing for ranks that are not 2-D.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    r = np.asarray(ranks)
    if k1 is None:
        if r.ndim != 2:
            raise InvalidParameterError("k1 is required when ranks is not a (k1, r2) array")
        k1 = r.shape[0]
    return float(np.mean(r == k1))


def _kernel_weights(ks: np.ndarray, k1: int) -> np.ndarray:
    """W[a, r-1] = C(r-1, k_a-1) / C(k1-1, k_a-1) for r = 1..k1 (log-space, no overflow)."""
    r = np.arange(1, k1 + 1, dtype=float)
    kk = ks[:, None].astype(float)
    logw = log_comb(r[None, :] - 1, kk - 1) - log_comb(k1 - 1, kk - 1)
    return np.exp(logw)


def average_accuracy_from_ranks(ranks, ks, *, k1: int | None = None, groups=None) -> np.ndarray:
    """Return the exact subsampling estimate AverageTA_k of eq 3, for every k in ``ks``.

    ``AverageTA_k = [1/C(k1,k)] [1/(r2 k)] sum_i sum_j C(R_iji - 1, k - 1)``, the test accuracy
    averaged over **all** C(k1, k) subsets of k of the k1 observed classes, computed without
    resampling. Using ``k C(k1, k) = k1 C(k1-1, k-1)`` it is the mean over test points of
    ``C(R-1, k-1)/C(k1-1, k-1)``, evaluated in log space with ``gammaln`` (safe for k1 in the
    thousands). The work is O(k1 * len(ks)) after a histogram of the ranks.

    Parameters
    ----------
    ranks : int array (k1, r2), or 1-D with ``k1`` given
        Rank of the true label among the k1 classes (1 = worst, k1 = correct; see
        :func:`ranks_from_margins`).
    ks : int or sequence of int
        Class counts, each in 2..k1.
    k1 : int, optional
        Number of observed classes; required for 1-D ``ranks``.
    groups : array (n_test,), optional
        True class of each entry of a 1-D ``ranks``: classes are then weighted equally even if
        they hold different numbers of test points (eq 3 assumes r2 points per class).

    Returns
    -------
    float or ndarray
        AverageTA_k for every k of ``ks`` (a float if ``ks`` is a scalar).

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    r = np.asarray(ranks)
    if r.size == 0:
        raise InvalidParameterError("ranks is empty")
    if not (np.issubdtype(r.dtype, np.integer) or (np.issubdtype(r.dtype, np.floating)
                                                   and np.all(np.mod(r, 1) == 0))):
        raise InvalidParameterError("ranks must be integers in 1..k1")
    if k1 is None:
        if r.ndim != 2:
            raise InvalidParameterError("k1 is required when ranks is not a (k1, r2) array")
        k1 = r.shape[0]
    k1 = check_int(k1, "k1", low=2)
    r = r.astype(np.int64).ravel()
    if r.min() < 1 or r.max() > k1:
        raise InvalidParameterError(f"ranks must lie in 1..k1 = {k1}")
    scalar = np.ndim(ks) == 0
    ks_arr = check_ks(ks, "ks", k_max=k1)
    W = _kernel_weights(ks_arr, k1)                         # (len(ks), k1)
    if groups is None:
        counts = np.bincount(r - 1, minlength=k1).astype(float)
        out = W @ counts / r.size
    else:
        g = np.asarray(groups)
        if g.shape != r.shape:
            raise InvalidParameterError("groups must have one entry per rank")
        _, gi = np.unique(g, return_inverse=True)
        n_g = gi.max() + 1
        per_point = W[:, r - 1]                             # (len(ks), n)
        sums = np.zeros((len(ks_arr), n_g))
        np.add.at(sums.T, gi, per_point.T)
        out = (sums / np.bincount(gi)[None, :]).mean(axis=1)
    return float(out[0]) if scalar else out


def average_accuracy(margins, labels, ks, *, ties: str = "max", random_state=0) -> np.ndarray:
    """Return AverageTA_k (eq 3) straight from a margin matrix; classes are weighted equally.

    Parameters
    ----------
    margins : array-like of shape (n_test, k1)
        Score of every observed class at each test point.
    labels : array-like of shape (n_test,)
        Index 0..k1-1 of the true class of each test point.
    ks : int or sequence of int
        Class counts, each in 2..k1.
    ties : {"max", "random"}, default="max"
        See :func:`ranks_from_margins`.
    random_state : int, Generator or None, default=0
        Seed of ``ties="random"``.

    Returns
    -------
    float or ndarray
        AverageTA_k for every k (a float if ``ks`` is a scalar).

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    M = np.asarray(margins, dtype=float)
    ranks = ranks_from_margins(M, labels, ties=ties, random_state=random_state)
    return average_accuracy_from_ranks(ranks, ks, k1=M.shape[1], groups=np.asarray(labels))


def average_accuracy_bruteforce(margins, labels, k: int) -> float:
    """Return the test accuracy averaged over every k-subset of the classes, by enumeration.

    For checks of eq 3: for each subset S the classifier restricted to S is evaluated on the test
    points of S's classes (``argmax`` over S, ties in favour of the truth as in ``ties="max"``).

    Parameters
    ----------
    margins : array-like of shape (n_test, k1)
        Score of every observed class at each test point.
    labels : array-like of shape (n_test,)
        Index 0..k1-1 of the true class of each test point.
    k : int
        Subset size, 2..k1.

    Returns
    -------
    float
        The average accuracy.

    References
    ----------
    C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
    classification", manuscript, April 21, 2017 (equation and section numbers are this text's);
    the same abstract as arXiv:1606.05228. https://arxiv.org/abs/1606.05228
    """
    M = np.asarray(margins, dtype=float)
    y = _check_labels(labels, M.shape)
    k1 = M.shape[1]
    k = check_int(k, "k", low=2, high=k1)
    accs = []
    for S in combinations(range(k1), k):
        S = np.array(S)
        per_class = []
        for c in S:
            rows = M[y == c][:, S]
            true = M[y == c, c][:, None]
            per_class.append(np.mean(np.all(true >= rows, axis=1)))
        accs.append(np.mean(per_class))
    return float(np.mean(accs))


def default_ks(k1: int, n: int = 25) -> np.ndarray:
    """Return the k at which AverageTA_k is fitted by default.

    All of 2..k1 when k1 <= n, else ``n`` values evenly spaced from 2 to k1 (the ClassEx
    simulations use k = 20, 40, ..., 500).

    Parameters
    ----------
    k1 : int
        Number of observed classes.
    n : int, default=25
        Largest number of class counts.

    Returns
    -------
    ndarray of int
        The class counts.
    """
    k1 = check_int(k1, "k1", low=2)
    if k1 - 1 <= n:
        return np.arange(2, k1 + 1)
    return np.unique(np.round(np.linspace(2, k1, n)).astype(np.int64))
