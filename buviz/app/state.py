"""Explorer state: the controls, the cached per-status computations and the background sweep.

One :class:`ExplorerState` (a ``param.Parameterized``) per session holds the controls and a
:class:`Snapshot` -- the dataset, the classifier status Λ evaluated once on the contour grid and the
test set, and the Proposal 2 result -- that every view draws from. Views never recompute.

Caching (``pn.cache``, shared across sessions, LRU; sizes are the ``max_items`` below):

======================  =========  ==========================================================
step                    max_items  key
======================  =========  ==========================================================
dataset                 6          (dataset, N, seed, payload)
Bayes boundary + error  6          dataset key
MLP trajectory          2          dataset key (one network trained 1..60 epochs)
status evaluation       48         dataset key, classifier, log₂γ, log₂C or epoch
Proposal 2 ``fit``      6          dataset key, M, K, perturbation amplitude and mode
Proposal 2 result       48         status key + fit key
======================  =========  ==========================================================

A status evaluation holds the classifier's scores on the 200 × 200 contour grid (J floats per
point) and f on the test set, about 0.7 MB for two classes; 48 of them stay under 40 MB.

Other bounded stores: uploaded CSV bytes, at most 16 (``_UPLOADS_MAX``; each at most
``datasets.MAX_CSV_BYTES`` = 5 MB, keyed by a digest -- never by the user's file name), and for the
whole process at most 32 finished sweep tables (:mod:`buviz.app.jobs`: sessions with the same sweep
settings share one background run and its table). The sweep's rows are also kept by
:mod:`buviz.sweep`'s on-disk row cache (``BUVIZ_CACHE_DIR``), outside the process memory.

Sessions: a state created inside a served session registers ``pn.state.on_session_destroyed``;
when the session ends :meth:`ExplorerState.close` leaves its sweep (cancelled if no other session
watches it) and drops its snapshot and sweep table, so nothing per session outlives it (the shared
caches above are bounded).

Bad input (an estimator rejecting M > N, an invalid CSV or mixture) never raises out of the
state: :attr:`ExplorerState.message` says what went wrong and the controls are reverted to the last
valid settings, so the views keep showing the previous valid state.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
import traceback
import weakref
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import panel as pn
import param

import buviz.uncertainty as bu
from buviz import datasets
from buviz.app import jobs, timing
from buviz.classifiers import Discriminant, mlp_statuses, near_boundaryness, svm_status, top2
from buviz.datasets import Dataset

__all__ = ["ExplorerState", "Snapshot", "StatusEval", "parse_mixture", "DEFAULT_MIXTURE_JSON",
           "GAMMA_GRID", "MLP_EPOCHS", "GRID_RESOLUTION", "N_TEST", "CONTROL_PARAMS", "clear_caches"]

#: log₂ γ of the sweep (the paper's default view, 2^-10 .. 2^10).
GAMMA_GRID = tuple(range(-10, 11))
#: Epochs of the MLP sweep (one network read off at these epochs, Fig 9).
MLP_EPOCHS = (1, 2, 3, 5, 8, 12, 20, 30, 45, 60)
MAX_EPOCH = MLP_EPOCHS[-1]
#: Contour grid resolution (B(Λ), B*, predicted regions).
GRID_RESOLUTION = 200
#: Test-set size drawn for the mixtures (L_te, f(X_te), Û_te).
N_TEST = 5000
#: Largest custom mixture accepted by the editor.
MAX_COMPONENTS = 20
MAX_CLASSES = 8

MIXTURE_CHOICES = (*datasets.MIXTURE_NAMES, "custom")
DATASET_CHOICES = (*MIXTURE_CHOICES, *datasets.REAL_NAMES, "csv")
K_CHOICES = ("aic", "1", "3", "10", "20", "40")

#: The controls (and URL query names) that define the current status and estimator.
CONTROL_PARAMS = ("dataset", "n_train", "seed", "classifier", "log2_gamma", "log2_C", "epoch", "M", "K",
                  "perturbation", "perturbation_mode", "tilde", "cv", "mixture_json", "csv_key")

DEFAULT_MIXTURE = {
    "classes": [
        [{"weight": 0.5, "mean": [-1.0, 0.0], "cov": 0.6}, {"weight": 0.5, "mean": [1.0, 1.5], "cov": 0.6}],
        [{"weight": 0.6, "mean": [1.0, -0.5], "cov": [0.5, 0.9]},
         {"weight": 0.4, "mean": [-1.5, 2.0], "cov": [[0.5, 0.2], [0.2, 0.4]]}],
    ],
    "priors": [0.5, 0.5],
}
DEFAULT_MIXTURE_JSON = json.dumps(DEFAULT_MIXTURE)

#: Niceness of the sweep worker processes: the server's own (interactive) work comes first.
SWEEP_NICENESS = 10

_UPLOADS: OrderedDict[str, bytes] = OrderedDict()  # digest -> CSV bytes, at most 16
_UPLOADS_MAX = 16
_UPLOADS_LOCK = threading.Lock()


# -- custom mixture --------------------------------------------------------------------------------
def parse_mixture(text: str) -> datasets.GaussianMixture:
    """A 2-D :class:`GaussianMixture` from the editor's JSON, or ``ValueError`` with a user-fit message.

    Format: ``{"classes": [[{"weight": w, "mean": [m1, m2], "cov": c}, ...], ...], "priors": [...]}``
    where ``cov`` is a number (isotropic), two numbers (diagonal) or a 2 × 2 matrix.
    """
    try:
        spec = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(f"mixture is not valid JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    if not isinstance(spec, dict) or "classes" not in spec:
        raise ValueError('mixture must be a JSON object with a "classes" list')
    classes = spec["classes"]
    if not isinstance(classes, list) or not 2 <= len(classes) <= MAX_CLASSES:
        raise ValueError(f'"classes" must list between 2 and {MAX_CLASSES} classes')
    comps = []
    for j, cl in enumerate(classes):
        if not isinstance(cl, list) or not 1 <= len(cl) <= MAX_COMPONENTS:
            raise ValueError(f"class {j + 1} must list between 1 and {MAX_COMPONENTS} components")
        row = []
        for c, comp in enumerate(cl):
            if not isinstance(comp, dict) or not {"mean", "cov"} <= set(comp):
                raise ValueError(f'class {j + 1} component {c + 1} needs "mean" and "cov" (and optional "weight")')
            try:
                w = float(comp.get("weight", 1.0))
                mean = np.asarray(comp["mean"], dtype=float)
                cov = np.asarray(comp["cov"], dtype=float)
            except (TypeError, ValueError):
                raise ValueError(f"class {j + 1} component {c + 1} has non-numeric values") from None
            if mean.shape != (2,):
                raise ValueError(f"class {j + 1} component {c + 1}: the mean must have 2 numbers (2-D data)")
            row.append((w, mean, cov))
        comps.append(row)
    priors = spec.get("priors")
    return datasets.GaussianMixture(comps, priors=priors)


def _upload_digest(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:16]


# -- cached computations (shared by all sessions) --------------------------------------------------
@pn.cache(max_items=6)
def dataset_for(name: str, n_train: int, seed: int, payload: str) -> Dataset:
    """The dataset of a control setting (payload: mixture JSON for "custom", CSV digest for "csv")."""
    if name in datasets.MIXTURE_NAMES:
        return datasets.load(name, n_train=n_train, n_test=N_TEST, random_state=seed)
    if name == "custom":
        return datasets.from_mixture(parse_mixture(payload), n_train, N_TEST, seed, name="custom",
                                     description="custom mixture")
    if name in datasets.REAL_NAMES:
        return datasets.load(name, random_state=seed)
    if name == "csv":
        with _UPLOADS_LOCK:
            data = _UPLOADS.get(payload)
        if data is None:
            raise ValueError("no CSV uploaded in this server (upload a file first)")
        return datasets.read_csv(data, random_state=seed)
    raise ValueError(f"unknown dataset {name!r}")


def _grid(ds: Dataset):
    return datasets.grid_points(ds.bounds(), GRID_RESOLUTION)


@pn.cache(max_items=6)
def bayes_info(name: str, n_train: int, seed: int, payload: str):
    """(B* fields on the contour grid, Bayes error) for exact-density datasets, else (None, None)."""
    ds = dataset_for(name, n_train, seed, payload)
    if ds.model is None or ds.n_features != 2:
        return None, None
    return ds.model.bayes_boundary(ds.bounds(), GRID_RESOLUTION), float(ds.model.bayes_error(resolution=601))


@pn.cache(max_items=2)
def mlp_trajectory(name: str, n_train: int, seed: int, payload: str) -> dict[int, Discriminant]:
    """One MLP (128, 64) trained with ``partial_fit``; snapshots at every epoch 1..60."""
    ds = dataset_for(name, n_train, seed, payload)
    return dict(mlp_statuses(ds.X_train, ds.y_train, range(1, MAX_EPOCH + 1), random_state=seed))


@dataclass(eq=False)
class StatusEval:
    """A classifier status Λ evaluated once: on the contour grid and on the test set."""

    discriminant: Discriminant
    label: str
    grid_xs: np.ndarray | None
    grid_ys: np.ndarray | None
    grid_predicted: np.ndarray | None  # (res, res) class codes
    fields: dict | None  # pair -> GridField whose zero contour is B(Λ)
    f_test: np.ndarray  # f(X_te; Λ) with the top-2 pair at each test point
    L_te: float
    fit_time: float
    eval_time: float


@pn.cache(max_items=48)
def status_eval(name: str, n_train: int, seed: int, payload: str, classifier: str, log2_gamma: int,
                log2_C: int, epoch: int) -> StatusEval:
    ds = dataset_for(name, n_train, seed, payload)
    t0 = time.perf_counter()
    if classifier == "SVM":
        d = svm_status(ds.X_train, ds.y_train, 2.0 ** log2_gamma, 2.0 ** log2_C)
        label = f"SVM γ = 2^{log2_gamma:g}, C = 2^{log2_C:g}"
    else:
        d = mlp_trajectory(name, n_train, seed, payload)[int(epoch)]
        label = f"MLP (128, 64), epoch {int(epoch)}"
    t1 = time.perf_counter()
    xs = ys = pred = fields = None
    if ds.n_features == 2:
        xs, ys, pts = _grid(ds)
        scores = d(pts)
        pred = np.argmax(scores, axis=1).reshape(len(ys), len(xs))
        fields = datasets.boundary_fields(scores, xs, ys)
    if len(ds.X_test):
        g = d(ds.X_test)
        f_test = near_boundaryness(g, *top2(g))
        L_te = float(np.mean(np.argmax(g, axis=1) != ds.y_test))
    else:
        f_test, L_te = np.empty(0), float("nan")
    return StatusEval(d, label, xs, ys, pred, fields, f_test, L_te, t1 - t0, time.perf_counter() - t1)


def _K_value(K: str):
    return "aic" if K == "aic" else int(K)


@pn.cache(max_items=6)
def bu_fitted(name: str, n_train: int, seed: int, payload: str, M: int, K: str, perturbation: float,
              mode: str) -> bu.BoundaryUncertainty:
    """Proposal 2's shared step (neighbourhoods, T̃, Î*) for a dataset and estimator settings."""
    ds = dataset_for(name, n_train, seed, payload)
    return bu.BoundaryUncertainty(M=M, K=_K_value(K), perturbation=perturbation, perturbation_mode=mode,
                                  random_state=seed).fit(ds.X_train, ds.y_train)


