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
from sklearn.base import BaseEstimator
from sklearn.preprocessing import LabelEncoder
from sklearn.utils.validation import check_is_fitted

from buviz._math import read_only
from buviz._validation import InvalidParameterError, check_int, check_real, check_Xy
from buviz.classifiers import Discriminant, as_discriminant, boundary_score
from buviz.grid import top2, top2_difference
from buviz.uncertainty.neighbours import neighbourhoods, perturbed_training_set
from buviz.uncertainty.prototypes import DEFAULT_K_RANGE, TruePairEstimate, estimate_true_pairs

__all__ = ["BoundaryUncertainty", "BoundaryUncertaintyResult", "U_MAX", "U_MIN", "local_uncertainty",
           "silverman_bandwidth", "neighbourhood_values", "FlatDiscriminantWarning", "FeatureMismatchWarning"]

U_MAX = 1.0
U_MIN = 0.0
_SQRT_2PI = np.sqrt(2 * np.pi)
_PHI0 = 1.0 / _SQRT_2PI  # φ(0), the kernel value of a sample lying on B(Λ)
#: Share of T̃ with a flat neighbourhood (h_x = 0) above which :class:`FlatDiscriminantWarning` is raised.
FLAT_WARN_SHARE = 0.5


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


def quartile_positions(M: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted-row positions (lo, hi) and weights of Q1 and Q3 with numpy's linear interpolation."""
    q = np.array([0.25, 0.75]) * (M - 1)
    lo = np.floor(q).astype(int)
    return lo, np.minimum(lo + 1, M - 1), q - lo


def _row_quartile_gap(F: np.ndarray) -> np.ndarray:
    """Row-wise IQR (for M ~ 40 a row sort beats np.percentile)."""
    S = np.sort(F, axis=1)
    lo, hi, frac = quartile_positions(F.shape[1])
    q1, q3 = (S[:, lo[n]] * (1 - frac[n]) + S[:, hi[n]] * frac[n] for n in (0, 1))
    return q3 - q1


def silverman_bandwidth(F: np.ndarray) -> np.ndarray:
    """Return Silverman's bandwidth h_x = 0.9 · min(σ̂_x, IQR_x / 1.34) · M^(−1/5) per row (eq 32).

    Ha et al. (2021) typeset M^(−1/5) inside the min; the standard rule (and this code) has it
    outside. Where min(σ̂, IQR/1.34) = 0 the rule falls back to σ̂ (§4.4.2); a row with σ̂ = 0
    gets h = 0.

    Parameters
    ----------
    F : ndarray of shape (N, M)
        Neighbourhood values f(x̃'_m; Λ), one row per training sample.

    Returns
    -------
    ndarray of shape (N,)
        h_x, the kernel bandwidth of each row.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    M = F.shape[1]
    sd = F.std(axis=1, ddof=1)
    spread = np.minimum(sd, _row_quartile_gap(F) / 1.34)
    spread = np.where(spread > 0, spread, sd)
    return 0.9 * spread * M ** (-0.2)


def neighbourhood_values(g_tilde: np.ndarray, neighbours: np.ndarray, pair_i: np.ndarray, pair_j: np.ndarray,
                         rows: slice | np.ndarray = slice(None)) -> np.ndarray:
    """Return F[x, m] = f_{i(x;Λ) j(x;Λ)}(x̃'_m; Λ) for x'_m ∈ N^M(x), the argument of eq 27.

    Ha et al. (2021), eq 27: the discriminant difference of the classifier's top-2 pair at x, read at
    the perturbed members x̃'_m of x's neighbourhood.

    Parameters
    ----------
    g_tilde : ndarray of shape (N, J)
        The status's discriminants on T̃.
    neighbours : ndarray of shape (N, M)
        Indices of N^M(x), x itself in column 0.
    pair_i, pair_j : ndarray of shape (N,)
        The classifier's top-2 pair at each training sample.
    rows : slice or ndarray, default=slice(None)
        The training samples (rows of T) to compute.

    Returns
    -------
    ndarray of shape (n_rows, M)
        The neighbourhood values of each requested row.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    nbr = neighbours[rows]
    if g_tilde.shape[1] == 2:
        return (g_tilde[:, 0] - g_tilde[:, 1])[nbr]
    return g_tilde[nbr, pair_i[rows][:, None]] - g_tilde[nbr, pair_j[rows][:, None]]


@dataclass
class _Chunk:
    h: np.ndarray
    k_i: np.ndarray
    k_j: np.ndarray


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
        Relative threshold under which w_kl is treated as zero (eq 39, the separability Cases 1 and
        3 of §4.5). Gaussian tails never vanish, so "w_kl = 0" is read on a scale-free quantity,
        the effective share of the pair's samples lying on B(Λ),
        ``ω_kl = w_kl / (φ(0) |B̂*(k,l)|)``: each sample on B(Λ) adds about φ(0) to w_kl (eq 29).
        Measured on ``gmm_separable`` (N = 150 … 2000, 8 seeds, SVC γ = 2⁻⁶ … 2⁴ with zero error
        on T̃, boundary in the empty band): ω ≤ 0.021; boundaries through a class crowd or
        through overlapping classes: ω ≥ 0.6. An absolute threshold is not scale-free: the same
        zero-error SVC got Û 0.15–0.34 at N = 300 and 1.0 at N = 2000 with ``w_kl < 1e-3``.
    chunk_size : int or None, default=None
        Rows of the (N, M) work done at once; None picks about 2·10⁶ array cells per chunk.
    array_backend : {"numpy", "torch"}, default="numpy"
        Where the per-status (N, M) work runs. "torch" runs it with PyTorch on ``device`` (e.g.
        "cuda" for a GPU; PyTorch is then required); results equal the numpy path to rounding.
    device : str or None, default=None
        PyTorch device for ``array_backend="torch"`` (default "cuda" if available, else "cpu").
    n_jobs : int, default=2
        Threads for the chunked (N, M) work and the KD-tree query (-1: all cores).
    random_state : int, Generator or None, default=0
        Seeds T̃ and K-means.

    Attributes
    ----------
    X_ : ndarray of shape (N, d)
        The training set.
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

    def __init__(self, M: int = 40, K="aic", perturbation: float = 0.5, perturbation_mode: str = "features",
                 *, K_range=DEFAULT_K_RANGE, kmeans_iter: int = 20, aic_form: str = "literal",
                 weight_tol: float = 0.05, chunk_size: int | None = None, array_backend: str = "numpy",
                 device: str | None = None, n_jobs: int = 2, random_state=0):
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

    # -- shared work -------------------------------------------------------------------------
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
            If a parameter is out of range (e.g. ``M`` > N) or an unknown option.
        """
        t0 = time.perf_counter()
        X, y, classes = check_Xy(X, y)
        encoder = LabelEncoder().fit(classes)
        y = encoder.transform(classes[y]).astype(np.intp)
        N = len(X)
        M = check_int(self.M, "M", low=2)
        if M > N:
            raise InvalidParameterError(f"M must be <= {N} (the number of training samples), got {M}")
        check_real(self.weight_tol, "weight_tol", low=0.0)
        if self.chunk_size is not None:
            check_int(self.chunk_size, "chunk_size", low=1)
        if self.array_backend not in ("numpy", "torch"):
            raise InvalidParameterError(f"array_backend must be 'numpy' or 'torch', got {self.array_backend!r}")
        if self.array_backend == "torch":
            try:
                import torch  # noqa: F401
            except ImportError:
                raise ValueError("array_backend='torch' needs PyTorch installed") from None
        if isinstance(self.K, str):
            if self.K != "aic":
                raise InvalidParameterError(f"K must be 'aic', an int or one int per class, got {self.K!r}")
        else:
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
        self.fit_time_ = time.perf_counter() - t0
        return self

    def _workers(self) -> int:
        return -1 if self.n_jobs in (None, -1) else max(1, int(self.n_jobs))

    # -- per-status work ---------------------------------------------------------------------
    def evaluate(self, discriminant) -> BoundaryUncertaintyResult:
        """Return Û⁽³⁾(Λ) of one classifier status (Ha et al. 2021, eq 27-40).

        The status is evaluated once on T̃ (and, for J > 2, once on T to get the classifier's
        top-2 pair {i(x;Λ), j(x;Λ)} at each training sample).

        Parameters
        ----------
        discriminant : Discriminant, fitted classifier or callable
            A :class:`~buviz.classifiers.Discriminant`, a fitted scikit-learn classifier (fitted
            on the same features and labels as ``fit``; its columns are matched to ``classes_``;
            see :func:`~buviz.classifiers.as_discriminant` for how g is read) or a callable
            X -> (n, J) with columns in ``classes_`` order.

        Returns
        -------
        BoundaryUncertaintyResult
            Û⁽³⁾(Λ) and everything computed on the way.

        Raises
        ------
        ValueError
            If ``fit`` was not called, or the classifier does not match the training set.

        Warns
        -----
        FlatDiscriminantWarning
            When f is constant on the neighbourhoods of more than half of T̃.
        FeatureMismatchWarning
            When a scikit-learn classifier's error on T̃ exceeds the constant majority
            prediction's error e₀ by more than half of 1 − e₀ (an under-fitted status predicting
            the minority class stays below that line).
        """
        check_is_fitted(self, "neighbours_", msg="This %(name)s instance is not fitted yet: call fit(X, y) "
                                                 "on the training set before evaluate.")
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
        else:
            t1 = time.perf_counter()
            g_train = disc(self.X_)
            pair_i, pair_j = top2(g_train)
            t_classifier += time.perf_counter() - t1
            f_all = None

        chunks = self._chunks(N)
        if self.array_backend == "torch":
            from buviz.uncertainty._torch import chunk_work_torch

            parts = [_Chunk(*chunk_work_torch(self, sl, g_tilde, f_all, pair_i, pair_j)) for sl in chunks]
        else:
            parts = self._map(lambda sl: self._chunk_work(sl, g_tilde, f_all, pair_i, pair_j), chunks)
        h = np.concatenate([p.h for p in parts])
        k_i = np.concatenate([p.k_i for p in parts])
        k_j = np.concatenate([p.k_j for p in parts])
        k = k_i + k_j
        with np.errstate(invalid="ignore", divide="ignore"):
            posterior = np.where(k > 0, k_i / k, 0.0)  # eq 38
        local = local_uncertainty(posterior)  # eq 37

        tp = self.true_pairs_
        est = np.asarray(tp.pairs)[tp.pair_index]
        pair_match = (pair_i == est[:, 0]) & (pair_j == est[:, 1])
        P = len(tp.pairs)
        w = np.bincount(tp.pair_index, weights=k, minlength=P)  # eq 29
        mis = (np.argmax(g_tilde, axis=1) != self.y_).astype(float)
        size = np.bincount(tp.pair_index, minlength=P)
        err_tilde = np.bincount(tp.pair_index, weights=mis, minlength=P) / np.maximum(size, 1)
        # "w_kl = 0" read scale-free: ω_kl = w_kl / (φ(0) |B̂*(k,l)|) below weight_tol (see weight_tol)
        omega = w / (_PHI0 * np.maximum(size, 1))
        weighted = (omega >= self.weight_tol) & (w > np.finfo(float).tiny)
        w_safe = np.where(weighted, w, 1.0)
        weights = np.where(weighted[tp.pair_index], k / w_safe[tp.pair_index], 0.0)
        contribution = np.bincount(tp.pair_index, weights=weights * local * pair_match, minlength=P)
        u_pair = np.where(weighted, contribution, np.where(err_tilde == 0, U_MAX, U_MIN))  # eq 39
        p_pair = size / N
        value = float(np.dot(p_pair, u_pair))  # eq 40
        flat_share = float(np.mean(h == 0))
        if flat_share > FLAT_WARN_SHARE:
            warnings.warn(f"{disc.name or 'the discriminant'} is flat (f constant, h_x = 0) on the neighbourhoods "
                          f"of {100 * flat_share:.0f}% of T̃: Û rests on the remaining samples (saturated scores; "
                          f"a probabilistic classifier is best read through its probabilities, "
                          f"response='predict_proba').", FlatDiscriminantWarning, stacklevel=2)
        if disc.estimator is not None:
            baseline = 1.0 - np.bincount(self.y_).max() / N
            if mis.mean() > baseline + 0.5 * (1.0 - baseline):
                warnings.warn(f"{disc.name} misclassifies {100 * mis.mean():.0f}% of T̃, far more than the constant "
                              f"majority prediction ({100 * baseline:.0f}%): was it fitted on the same features "
                              f"as the X given to fit (e.g. raw data against a standardised copy)?",
                              FeatureMismatchWarning, stacklevel=2)
        elapsed = time.perf_counter() - t0
        return BoundaryUncertaintyResult(
            value=value, pairs=list(tp.pairs), pair_values=u_pair, pair_probabilities=p_pair,
            pair_weights=w, pair_weight_share=omega, pair_error_tilde=err_tilde, pair_weighted=weighted,
            g_tilde=g_tilde, pair_i=pair_i, pair_j=pair_j, true_pair_index=tp.pair_index.copy(),
            pair_match=pair_match, bandwidth=h, k_i=k_i, k_j=k_j, k=k, posterior=posterior,
            local_uncertainty=local, near_boundary_weights=weights,
            evaluate_time=elapsed, classifier_time=t_classifier,
            X=read_only(self.X_), y=read_only(self.y_), X_tilde=read_only(self.X_tilde_),
            neighbours=read_only(self.neighbours_), g_train=None if g_train is None else read_only(g_train),
            discriminant=disc,
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

    def _chunk_work(self, sl: slice, g_tilde, f_all, pair_i, pair_j) -> _Chunk:
        nbr = self.neighbours_[sl]
        F = f_all[nbr] if f_all is not None else self.neighbourhood_values(g_tilde, pair_i, pair_j, sl)
        h = silverman_bandwidth(F)
        # Gaussian kernel φ((0 − F)/h_x) (eq 27), computed in place; rows with h_x = 0 get k̂ = 0 (§4.4.2)
        inv_h = np.divide(1.0, h, out=np.zeros_like(h), where=h > 0)
        Z = np.multiply(F, inv_h[:, None], out=F if f_all is None else None)
        np.square(Z, out=Z)
        Z *= -0.5
        np.exp(Z, out=Z)
        Z *= (h > 0)[:, None] / _SQRT_2PI
        labels = self.neighbour_labels_[sl]
        k_all = Z.sum(1)
        if self.n_classes_ == 2:
            k_j = np.einsum("ij,ij->i", Z, labels)  # labels are 0/1: the class-1 share
            k_i = np.maximum(k_all - k_j, 0.0)
        else:
            k_i = np.einsum("ij,ij->i", Z, labels == pair_i[sl, None])
            k_j = np.einsum("ij,ij->i", Z, labels == pair_j[sl, None])
        return _Chunk(h, k_i, k_j)


@dataclass(eq=False)
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
    pairs : list of tuple of int
        The class pairs (k, l) in Î*.
    pair_values : ndarray
        Û_kl⁽³⁾ (eq 39).
    pair_probabilities : ndarray
        P̂(C_kl) (eq 33-34).
    pair_weights : ndarray
        w_kl (eq 29).
    pair_weight_share : ndarray
        ``ω_kl = w_kl / (φ(0) |B̂*(k,l)|)``, the effective share of the pair's samples on B(Λ).
    pair_error_tilde : ndarray
        L̃_tr^kl, the error rate on perturbed B̂*(k,l).
    pair_weighted : ndarray of bool
        True where ω_kl ≥ weight_tol (third branch of eq 39).
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
        Probability weights k̂(x)/w_kl (eq 30), 0 outside weighted pairs.
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
        Discriminants on T where ``evaluate`` computed them (J > 2, for the top-2 pair at x);
        None for two classes.
    discriminant : Discriminant
        The scored status, used only by ``f_train`` when ``g_train`` is None.

    Notes
    -----
    A result is a value: it holds the arrays it shows (read-only views), never a link to the
    estimator that made it, so refitting that estimator leaves the result unchanged.

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
    evaluate_time: float
    classifier_time: float
    X: np.ndarray = field(repr=False)
    y: np.ndarray = field(repr=False)
    X_tilde: np.ndarray = field(repr=False)
    neighbours: np.ndarray = field(repr=False)
    g_train: np.ndarray | None = field(repr=False)
    discriminant: Discriminant = field(repr=False)

    @cached_property
    def f_tilde(self) -> np.ndarray:
        """The values f(x̃;Λ) on T̃ with the top-2 pair taken at x̃ (the f(T̃) map), shape (N,)."""
        return top2_difference(self.g_tilde)

    @cached_property
    def f_train(self) -> np.ndarray:
        """The values f(x;Λ) on T with the top-2 pair taken at x, shape (N,).

        From ``g_train`` where ``evaluate`` computed it, else from the status on ``X`` on first use.
        """
        if self.g_train is not None:
            return top2_difference(self.g_train)
        return boundary_score(self.discriminant, self.X)

    @cached_property
    def F(self) -> np.ndarray:
        """The (N, M) neighbourhood values F of eq 27 (:func:`neighbourhood_values`)."""
        return neighbourhood_values(self.g_tilde, self.neighbours, self.pair_i, self.pair_j)

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
