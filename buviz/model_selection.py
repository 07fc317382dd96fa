"""Model selection by boundary uncertainty, plugged into scikit-learn's model selection.

Boundary uncertainty Û⁽³⁾ (Proposal 2, eq 40) scores a classifier status from its training set
alone: no held-out data, no refitting on folds. This module lets scikit-learn's searches use it:

- :class:`UncertaintyScorer` -- a scorer ``scorer(estimator, X, y) -> Û``. The per-training-set work
  (M-neighbourhoods, the perturbed set T̃, the estimate Î* of the true class pairs; eq 41-42) is done
  once per distinct (X, y) and cached, so a grid of candidates pays it once (``n_fits_`` counts it);
- :class:`TrainingSetSplit` -- a cross-validation splitter with one split whose train and test parts
  are both the whole training set, so the scorer sees the candidate's own training set;
- :func:`select_by_uncertainty` -- a small loop over a parameter grid returning a tidy table and the
  best estimator.

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1 (Proposal 2: §4.4-4.6, eq 25-43).

Examples
--------
>>> from sklearn.model_selection import GridSearchCV
>>> from sklearn.svm import SVC
>>> search = GridSearchCV(SVC(), {"gamma": [0.1, 1, 10]}, scoring=UncertaintyScorer(M=20),
...                       cv=TrainingSetSplit())                          # doctest: +SKIP
>>> search.fit(X, y).best_params_                                         # doctest: +SKIP

Higher Û is better (U_max = 1, the paper's plots show −Û), so scikit-learn's "greater is better"
convention holds and ``best_params_`` is the argmax of Û (the argmin of −Û).
"""

from __future__ import annotations

import time
from collections import OrderedDict

import numpy as np
import pandas as pd
from sklearn.base import clone

from buviz._validation import Interval, InvalidParameterError, Options, SequenceOf, check_params, check_Xy
from buviz._values import FrozenDict
from buviz.classifiers import Discriminant, as_discriminant
from buviz.uncertainty.neighbours import PERTURBATION_MODES
from buviz.uncertainty.proposal2 import BoundaryUncertainty

__all__ = ["UncertaintyScorer", "TrainingSetSplit", "SelectionResult", "select_by_uncertainty",
           "perturbation_amplitude_sweep"]


def _fingerprint(X, y) -> str:
    from joblib import hash as joblib_hash

    return joblib_hash((np.ascontiguousarray(X), np.asarray(y)))


class TrainingSetSplit:
    """Cross-validation splitter with a single split: train = test = every sample.

    With :class:`UncertaintyScorer` it makes ``GridSearchCV``, ``HalvingGridSearchCV`` and
    ``validation_curve`` fit each candidate once on the training set and score it on that same
    training set by Û: selection with no held-out data. With ``HalvingGridSearchCV`` give the search
    an integer ``random_state``: its sample subsampling then draws the same subset for the train
    and test parts of the split, so Û is computed on the candidate's own training subset.
    """

    def split(self, X, y=None, groups=None):
        """Yield the single split: every sample is in both the train and the test part.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The data.
        y : array-like, optional
            Ignored.
        groups : array-like, optional
            Ignored.

        Yields
        ------
        train, test : ndarray
            ``arange(n_samples)``, twice.
        """
        n = len(X) if hasattr(X, "__len__") else np.asarray(X).shape[0]
        idx = np.arange(n)
        yield idx, idx

    def get_n_splits(self, X=None, y=None, groups=None) -> int:
        """Return the number of splits, 1.

        Parameters
        ----------
        X, y, groups : object, optional
            Ignored.

        Returns
        -------
        int
            1.
        """
        return 1

    def __repr__(self) -> str:
        return "TrainingSetSplit()"


