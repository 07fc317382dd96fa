"""Error estimates and boundary uncertainty over a sweep of classifier statuses (Ha et al. 2021, §6).

The only place that loops over statuses. Work is split into tasks per (status, fold) -- the full
training set, the 75/25 hold-out split and each CV fold -- run in parallel with joblib; each
status's row is assembled as soon as its tasks are done, so callers (the app) can fill a view as
rows arrive (:func:`iter_svm_gamma_sweep`). Finished rows are kept in an on-disk cache keyed by the
dataset key and every parameter, so a repeated sweep is instant.

Notes
-----
Columns of the tidy table (one row per status):

- ``status``: "gamma" or "epoch"; ``gamma`` / ``log2_gamma`` / ``C`` (SVM) or ``epoch`` (MLP);
- ``L_tr``, ``L_val``: mean train-fold and validation-fold error of stratified k-fold CV;
- ``L_ho``: error of one stratified 75/25 hold-out split; ``L_te``: test error of the status
  trained on T;
- ``U_tr``: Û⁽³⁾ on T (Proposal 2); ``U_te``: Û⁽³⁾ with the test set as input (§6.4.1);
- ``U1_tr``: Proposal 1 on T (only with ``proposal1=True``);
- ``n_eff_tr``: the effective number of near-boundary samples behind U_tr, Kish's
  (Σ k̂)² / Σ k̂² per pair of Î* averaged with the pair probabilities P̂(C_kl) (eq 33-34);
- ``pairs_tr``, ``pair_case_tr``, ``pair_n_eff_tr``, ``pair_blend_tr``: per pair of Î* (lists in
  Î*'s order, pairs as "k-l" class codes), the separability case of §4.5 that dominates Û_kl (1, 2
  or 3), n_eff and the weight λ_kl of the near-boundary mean in Û_kl (eq 39; see
  :func:`buviz.uncertainty.proposal2.pair_uncertainty`);
- ``time_fit``, ``time_cv``, ``time_ho``, ``time_u_tr``, ``time_u_te``, ``time_classifier``: seconds;
- ``time_u_fit``, ``time_u_fit_te``, ``time_u1_fit``: seconds of the one-off fit of Û on T (T̃,
  the K-means prototypes and Î*), of Û on the test set (0 when not computed) and of Proposal 1
  (only with ``proposal1=True``), as ``fit_time_``; shared by every row the same call computed,
  so a sweep's Û cost is ``time_u_fit`` + the sum of ``time_u_tr``;
- ``retries``: how many of the row's tasks had to be run again (a worker died or a task raised).

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from buviz._validation import InvalidParameterError, check_int, check_real
from buviz._values import freeze_fields
from buviz.classifiers import Discriminant, mlp_statuses, svm_status
from buviz.datasets import Dataset
from buviz.grid import top2_difference
from buviz.uncertainty import DEFAULT_SEPARABILITY, DEFAULT_SEPARABILITY_N0, BoundaryUncertainty
from buviz.uncertainty.prototypes import DEFAULT_K_RANGE

__all__ = ["svm_gamma_sweep", "iter_svm_gamma_sweep", "mlp_epoch_sweep", "RowCache", "default_cache",
           "SWEEP_COLUMNS", "UNCERTAINTY_KEYWORDS", "uncertainty_template", "evaluate_on_test_set", "StatusOnTestSet"]

SWEEP_COLUMNS = ["L_tr", "L_val", "L_ho", "L_te", "U_tr", "U_te"]
Progress = Callable[[int, int], None]


class RowCache:
    """One JSON file per sweep row under a directory (floats round-trip exactly through JSON).

    Parameters
    ----------
    directory : str or path
        Where the rows are kept.
    max_entries : int, default=20000
        Bound on the directory: the least recently written rows are removed beyond it.
    """

    def __init__(self, directory: str | os.PathLike, max_entries: int = 20_000):
        self.directory = Path(directory)
        self.max_entries = max_entries

    #: Revision of what a row holds and how Û is computed; part of every key, so a change to either
    #: (e.g. the 'auto' K search of Î*, the separability columns) never serves a stale row. Bump it then.
    ROW_REVISION = 4

    @staticmethod
    def key(**parts) -> str:
        """Return the cache key of a row: a hash of its parameters and :attr:`ROW_REVISION`.

        Parameters
        ----------
        **parts
            The parameters that define the row (JSON-serialisable, or represented by ``repr``).

        Returns
        -------
        str
            A hex digest.
        """
        text = json.dumps({**parts, "revision": RowCache.ROW_REVISION}, sort_keys=True, default=repr)
        return hashlib.sha1(text.encode()).hexdigest()

    def get(self, key: str) -> dict | None:
        """Return a cached row, or None.

        Parameters
        ----------
        key : str
            From :meth:`key`.

        Returns
        -------
        dict or None
            The row, or None when absent or unreadable.
        """
        path = self.directory / f"{key}.json"
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError):
            return None

    def put(self, key: str, row: dict) -> None:
        """Store a row atomically (readers never see half a row), then trim the directory.

        Parameters
        ----------
        key : str
            From :meth:`key`.
        row : dict
            The row (JSON-serialisable).
        """
        self.directory.mkdir(parents=True, exist_ok=True)
        tmp = self.directory / f".{key}.{os.getpid()}.tmp"
        tmp.write_text(json.dumps(row))
        os.replace(tmp, self.directory / f"{key}.json")  # atomic: readers never see half a row
        files = sorted(self.directory.glob("*.json"), key=lambda p: p.stat().st_mtime)
        for old in files[: max(0, len(files) - self.max_entries)]:
            old.unlink(missing_ok=True)

    def clear(self) -> None:
        """Remove every cached row."""
        for p in self.directory.glob("*.json"):
            p.unlink(missing_ok=True)


def default_cache() -> RowCache:
    """Return the cache in ``$BUVIZ_CACHE_DIR`` or ``~/.cache/buviz/sweeps``.

    Returns
    -------
    RowCache
        The default cache.
    """
    root = os.environ.get("BUVIZ_CACHE_DIR") or Path.home() / ".cache" / "buviz"
    return RowCache(Path(root) / "sweeps")


def _resolve_cache(cache) -> RowCache | None:
    if cache is True:
        return default_cache()
    if cache in (False, None):
        return None
    if isinstance(cache, RowCache):
        return cache
    return RowCache(cache)


def _error(d: Discriminant, X, y) -> float:
    return float(np.mean(d.predict(X) != y)) if len(y) else float("nan")


@dataclass(frozen=True, eq=False)
class StatusOnTestSet:
    """A classifier status's test-set quantities (:func:`evaluate_on_test_set`).

    Parameters
    ----------
    f_test : ndarray of shape (n_test,)
        f(x;Λ) = g_i − g_j with the top-2 pair {i, j} taken at each test point (Fig 10's f(X_te)).
    L_te : float
        The test error of the label argmax g (NaN without test points).
    """

    f_test: np.ndarray
    L_te: float

    def __post_init__(self):
        freeze_fields(self)


def evaluate_on_test_set(discriminant, X_test, y_test) -> StatusOnTestSet:
    """Return f(X_te; Λ) and the test error L_te of one classifier status, from one evaluation of g.

    The columns ``L_te`` of the sweeps and the f(X_te) that Û's covariate-shift check compares with
    f(T) and f(T̃) (:meth:`~buviz.uncertainty.BoundaryUncertaintyResult.covariate_shift`).

    Parameters
    ----------
    discriminant : Discriminant or callable
        The status, X -> (n, J) discriminants (:func:`~buviz.classifiers.as_discriminant`).
    X_test : ndarray of shape (n_test, d)
        Test points (may be empty).
    y_test : ndarray of shape (n_test,)
        Their labels as codes 0..J−1.

    Returns
    -------
    StatusOnTestSet
        ``f_test`` (empty without test points) and ``L_te`` (NaN then).
    """
    if not len(X_test):
        return StatusOnTestSet(np.empty(0), float("nan"))
    g = np.asarray(discriminant(X_test))
    return StatusOnTestSet(top2_difference(g), float(np.mean(np.argmax(g, axis=1) != np.asarray(y_test))))


def _splits(y, cv: int, random_state) -> list[tuple[np.ndarray, np.ndarray]]:
    from sklearn.model_selection import StratifiedKFold

    return list(StratifiedKFold(cv, shuffle=True, random_state=random_state).split(np.zeros(len(y)), y))


def _holdout_split(y, random_state) -> tuple[np.ndarray, np.ndarray]:
    from sklearn.model_selection import train_test_split

    idx = np.arange(len(y))
    tr, te = train_test_split(idx, test_size=0.25, stratify=y, random_state=random_state)
    return tr, te


def _check_common(ds: Dataset, cv: int, M: int) -> int:
    if not isinstance(ds, Dataset):
        raise InvalidParameterError("ds must be a buviz Dataset (see buviz.datasets.load)")
    counts = np.bincount(ds.y_train)
    cv = check_int(cv, "cv", low=2)
    if cv > counts.min():
        raise InvalidParameterError(f"cv={cv} folds need at least {cv} samples per class; the smallest class has "
                         f"{counts.min()}")
    check_int(M, "M", low=2, high=len(ds.X_train))
    return cv


# -- SVM γ sweep ------------------------------------------------------------------------------
def _svm_fold_task(X, y, tr, va, gamma, C):
    t0 = time.perf_counter()
    d = svm_status(X[tr], y[tr], gamma, C)
    return _error(d, X[tr], y[tr]), _error(d, X[va], y[va]), time.perf_counter() - t0


def _case_columns(r) -> dict:
    """The per-pair separability columns of a sweep row from a BoundaryUncertaintyResult (eq 39)."""
    return {"n_eff_tr": float(np.dot(r.pair_probabilities, r.pair_effective_size)),
            "pairs_tr": [f"{k}-{l}" for k, l in r.pairs], "pair_case_tr": [int(c) for c in r.pair_case],
            "pair_n_eff_tr": [float(v) for v in r.pair_effective_size],
            "pair_blend_tr": [float(v) for v in r.pair_blend]}


def _svm_full_task(ds: Dataset, gamma, C, bu_tr, bu_te, p1):
    out = {}
    t0 = time.perf_counter()
    d = svm_status(ds.X_train, ds.y_train, gamma, C)
    out["time_fit"] = time.perf_counter() - t0
    out["L_te"] = evaluate_on_test_set(d, ds.X_test, ds.y_test).L_te
    r = bu_tr._evaluate(d, copy_discriminant=False)
    out["U_tr"], out["time_u_tr"], out["time_classifier"] = r.value, r.evaluate_time, r.classifier_time
    out.update(_case_columns(r))
    if bu_te is not None:
        r = bu_te._evaluate(d, copy_discriminant=False)
        out["U_te"], out["time_u_te"] = r.value, r.evaluate_time
    else:
        out["U_te"], out["time_u_te"] = float("nan"), 0.0
    if p1 is not None:
        t1 = time.perf_counter()
        out["U1_tr"] = p1.evaluate(d).value
        out["time_u1_tr"] = time.perf_counter() - t1
    return out


#: The keywords of the sweeps that build their :class:`~buviz.uncertainty.BoundaryUncertainty`
#: template when no ``uncertainty`` is given (a convenience), with their defaults.
UNCERTAINTY_KEYWORDS = {"M": 40, "K": "aic", "K_range": DEFAULT_K_RANGE, "separability": DEFAULT_SEPARABILITY,
                        "separability_n0": DEFAULT_SEPARABILITY_N0, "perturbation": 0.5,
                        "perturbation_mode": "features"}
#: Parameters of the estimator that change how it runs, not what it computes: not in the cache key.
_EXECUTION_PARAMS = ("chunk_size", "array_backend", "device", "n_jobs")


def _same(a, b) -> bool:
    try:
        return bool(np.all(a == b)) and np.shape(a) == np.shape(b)
    except (TypeError, ValueError):
        return False


def uncertainty_template(uncertainty: BoundaryUncertainty | None = None, *, random_state=0,
                         **keywords) -> BoundaryUncertainty:
    """Return the unfitted :class:`~buviz.uncertainty.BoundaryUncertainty` a sweep scores with.

    The template is ``uncertainty`` (cloned), or one built from the sweep's convenience keywords
    (:data:`UNCERTAINTY_KEYWORDS` and ``random_state``), as :class:`~buviz.model_selection.UncertaintyScorer`
    takes it.

    Parameters
    ----------
    uncertainty : BoundaryUncertainty or None, default=None
        The estimator template; its own ``random_state`` seeds T̃ and K-means.
    random_state : int or None, default=0
        The sweep's seed; the template's ``random_state`` when ``uncertainty`` is None.
    **keywords
        Keywords of :data:`UNCERTAINTY_KEYWORDS`; with ``uncertainty`` given, they must keep their
        defaults.

    Returns
    -------
    BoundaryUncertainty
        An unfitted clone.

    Raises
    ------
    InvalidParameterError
        If ``uncertainty`` is not a BoundaryUncertainty, or is given together with a keyword
        changed from its default.
    """
    from sklearn.base import clone

    if uncertainty is None:
        return BoundaryUncertainty(**{**UNCERTAINTY_KEYWORDS, **keywords}, random_state=random_state)
    if not isinstance(uncertainty, BoundaryUncertainty):
        raise InvalidParameterError(f"uncertainty must be a BoundaryUncertainty (the estimator template), "
                                    f"got {type(uncertainty).__name__}")
    changed = [k for k, v in keywords.items() if not _same(v, UNCERTAINTY_KEYWORDS[k])]
    if changed:
        raise InvalidParameterError(f"uncertainty: set {', '.join(changed)} on the BoundaryUncertainty template "
                                    f"(uncertainty=BoundaryUncertainty({changed[0]}=...)), not as sweep keywords "
                                    f"as well")
    return clone(uncertainty)


def _key_params(template: BoundaryUncertainty, random_state) -> dict:
    """The template's parameters as a cache key holds them: the convenience keywords and ``random_state``
    always, any other computing parameter where it differs from its default (so keys of sweeps built
    from keywords are unchanged), and the sweep's own seed where it differs from the template's."""
    params = template.get_params()
    defaults = BoundaryUncertainty().get_params()
    out = {k: params[k] for k in (*UNCERTAINTY_KEYWORDS, "random_state")}
    out.update({k: v for k, v in params.items()
                if k not in out and k not in _EXECUTION_PARAMS and not _same(v, defaults[k])})
    if not _same(random_state, params["random_state"]):
        out["split_random_state"] = random_state
    return out


def _setup(ds: Dataset, cv: int, uncertainty, random_state, **keywords) -> tuple[BoundaryUncertainty, int, dict]:
    """A sweep's template (:func:`uncertainty_template`), its checked fold count and its cache-key parameters."""
    template = uncertainty_template(uncertainty, random_state=random_state, **keywords)
    return template, _check_common(ds, cv, template.M), _key_params(template, random_state)


def _fit_estimators(ds: Dataset, template: BoundaryUncertainty, proposal1: bool, random_state):
    """Û's estimators on T and (when it is large enough) on the test set, both clones of the sweep's
    ``template``, and Proposal 1 on T."""
    from sklearn.base import clone

    bu_tr = clone(template).fit(ds.X_train, ds.y_train)
    enough_test = len(ds.y_test) > template.M and len(np.unique(ds.y_test)) == ds.n_classes
    bu_te = clone(template).fit(ds.X_test, ds.y_test) if enough_test else None
    p1 = None
    if proposal1:
        from buviz.uncertainty import Proposal1

        p1 = Proposal1(random_state=random_state).fit(ds.X_train, ds.y_train)
    return bu_tr, bu_te, p1


def _fit_times(bu_tr, bu_te, p1) -> dict:
    """The one-off fit times of the estimators (columns ``time_u_fit``, ``time_u_fit_te``, ``time_u1_fit``)."""
    out = {"time_u_fit": bu_tr.fit_time_, "time_u_fit_te": bu_te.fit_time_ if bu_te is not None else 0.0}
    if p1 is not None:
        out["time_u1_fit"] = p1.fit_time_
    return out


def iter_svm_gamma_sweep(ds: Dataset, gammas: Iterable[float], C: float = 1.0, cv: int = 10, M: int = 40,
                         K="aic", *, K_range=DEFAULT_K_RANGE, separability: str = DEFAULT_SEPARABILITY,
                         separability_n0: float = DEFAULT_SEPARABILITY_N0, perturbation: float = 0.5,
                         perturbation_mode: str = "features",
                         proposal1: bool = False, random_state=0, n_jobs: int = 2, cache=True,
                         scheduler=None, progress: Progress | None = None, niceness: int = 0,
                         uncertainty: BoundaryUncertainty | None = None) -> Iterator[dict]:
    """Yield one row (a dict, columns as in the module docstring) per γ, in the order of ``gammas``.

    Rows found in the cache are yielded at once; the others are computed in parallel and yielded
    as they complete.

    Parameters
    ----------
    ds : Dataset
        The data (:func:`buviz.datasets.load` and friends).
    gammas : iterable of float
        RBF kernel parameters γ > 0 (e.g. ``2.0 ** np.arange(-10, 11)``).
    C : float, default=1.0
        SVC regularisation.
    cv : int, default=10
        Folds of stratified k-fold CV (10 to 40 in Ha et al. 2021, §6.4).
    M : int, default=40
        Proposal 2's neighbourhood size.
    K : "aic", int or sequence of int, default="aic"
        Proposal 2's prototypes per class.
    K_range : "auto" or sequence of int, default="auto"
        The K tried per class when ``K="aic"`` (:class:`~buviz.uncertainty.BoundaryUncertainty`);
        :data:`~buviz.uncertainty.PAPER_K_RANGE` for the paper's 1, 3, ..., 39.
    separability : {"literal", "threshold", "shrinkage", "graded"}, default="shrinkage"
        Û's rule for eq 39's Case 1/3 branch (:class:`~buviz.uncertainty.BoundaryUncertainty`);
        ``"literal"`` is eq 39 as printed in the paper, ``"threshold"`` buviz's tolerance ω_kl < 0.05.
    separability_n0 : float, default=10.0
        n0 of the "shrinkage" and "graded" rules.
    perturbation : float, default=0.5
        Amplitude of T̃ (see :class:`~buviz.uncertainty.BoundaryUncertainty`).
    perturbation_mode : {"features", "scalar"}, default="features"
        How T̃ is drawn.
    proposal1 : bool, default=False
        Also compute Proposal 1 on T (column ``U1_tr``).
    random_state : int or None, default=0
        Seeds folds, hold-out split, T̃ and K-means.
    n_jobs : int, default=2
        joblib workers.
    cache : bool, str, path or RowCache, default=True
        True (default directory), False, a directory or a :class:`RowCache`.
    scheduler : str or distributed.Client, optional
        A Dask scheduler address (``"tcp://host:port"``) or client; default joblib's processes.
    progress : callable, optional
        ``progress(done, total)`` after each finished task.
    niceness : int, default=0
        Unix niceness of the worker processes (0: unchanged); the calling process is never reniced.
        joblib reuses its workers, so they keep that niceness for later sweeps in the same process.
    uncertainty : BoundaryUncertainty, optional
        The estimator template Û is computed with (cloned, fitted on T and on the test set), e.g.
        ``BoundaryUncertainty(M=20, separability="graded", weight_tol=0.1)``. Without it, one is built
        from ``M``, ``K``, ``K_range``, ``separability``, ``separability_n0``, ``perturbation``,
        ``perturbation_mode`` and ``random_state`` (:func:`uncertainty_template`); with it, those
        keywords must keep their defaults and ``random_state`` seeds only the folds, the hold-out
        split and Proposal 1.

    Yields
    ------
    dict
        One row of the table of :func:`svm_gamma_sweep`.

    Raises
    ------
    InvalidParameterError
        If ``ds`` is not a Dataset, a list is empty or a value is out of range (e.g. more folds
        than samples in a class).

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    gammas = [check_real(g, "gammas", low=0, low_open=True) for g in np.atleast_1d(gammas)]
    if not gammas:
        raise InvalidParameterError("gammas must hold at least one value")
    C = check_real(C, "C", low=0, low_open=True)
    template, cv, params = _setup(ds, cv, uncertainty, random_state, M=M, K=K, K_range=K_range,
                                  separability=separability, separability_n0=separability_n0,
                                  perturbation=perturbation, perturbation_mode=perturbation_mode)
    store = _resolve_cache(cache)
    keys = [RowCache.key(kind="svm", ds=ds.key, gamma=g, C=C, cv=cv, p1=proposal1, **params) for g in gammas]
    cached = {k: row for k in keys if (row := store.get(k))} if store else {}
    todo = [i for i, k in enumerate(keys) if not cached.get(k)]
    n_tasks_per_status = cv + 2
    total = len(todo) * n_tasks_per_status
    done = 0
    if progress:
        progress(0, total)
    if not todo:
        for k in keys:
            yield cached[k]
        return

    bu_tr, bu_te, p1 = _fit_estimators(ds, template, proposal1, random_state)
    fit_times = _fit_times(bu_tr, bu_te, p1)
    X, y = ds.X_train, ds.y_train
    folds = _splits(y, cv, random_state)
    ho = _holdout_split(y, random_state)
    tasks, owners = [], []
    for i in todo:
        g = gammas[i]
        tasks.append(delayed(_svm_full_task)(ds, g, C, bu_tr, bu_te, p1))
        owners.append((i, "full"))
        tasks.append(delayed(_svm_fold_task)(X, y, ho[0], ho[1], g, C))
        owners.append((i, "ho"))
        for tr, va in folds:
            tasks.append(delayed(_svm_fold_task)(X, y, tr, va, g, C))
            owners.append((i, "cv"))

    partial: dict[int, dict] = {i: {"cv": []} for i in todo}
    ready: dict[int, dict] = {}
    next_out = 0
    retried: dict[int, int] = {}
    with _backend(scheduler):
        for t, out in _run_tasks(tasks, n_jobs, retried, niceness=niceness):
            i, kind = owners[t]
            p = partial[i]
            if kind == "full":
                p.update(out)
            elif kind == "ho":
                p["L_ho"], p["time_ho"] = out[1], out[2]
            else:
                p["cv"].append(out)
            done += 1
            if progress:
                progress(done, total)
            if len(p["cv"]) == cv and "L_ho" in p and "U_tr" in p:
                folds_out = np.array(p.pop("cv"))
                g = gammas[i]
                row = {"status": "gamma", "gamma": g, "log2_gamma": float(np.log2(g)), "C": C,
                       "L_tr": float(folds_out[:, 0].mean()), "L_val": float(folds_out[:, 1].mean()),
                       "time_cv": float(folds_out[:, 2].sum()), **p, **fit_times,
                       "retries": sum(n for t2, n in retried.items() if owners[t2][0] == i)}
                if store:
                    store.put(keys[i], row)
                ready[i] = row
            # yield in the order of gammas, cached rows included
            while next_out < len(gammas) and (next_out in ready or cached.get(keys[next_out])):
                yield ready.pop(next_out, None) or cached[keys[next_out]]
                next_out += 1
    while next_out < len(gammas):
        yield ready.pop(next_out, None) or cached[keys[next_out]]
        next_out += 1


def svm_gamma_sweep(ds: Dataset, gammas: Iterable[float], C: float = 1.0, cv: int = 10, M: int = 40, K="aic",
                    *, K_range=DEFAULT_K_RANGE, separability: str = DEFAULT_SEPARABILITY,
                    separability_n0: float = DEFAULT_SEPARABILITY_N0, perturbation: float = 0.5,
                    perturbation_mode: str = "features",
                    proposal1: bool = False, random_state=0, n_jobs: int = 2, cache=True,
                    scheduler=None, progress: Progress | None = None, niceness: int = 0,
                    uncertainty: BoundaryUncertainty | None = None) -> pd.DataFrame:
    """Return a tidy table, one row per γ of an RBF SVC: errors L_tr, L_val, L_ho, L_te and Û_tr, Û_te.

    The sweep of Figs 6-8 of Ha et al. (2021).

    Parameters
    ----------
    ds : Dataset
        The data (:func:`buviz.datasets.load` and friends).
    gammas : iterable of float
        RBF kernel parameters γ > 0 (e.g. ``2.0 ** np.arange(-10, 11)``).
    C : float, default=1.0
        SVC regularisation.
    cv : int, default=10
        Folds of stratified k-fold CV (10 to 40 in Ha et al. 2021, §6.4).
    M : int, default=40
        Proposal 2's neighbourhood size.
    K : "aic", int or sequence of int, default="aic"
        Proposal 2's prototypes per class.
    K_range : "auto" or sequence of int, default="auto"
        The K tried per class when ``K="aic"`` (:class:`~buviz.uncertainty.BoundaryUncertainty`);
        :data:`~buviz.uncertainty.PAPER_K_RANGE` for the paper's 1, 3, ..., 39.
    separability : {"literal", "threshold", "shrinkage", "graded"}, default="shrinkage"
        Û's rule for eq 39's Case 1/3 branch (:class:`~buviz.uncertainty.BoundaryUncertainty`);
        ``"literal"`` is eq 39 as printed in the paper, ``"threshold"`` buviz's tolerance ω_kl < 0.05.
    separability_n0 : float, default=10.0
        n0 of the "shrinkage" and "graded" rules.
    perturbation : float, default=0.5
        Amplitude of T̃ (see :class:`~buviz.uncertainty.BoundaryUncertainty`).
    perturbation_mode : {"features", "scalar"}, default="features"
        How T̃ is drawn.
    proposal1 : bool, default=False
        Also compute Proposal 1 on T (column ``U1_tr``).
    random_state : int or None, default=0
        Seeds folds, hold-out split, T̃ and K-means.
    n_jobs : int, default=2
        joblib workers.
    cache : bool, str, path or RowCache, default=True
        True (default directory), False, a directory or a :class:`RowCache`.
    scheduler : str or distributed.Client, optional
        A Dask scheduler address (``"tcp://host:port"``) or client; default joblib's processes.
    progress : callable, optional
        ``progress(done, total)`` after each finished task.
    niceness : int, default=0
        Unix niceness of the worker processes (0: unchanged); the calling process is never reniced.
        joblib reuses its workers, so they keep that niceness for later sweeps in the same process.
    uncertainty : BoundaryUncertainty, optional
        The estimator template Û is computed with (cloned, fitted on T and on the test set), e.g.
        ``BoundaryUncertainty(M=20, separability="graded", weight_tol=0.1)``. Without it, one is built
        from ``M``, ``K``, ``K_range``, ``separability``, ``separability_n0``, ``perturbation``,
        ``perturbation_mode`` and ``random_state`` (:func:`uncertainty_template`); with it, those
        keywords must keep their defaults and ``random_state`` seeds only the folds, the hold-out
        split and Proposal 1.

    Returns
    -------
    pandas.DataFrame
        One row per γ, columns as in the module docstring.

    Raises
    ------
    InvalidParameterError
        If ``ds`` is not a Dataset, a list is empty or a value is out of range (e.g. more folds
        than samples in a class).

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    rows = list(iter_svm_gamma_sweep(ds, gammas, C, cv, M, K, K_range=K_range, separability=separability,
                                     separability_n0=separability_n0, perturbation=perturbation,
                                     perturbation_mode=perturbation_mode, proposal1=proposal1,
                                     random_state=random_state, n_jobs=n_jobs, cache=cache,
                                     scheduler=scheduler, progress=progress, niceness=niceness,
                                     uncertainty=uncertainty))
    return pd.DataFrame(rows)


# -- MLP epoch sweep --------------------------------------------------------------------------
def _mlp_errors_task(X, y, tr, va, epochs, mlp_kw):
    t0 = time.perf_counter()
    out = [(e, _error(d, X[tr], y[tr]), _error(d, X[va], y[va])) for e, d in
           mlp_statuses(X[tr], y[tr], epochs, **mlp_kw)]
    return out, time.perf_counter() - t0


def _mlp_full_task(ds: Dataset, epochs, mlp_kw, bu_tr, bu_te):
    rows = []
    t0 = time.perf_counter()
    for e, d in mlp_statuses(ds.X_train, ds.y_train, epochs, **mlp_kw):
        r = bu_tr._evaluate(d, copy_discriminant=False)
        row = {"epoch": e, "L_te": evaluate_on_test_set(d, ds.X_test, ds.y_test).L_te, "U_tr": r.value,
               "time_u_tr": r.evaluate_time, "time_classifier": r.classifier_time, **_case_columns(r)}
        if bu_te is not None:
            rt = bu_te._evaluate(d, copy_discriminant=False)
            row["U_te"], row["time_u_te"] = rt.value, rt.evaluate_time
        else:
            row["U_te"], row["time_u_te"] = float("nan"), 0.0
        rows.append(row)
    return rows, time.perf_counter() - t0


def mlp_epoch_sweep(ds: Dataset, epochs: Iterable[int], cv: int = 10, M: int = 40, K="aic", *,
                    K_range=DEFAULT_K_RANGE, separability: str = DEFAULT_SEPARABILITY,
                    separability_n0: float = DEFAULT_SEPARABILITY_N0, hidden_layer_sizes=(128, 64),
                    learning_rate_init: float = 1e-3,
                    perturbation: float = 0.5, perturbation_mode: str = "features", random_state=0,
                    n_jobs: int = 2, cache=True, scheduler=None,
                    progress: Progress | None = None, niceness: int = 0,
                    uncertainty: BoundaryUncertainty | None = None) -> pd.DataFrame:
    """Return a tidy table, one row per training epoch of one MLP, columns as for the γ sweep.

    The sweep of Fig 9 of Ha et al. (2021). Each fold (and the full training set, and the hold-out
    split) trains one network with ``partial_fit`` and is read off at the requested epochs, so the
    statuses of a row share a trajectory, as in the paper.

    Parameters
    ----------
    ds : Dataset
        The data (:func:`buviz.datasets.load` and friends).
    epochs : iterable of int
        Epochs (>= 1) at which to read the network.
    cv : int, default=10
        Folds of stratified k-fold CV (10 to 40 in Ha et al. 2021, §6.4).
    M : int, default=40
        Proposal 2's neighbourhood size.
    K : "aic", int or sequence of int, default="aic"
        Proposal 2's prototypes per class.
    K_range : "auto" or sequence of int, default="auto"
        The K tried per class when ``K="aic"`` (:class:`~buviz.uncertainty.BoundaryUncertainty`);
        :data:`~buviz.uncertainty.PAPER_K_RANGE` for the paper's 1, 3, ..., 39.
    separability : {"literal", "threshold", "shrinkage", "graded"}, default="shrinkage"
        Û's rule for eq 39's Case 1/3 branch (:class:`~buviz.uncertainty.BoundaryUncertainty`);
        ``"literal"`` is eq 39 as printed in the paper, ``"threshold"`` buviz's tolerance ω_kl < 0.05.
    separability_n0 : float, default=10.0
        n0 of the "shrinkage" and "graded" rules.
    hidden_layer_sizes : tuple of int, default=(128, 64)
        The MLP's hidden layers.
    learning_rate_init : float, default=1e-3
        Adam's learning rate.
    perturbation : float, default=0.5
        Amplitude of T̃ (see :class:`~buviz.uncertainty.BoundaryUncertainty`).
    perturbation_mode : {"features", "scalar"}, default="features"
        How T̃ is drawn.
    random_state : int or None, default=0
        Seeds folds, hold-out split, T̃ and K-means.
    n_jobs : int, default=2
        joblib workers.
    cache : bool, str, path or RowCache, default=True
        True (default directory), False, a directory or a :class:`RowCache`.
    scheduler : str or distributed.Client, optional
        A Dask scheduler address (``"tcp://host:port"``) or client; default joblib's processes.
    progress : callable, optional
        ``progress(done, total)`` after each finished task.
    niceness : int, default=0
        Unix niceness of the worker processes (0: unchanged); the calling process is never reniced.
        joblib reuses its workers, so they keep that niceness for later sweeps in the same process.
    uncertainty : BoundaryUncertainty, optional
        The estimator template Û is computed with (cloned, fitted on T and on the test set), e.g.
        ``BoundaryUncertainty(M=20, separability="graded", weight_tol=0.1)``. Without it, one is built
        from ``M``, ``K``, ``K_range``, ``separability``, ``separability_n0``, ``perturbation``,
        ``perturbation_mode`` and ``random_state`` (:func:`uncertainty_template`); with it, those
        keywords must keep their defaults and ``random_state`` seeds only the folds, the hold-out
        split and Proposal 1.

    Returns
    -------
    pandas.DataFrame
        One row per epoch.

    Raises
    ------
    InvalidParameterError
        If ``ds`` is not a Dataset, a list is empty or a value is out of range (e.g. more folds
        than samples in a class).

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    epochs = sorted({check_int(e, "epochs", low=1) for e in np.atleast_1d(epochs)})
    if not epochs:
        raise InvalidParameterError("epochs must hold at least one value")
    template, cv, params = _setup(ds, cv, uncertainty, random_state, M=M, K=K, K_range=K_range,
                                  separability=separability, separability_n0=separability_n0,
                                  perturbation=perturbation, perturbation_mode=perturbation_mode)
    mlp_kw = dict(hidden_layer_sizes=tuple(hidden_layer_sizes), learning_rate_init=learning_rate_init,
                  random_state=random_state)
    store = _resolve_cache(cache)
    key = RowCache.key(kind="mlp", ds=ds.key, epochs=epochs, cv=cv, mlp=mlp_kw, **params)
    if store and (hit := store.get(key)):
        if progress:
            progress(0, 0)
        return pd.DataFrame(hit["rows"])
    bu_tr, bu_te, _ = _fit_estimators(ds, template, False, random_state)
    fit_times = _fit_times(bu_tr, bu_te, None)
    X, y = ds.X_train, ds.y_train
    folds = _splits(y, cv, random_state)
    ho = _holdout_split(y, random_state)
    tasks = [delayed(_mlp_full_task)(ds, epochs, mlp_kw, bu_tr, bu_te),
             delayed(_mlp_errors_task)(X, y, ho[0], ho[1], epochs, mlp_kw)]
    tasks += [delayed(_mlp_errors_task)(X, y, tr, va, epochs, mlp_kw) for tr, va in folds]
    results = [None] * len(tasks)
    with _backend(scheduler):
        for n, (t, out) in enumerate(_run_tasks(tasks, n_jobs, {}, niceness=niceness)):
            results[t] = out
            if progress:
                progress(n + 1, len(tasks))
    (full, t_full), (ho_rows, t_ho), cv_out = results[0], results[1], results[2:]
    cv_err = np.array([[r[1:] for r in rows] for rows, _ in cv_out])  # (cv, epochs, 2)
    table = []
    for n, e in enumerate(epochs):
        table.append({"status": "epoch", "epoch": e, "L_tr": float(cv_err[:, n, 0].mean()),
                      "L_val": float(cv_err[:, n, 1].mean()), "L_ho": ho_rows[n][2], **full[n],
                      "time_fit": t_full, "time_cv": float(sum(t for _, t in cv_out)), "time_ho": t_ho,
                      **fit_times})
    if store:
        store.put(key, {"rows": table})
    return pd.DataFrame(table)


def _caller_filters() -> list:
    """The calling process's warning filters as a worker applies them: ``"error"`` becomes ``"always"``
    (the warning is raised in the caller, not inside the task, which would fail and be retried);
    filters that cannot travel to a worker (a category not importable by its qualified name, e.g. one
    defined in a function) are left out."""
    out = []
    for f in warnings.filters:
        category = f[2]
        module = sys.modules.get(category.__module__)
        found = module
        for part in category.__qualname__.split("."):
            found = getattr(found, part, None)
        if found is not category:
            continue
        out.append(("always" if f[0] == "error" else f[0], *f[1:]))
    return out


def _in_worker(parent_pid: int, niceness: int, filters: list, fn, *args, **kwargs):
    """Run ``fn`` and return ``(output, warnings)``.

    In a worker process (not the caller's), the process's niceness is first raised to ``niceness``,
    and the warnings ``fn`` raises are recorded under the caller's ``filters`` and returned, for
    :func:`_run_tasks` to raise them again in the caller: raised in a worker they would only be
    printed there, and no filter of the caller could silence them or turn them into errors. Run in
    the caller's own process (``n_jobs=1``), ``fn`` raises its warnings there directly."""
    if os.getpid() == parent_pid:
        return fn(*args, **kwargs), []
    if niceness > 0 and hasattr(os, "getpriority"):
        if os.getpriority(os.PRIO_PROCESS, 0) < niceness:
            os.setpriority(os.PRIO_PROCESS, 0, niceness)
    with warnings.catch_warnings(record=True) as caught:
        warnings.filters[:] = filters
        out = fn(*args, **kwargs)
    return out, [w.message for w in caught]


#: How long a sweep closed before its end waits for its tasks in flight while another sweep of the
#: process runs (:func:`_run_tasks`); after that it abandons them, as joblib would. A rule buviz chose.
CLOSE_DRAIN_S = 30.0

_calls_lock = threading.Lock()
_calls_running = 0  # joblib calls of _run_tasks running in this process, every thread


def _run_tasks(tasks: list, n_jobs: int, retried: dict[int, int], retries: int = 2,
               niceness: int = 0) -> Iterator[tuple[int, object]]:
    """Run joblib tasks, yielding ``(task index, output)`` in order as each finishes.

    A task that raises, or whose worker dies (a killed process, a lost Dask worker), is run again,
    up to ``retries`` more times, with a warning each time; ``retried[index]`` counts the re-runs.
    A task that still fails raises ``RuntimeError``: no result is silently dropped. Warnings raised
    in worker processes are raised again here, under the caller's filters (see :func:`_in_worker`).

    Closed before its end (a cancelled sweep) while another sweep of the process runs, it hands joblib
    no further task and waits (at most :data:`CLOSE_DRAIN_S`) for the ones already handed out, so that
    joblib's call ends normally. joblib's loky backend runs every call of a process on one shared
    executor, and a ``return_as="generator"`` call abandoned midway shuts that executor down (its
    workers killed), which interrupts the other sweep: with a cancelled sweep beside a running one, the
    running one had 72 of its 84 tasks interrupted and run again (``tests/sweep/test_sweeps.py``).
    Alone, or closed by the garbage collector in another thread (where waiting could block the thread
    that delivers the results), it is abandoned at once, as before.
    """
    global _calls_running
    filters = _caller_filters()
    tasks = [delayed(_in_worker)(os.getpid(), niceness, filters, fn, *args, **kw) for fn, args, kw in tasks]
    pending = list(range(len(tasks)))
    attempt = 0
    while pending:
        batch, handed, closed = list(pending), [], threading.Event()

        def feed(batch=batch, handed=handed, closed=closed):
            for t in batch:  # joblib takes tasks from here as workers free up (in its callback threads too)
                if closed.is_set():
                    return
                handed.append(t)
                yield tasks[t]

        caller = threading.get_ident()
        with _calls_lock:
            _calls_running += 1
        try:
            outputs = Parallel(n_jobs=n_jobs, return_as="generator")(feed())
            for i, (out, caught) in enumerate(outputs):
                t = handed[i]  # outputs come in the order the tasks were handed out
                pending.remove(t)
                for message in caught:
                    warnings.warn(message, stacklevel=2)
                try:
                    yield t, out
                except GeneratorExit:
                    closed.set()  # no new task
                    with _calls_lock:
                        others = _calls_running > 1
                    if others and threading.get_ident() == caller:
                        _drain(outputs, time.monotonic() + CLOSE_DRAIN_S)
                    raise
            if pending:  # every task was handed out, so every one has its output
                raise RuntimeError(f"joblib returned no output for {len(pending)} sweep task(s)")
        except Exception as exc:  # a task error or a dead worker: both are retried the same way
            if isinstance(exc, Warning):  # a worker's warning that the caller's filters turn into an error
                raise
            attempt += 1
            if attempt > retries:
                raise RuntimeError(f"{len(pending)} sweep task(s) failed after {retries} retries: {exc!r}") from exc
            warnings.warn(f"{len(pending)} sweep task(s) interrupted ({type(exc).__name__}: {exc}); "
                          f"retrying (attempt {attempt} of {retries})", RuntimeWarning, stacklevel=2)
            for t in pending:
                retried[t] = retried.get(t, 0) + 1
        finally:
            with _calls_lock:
                _calls_running -= 1


def _drain(outputs: Iterator, deadline: float) -> None:
    """Read the rest of a joblib call whose input ended (the tasks in flight), until ``deadline``
    (``time.monotonic()``); a task failing meanwhile ends it too."""
    with contextlib.suppress(Exception):
        for _ in outputs:
            if time.monotonic() > deadline:
                return


@contextmanager
def _backend(scheduler) -> Iterator[None]:
    """Run the block with joblib's default backend, or Dask's when a scheduler is given.

    A scheduler address opens a client that is closed on exit; a given ``Client`` is left open.
    """
    if scheduler is None:
        yield
        return
    try:
        from distributed import Client
    except ImportError:
        raise ValueError("scheduler= needs dask.distributed (pip install 'buviz[dask]')") from None
    from joblib import parallel_config

    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        with parallel_config(backend="dask"):
            yield
    finally:
        if client is not scheduler:
            client.close()