@pn.cache(max_items=48)
def bu_result(name: str, n_train: int, seed: int, payload: str, classifier: str, log2_gamma: int,
              log2_C: int, epoch: int, M: int, K: str, perturbation: float, mode: str):
    """Proposal 2's per-status result (Û, weights, local uncertainties, F ...)."""
    est = bu_fitted(name, n_train, seed, payload, M, K, perturbation, mode)
    st = status_eval(name, n_train, seed, payload, classifier, log2_gamma, log2_C, epoch)
    return est.evaluate(st.discriminant)


def clear_caches() -> None:
    """Empty every cache of this module and the finished sweep tables (tests and benchmarks)."""
    for fn in (dataset_for, bayes_info, mlp_trajectory, status_eval, bu_fitted, bu_result):
        fn.clear()
    jobs.clear()


# -- the snapshot every view draws ---------------------------------------------------------------------
@dataclass(eq=False)
class Snapshot:
    """Everything the views show for one control setting (computed once, then only read)."""

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


def _canonical(s: dict) -> dict:
    """Normalise settings so irrelevant controls do not split cache keys."""
    s = dict(s)
    if s["dataset"] in datasets.REAL_NAMES or s["dataset"] == "csv":
        s["n_train"] = 0
    s["payload"] = (s["mixture_json"] if s["dataset"] == "custom" else
                    s["csv_key"] if s["dataset"] == "csv" else "")
    # Integers, never floats, in pn.cache keys: pn.cache hashes a float with hash(), and in CPython
    # hash(-1.0) == hash(-2.0), so γ = 2^-1 and 2^-2 (or C) shared one cache entry.
    if s["classifier"] == "SVM":
        s["epoch"] = 0
        s["log2_gamma"], s["log2_C"] = int(s["log2_gamma"]), int(s["log2_C"])
    else:
        s["log2_gamma"] = s["log2_C"] = 0
    s["pert"] = float(s["perturbation"]) if s["tilde"] else 0.0
    return s