class UncertaintyScorer:
    """Scorer returning Û⁽³⁾ (eq 40) of a fitted classifier on the data it is given.

    ``scorer(estimator, X, y)`` fits a :class:`~buviz.uncertainty.BoundaryUncertainty` on (X, y)
    -- once per distinct (X, y), then served from a cache -- and evaluates ``estimator`` with it.
    Use it with :class:`TrainingSetSplit` so that (X, y) is the estimator's own training set.

    Parameters
    ----------
    uncertainty : BoundaryUncertainty, optional
        A template (cloned for each training set). Default: ``BoundaryUncertainty(**params)``.
    max_cached : int, default 8
        Training sets whose per-dataset work is kept (least recently used dropped first).
    **params
        Parameters of :class:`~buviz.uncertainty.BoundaryUncertainty` (``M``, ``K``,
        ``perturbation``, ``random_state``, ...), when ``uncertainty`` is not given.

    Attributes
    ----------
    n_fits_ : int
        How many times the per-dataset work (neighbourhoods, T̃, Î*) was done.
    n_calls_ : int
        How many candidates were scored.
    fit_time_, score_time_ : float
        Seconds spent in the per-dataset work and in the per-candidate evaluations.
    last_result_ : BoundaryUncertaintyResult or None
        The full result of the latest call (per-sample arrays, error on T̃, ...).

    Notes
    -----
    With ``n_jobs > 1`` scikit-learn sends a copy of the scorer to each worker process; each worker
    then does the per-dataset work once for itself, and the counters of this object stay at 0.
    """

    def __init__(self, uncertainty: BoundaryUncertainty | None = None, *, max_cached: int = 8, **params):
        if uncertainty is not None and params:
            raise InvalidParameterError("uncertainty: pass either uncertainty or BoundaryUncertainty "
                                        "parameters, not both")
        if uncertainty is None:
            uncertainty = BoundaryUncertainty(**params)
        if not isinstance(uncertainty, BoundaryUncertainty):
            raise InvalidParameterError(f"uncertainty must be a BoundaryUncertainty, "
                                        f"got {type(uncertainty).__name__}")
        self.uncertainty = uncertainty
        self.max_cached = max_cached
        self._cache: OrderedDict[str, BoundaryUncertainty] = OrderedDict()
        self.n_fits_ = 0
        self.n_calls_ = 0
        self.fit_time_ = 0.0
        self.score_time_ = 0.0
        self.last_result_ = None

    def fitted_for(self, X, y) -> BoundaryUncertainty:
        """Return the fitted :class:`BoundaryUncertainty` of a training set (computed once, then cached).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The training set.
        y : array-like of shape (n_samples,)
            Its labels.

        Returns
        -------
        BoundaryUncertainty
            Fitted on (X, y).
        """
        key = _fingerprint(X, y)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        t0 = time.perf_counter()
        bu = clone(self.uncertainty).fit(X, y)
        self.fit_time_ += time.perf_counter() - t0
        self.n_fits_ += 1
        self._cache[key] = bu
        while len(self._cache) > max(1, int(self.max_cached)):
            self._cache.popitem(last=False)
        return bu

    def __call__(self, estimator, X, y, sample_weight=None) -> float:
        bu = self.fitted_for(X, y)
        t0 = time.perf_counter()
        result = bu._evaluate(estimator, copy_discriminant=False)
        self.score_time_ += time.perf_counter() - t0
        self.n_calls_ += 1
        self.last_result_ = result
        return result.value

    def __getstate__(self):  # do not ship cached neighbourhoods to worker processes
        state = self.__dict__.copy()
        state["_cache"] = OrderedDict()
        state["last_result_"] = None
        return state

    def __repr__(self) -> str:
        return f"UncertaintyScorer({self.uncertainty!r})"


