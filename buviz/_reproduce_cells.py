"""The lower layer of :mod:`buviz.reproduce`: its rule of eq 39, the cells on disk and the small helpers
every cell uses (a shared discriminant, the error rate, Û under another reading).

Kept apart so that :mod:`buviz.reproduce` stays readable; it imports and re-exports what is here. Nothing
here imports :mod:`buviz.reproduce`.

D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021,
https://doi.org/10.1007/s11265-021-01671-1 (§6, eqs 39-40).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import numpy as np

from buviz.uncertainty.proposal2 import (
    PAPER_SEPARABILITY,
    TOLERANCE_SEPARABILITY,
    TOLERANCE_WEIGHT_TOL,
    pair_uncertainty,
)

__all__ = ["SEPARABILITY", "EXTRA_READINGS", "SETTINGS", "default_work_dir", "TableSpec", "tables_dir"]

#: Eq 39's Case 1/3 branch as printed ("w_kl = 0" read literally): the rule of the U_tr and U_te columns.
SEPARABILITY = PAPER_SEPARABILITY
#: The other readings of eq 39 computed in every cell from the same evaluation (no extra CV, no
#: extra classifier call), as columns ``U_tr_<rule>`` and ``U_te_<rule>``: buviz's tolerance
#: ω_kl < :data:`~buviz.uncertainty.proposal2.TOLERANCE_WEIGHT_TOL`.
EXTRA_READINGS = (TOLERANCE_SEPARABILITY,)
#: The rule of the cells written before cells recorded their rule (their U_tr is this reading).
_UNRECORDED_SEPARABILITY = TOLERANCE_SEPARABILITY
#: Tag of these settings, in every row and in the cell folder (change it when a setting changes).
SETTINGS = "paper-v1"

class _Shared:
    """A discriminant whose values on an array already seen are served again (the variants of a cell
    evaluate the same status on the same T, T̃ and test set)."""

    def __init__(self, disc):
        self.disc = disc
        self.memo: dict[tuple, np.ndarray] = {}

    def __call__(self, X):
        X = np.ascontiguousarray(X, dtype=float)
        key = (X.shape, hashlib.sha1(X.data).hexdigest())
        if key not in self.memo:
            self.memo[key] = self.disc(X)
        return self.memo[key]


def _readings(result) -> dict[str, float]:
    """Û of one evaluation under each rule of :data:`EXTRA_READINGS` (eq 39-40 recomputed from its k̂, Û(x))."""
    return {rule: _reading(result, rule) for rule in EXTRA_READINGS}


def _error(disc, X, y) -> float:
    return float(np.mean(disc.predict(X) != y)) if len(y) else float("nan")


def _fold_error(X, y, tr, va, gamma: float, C: float) -> tuple[float, float]:
    from buviz.classifiers import svm_status

    d = svm_status(X[tr], y[tr], gamma, C)
    return _error(d, X[tr], y[tr]), _error(d, X[va], y[va])


def _val_error(X, y, tr, va, gamma: float, C: float) -> float:
    from buviz.classifiers import svm_status

    return _error(svm_status(X[tr], y[tr], gamma, C), X[va], y[va])


def _mlp_backend() -> str:
    try:
        import torch  # noqa: F401
    except ImportError:
        return "sklearn-adam"
    return "torch-rmsprop"



# -- the cells on disk ------------------------------------------------------------------------------
def default_work_dir() -> Path:
    """Where cells are kept: ``$BUVIZ_CACHE_DIR/reproduce`` or ``~/.cache/buviz/reproduce``."""
    root = os.environ.get("BUVIZ_CACHE_DIR") or Path.home() / ".cache" / "buviz"
    return Path(root) / "reproduce"


def _cell_path(work_dir: Path, kind: str, name: str, seed: int | None, part=None) -> Path:
    stem = "" if seed is None else f"s{seed}"
    if part is not None:
        stem += f"_{part:+03d}" if isinstance(part, int | float) else f"_{part}"
    return Path(work_dir) / SETTINGS / kind / name / f"{stem or 'cell'}.json"


def _write(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(obj))
    os.replace(tmp, path)  # atomic: an interrupted run never leaves half a cell


def _read_cell(path: Path):
    try:
        got = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if path.parent.parent.name in _U_KINDS and got.get("separability", _UNRECORDED_SEPARABILITY) != SEPARABILITY:
        return None  # Û under another rule of eq 39: computed again
    return got


#: The kinds of cells that hold Û under :data:`SEPARABILITY` (a cell of another rule is not reused).
_U_KINDS = ("sweep", "mlp", "table3", "uvar")


def _done(path: Path) -> bool:
    """Whether the cell at ``path`` is on disk and computed at the current settings."""
    return path.is_file() and _read_cell(path) is not None


def _run_jobs(jobs: list[tuple[Path, Callable, tuple]], *, n_jobs: int, scheduler, log: Callable[[str], None],
              label: str, merge: Callable[[Path, dict], dict] | None = None) -> None:
    """Run the jobs whose cell file is missing, in parallel, writing each cell as soon as it is done.

    With ``merge``, every job runs (the caller chose them) and ``merge(path, output)`` is what is written:
    a variant cell adds its new values to those already in its file. Cells are written by this process
    alone, so no two workers write one file.
    """
    from joblib import delayed

    from buviz import sweep

    todo = jobs if merge is not None else [(p, fn, args) for p, fn, args in jobs if not _done(p)]
    if len(todo) < len(jobs):
        log(f"{label}: {len(jobs) - len(todo)} of {len(jobs)} cells already on disk")
    if not todo:
        return
    t0 = time.perf_counter()
    tasks = [delayed(fn)(*args) for _, fn, args in todo]
    with sweep._backend(scheduler):
        for n, (t, out) in enumerate(sweep._run_tasks(tasks, min(n_jobs, len(tasks)), {}), 1):
            path = todo[t][0]
            _write(path, out if merge is None else merge(path, out))
            log(f"{label}: cell {path.stem} done ({n}/{len(todo)}, {time.perf_counter() - t0:.0f} s)")


def _reading(result, rule: str) -> float:
    """Û⁽³⁾ (eq 40) of one evaluation under the rule ``rule`` of eq 39."""
    pv = pair_uncertainty(result.k, result.local_uncertainty, result.pair_match, result.true_pair_index,
                          result.pair_error_tilde, len(result.pairs), rule=rule, weight_tol=TOLERANCE_WEIGHT_TOL)
    return float(np.dot(result.pair_probabilities, pv.values))


# -- a reading of eq 39 a table lacks (buviz.reproduce.add_readings) --------------------------------------
def reading_values(load_dataset: Callable, name: str, log2_gamma: float, C: float, estimators: dict[str, tuple],
                   readings) -> dict[str, dict]:
    """Û on T and on the test set of one SVC status under every rule of ``readings``, per variant (no CV)."""
    from buviz.classifiers import Discriminant, svm_status

    ds = load_dataset(name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        disc = svm_status(ds.X_train, ds.y_train, 2.0 ** float(log2_gamma), C)
        status = Discriminant(_Shared(disc), disc.n_classes, name=disc.name)
        out = {}
        for key, (bu_tr, bu_te) in estimators.items():
            r = bu_tr._evaluate(status, copy_discriminant=False)
            r_te = bu_te._evaluate(status, copy_discriminant=False) if bu_te is not None else None
            v = {}
            for rule in readings:
                v[f"U_tr_{rule}"] = _reading(r, rule)
                v[f"U_te_{rule}"] = _reading(r_te, rule) if r_te is not None else float("nan")
            out[key] = v
    return out


def write_readings(present: dict, got: dict, name: str, readings, out_root: Path,
                   log: Callable[[str], None]) -> dict[str, float]:
    """Add the columns ``got`` holds (γ -> "seed|variant" -> column -> Û) to each table of ``present`` and
    write it to ``out_root``; returns, per table, the largest |Û recomputed − Û shipped| of its own rule."""
    checks = {}
    for table, t in present.items():
        held = set(t["separability"].astype(str)) if "separability" in t else {_UNRECORDED_SEPARABILITY}
        rule = held.pop() if len(held) == 1 else None
        t = t.copy()
        for col in (f"U_{s}_{r}" for r in readings for s in ("tr", "te")):
            t[col] = [got[float(g)][f"{int(s)}|{v}"][col]
                      for g, s, v in zip(t["log2_gamma"], t["seed"], t["variant"], strict=True)]
        if rule is not None:
            checks[table] = float(np.nanmax(np.abs(t[f"U_tr_{rule}"] - t["U_tr"])))
        t = t.drop(columns=[f"U_{s}_{rule}" for s in ("tr", "te")] if rule is not None else [])
        out_root.mkdir(parents=True, exist_ok=True)
        path = out_root / f"{table}_{name}.csv"
        tmp = path.with_suffix(".tmp")
        t.to_csv(tmp, index=False)
        os.replace(tmp, path)
        log(f"wrote {path} (max |ΔÛ_tr| of its own rule {checks.get(table, float('nan')):.2e})")
    return checks


# -- the shipped tables ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class TableSpec:
    """One shipped table: which cells it is assembled from and on which datasets.

    Attributes
    ----------
    name : str
        File stem prefix (``svm_gamma`` gives ``svm_gamma_<dataset>.csv``).
    kinds : tuple of str
        The kinds of cells it reads (``sweep``, ``p1``, ``mlp``, ``table3``).
    assemble : callable
        ``assemble(dataset, seeds, work_dir)`` returns the rows of the seeds whose cells are all on disk.
    datasets : tuple of str
        The datasets it is computed on, cheapest first.
    doc : str
        What it holds, in a few words.
    """

    name: str
    kinds: tuple[str, ...]
    assemble: Callable[[str, Sequence[int], Path], list[dict]]
    datasets: tuple[str, ...]
    doc: str


def tables_dir() -> Traversable:
    """The folder of the shipped tables (``buviz/data/tables``), as an importlib resource."""
    return resources.files("buviz") / "data" / "tables"