def compute_snapshot(settings: dict) -> Snapshot:
    """The snapshot of a control setting; raises ValueError (or the estimator's error) on bad input."""
    t0 = time.perf_counter()
    c = _canonical(settings)
    dkey = (c["dataset"], int(c["n_train"]), int(c["seed"]), c["payload"])
    ds = dataset_for(*dkey)
    skey = (c["classifier"], c["log2_gamma"], c["log2_C"], int(c["epoch"]))
    st = status_eval(*dkey, *skey)
    res = bu_result(*dkey, *skey, int(c["M"]), str(c["K"]), c["pert"], c["perturbation_mode"])
    bf, be = bayes_info(*dkey)
    ks = res.covariate_shift(st.f_test) if len(st.f_test) else {}
    return Snapshot(dict(settings), ds, st, res, bf, be, ks, time.perf_counter() - t0)


def _sweep_rows(ds: Dataset, c: dict, with_p1: bool, progress, on_row, cancelled) -> None:
    from buviz import sweep

    kw = dict(cv=int(c["cv"]), M=int(c["M"]), K=_K_value(c["K"]), perturbation=c["pert"],
              perturbation_mode=c["perturbation_mode"], random_state=int(c["seed"]), n_jobs=2, cache=True,
              progress=progress, niceness=SWEEP_NICENESS)
    if c["classifier"] == "SVM":
        it = sweep.iter_svm_gamma_sweep(ds, 2.0 ** np.array(GAMMA_GRID, dtype=float), C=2.0 ** c["log2_C"],
                                        proposal1=with_p1, **kw)
        try:
            for row in it:
                if cancelled():
                    raise jobs.SweepCancelled
                on_row(row)
        finally:
            it.close()
    else:
        table = sweep.mlp_epoch_sweep(ds, MLP_EPOCHS, **kw)
        for row in table.to_dict("records"):
            on_row(row)