class SelectionResult:
    """What :func:`select_by_uncertainty` returns.

    Parameters
    ----------
    table : pandas.DataFrame
        One row per candidate: ``params`` (dict), one ``param_<name>`` column per parameter,
        ``U`` (Û⁽³⁾, higher is better), ``error_tilde`` (error rate on T̃), ``error_train`` (on T;
        both of the label argmax g that Û reads, which is ``predict``'s except on exact ties),
        ``fit_time``, ``score_time`` (seconds), ``rank`` (1 = best).
    best_index : int
        Row of ``table`` of the best candidate.
    best_estimator : estimator
        The best candidate, fitted on (X, y).
    scorer : UncertaintyScorer
        The scorer used.

    Attributes
    ----------
    best_estimator_ : estimator
        The best candidate, fitted on (X, y).
    best_params_ : dict
        Its parameters.
    best_score_ : float
        Its Û.
    best_index_ : int
        Its row of ``table``.
    uncertainty_time : float
        Seconds of the per-dataset work, done once.

    Notes
    -----
    A value: its attributes cannot be set (``AttributeError``) and ``best_params_`` is read-only;
    ``table`` hands out a copy of the result's own DataFrame, so writing into it changes nothing here.
    """

    def __init__(self, table, best_index, best_estimator, scorer):
        values = {"_table": table.copy(), "best_index_": int(best_index), "best_estimator_": best_estimator,
                  "best_params_": FrozenDict(table["params"].iloc[best_index]),
                  "best_score_": float(table["U"].iloc[best_index]), "scorer": scorer,
                  "uncertainty_time": scorer.fit_time_}
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @property
    def table(self) -> pd.DataFrame:
        """One row per candidate (a copy, its ``params`` dicts too: the result's own table cannot be
        changed through it)."""
        table = self._table.copy()
        table["params"] = [dict(p) for p in table["params"]]
        return table

    def __setattr__(self, name, value):
        raise AttributeError(f"SelectionResult is a value: {name} cannot be set")

    def __delattr__(self, name):
        raise AttributeError(f"SelectionResult is a value: {name} cannot be deleted")

    def __repr__(self) -> str:
        return (f"SelectionResult(best_params_={self.best_params_}, best_score_={self.best_score_:.4f}, "
                f"candidates={len(self._table)})")


def _check_estimator(estimator):
    if isinstance(estimator, type):
        raise InvalidParameterError(f"estimator must be an instance, e.g. {estimator.__name__}(), not the class "
                        f"{estimator.__name__}")
    if not hasattr(estimator, "fit"):
        raise InvalidParameterError(f"estimator must be a scikit-learn classifier with fit, "
                                    f"got {type(estimator).__name__}")
    if not (hasattr(estimator, "decision_function") or hasattr(estimator, "predict_proba")):
        raise InvalidParameterError(f"estimator {type(estimator).__name__} has neither decision_function "
                                    f"nor predict_proba: "
                         f"boundary uncertainty needs class scores")


#: A row's k-th and (k + 1)-th neighbour distances closer than this (relative to 1 + the distance) are
#: a tie at the k-th place for :class:`_SharedNeighbours`: which of the tied samples a search keeps is
#: up to its traversal (a tree) or its BLAS rounding (brute force: distances carry about 1e-8), so
#: such rows are left to the candidate itself. Without it a grid's shared search and a candidate's own
#: search could keep different samples of a tie group and give different probabilities.
KNN_TIE_TOL = 1e-6


