"""The explorer's snapshot pipeline: cached, thread-safe steps keyed by named, frozen keys, run by
a session's store on the one background runner (through its job bus, :class:`buviz.app.bus.JobBus`; the
users' uncached steps first, the work ahead of them, :func:`compute_ahead`, after) and kept in the one
cache (:mod:`buviz.app.cache`). A snapshot is computed within :data:`SNAPSHOT_TIME_BUDGET_S`
(:func:`snapshot_budget`, checked between its steps).

Nothing here knows about widgets or documents: a key is a frozen dataclass (:class:`DataKey`,
:class:`StatusKey`, :class:`FitKey`, :class:`ResultKey`), a value is a dataset, a classifier status
evaluated once, a fitted Proposal 2 estimator or its result.

Caches (process-wide, least recently used first out; ``max_items`` below):

======================  =========  ==========================================================
step                    max_items  key
======================  =========  ==========================================================
dataset                 6          :class:`DataKey` (dataset, N, seed, payload)
Bayes boundary + error  6          :class:`DataKey`
MLP trajectory          2          :class:`DataKey` (one network trained 1..60 epochs)
status evaluation       48         :class:`StatusKey` (data, classifier, log₂γ, log₂C, epoch)
Proposal 2 ``fit``      6          :class:`FitKey` (data, M, K, T̃ amplitude and mode)
Proposal 2 result       48         :class:`ResultKey` (status key + fit key)
======================  =========  ==========================================================

A status evaluation holds the classifier's scores on the 160 × 160 contour grid (J floats per
point) and f on the test set, about 0.5 MB for two classes; 48 of them stay under 25 MB. A prefetch
(:func:`prefetch_keys`) asks for at most 23 statuses (the 21 γ of the row and the two neighbouring
C), so it never evicts more than half of the status cache.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

import buviz.uncertainty as bu
from buviz import datasets
from buviz.app.cache import LRUCache, cached
from buviz.app.timebudget import time_budget
from buviz.app.upload import parse_mixture, read_normalised
from buviz.classifiers import Discriminant, mlp_statuses, svm_status
from buviz.datasets import Dataset
from buviz.grid import GridEvaluation, evaluate_grid
from buviz.sweep import evaluate_on_test_set

__all__ = ["LRUCache", "cached", "DataKey", "StatusKey", "FitKey", "ResultKey", "StatusEval", "Snapshot",
           "dataset_for", "bayes_info", "SNAPSHOT_TIME_BUDGET_S", "snapshot_budget",
           "mlp_trajectory", "real_sizes", "status_eval", "bu_fitted", "bu_result", "compute_snapshot",
           "lookup_snapshot",
           "status_cached", "parse_mixture", "UploadStore", "UPLOADS", "store_upload", "prefetch_keys",
           "prefetch_enabled", "compute_ahead", "clear_caches",
           "GAMMA_GRID", "MLP_EPOCHS", "MAX_EPOCH", "GRID_RESOLUTION", "N_TEST", "DEFAULT_MIXTURE_JSON"]

#: log₂ γ of the sweep (the paper's default view, 2^-10 .. 2^10).
GAMMA_GRID = tuple(range(-10, 11))
#: Epochs of the MLP sweep (one network read off at these epochs, Fig 9).
MLP_EPOCHS = (1, 2, 3, 5, 8, 12, 20, 30, 45, 60)
MAX_EPOCH = MLP_EPOCHS[-1]
#: Contour grid resolution (B(Λ), B*, predicted regions): 160 × 160 keeps an uncached SVM status at
#: N = 1000 under half a second (the grid evaluation is linear in the points; 200 × 200 took 0.5 s).
GRID_RESOLUTION = 160
#: Test-set size drawn for the mixtures (L_te, f(X_te), Û_te).
N_TEST = 5000
DEFAULT_MIXTURE = {
    "classes": [
        [{"weight": 0.5, "mean": [-1.0, 0.0], "cov": 0.6}, {"weight": 0.5, "mean": [1.0, 1.5], "cov": 0.6}],
        [{"weight": 0.6, "mean": [1.0, -0.5], "cov": [0.5, 0.9]},
         {"weight": 0.4, "mean": [-1.5, 2.0], "cov": [[0.5, 0.2], [0.2, 0.4]]}],
    ],
    "priors": [0.5, 0.5],
}
DEFAULT_MIXTURE_JSON = json.dumps(DEFAULT_MIXTURE)


# -- uploads ----------------------------------------------------------------------------------------
def _not_uploaded(digest: str):
    return None


class UploadStore(LRUCache):
    """Uploaded CSV bytes of the process, keyed by their digest (never the user's file name); at most
    ``max_items`` (each at most ``datasets.MAX_CSV_BYTES`` = 5 MB), the oldest out first; thread-safe."""

    def __init__(self, max_items: int = 16):
        super().__init__(_not_uploaded, max_items, derived=False)
        self.__name__ = "uploads"


#: The process's uploaded CSVs (shared by its sessions).
UPLOADS = UploadStore(max_items=16)
UPLOADS_MAX = UPLOADS.max_items


def store_upload(digest: str, data: bytes) -> None:
    """Keep an uploaded CSV under its digest (:data:`UPLOADS`)."""
    UPLOADS.put(digest, data)


# -- the keys of the cached steps --------------------------------------------------------------------
@dataclass(frozen=True)
class DataKey:
    """The dataset of a control setting (``payload``: the mixture JSON for "custom", the CSV digest for
    "csv", else ''; ``n_train`` 0 for a dataset of fixed size or a real dataset taken whole)."""

    name: str
    n_train: int
    seed: int
    payload: str = ""


@dataclass(frozen=True)
class StatusKey:
    """One classifier status Λ on a dataset (the SVM's γ and C, or the MLP's epoch; the other 0)."""

    data: DataKey
    classifier: str
    log2_gamma: int = 0
    log2_C: int = 0
    epoch: int = 0

    @property
    def value(self) -> int:
        """The status's place along the sweep (log₂ γ for the SVM, the epoch for the MLP)."""
        return self.log2_gamma if self.classifier == "SVM" else self.epoch


@dataclass(frozen=True)
class FitKey:
    """Proposal 2's shared step on a dataset: M, K and the T̃ law (amplitude 0: T̃ = T)."""

    data: DataKey
    M: int
    K: str
    perturbation: float
    perturbation_mode: str

    def estimator(self) -> bu.BoundaryUncertainty:
        """The unfitted estimator of these settings (the app's sweeps take it as their template)."""
        return uncertainty_estimator(self.M, self.K, self.perturbation, self.perturbation_mode, self.data.seed)


@dataclass(frozen=True)
class ResultKey:
    """Everything one snapshot is computed from: a classifier status and Proposal 2's fit."""

    status: StatusKey
    fit: FitKey

    @property
    def data(self) -> DataKey:
        return self.status.data

    @classmethod
    def of(cls, s: dict) -> ResultKey:
        """The keys of the explorer's control values ``s`` (irrelevant controls do not split keys)."""
        name = s["dataset"]
        if name in datasets.REAL_NAMES or name == "csv":
            n = 0  # fixed size
        elif name in datasets.UCI_NAMES:
            n = int(s["n_train"])
            n = 0 if n >= real_sizes(name)[0] else n  # all of it: one key
        else:
            n = int(s["n_train"])
        payload = s["mixture_json"] if name == "custom" else s["csv_key"] if name == "csv" else ""
        data = DataKey(name, n, int(s["seed"]), payload)
        if s["classifier"] == "SVM":
            status = StatusKey(data, "SVM", log2_gamma=int(s["log2_gamma"]), log2_C=int(s["log2_C"]))
        else:
            status = StatusKey(data, "MLP", epoch=int(s["epoch"]))
        pert = float(s["perturbation"]) if s["tilde"] else 0.0
        return cls(status, FitKey(data, int(s["M"]), str(s["K"]), pert, str(s["perturbation_mode"])))

    def with_status(self, **status) -> ResultKey:
        """The same dataset and fit at another status (``log2_gamma=3``, ``epoch=5`` ...)."""
        return ResultKey(replace(self.status, **status), self.fit)


# -- the cached steps --------------------------------------------------------------------------------
@cached(max_items=6)
def dataset_for(key: DataKey) -> Dataset:
    """The dataset of a control setting."""
    name, n_train, seed, payload = key.name, key.n_train, key.seed, key.payload
    if name in datasets.MIXTURE_NAMES:
        return datasets.load(name, n_train=n_train, n_test=N_TEST, random_state=seed)
    if name == "custom":
        return datasets.from_mixture(parse_mixture(payload), n_train, N_TEST, seed, name="custom",
                                     description="custom mixture")
    if name in datasets.REAL_NAMES:
        return datasets.load(name, random_state=seed)
    if name in datasets.UCI_NAMES:  # N subsampled live (n_train = 0: the whole training part)
        n_tr, n_te = real_sizes(name)
        return datasets.load(name, n_train=n_train if 0 < n_train < n_tr else None,
                             n_test=N_TEST if n_te > N_TEST else None, random_state=seed)
    if name == "csv":
        data = UPLOADS.get(payload)
        if data is None:
            raise ValueError("no CSV uploaded in this server (upload a file first)")
        return read_normalised(data, random_state=seed)
    raise ValueError(f"unknown dataset {name!r}")


@cached(max_items=16)
def real_sizes(name: str) -> tuple[int, int]:
    """(training rows, test rows) of a shipped real dataset before any subsampling."""
    ds = datasets.load(name)
    return len(ds.X_train), len(ds.X_test)


@cached(max_items=6)
def bayes_info(key: DataKey):
    """(B* fields on the contour grid, Bayes error) for exact-density datasets, else (None, None)."""
    ds = dataset_for(key)
    if ds.model is None or ds.n_features != 2:
        return None, None
    return ds.model.bayes_boundary(ds.bounds(), GRID_RESOLUTION), float(ds.model.bayes_error(resolution=601))


@cached(max_items=2)
def mlp_trajectory(key: DataKey) -> dict[int, Discriminant]:
    """One MLP (128, 64) trained with ``partial_fit``; snapshots at every epoch 1..60."""
    ds = dataset_for(key)
    return dict(mlp_statuses(ds.X_train, ds.y_train, range(1, MAX_EPOCH + 1), random_state=key.seed))


@dataclass(frozen=True, eq=False)
class StatusEval:
    """A classifier status Λ evaluated once: on the contour grid and on the test set."""

    discriminant: Discriminant
    label: str
    #: on the contour grid (d = 2; None otherwise): predicted class codes (uint8) and, for each pair, the
    #: GridField whose zero contour is B(Λ); the class scores are not kept
    grid: GridEvaluation | None
    f_test: np.ndarray  # f(X_te; Λ) with the top-2 pair at each test point
    L_te: float
    fit_time: float
    eval_time: float

    @property
    def fields(self) -> dict | None:
        """pair -> GridField whose zero contour is B(Λ) (None for d > 2)."""
        return None if self.grid is None else self.grid.fields


@cached(max_items=48)
def status_eval(key: StatusKey) -> StatusEval:
    """The classifier status of a control setting, evaluated on the contour grid and the test set."""
    ds = dataset_for(key.data)
    t0 = time.perf_counter()
    if key.classifier == "SVM":
        d = svm_status(ds.X_train, ds.y_train, 2.0 ** key.log2_gamma, 2.0 ** key.log2_C)
        label = f"SVM γ = 2^{key.log2_gamma:g}, C = 2^{key.log2_C:g}"
    else:
        d = mlp_trajectory(key.data)[int(key.epoch)]
        label = f"MLP (128, 64), epoch {int(key.epoch)}"
    t1 = time.perf_counter()
    grid = None
    if ds.n_features == 2:
        ev = evaluate_grid(d, ds.bounds(), GRID_RESOLUTION)
        grid = GridEvaluation(ev.xs, ev.ys, None, ev.predicted.astype(np.uint8), ev.fields)
    te = evaluate_on_test_set(d, ds.X_test, ds.y_test)
    return StatusEval(d, label, grid, te.f_test, te.L_te, t1 - t0, time.perf_counter() - t1)


def prototypes_per_class(K: str):
    return "aic" if K == "aic" else int(K)


def uncertainty_estimator(M: int, K: str, perturbation: float, perturbation_mode: str,
                          seed: int) -> bu.BoundaryUncertainty:
    """Proposal 2's unfitted estimator at the explorer's settings (K as the control gives it: "aic" or a
    number), the package's default separability rule; ``seed`` seeds T̃ and K-means."""
    return bu.BoundaryUncertainty(M=int(M), K=prototypes_per_class(K), perturbation=float(perturbation),
                                  perturbation_mode=perturbation_mode, separability=bu.DEFAULT_SEPARABILITY,
                                  separability_n0=bu.DEFAULT_SEPARABILITY_N0, random_state=int(seed))


@cached(max_items=6)
def bu_fitted(key: FitKey) -> bu.BoundaryUncertainty:
    """Proposal 2's shared step (neighbourhoods, T̃, Î*) for a dataset and estimator settings."""
    ds = dataset_for(key.data)
    return key.estimator().fit(ds.X_train, ds.y_train)


@cached(max_items=48)
def bu_result(key: ResultKey):
    """Proposal 2's per-status result (Û, weights, local uncertainties, F ...)."""
    est = bu_fitted(key.fit)
    st = status_eval(key.status)
    return est.evaluate(st.discriminant, train_scores=True)  # f(T) for the sample-space and shift views


# -- settings -> keys -> snapshot ----------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Snapshot:
    """Everything the views show for one control setting (computed once, then only read: frozen)."""

    settings: dict
    ds: Dataset
    status: StatusEval
    result: object  # BoundaryUncertaintyResult
    bayes_fields: dict | None
    bayes_error: float | None
    ks: dict = field(default_factory=dict)
    elapsed: float = 0.0

    @property
    def is_2d(self) -> bool:
        return self.ds.n_features == 2

    @property
    def status_value(self) -> float:
        s = self.settings
        return float(s["log2_gamma"]) if s["classifier"] == "SVM" else float(s["epoch"])


#: Seconds one snapshot's computation may take, counted from its start (not its wait in the runner's
#: queue): past it, the steps left are not started and the setting is refused with a message (each step
#: done stays cached, so asking again goes on from there). A step that runs is never interrupted, so the
#: inputs' bounds keep each step far below it: at the largest settings the explorer accepts (N = M = 5000,
#: K = 40, γ = 2^15, C = 2^10, the MLP at 60 epochs, a 3.4 MB upload of 5 000 training rows and 64
#: features) one snapshot took 3.5-8.8 s on a 2-core machine with nothing else running, against 0.24 s
#: for the default setting (``benchmarks/bench_worst_case.py``, medians of 3): the budget leaves room for
#: a class server's queue of work.
SNAPSHOT_TIME_BUDGET_S = 120.0


def snapshot_budget(check: Callable[[], None] | None = None) -> Callable[[], None]:
    """The check :func:`compute_snapshot` calls between its steps: :data:`SNAPSHOT_TIME_BUDGET_S` from
    now, and ``check`` (a job's :meth:`~buviz.app.runner.Job.check`: a cancelled job stops there)."""
    return time_budget(SNAPSHOT_TIME_BUDGET_S, "computing these settings",
                       "the server is busy, or N and M are large: try again, or lower N or M", check)


def _assemble(settings: dict, k: ResultKey, t0: float, check: Callable[[], None] = lambda: None) -> Snapshot:
    ds = dataset_for(k.data)
    check()
    st = status_eval(k.status)
    check()
    res = bu_result(k)
    check()
    bf, be = bayes_info(k.data)
    check()
    ks = _shift_stats(k)
    return Snapshot(dict(settings), ds, st, res, bf, be, ks, time.perf_counter() - t0)


@cached(max_items=48)
def _shift_stats(key: ResultKey) -> dict:
    st = status_eval(key.status)
    return bu_result(key).covariate_shift(st.f_test) if len(st.f_test) else {}


def compute_snapshot(settings: dict, check: Callable[[], None] | None = None) -> Snapshot:
    """The snapshot of a control setting; raises ValueError (or the estimator's error) on bad input.

    ``check`` is called between the steps (default: :func:`snapshot_budget`); whatever it raises ends
    the computation there.
    """
    return _assemble(settings, ResultKey.of(settings), time.perf_counter(), check or snapshot_budget())


def lookup_snapshot(settings: dict) -> Snapshot | None:
    """The snapshot of ``settings`` when every step is cached (microseconds), else ``None``."""
    t0 = time.perf_counter()
    k = ResultKey.of(settings)
    if not all(step.has(key) for step, key in ((dataset_for, k.data), (status_eval, k.status), (bu_result, k),
                                               (bayes_info, k.data), (_shift_stats, k))):
        return None
    return _assemble(settings, k, t0)


def status_cached(settings: dict) -> bool:
    """Whether the dataset and classifier status of ``settings`` are cached (what is left -- Proposal
    2's fit and evaluation -- takes tens of milliseconds, not the status's grid evaluation)."""
    k = ResultKey.of(settings)
    return dataset_for.has(k.data) and status_eval.has(k.status) and bayes_info.has(k.data)


def prefetch_keys(k: ResultKey) -> list[ResultKey]:
    """What to compute ahead of the user after a dataset, C, M, K or T̃ change: the whole γ row
    (nearest γ first) and the neighbouring C at the current γ; for the MLP, every sweep epoch."""
    st = k.status
    if st.classifier == "SVM":
        g, c = st.log2_gamma, st.log2_C
        out = [k.with_status(log2_gamma=x) for x in sorted(GAMMA_GRID, key=lambda x: (abs(x - g), x))]
        out += [k.with_status(log2_C=c + d) for d in (1, -1) if -5 <= c + d <= 10]
    else:
        out = [k.with_status(epoch=x) for x in sorted(MLP_EPOCHS, key=lambda x: abs(x - st.epoch))]
    return [s for s in out if s != k]


def compute_keys(k: ResultKey) -> None:
    """Compute (and cache) every step of ``k`` without assembling a snapshot (prefetch)."""
    bayes_info(k.data)
    _shift_stats(k)


# -- work ahead of the user ---------------------------------------------------------------------------
def prefetch_enabled() -> bool:
    """Whether sessions compute ahead of their user (the store's prefetch, at priority
    ``PREFETCH``); ``BUVIZ_PREFETCH=0`` in the environment turns it off (benchmarks of uncached steps)."""
    return os.environ.get("BUVIZ_PREFETCH", "1") != "0"


def compute_ahead(k: ResultKey) -> bool:
    """Compute (and cache) ``k`` ahead of the user; whether anything was computed. Settings that fail
    compute nothing here: the user's own request reports them."""
    if bu_result.has(k) and _shift_stats.has(k):
        return False
    try:
        compute_keys(k)
    except Exception:
        return False
    return True


def clear_caches() -> None:
    """Empty every cache of the explorer (tests and benchmarks)."""
    from buviz.app.cache import clear_all

    clear_all()