# -- the state ---------------------------------------------------------------------------------------
class ExplorerState(param.Parameterized):
    """Controls of the explorer, the current :class:`Snapshot` and the background sweep."""

    dataset = param.Selector(default="gmm", objects=list(DATASET_CHOICES), doc="Dataset")
    n_train = param.Integer(default=1000, bounds=(20, 5000), doc="Training-set size N (mixtures)")
    seed = param.Integer(default=0, bounds=(0, 1_000_000), doc="Random seed (sampling, T̃, K-means, folds)")
    classifier = param.Selector(default="SVM", objects=["SVM", "MLP"], doc="Classifier family")
    log2_gamma = param.Integer(default=0, bounds=(-15, 15), doc="log₂ γ of the RBF kernel")
    log2_C = param.Integer(default=0, bounds=(-5, 10), doc="log₂ C of the SVC")
    epoch = param.Integer(default=20, bounds=(1, MAX_EPOCH), doc="MLP training epoch")
    M = param.Integer(default=40, bounds=(2, 5000), doc="Neighbourhood size M (2 ≤ M ≤ N)")
    K = param.Selector(default="aic", objects=list(K_CHOICES), doc="Prototypes per class (Î*)")
    perturbation = param.Number(default=0.5, bounds=(0.0, 2.0), step=0.05, doc="Amplitude a of T̃")
    perturbation_mode = param.Selector(default="features", objects=list(bu.PERTURBATION_MODES))
    tilde = param.Boolean(default=True, doc="Evaluate f on T̃ (off: on T, the paper's 'bis' panels)")
    cv = param.Integer(default=10, bounds=(2, 40), doc="CV folds of the sweep")
    mixture_json = param.String(default=DEFAULT_MIXTURE_JSON, doc="Custom mixture (JSON)")
    csv_key = param.String(default="", doc="Digest of the uploaded CSV")
    sweep_proposal1 = param.Boolean(default=False, doc="Add Proposal 1 (U1_tr) to the sweep (about twice as long)")

    selected = param.Integer(default=-1, doc="Training sample shown up close (-1: the heaviest weight)")
    auto_sweep = param.Boolean(default=True, doc="Start the sweep whenever its settings change")

    snapshot = param.Parameter(default=None, doc="The current Snapshot (read-only for views)")
    message = param.String(default="", doc="Last error shown to the user ('' when none)")
    sweep_table = param.DataFrame(default=None, allow_None=True, doc="Sweep rows received so far")
    sweep_progress = param.Integer(default=0, bounds=(0, 100))
    sweep_state = param.String(default="idle")
    sensitivity = param.Dict(default={}, doc="kind -> {label: sweep table} (Figs 12, 13)")
    sensitivity_state = param.String(default="idle")

    def __init__(self, **params):
        super().__init__(**params)
        self._reverting = False
        self._freeze = None  # set by the app: a callable returning the document's freeze() context
        self._last_valid: dict | None = None
        self._job: jobs.SharedSweep | None = None  # the shared sweep this session subscribes to
        self._job_rows = -1  # rows of ``_job`` already moved into ``sweep_table``
        self._sens_thread: threading.Thread | None = None
        self._sens_pending: tuple | None = None
        self.closed = False
        self.apply()
        self._register_session_cleanup()

    def _register_session_cleanup(self) -> None:
        """Inside a served session: release this state when the session is destroyed."""
        if pn.state.curdoc is None or pn.state.curdoc.session_context is None:
            return
        ref = weakref.ref(self)

        def _destroyed(session_context):  # holds a weak reference only
            state = ref()
            if state is not None:
                state.close()

        with contextlib.suppress(Exception):  # not served by a Bokeh server
            pn.state.on_session_destroyed(_destroyed)

    def close(self) -> None:
        """Cancel background work and drop everything this session holds (session destroyed)."""
        self.closed = True
        self.cancel_sweep()
        self._freeze = None
        self._sens_pending = None
        self._last_valid = None
        self._reverting = True  # late widget events must not recompute anything
        # drop the references without notifying the views: their document is being destroyed
        with param.parameterized.discard_events(self):
            self.param.update(snapshot=None, sweep_table=None, sensitivity={})

    # ------------------------------------------------------------------ settings and snapshot
    def settings(self) -> dict:
        return {p: getattr(self, p) for p in CONTROL_PARAMS}

    @param.depends(*CONTROL_PARAMS, watch=True)
    def _on_controls(self):
        if not self._reverting and not self.closed:
            self.apply()

    def apply(self) -> bool:
        """Compute the snapshot of the current controls; on failure keep the previous one."""
        t0 = time.perf_counter()
        s = self.settings()
        try:
            snap = compute_snapshot(s)
        except Exception as exc:  # every failure becomes a message; the server keeps running
            msg = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
            if not isinstance(exc, ValueError):
                traceback.print_exc()
            self._revert()
            self.message = f"Could not apply these settings: {msg}"
            return False
        old = self.snapshot
        changed = sorted(k for k, v in s.items() if self._last_valid is None or self._last_valid.get(k) != v)
        dataset_changed = old is None or old.ds is not snap.ds
        updates = {"snapshot": snap, "message": ""}
        if dataset_changed:
            updates["selected"] = -1
            updates["sensitivity"] = {}
        if self.selected >= len(snap.ds.X_train):
            updates["selected"] = -1
        self._last_valid = s
        with self.update_context():
            self.param.update(**updates)
        self._follow_sweep()
        timing.record_apply(time.perf_counter() - t0, changed)
        return True

    def update_context(self):
        """Context around the one batched update of the views (the app freezes the Bokeh document here,
        so its model graph is walked once per change rather than once per updated glyph)."""
        if self._freeze is not None:
            return self._freeze()
        return contextlib.nullcontext()

    def _revert(self):
        if self._last_valid is None:
            return
        changed = {k: v for k, v in self._last_valid.items() if getattr(self, k) != v}
        if changed:
            self._reverting = True
            try:
                self.param.update(**changed)
            finally:
                self._reverting = False

    def reset(self):
        """Back to the default controls (one recomputation)."""
        defaults = {p: self.param[p].default for p in CONTROL_PARAMS}
        self.param.update(**defaults)

    # ------------------------------------------------------------------ user actions
    def upload_csv(self, data: bytes, filename: str = "upload.csv") -> bool:
        """Validate an uploaded CSV and switch to it; on failure set :attr:`message` and keep the state."""
        try:
            if not data:
                raise ValueError("the uploaded file is empty")
            datasets.read_csv(data, random_state=self.seed)
        except ValueError as exc:
            self.message = f"CSV {filename!r} rejected: {exc}"
            return False
        digest = _upload_digest(data)
        with _UPLOADS_LOCK:
            _UPLOADS[digest] = bytes(data)
            _UPLOADS.move_to_end(digest)
            while len(_UPLOADS) > _UPLOADS_MAX:
                _UPLOADS.popitem(last=False)
        self.param.update(csv_key=digest, dataset="csv")
        return self.snapshot is not None and self.snapshot.settings.get("csv_key") == digest

    def set_mixture(self, text: str) -> bool:
        """Validate a custom mixture (JSON) and switch to it; on failure set :attr:`message`."""
        try:
            mix = parse_mixture(text)
            datasets.from_mixture(mix, min(self.n_train, 200), 0, self.seed)  # every class drawn?
        except ValueError as exc:
            self.message = f"Custom mixture rejected: {exc}"
            return False
        self.param.update(mixture_json=text, dataset="custom")
        return self.snapshot is not None and self.snapshot.settings["mixture_json"] == text

    def select_at(self, x: float, y: float) -> int:
        """Select the training sample nearest to the data point (x, y) (a tap); returns its index."""
        snap = self.snapshot
        if snap is None or not snap.is_2d or x is None or y is None:
            return -1
        X = snap.ds.X_train
        idx = int(np.argmin((X[:, 0] - x) ** 2 + (X[:, 1] - y) ** 2))
        self.selected = idx
        return idx

    def selected_index(self) -> int:
        """The sample shown up close: the tapped one, else the sample with the largest weight."""
        snap = self.snapshot
        if snap is None:
            return -1
        if 0 <= self.selected < len(snap.ds.X_train):
            return int(self.selected)
        w = snap.result.near_boundary_weights
        return int(np.argmax(w)) if np.any(w > 0) else int(np.argmax(snap.result.k))

    def set_status_from_tap(self, x: float | None) -> None:
        """Curve tap: move to the sweep status nearest to x (log₂ γ or epoch)."""
        if x is None or not np.isfinite(x):
            return
        if self.classifier == "SVM":
            lo, hi = self.param.log2_gamma.bounds
            self.log2_gamma = int(np.clip(round(float(x)), lo, hi))
        else:
            self.epoch = int(min(MLP_EPOCHS, key=lambda e: abs(e - float(x))))

    # ------------------------------------------------------------------ sweep
    def status_column(self) -> str:
        return "log2_gamma" if self.classifier == "SVM" else "epoch"

    def _sweep_key(self) -> tuple:
        c = _canonical(self._last_valid or self.settings())
        ds = self.snapshot.ds
        status = ("SVM", c["log2_C"]) if c["classifier"] == "SVM" else ("MLP",)
        return (ds.key, *status, int(c["cv"]), int(c["M"]), c["K"], c["pert"], c["perturbation_mode"],
                int(c["seed"]), bool(self.sweep_proposal1))

    def current_row(self) -> dict | None:
        """The sweep row of the current status, when the sweep has reached it."""
        t = self.sweep_table
        col = self.status_column()
        if t is None or not len(t) or col not in t or self.snapshot is None:
            return None
        hit = t[np.isclose(t[col].to_numpy(float), self.snapshot.status_value)]
        return hit.iloc[0].to_dict() if len(hit) else None

    @param.depends("sweep_proposal1", "auto_sweep", watch=True)
    def _sweep_settings_changed(self) -> None:
        if self.snapshot is not None and not self.closed:
            self._follow_sweep()

    def _follow_sweep(self) -> None:
        """After a settings change: start (or join) their sweep, or with ``auto_sweep`` off adopt
        a finished table for them if the process has one -- never keep showing another setting's."""
        if self.auto_sweep:
            self.start_sweep()
            return
        key = self._sweep_key()
        if self._job is not None and self._job.key == key:
            return
        self.cancel_sweep()
        self._job, self._job_rows = jobs.acquire_finished(key), -1
        if self._job is None:
            self.param.update(sweep_table=None, sweep_progress=0, sweep_state="idle")
        else:
            self._poll_main_sweep()

    def start_sweep(self, force: bool = False) -> None:
        """Subscribe to the sweep of the current settings (shared with every session of the process).

        A finished table for these settings is adopted at once; a sweep already running for them
        (in this or another session) is joined; otherwise one starts in the background. ``force``
        recomputes a finished or failed sweep (rows still come from the on-disk row cache); a failed
        sweep is not retried by later changes of γ, only by ``force`` (the *Restart sweep* button).
        """
        if self.snapshot is None or self.closed:
            return
        key = self._sweep_key()
        job = self._job
        if not force and job is not None and job.key == key and not job.cancelled:
            return
        c = _canonical(self._last_valid)
        ds = self.snapshot.ds
        with_p1 = bool(self.sweep_proposal1)

        def runner(progress, on_row, cancelled):
            _sweep_rows(ds, c, with_p1, progress, on_row, cancelled)

        new = jobs.acquire(key, runner, restart=force)
        jobs.release(job)
        self._job, self._job_rows = new, -1
        self.param.update(sweep_table=None, sweep_progress=0, sweep_state="running")
        self._poll_main_sweep()

    def cancel_sweep(self) -> None:
        """Leave the current sweep (session closed); the last session to leave a running sweep stops it."""
        job, self._job = self._job, None
        jobs.release(job)

    def poll_sweep(self) -> bool:
        """Move what the background threads finished into params (call periodically, from the
        server's event loop): sweep rows into :attr:`sweep_table`, sensitivity tables."""
        if self.closed:
            return False
        changed = self._poll_sensitivity()
        return self._poll_main_sweep() or changed

    def _poll_sensitivity(self) -> bool:
        pending = self._sens_pending
        if pending is None:
            return False
        result, state = pending
        updates = {}
        if result is not None:
            self._sens_pending = None
            sens = dict(self.sensitivity)
            sens[result[0]] = result[1]
            updates["sensitivity"] = sens
        if state != self.sensitivity_state:
            updates["sensitivity_state"] = state
        if updates:
            self.param.update(**updates)
        return bool(updates)

    def _poll_main_sweep(self) -> bool:
        job = self._job
        if job is None:
            return False
        rows, done, total = job.snapshot()
        updates = {}
        if rows and len(rows) != self._job_rows:
            updates["sweep_table"] = pd.DataFrame(rows)
            self._job_rows = len(rows)
        pct = 100 if job.finished else int(100 * done / total) if total else 0
        if pct != self.sweep_progress:
            updates["sweep_progress"] = pct
        state = f"error: {job.error}" if job.error else "done" if job.finished else "running"
        if state != self.sweep_state:
            updates["sweep_state"] = state
        if updates:
            self.param.update(**updates)
        return bool(updates)

    def wait_sweep(self, timeout: float = 120.0) -> bool:
        """Block until the running sweep finishes (tests, benchmarks); then poll once."""
        job = self._job
        if job is not None:
            job.wait(timeout)
        self.poll_sweep()
        return job is None or job.finished

    # ------------------------------------------------------------------ sensitivity (Figs 12, 13)
    def run_sensitivity(self, kind: str = "M", values=None, *, blocking: bool = False, cv: int = 2) -> None:
        """−Û_tr over the γ sweep for several M (Fig 12) or K (Fig 13), in a background thread.

        CV errors are not needed here, so the sweeps use ``cv`` = 2 folds (the cheapest allowed).
        """
        if self.classifier != "SVM":
            self.message = "The sensitivity sweeps use the SVM γ sweep: select the SVM classifier"
            return
        if kind not in ("M", "K"):
            raise ValueError("kind must be 'M' or 'K'")
        if self._sens_thread is not None and self._sens_thread.is_alive():
            self.message = "The sensitivity sweeps are still running: wait for them to finish"
            return
        values = values or ((20, 40, 80, 120, 160) if kind == "M" else ("3", "10", "20", "40", "aic"))
        snap = self.snapshot
        base = _canonical(snap.settings)
        N = len(snap.ds.X_train)
        if kind == "M":
            values = [v for v in values if int(v) <= N]

        def work():
            from buviz import sweep

            out = {}
            try:
                for n, v in enumerate(values):
                    if self.closed:  # the session ended: leave the worker pool to the others
                        return
                    self._sens_pending = (None, f"running {kind} = {v} ({n + 1}/{len(values)})")
                    M = int(v) if kind == "M" else int(base["M"])
                    K = _K_value(str(v)) if kind == "K" else _K_value(base["K"])
                    with jobs.RUN_LOCK:  # per value, so the shared sweeps interleave
                        out[f"{kind} = {v}"] = sweep.svm_gamma_sweep(
                            snap.ds, 2.0 ** np.array(GAMMA_GRID, dtype=float), C=2.0 ** base["log2_C"], cv=cv,
                            M=M, K=K, perturbation=base["pert"], perturbation_mode=base["perturbation_mode"],
                            random_state=int(base["seed"]), n_jobs=2, cache=True, niceness=SWEEP_NICENESS)
                self._sens_pending = ((kind, out), "done")
            except Exception as exc:
                traceback.print_exc()
                self._sens_pending = (None, f"error: {exc}")

        self._sens_pending = (None, f"running {kind} sweeps")
        if blocking:
            work()
            self.poll_sweep()
        else:
            self._sens_thread = threading.Thread(target=work, name="buviz-sensitivity", daemon=True)
            self._sens_thread.start()