class _SharedNeighbours:
    """One neighbour search serving every k-NN candidate of a grid over ``n_neighbors``.

    Û reads each candidate's g = ``predict_proba`` on T̃ and on T (the training error, and for
    J > 2 the classifier's top-2 pair at x). For a :class:`~sklearn.neighbors.KNeighborsClassifier`
    grid that varies ``n_neighbors`` only, the neighbours of T̃ and T among the training samples
    are searched once with the largest k, and a candidate with k neighbours reads its
    probabilities from the first k columns: the (uniform or 1/distance) weighted votes of its k
    nearest neighbours, normalised, as scikit-learn defines ``predict_proba`` (a row with a
    neighbour at distance 0 keeps only its zero-distance neighbours). The result is scikit-learn's
    own up to float rounding: each search asks for one neighbour more than the largest k, and a row
    whose k-th and (k + 1)-th distances tie (within ``KNN_TIE_TOL``), where a search for k and one
    for more neighbours may keep different members of the tie group, is computed by the candidate
    itself (``predict_proba`` on those rows).

    The search uses the neighbour algorithm each candidate's fit resolved (``algorithm="auto"``
    picks a tree or brute force depending on k, and brute-force distances carry rounding a tree
    does not have, e.g. about 1e-8 from a sample to itself, which the 1/distance weights read):
    one search per algorithm met in the grid (with the largest k of the candidates that use it),
    made when a candidate first needs it.
    """

    def __init__(self, template, k_max: dict[str, int], X: np.ndarray, y, bu: BoundaryUncertainty):
        self.template, self.k_max, self.X, self.y = template, k_max, X, y
        self.codes, self.classes, self.n_classes = bu.y_, bu.classes_, bu.n_classes_
        self.queries = (bu.X_tilde_, bu.X_)  # the points Û evaluates g on
        self._searches: dict[str, tuple[np.ndarray, np.ndarray]] = {}

    @classmethod
    def for_grid(cls, estimator, grid: list[dict], fitted: list, X: np.ndarray, y, bu: BoundaryUncertainty):
        """The shared search for this grid's fitted candidates, or None where it would not be exact."""
        from sklearn.neighbors import KNeighborsClassifier

        if (type(estimator) is not KNeighborsClassifier or estimator.weights not in ("uniform", "distance")
                or estimator.metric == "precomputed" or len(grid) < 2
                or any(set(cand) != {"n_neighbors"} for cand in grid)):
            return None
        k_max: dict[str, int] = {}
        for est in fitted:
            # the algorithm the fit resolved is only kept in this private attribute
            method, k = getattr(est, "_fit_method", None), est.n_neighbors
            if method not in ("brute", "kd_tree", "ball_tree") or not isinstance(k, (int, np.integer)) \
                    or not 1 <= k <= len(X):
                return None  # an unknown layout, or a k the candidate itself will refuse
            k_max[method] = max(k_max.get(method, 0), int(k))
        return cls(estimator, k_max, X, y, bu)

    def _search(self, algorithm: str) -> tuple[np.ndarray, np.ndarray]:
        """Distances and indexes (rows: T̃ then T) of the nearest training samples, as many as the
        largest k of the candidates whose fit resolved to ``algorithm``."""
        if algorithm not in self._searches:
            # one neighbour more than the largest k: a tie at a candidate's k-th place shows
            k = min(self.k_max[algorithm] + 1, len(self.X))
            nn = clone(self.template).set_params(n_neighbors=k, algorithm=algorithm)
            self._searches[algorithm] = nn.fit(self.X, self.y).kneighbors(np.concatenate(self.queries))
        return self._searches[algorithm]

    def _proba(self, est, rows: slice) -> np.ndarray:
        dist, idx = self._search(est._fit_method)
        k = est.n_neighbors
        tied = None
        if k < dist.shape[1]:  # the k-th place inside a tie group: the candidate's own search decides
            d_k, d_next = dist[rows, k - 1], dist[rows, k]
            tied = np.flatnonzero(d_next - d_k <= KNN_TIE_TOL * (1.0 + d_next))
        dist, labels = dist[rows, :k], self.codes[idx[rows, :k]]
        n = len(labels)
        if est.weights == "uniform":
            weights = np.ones_like(dist)
        else:
            with np.errstate(divide="ignore"):
                weights = 1.0 / dist
            exact = np.isinf(weights)
            hit = exact.any(axis=1)
            weights[hit] = exact[hit]
        flat = (np.arange(n)[:, None] * self.n_classes + labels).ravel()
        proba = np.bincount(flat, weights=weights.ravel(), minlength=n * self.n_classes).reshape(n, -1)
        total = proba.sum(axis=1, keepdims=True)
        total[total == 0.0] = 1.0
        proba /= total
        if tied is not None and len(tied):
            queries = np.concatenate(self.queries)[rows]
            proba[tied] = est.predict_proba(queries[tied])  # est.classes_ are the codes' classes, sorted
        return proba

    def discriminant(self, est) -> Discriminant:
        """Candidate ``est`` (fitted on the training set) as a discriminant g = ``predict_proba``.

        On T̃ and T its values come from the shared search; on any other X from ``est`` itself.
        """
        disc = as_discriminant(est, classes=self.classes, response="predict_proba")
        inner, sizes = disc.func, np.cumsum([0] + [len(q) for q in self.queries])

        def func(X):
            for n, q in enumerate(self.queries):
                if X is q or (X.shape == q.shape and np.array_equal(X, q)):
                    return self._proba(est, slice(sizes[n], sizes[n + 1]))
            return inner(X)

        disc.func = func
        return disc


def select_by_uncertainty(estimator, param_grid, X, y, *, uncertainty: BoundaryUncertainty | None = None,
                          refit: bool = True, **params) -> SelectionResult:
    """Select hyper-parameters by boundary uncertainty Û⁽³⁾ on the training set alone.

    Each candidate of ``param_grid`` is fitted once on (X, y) and scored by Û; the per-dataset work
    is done once for all candidates. The best candidate has the largest Û (ties: the first).

    Parameters
    ----------
    estimator : scikit-learn classifier (instance, unfitted or fitted; it is cloned)
        Must have ``decision_function`` or ``predict_proba``.
    param_grid : dict or list of dicts
        As for :class:`~sklearn.model_selection.GridSearchCV`.
    X : array-like of shape (n_samples, n_features)
        The training set.
    y : array-like of shape (n_samples,)
        Its labels (any values).
    uncertainty : BoundaryUncertainty, optional
        Template of the estimator of Û; default ``BoundaryUncertainty(**params)``.
    refit : bool, default=True
        Return the best candidate fitted (it already is: the candidates are fitted on all of X).
    **params
        Parameters of :class:`~buviz.uncertainty.BoundaryUncertainty` (``M=40``, ``K="aic"``,
        ``perturbation=0.5``, ``random_state=0``, ...).

    Returns
    -------
    SelectionResult
        ``.table`` (pandas, one row per candidate), ``.best_estimator_``, ``.best_params_``.

    Raises
    ------
    InvalidParameterError
        ``param_grid`` with no candidates; ``estimator`` a class rather than an instance, or
        without ``decision_function`` / ``predict_proba``; fewer samples than ``M``.
    ValueError
        One class in ``y``; NaN in ``X``.

    Notes
    -----
    All candidates are fitted first, then scored. Two exact shortcuts keep the per-candidate
    evaluations (g on T̃ and on T) cheap: a fitted :class:`~sklearn.svm.SVC` is read through
    :func:`~buviz.classifiers.svc_decision_function` (its decision function by matrix products),
    and a :class:`~sklearn.neighbors.KNeighborsClassifier` grid that varies ``n_neighbors`` only
    (``weights`` "uniform" or "distance") shares one neighbour search with the largest k: every
    candidate's ``predict_proba`` on T̃ and T is read from its first k neighbours. Both give
    scikit-learn's values up to float rounding; the k-NN shortcut also up to which neighbours are
    taken among several at exactly the distance of the k-th (ties, absent with continuous
    features), where a search for k and one for more neighbours may choose differently.

    Examples
    --------
    >>> from sklearn.neighbors import KNeighborsClassifier
    >>> res = select_by_uncertainty(KNeighborsClassifier(), {"n_neighbors": [1, 5, 15]}, X, y)  # doctest: +SKIP
    >>> res.best_params_, res.table[["param_n_neighbors", "U", "error_tilde"]]                   # doctest: +SKIP
    """
    from sklearn.model_selection import ParameterGrid

    _check_estimator(estimator)
    try:
        grid = list(ParameterGrid(param_grid))
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"param_grid is not a valid grid: {exc}") from None
    if not grid:
        raise InvalidParameterError("param_grid has no candidates (an empty list of grids)")
    X_checked, _, _ = check_Xy(X, y)
    scorer = UncertaintyScorer(uncertainty, **params)
    bu = scorer.fitted_for(X_checked, np.asarray(y))
    fitted, fit_times = [], []
    for cand in grid:
        est = clone(estimator).set_params(**cand)
        t0 = time.perf_counter()
        fitted.append(est.fit(X_checked, y))
        fit_times.append(time.perf_counter() - t0)
    shared = _SharedNeighbours.for_grid(estimator, grid, fitted, X_checked, y, bu)
    rows = []
    for cand, est, t_fit in zip(grid, fitted, fit_times, strict=True):
        t1 = time.perf_counter()
        r = bu._evaluate(est if shared is None else shared.discriminant(est), copy_discriminant=False)
        t_score = time.perf_counter() - t1
        # g on T: computed by evaluate for J > 2 (the classifier's pair at x), else one more call
        g_train = r.g_train if r.g_train is not None else r.discriminant(X_checked)
        err_train = float(np.mean(bu.classes_[np.argmax(g_train, axis=1)] != np.asarray(y)))
        rows.append({"params": cand, **{f"param_{k}": v for k, v in cand.items()}, "U": r.value,
                     "error_tilde": float(np.dot(r.pair_probabilities, r.pair_error_tilde)),
                     "error_train": err_train, "fit_time": t_fit, "score_time": t_score})
    table = pd.DataFrame(rows)
    best = int(np.argmax(table["U"].to_numpy()))
    table["rank"] = table["U"].rank(ascending=False, method="min").astype(int)
    return SelectionResult(table, best, fitted[best] if refit else None, scorer)


def _predict(model, X, classes) -> np.ndarray:
    """Labels predicted by a scikit-learn classifier, or by a discriminant callable (argmax of g)."""
    if hasattr(model, "predict"):
        return np.asarray(model.predict(X))
    return np.asarray(classes)[np.argmax(model(X), axis=1)]


def perturbation_amplitude_sweep(X_train, y_train, X_test, y_test, *, estimator=None, param: str = "gamma",
                                 values=None, amplitudes=(0.0, 0.25, 0.5, 1.0, 2.0, 4.0),
                                 modes=("features", "scalar"), M: int = 40, K="aic",
                                 max_test: int | None = None, random_state=0,
                                 fitted_models=None) -> pd.DataFrame:
    """Û on the training set (Û_tr) and on the test set (Û_te) for several T̃ laws, per candidate.

    The paper leaves Algorithm 1's perturbation law unspecified. For every candidate
    ``estimator.set_params(param=value)`` (fitted once on the training set) and every T̃ law
    (amplitude a, mode), this computes Û⁽³⁾ with the training set as input (Û_tr) and with the
    test set as input (Û_te, the paper's §6.4.1 reading), next to the training and test errors.

    Parameters
    ----------
    X_train, y_train, X_test, y_test : array-like
        Training and test sets (same features; the estimator sees them as given).
    estimator : scikit-learn classifier, optional
        Default ``SVC()`` (RBF kernel, C = 1).
    param : str, default "gamma"
        The hyper-parameter swept.
    values : sequence, optional
        Its values; default γ = 2^k, k = −6 … 6.
    amplitudes : sequence of float, default (0, 0.25, 0.5, 1, 2, 4)
        Amplitudes a of T̃ (x̃ = x + r ⊙ ||x − x⁽¹⁾||, r ~ U[−a, a]).
    modes : sequence of {"features", "scalar"}, default both
        One draw per feature, or one per sample shared by its features. With a = 0 both modes
        give T̃ = T; the row is still repeated per mode so that each mode has a complete curve.
    M, K : Proposal 2 settings (see :class:`~buviz.uncertainty.BoundaryUncertainty`).
    max_test : int, optional
        Use at most this many test points (the first ones) as the input of Û_te; all for the
        test error. Default: all.
    random_state : int
        Seeds T̃ (the same seed for every law, so laws differ only in a and mode) and K-means.
    fitted_models : sequence, optional
        Candidates already fitted on the training set, one per entry of ``values`` (scikit-learn
        classifiers or :class:`~buviz.classifiers.Discriminant` statuses, e.g. the MLP epochs of
        :func:`~buviz.classifiers.mlp_statuses`); then nothing is fitted and ``estimator`` is unused.

    Returns
    -------
    pandas.DataFrame
        One row per (value, mode, amplitude): ``param`` (name), ``value``, ``log2_value``,
        ``mode``, ``amplitude``, ``U_tr``, ``U_te``, ``error_tilde`` (error on T̃ of the training
        set), ``L_tr`` (training error), ``L_te`` (test error, all test points).

    Raises
    ------
    InvalidParameterError
        If ``values``, ``fitted_models``, ``amplitudes`` or ``modes`` is invalid.

    Notes
    -----
    The neighbourhoods, ||x − x⁽¹⁾|| and Î* do not depend on T̃: they are computed once per input
    set and shared by all laws; only T̃ is redrawn (from ``default_rng(random_state)``, as ``fit``
    draws it). With a = 0 the result therefore equals
    ``BoundaryUncertainty(perturbation=0).fit(X, y).evaluate(model).value`` whenever Î* is the
    same (always for two classes).
    """
    import warnings

    from sklearn.svm import SVC

    estimator = SVC() if estimator is None else estimator
    if fitted_models is None:
        _check_estimator(estimator)
    values = [2.0**k for k in range(-6, 7)] if values is None else list(values)
    if not values:
        raise InvalidParameterError("values must hold at least one candidate")
    if fitted_models is not None and len(fitted_models) != len(values):
        raise InvalidParameterError(f"fitted_models must hold one model per value ({len(values)}), "
                                    f"got {len(fitted_models)}")
    check_params({"amplitudes": amplitudes, "modes": modes},
                 {"amplitudes": [SequenceOf(Interval("real", 0, None))],
                  "modes": [SequenceOf(Options(*PERTURBATION_MODES))]},
                 "perturbation_amplitude_sweep")
    amplitudes = [float(a) for a in amplitudes]
    modes = list(modes)
    Xtr, _, _ = check_Xy(X_train, y_train)
    Xte, _, _ = check_Xy(X_test, y_test)
    ytr, yte = np.asarray(y_train), np.asarray(y_test)
    n_te = len(Xte) if max_test is None else min(len(Xte), int(max_test))
    base_tr = BoundaryUncertainty(M=min(M, len(Xtr)), K=K, random_state=random_state).fit(Xtr, ytr)
    base_te = BoundaryUncertainty(M=min(M, n_te), K=K, random_state=random_state).fit(Xte[:n_te], yte[:n_te])
    laws = [(mode, a) for mode in modes for a in amplitudes]
    bus = {(mode, a): (base_tr.with_perturbation(a, mode), base_te.with_perturbation(a, mode)) for mode, a in laws}
    rows = []
    for n, value in enumerate(values):
        if fitted_models is None:
            model = clone(estimator).set_params(**{param: value}).fit(Xtr, ytr)
        else:
            model = fitted_models[n]
        L_tr = float(np.mean(_predict(model, Xtr, base_tr.classes_) != ytr))
        L_te = float(np.mean(_predict(model, Xte, base_tr.classes_) != yte))
        for (mode, a), (bu_tr, bu_te) in bus.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                r_tr = bu_tr._evaluate(model, copy_discriminant=False)
                r_te = bu_te._evaluate(model, copy_discriminant=False)
            rows.append({"param": param, "value": value,
                         "log2_value": float(np.log2(value)) if np.isreal(value) and value > 0 else np.nan,
                         "mode": mode, "amplitude": a, "U_tr": r_tr.value, "U_te": r_te.value,
                         "error_tilde": float(np.dot(r_tr.pair_probabilities, r_tr.pair_error_tilde)),
                         "L_tr": L_tr, "L_te": L_te})
    return pd.DataFrame(rows)
