"""Registry of the reproduced paper figures and tables, and their static export.

Every entry of :data:`REGISTRY` is a :class:`Figure`: a function with keyword parameters (defaults that
run in seconds: small N; scale up with ``n_train=`` etc.) returning a HoloViews object, or a
``pandas.DataFrame`` for tables. The HoloViews objects carry the Bokeh options of the builders in
:mod:`buviz.plots`, so they show interactively in a notebook; :func:`export` draws them with the
**Matplotlib** backend (no browser) at an explicit size in inches and dpi, with one font setting,
Okabe–Ito colours and the papers' axis conventions (errors on the left axis, −Û on the right).

>>> from buviz import figures
>>> sorted(figures.REGISTRY)[:2]
['bu_fig10', 'bu_fig11']
>>> obj = figures.render("zheng_fig6", rho=0.7)          # a HoloViews overlay
>>> figures.export("zheng_fig6", "fig6.svg", width=6, height=4, dpi=150)  # doctest: +SKIP

Names: ``bu_*`` boundary uncertainty (seed 000), ``zheng_*`` accuracy extrapolation (seeds 003/004),
``nedelko_*`` discrete case (seed 002). ``buviz figure --list`` prints the descriptions.
"""

from __future__ import annotations

import inspect
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import holoviews as hv
import numpy as np
import pandas as pd
from cycler import cycler

from buviz.plots import boundary as bplots
from buviz.plots import discrete as dplots
from buviz.plots import extrapolation as xplots

__all__ = ["Figure", "REGISTRY", "get", "render", "export", "parameters", "FORMATS", "OKABE_ITO", "FONT_SIZE",
           "to_bytes"]

#: Okabe & Ito (2008) colour-blind-safe palette.
OKABE_ITO = ("#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000")
#: Base font size (points) of every exported figure; titles get +1.
FONT_SIZE = 8.0
#: Extensions :func:`export` writes (``.csv`` for tables only).
FORMATS = (".svg", ".pdf", ".png", ".csv")

# The builders' (Bokeh) colours -> Okabe–Ito for the static export.
_COLOR_MAP = {
    # tab10 (curves, estimators, sensitivity settings)
    "#1f77b4": "#0072B2", "#ff7f0e": "#E69F00", "#2ca02c": "#009E73", "#d62728": "#D55E00",
    "#9467bd": "#CC79A7", "#8c564b": "#56B4E9", "#e377c2": "#F0E442", "#7f7f7f": "#777777",
    # class colours of buviz.plots.boundary (yellow/purple in the paper -> orange/blue)
    "#e0a800": "#E69F00", "#6a3d9a": "#0072B2", "#1b9e77": "#CC79A7", "#e7298a": "#D55E00",
    "#386cb0": "#56B4E9", "#66a61e": "#009E73", "#a6761d": "#F0E442", "#666666": "#777777",
    # B(Λ) (blue in Fig 4) -> green (Fig 5's convention), B* stays black dashed
    "#1f5fbf": "#009E73", "#111111": "#000000", "#333333": "#333333",
    "red": "#D55E00", "blue": "#0072B2", "green": "#009E73", "orange": "#E69F00", "gray": "#777777",
    "grey": "#777777", "lightgray": "#DDDDDD", "white": "#FFFFFF", "black": "#000000",
}
_CMAP_MAP = {"cool": "viridis", "viridis": "viridis"}
_DIVERGING = "PuOr_r"  # f(x;Λ) maps: negative f (class 2, blue side) purple, positive f (class 1) orange
_DASH = {"solid": "-", "dashed": "--", "dotted": ":", "dashdot": "-.", "dotdash": "-."}
_MARKERS = {"circle": "o", "square": "s", "triangle": "^", "inverted_triangle": "v", "diamond": "D",
            "star": "*", "x": "x", "cross": "+", "plus": "P"}
# The −Û value dimension of buviz.plots.boundary (elements on it go to the right-hand axis on export).
_NEG_U_DIM = hv.Dimension("neg_U", label="−Û (best −1)")
_LOG2_GAMMA_DIM = hv.Dimension("log2_gamma", label="log₂ γ")
_LEGEND_POS = {"top_left", "top_right", "bottom_left", "bottom_right", "right", "left", "top", "bottom",
               "inner", "best"}


# =================================================================================================
# registry
# =================================================================================================
@dataclass(frozen=True)
class Figure:
    """One reproduced figure or table: ``function(**params)`` returns a HoloViews object (kind
    ``"figure"``) or a DataFrame (kind ``"table"``)."""

    name: str
    description: str
    function: Callable
    kind: str = "figure"
    paper: str = ""
    twin_y: bool = False  # errors left / −Û right in the static export
    size: tuple[float, float] = (6.0, 4.0)  # default export size (inches) at which no text overlaps

    @property
    def parameters(self) -> dict:
        """Accepted keyword parameters and their defaults."""
        return {p.name: p.default for p in inspect.signature(self.function).parameters.values()
                if p.kind is inspect.Parameter.KEYWORD_ONLY or p.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD}

    def parameter_table(self) -> list[tuple[str, object, str]]:
        """``(name, default, accepted values)`` for every parameter, for ``buviz figure NAME --params``."""
        return [(name, default, _BOUNDS.get((self.name, name)) or _BOUNDS.get(name, ""))
                for name, default in self.parameters.items()]

    def __call__(self, **params):
        return self.function(**_check_params(self, params))


REGISTRY: dict[str, Figure] = {}

_LOG2_GAMMAS = "log₂ γ values, each in [-30, 30] (a list, at least two)"
#: What each parameter accepts, as checked by the figure functions below (by name, then by (figure, name)).
_BOUNDS: dict = {
    "dataset": "gmm, gmm_separable, gmm_inclusion, gmm3, breast_cancer, wine",
    "n_train": "integer ≥ 20", "n_test": "integer ≥ 0", "seed": "integer ≥ 0", "C": "number ≥ 1e-9",
    "log2_gamma": _LOG2_GAMMAS, "cv": "integer ≥ 2", "M": "integer ≥ 2", "perturbation": "number in [0, 10]",
    "R_T": "integer ≥ 1", "i_max": "integer ≥ 1", "i_K": "integer ≥ 1", "N_max": "integer ≥ 1",
    "cache": "true/false", "with_tilde": "true/false", "index": "none, or integer in [0, n_train − 1]",
    "Ms": "integers in [2, n_train] (a list)", "Ks": "integers ≥ 1 or 'aic' (a list)",
    "statuses": "log₂ γ values (a list)", "rho": "number in [0, 0.99]", "rhos": "numbers in [0.01, 0.99] (a list)",
    "labels": "numbers (a list)", "n": "integer in [20, 2000]", "n_sets": "integer ≥ 10",
    "max_degree": "integer in [1, 30]", "n_classes": "integer in [10, 20000]", "repeats": "integer in [1, 50]",
    "classifier": "nearest_centroid, qda, naive_bayes, 1nn, logistic, svm, knn, mlp",
    "method": "moment, classexreg, kde, best", "methods": "among moment, classexreg, kde, best (a list)",
    "classifiers": "among nearest_centroid, qda, naive_bayes, 1nn, logistic, svm, knn, mlp (a list)",
    "k_target": "integer ≥ 3",
    "N": "integer in [2, 400]", "k": "integer in [1, 200]", "n_p": "integer in [3, 2001]",
    "n_rows": "integer in [1, N + 1]", "m_cols": "integer in [1, N + 1]",
    ("bu_fig3", "log2_gamma"): "number in [-30, 30]", ("bu_fig4", "log2_gamma"): "number in [-30, 30]",
    ("bu_fig10", "log2_gamma"): "number in [-30, 30]", ("bu_fig13", "dataset"): "gmm3, wine (3+ classes)",
    ("zheng_fig6", "k_max"): "integer in [3, 50]", ("zheng_fig8", "k_max"): "integer in [3, 100]",
    ("zheng_fig7", "rho"): "number in [0.01, 0.99]", ("zheng_fig11", "K"): "integer in [5, n_classes − 1]",
    ("zheng_fig12", "Ks"): "integers in [5, n_classes − 1] (a list)", ("zheng_table1", "K"): "integer ≥ 2",
    ("nedelko_fig1", "n"): "integer in [0, N]",
}


def _register(name: str, description: str, *, kind: str = "figure", paper: str = "", twin_y: bool = False,
              size: tuple[float, float] = (6.0, 4.0)):
    def deco(fn):
        REGISTRY[name] = Figure(name, description, fn, kind, paper, twin_y, tuple(map(float, size)))
        return fn
    return deco


def get(name: str) -> Figure:
    """The :class:`Figure` called ``name``; ``ValueError`` listing the names otherwise."""
    if not isinstance(name, str) or name not in REGISTRY:
        import difflib

        close = difflib.get_close_matches(str(name), REGISTRY, n=3)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise ValueError(f"unknown figure {name!r}{hint}; known: {', '.join(sorted(REGISTRY))}")
    return REGISTRY[name]


def parameters(name: str) -> dict:
    """Accepted parameters of a figure and their defaults."""
    return get(name).parameters


def _check_params(fig: Figure, params: Mapping) -> dict:
    accepted = fig.parameters
    for key in params:
        if key not in accepted:
            import difflib

            close = difflib.get_close_matches(str(key), accepted, n=2)
            hint = f" (did you mean {' or '.join(close)}?)" if close else ""
            raise TypeError(f"figure {fig.name!r} has no parameter {key!r}{hint}; accepted: "
                            f"{', '.join(accepted) if accepted else '(none)'}")
    return dict(params)


def render(name: str, **params):
    """Build the HoloViews object (or DataFrame, for tables) of a registered figure."""
    return get(name)(**params)


# =================================================================================================
# small checks and shared computations
# =================================================================================================
def _int(value, name: str, low: int | None = None, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        rng = f"[{low if low is not None else '-inf'}, {high if high is not None else 'inf'}]"
        raise ValueError(f"{name} must be in {rng}, got {value}")
    return value


def _real(value, name: str, low: float | None = None, high: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        raise TypeError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not math.isfinite(value) or (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{name} must be a finite number in [{low}, {high}], got {value}")
    return value


def _seq(value, name: str, conv=float) -> list:
    vals = list(value) if isinstance(value, list | tuple | np.ndarray) else [value]
    if not vals:
        raise ValueError(f"{name} must hold at least one value")
    try:
        return [conv(v) for v in vals]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a list of numbers, got {value!r}") from None


def _log2_gammas(log2_gamma) -> np.ndarray:
    """``(lo, hi)``/``(lo, hi, step)`` as a range, or an explicit list of log₂ γ (≥ 2 values)."""
    vals = _seq(log2_gamma, "log2_gamma")
    if len(vals) == 1:
        raise ValueError("log2_gamma needs at least two values (a list, or lo,hi[,step] with step given)")
    return np.asarray(vals, dtype=float)


def _dataset(name: str, n_train: int, n_test: int, seed: int):
    from buviz import datasets

    n_train = _int(n_train, "n_train", low=20)
    n_test = _int(n_test, "n_test", low=0)
    return datasets.load(name, n_train=n_train, n_test=n_test, random_state=_int(seed, "seed", low=0))


def _svm(ds, log2_gamma: float, C: float = 1.0):
    from buviz.classifiers import svm_status

    return svm_status(ds.X_train, ds.y_train, 2.0 ** _real(log2_gamma, "log2_gamma", -30, 30),
                      C=_real(C, "C", 1e-9))


def _grid(ds, disc, resolution: int = 120):
    """B(Λ) fields, predicted regions and B* on a grid over the training data (first two features)."""
    from buviz.datasets import boundary_fields, grid_points

    xs, ys, P = grid_points(ds.bounds(), _int(resolution, "resolution", low=10, high=1000))
    g = disc(P)
    fields = boundary_fields(g, xs, ys)
    pred = np.argmax(g, axis=1).reshape(len(ys), len(xs))
    bayes = ds.model.bayes_boundary(ds.bounds(), len(xs)) if ds.model is not None else None
    return {"fields": fields, "bayes_fields": bayes, "grid_predicted": pred, "grid_xs": xs, "grid_ys": ys}


def _sweep(ds, log2_gamma, *, cv: int = 5, M: int = 40, K="aic", perturbation: float = 0.5, C: float = 1.0,
           seed: int = 0, cache=True, proposal1: bool = False) -> pd.DataFrame:
    from buviz import sweep

    return sweep.svm_gamma_sweep(ds, 2.0 ** _log2_gammas(log2_gamma), C=_real(C, "C", 1e-9),
                                 cv=_int(cv, "cv", low=2), M=_int(M, "M", low=2), K=K,
                                 perturbation=_real(perturbation, "perturbation", 0.0, 10.0),
                                 proposal1=bool(proposal1), random_state=seed, cache=cache, n_jobs=2)


def _uncertainty(ds, *, M: int = 40, K="aic", perturbation: float = 0.5, seed: int = 0):
    from buviz.uncertainty import BoundaryUncertainty

    return BoundaryUncertainty(M=_int(M, "M", low=2), K=K, perturbation=_real(perturbation, "perturbation", 0, 10),
                               random_state=seed).fit(ds.X_train, ds.y_train)


# =================================================================================================
# Boundary uncertainty (seed 000)
# =================================================================================================
@_register("bu_fig3", "Proposal 1: anchors on B(Λ) and the near-boundary set N_B (SVM on gmm)", paper="000 Fig 3")
def bu_fig3(*, dataset: str = "gmm", n_train: int = 300, log2_gamma: float = 0.0, C: float = 1.0,
            R_T: int = 3, i_max: int = 20, seed: int = 0) -> hv.Overlay:
    """Fig 3: training samples, B(Λ), the anchors (black) and their nearest training samples N_B (red rings)."""
    from buviz.uncertainty import Proposal1

    ds = _dataset(dataset, n_train, 0, seed)
    disc = _svm(ds, log2_gamma, C)
    p1 = Proposal1(R_T=_int(R_T, "R_T", low=1), i_max=_int(i_max, "i_max", low=1), random_state=seed)
    res = p1.fit(ds.X_train, ds.y_train).evaluate(disc)
    grid = _grid(ds, disc)
    base = bplots.sample_space(ds.X_train, ds.y_train, grid["fields"], bayes_fields=grid["bayes_fields"],
                               title=f"Proposal 1, log₂γ = {log2_gamma:g}: Û⁽¹⁾ = {res.value:.3f}")
    A = res.anchors[res.anchor_valid]
    nb = res.near_boundary_X
    anchors = hv.Points((A[:, 0], A[:, 1]), kdims=["x1", "x2"], label="anchors").opts(
        color="black", size=3, marker="circle")
    near = hv.Points((nb[:, 0], nb[:, 1]), kdims=["x1", "x2"], label="N_B (near-boundary)").opts(
        fill_color=None, line_color="#d62728", line_width=1.5, size=8)
    return (base * near * anchors).opts(legend_position="top_left")


@_register("bu_fig4", "One sample up close: N^M(x), its perturbed members and the 1-D Parzen count on f",
           paper="000 Fig 4", size=(8, 4))
def bu_fig4(*, dataset: str = "gmm", n_train: int = 400, log2_gamma: float = 0.0, M: int = 20,
            perturbation: float = 0.5, index: int | None = None, seed: int = 0) -> hv.Layout:
    """Fig 4: the cluster N^M(x) of one training sample (default: the one with the largest k̂(x) among
    those with Û(x) > 0) and the kernels of its F values on the f axis."""
    ds = _dataset(dataset, n_train, 0, seed)
    disc = _svm(ds, log2_gamma)
    bu = _uncertainty(ds, M=M, perturbation=perturbation, seed=seed)
    r = bu.evaluate(disc)
    if index is None:
        score = np.where(r.local_uncertainty > 0, r.k, -np.inf)
        index = int(np.argmax(score)) if np.isfinite(score).any() else int(np.argmax(r.k))
    index = _int(index, "index", low=0, high=len(ds.X_train) - 1)
    view = r.sample_view(index)
    grid = _grid(ds, disc)
    left = bplots.cluster_highlight(ds.X_train, ds.y_train, index, view["neighbours"], X_tilde=r.X_tilde,
                                    fields=grid["fields"], title=f"N^M(x), M = {bu.M}")
    right = bplots.cluster_zoom(view, title=f"h_x = {view['bandwidth']:.3g}, P̂ = {view['posterior']:.2f}, "
                                            f"Û(x) = {view['local_uncertainty']:.2f}")
    return (left + right).cols(2)


def _linear_status(a: float, b: float, c: float):
    """Two-class discriminant g = [−s, s] with s = a·x1 + b·x2 − c (class 2 where s > 0)."""
    from buviz.classifiers import as_discriminant

    def g(X):
        X = np.asarray(X, dtype=float)
        s = a * X[:, 0] + b * X[:, 1] - c
        return np.column_stack([-s, s])

    return as_discriminant(g, n_classes=2, name=f"linear({a:g},{b:g},{c:g})")


@_register("bu_fig5", "Separability cases on gmm_separable: B(Λ) near B*, crossing the crowds, outside the data",
           paper="000 Fig 5", size=(10, 4))
def bu_fig5(*, n_train: int = 300, M: int = 20, seed: int = 0) -> hv.Layout:
    """Fig 5: three boundaries on gmm_separable (Case 1: in the empty band, Case 2: tilted so that it
    crosses both class crowds, Case 3: beyond all data) with the Û⁽³⁾ that Proposal 2 gives each."""
    ds = _dataset("gmm_separable", n_train, 0, seed)
    bu = _uncertainty(ds, M=M, seed=seed)
    x_max = float(np.abs(ds.X_train[:, 0]).max())
    cases = {"Case 1: B(Λ) ≈ B*": _linear_status(1.0, 0.0, 0.0),
             "Case 2: B(Λ) crosses the classes": _linear_status(1.0, -0.6, 0.0),
             "Case 3: B(Λ) outside the data": _linear_status(1.0, 0.0, 1.15 * x_max)}
    panels = []
    for title, disc in cases.items():
        r = bu.evaluate(disc)
        grid = _grid(ds, disc)
        panels.append(bplots.sample_space(ds.X_train, ds.y_train, grid["fields"], bayes_fields=grid["bayes_fields"],
                                          grid_predicted=grid["grid_predicted"], grid_xs=grid["grid_xs"],
                                          grid_ys=grid["grid_ys"], title=f"{title}\nÛ⁽³⁾ = {r.value:.2f}"))
    return hv.Layout(panels).cols(3)


def _curves(table, columns, title):
    return bplots.error_curves(table, columns=columns, title=title)


@_register("bu_fig6", "Errors (left axis) and −Û (right axis) against log₂γ on gmm, with and without T̃",
           paper="000 Fig 6", twin_y=True, size=(10, 6.5))
def bu_fig6(*, dataset: str = "gmm", n_train: int = 300, n_test: int = 2000, log2_gamma=(-6, -4, -2, 0, 2, 4, 6),
            cv: int = 5, M: int = 20, perturbation: float = 0.5, C: float = 1.0, seed: int = 0,
            cache: bool = True) -> hv.Layout:
    """Fig 6: panel 1 L_te and −Û_te; 2: L_HO, L_tr, L_val; 3: −Û_tr and −Û_te; 1bis/3bis without T̃."""
    ds = _dataset(dataset, n_train, n_test, seed)
    kw = dict(cv=cv, M=M, C=C, seed=seed, cache=cache)
    t = _sweep(ds, log2_gamma, perturbation=perturbation, **kw)
    t0 = _sweep(ds, log2_gamma, perturbation=0.0, **kw)
    return hv.Layout([
        _curves(t, ("L_te", "U_te"), "1: L_te, −Û_te"),
        _curves(t, ("L_ho", "L_tr", "L_val"), "2: L_HO, L_tr, L_val"),
        _curves(t, ("U_tr", "U_te"), "3: −Û_tr, −Û_te (with T̃)"),
        _curves(t0, ("L_te", "U_te"), "1bis: without T̃"),
        _curves(t0, ("U_tr", "U_te"), "3bis: without T̃"),
    ]).cols(3)


@_register("bu_fig10", "Covariate shift: f(T), f(T̃) and f(X_te) coloured on one scale (SVM on gmm)",
           paper="000 Fig 10", size=(8, 7.5))
def bu_fig10(*, dataset: str = "gmm", n_train: int = 400, n_test: int = 2000, log2_gamma: float = 2.0,
             perturbation: float = 0.5, M: int = 20, seed: int = 0) -> hv.Layout:
    """Fig 10: the data, then f(·;Λ) on the training set, on T̃ and on the test set (one colour scale)."""
    from buviz.classifiers import boundary_score

    ds = _dataset(dataset, n_train, n_test, seed)
    disc = _svm(ds, log2_gamma)
    r = _uncertainty(ds, M=M, perturbation=perturbation, seed=seed).evaluate(disc)
    grid = _grid(ds, disc)
    data = bplots.sample_space(ds.X_train, ds.y_train, None, title="1: T with given labels")
    maps = bplots.shift_maps({"2: f(T)": (ds.X_train, r.f_train), "3: f(T̃)": (r.X_tilde, r.f_tilde),
                              "4: f(X_te)": (ds.X_test, boundary_score(disc, ds.X_test))}, fields=grid["fields"])
    return hv.Layout([data, *maps]).cols(2)


@_register("bu_fig11", "Without T̃: L_val, L_HO (left) and −Û_tr computed on T (right) against log₂γ",
           paper="000 Fig 11", twin_y=True, size=(7, 4.5))
def bu_fig11(*, dataset: str = "breast_cancer", n_train: int = 400, log2_gamma=(-10, -8, -6, -4, -2, 0, 2, 4),
             cv: int = 5, M: int = 20, C: float = 1.0, with_tilde: bool = True, seed: int = 0,
             cache: bool = True) -> hv.Overlay:
    """Fig 11: Proposal 2 with f computed on T itself (perturbation = 0); ``with_tilde`` adds −Û_tr with T̃
    (dashed purple) for comparison. Real datasets ignore ``n_train`` (a 70/30 split)."""
    ds = _dataset(dataset, n_train, 0, seed)
    kw = dict(cv=cv, M=M, C=C, seed=seed, cache=cache)
    t0 = _sweep(ds, log2_gamma, perturbation=0.0, **kw)
    el = _curves(t0, ("L_val", "L_ho", "U_tr"), f"{dataset}: −Û_tr without T̃")
    if with_tilde:
        t = _sweep(ds, log2_gamma, perturbation=0.5, **kw).sort_values("log2_gamma")
        el = el * hv.Curve((t["log2_gamma"].to_numpy(float), -t["U_tr"].to_numpy(float)),
                           _LOG2_GAMMA_DIM, _NEG_U_DIM, label="−Û_tr with T̃").opts(
            color="#9467bd", line_dash="dashed", line_width=2)
    return el.opts(multi_y=True, legend_position="right")


@_register("bu_fig12", "Sensitivity of −Û_tr to M (gmm), with −Û_te as reference", paper="000 Fig 12",
           twin_y=True, size=(7, 4.5))
def bu_fig12(*, dataset: str = "gmm", n_train: int = 300, n_test: int = 1500, Ms=(10, 20, 40, 80),
             log2_gamma=(-6, -4, -2, 0, 2, 4, 6), cv: int = 3, seed: int = 0, cache: bool = True) -> hv.Overlay:
    """Fig 12: one −Û_tr curve per M; −Û_te (M = 40) dashed black."""
    ds = _dataset(dataset, n_train, n_test, seed)
    Ms = [_int(m, "Ms", low=2, high=len(ds.X_train)) for m in _seq(Ms, "Ms", int)]
    tables = {f"M = {m}": _sweep(ds, log2_gamma, cv=cv, M=m, seed=seed, cache=cache) for m in Ms}
    ref = _sweep(ds, log2_gamma, cv=cv, M=min(40, len(ds.X_train)), seed=seed, cache=cache)
    return bplots.sensitivity_curves(tables, reference=ref, title=f"{dataset}: −Û_tr for several M")


@_register("bu_fig13", "Sensitivity of −Û_tr to the number K of prototypes per class (gmm3)", paper="000 Fig 13",
           twin_y=True, size=(7, 4.5))
def bu_fig13(*, dataset: str = "gmm3", n_train: int = 450, Ks=(3, 10, 20, 40, "aic"),
             log2_gamma=(-6, -4, -2, 0, 2, 4, 6), cv: int = 3, M: int = 20, seed: int = 0,
             cache: bool = True) -> hv.Overlay:
    """Fig 13: one −Û_tr curve per fixed K_j and the AIC choice ("K_aic"); needs a multi-class set
    (``gmm3`` or ``wine``)."""
    ds = _dataset(dataset, n_train, 0, seed)
    if ds.n_classes < 3:
        raise ValueError(f"bu_fig13 needs a dataset with at least 3 classes (gmm3, wine), got {dataset!r}")
    smallest = int(np.bincount(ds.y_train).min())
    tables = {}
    for K in (Ks if isinstance(Ks, list | tuple) else [Ks]):
        if K != "aic":
            K = _int(K, "Ks", low=1)
            if K > smallest:
                continue  # more prototypes than samples in the smallest class
        tables["K_aic" if K == "aic" else f"K = {K}"] = _sweep(ds, log2_gamma, cv=cv, M=M, K=K, seed=seed,
                                                              cache=cache)
    if not tables:
        raise ValueError(f"every K in Ks exceeds the smallest class ({smallest} samples)")
    return bplots.sensitivity_curves(tables, title=f"{dataset}: −Û_tr for several K")


@_register("bu_fig14", "Probability weights k̂(x)/w_kl on gmm_separable for four γ, with L_val and −Û_tr",
           paper="000 Fig 14", twin_y=True, size=(10, 7))
def bu_fig14(*, n_train: int = 300, statuses=(-8, -3, 0, 4), log2_gamma=(-10, -8, -6, -4, -2, 0, 2, 4, 6),
             cv: int = 5, M: int = 20, seed: int = 0, cache: bool = True) -> hv.Layout:
    """Fig 14: L_val and −Û_tr over γ, then one weights map per status γ₁..γ₄ (weight 0 in class colours)."""
    ds = _dataset("gmm_separable", n_train, 0, seed)
    t = _sweep(ds, log2_gamma, cv=cv, M=M, seed=seed, cache=cache)
    bu = _uncertainty(ds, M=M, seed=seed)
    panels = [bplots.sample_space(ds.X_train, ds.y_train, None, title="gmm_separable"),
              _curves(t, ("L_val", "U_tr"), "L_val, −Û_tr")]
    for n, lg in enumerate(_seq(statuses, "statuses")):
        disc = _svm(ds, lg)
        r = bu.evaluate(disc)
        panels.append(bplots.weights_map(ds.X_train, ds.y_train, r.near_boundary_weights, _grid(ds, disc)["fields"],
                                         title=f"γ{n + 1}: log₂γ = {lg:g}, Û = {r.value:.2f}"))
    return hv.Layout(panels).cols(3)


@_register("bu_fig15", "gmm_inclusion: B* with two fragments, L_val/−Û_tr, and decisions with anchors for γ_A, γ_B",
           paper="000 Fig 15", twin_y=True, size=(10, 7))
def bu_fig15(*, n_train: int = 400, statuses=(-6, 2), log2_gamma=(-10, -8, -6, -4, -2, 0, 2, 4, 6), cv: int = 5,
             M: int = 20, R_T: int = 2, seed: int = 0, cache: bool = True) -> hv.Layout:
    """Fig 15: the data and B*, the curves, then for γ_A and γ_B the predicted regions, B(Λ), Proposal 1
    anchors (black) and the probability weights of Proposal 2."""
    from buviz.uncertainty import Proposal1

    ds = _dataset("gmm_inclusion", n_train, 0, seed)
    t = _sweep(ds, log2_gamma, cv=cv, M=M, seed=seed, cache=cache)
    bu = _uncertainty(ds, M=M, seed=seed)
    p1 = Proposal1(R_T=_int(R_T, "R_T", low=1), random_state=seed).fit(ds.X_train, ds.y_train)
    bayes = ds.model.bayes_boundary(ds.bounds(), 150)
    panels = [bplots.sample_space(ds.X_train, ds.y_train, None, bayes_fields=bayes, title="gmm_inclusion and B*"),
              _curves(t, ("L_val", "U_tr"), "L_val, −Û_tr")]
    for tag, lg in zip("AB", _seq(statuses, "statuses"), strict=False):
        disc = _svm(ds, lg)
        grid = _grid(ds, disc)
        res = p1.evaluate(disc)
        A = res.anchors[res.anchor_valid]
        space = bplots.sample_space(ds.X_train, ds.y_train, grid["fields"], bayes_fields=grid["bayes_fields"],
                                    grid_predicted=grid["grid_predicted"], grid_xs=grid["grid_xs"],
                                    grid_ys=grid["grid_ys"], title=f"γ_{tag}: log₂γ = {lg:g}")
        anchors = hv.Points((A[:, 0], A[:, 1]), kdims=["x1", "x2"], label="anchors (Proposal 1)").opts(
            color="black", size=3)
        panels.append(space * anchors)
        r = bu.evaluate(disc)
        panels.append(bplots.weights_map(ds.X_train, ds.y_train, r.near_boundary_weights, grid["fields"],
                                         title=f"γ_{tag}: weights, Û = {r.value:.2f}"))
    return hv.Layout(panels).cols(3)


@_register("bu_table3", "Table 3: gains of Proposal 2 over Proposal 1 in elementary operations", kind="table",
           paper="000 Table 3", size=(7, 3))
def bu_table3(*, M: int = 40, i_max: int = 20, R_T: int = 10, i_K: int = 20, N_max: int = 40) -> pd.DataFrame:
    """Table 3 from the §5 cost formulas with the paper's settings (printed values alongside)."""
    from buviz.uncertainty import costs

    return costs.table3(M=_int(M, "M", low=2), i_max=_int(i_max, "i_max", low=1), R_T=_int(R_T, "R_T", low=1),
                        i_K=_int(i_K, "i_K", low=1), N_max=_int(N_max, "N_max", low=1)).reset_index()


# =================================================================================================
# Accuracy extrapolation (seeds 003/004)
# =================================================================================================
@_register("zheng_fig5", "Bivariate normal toy model: joint density and a k = 3 instance with its Bayes regions",
           paper="003 Fig 5", size=(9, 4))
def zheng_fig5(*, rho: float = 0.7, labels=(-1.2, 0.2, 1.4), n: int = 161) -> hv.Layout:
    """Fig 5: (a) the density of (Y, X) with correlation ρ; (b) X | Y = y_i ~ N(ρ y_i, 1 − ρ²) for three
    labels and the Bayes regions (nearest ρ y_i)."""
    from scipy.stats import norm

    rho = _real(rho, "rho", 0.0, 0.99)
    ys = np.sort(np.asarray(_seq(labels, "labels"), dtype=float))
    n = _int(n, "n", low=20, high=2000)
    g = np.linspace(-3, 3, n)
    Y, X = np.meshgrid(g, g)
    s2 = 1 - rho**2
    dens = np.exp(-(Y**2 - 2 * rho * X * Y + X**2) / (2 * s2)) / (2 * np.pi * np.sqrt(s2))
    img = hv.Image((g, g, dens), kdims=["y", "x"], vdims=["density"]).opts(cmap="viridis", colorbar=True,
                                                                         title=f"(a) (Y, X), ρ = {rho:g}")
    x = np.linspace(-3.5, 3.5, 400)
    centres = rho * ys
    cuts = np.concatenate([[-np.inf], (centres[1:] + centres[:-1]) / 2, [np.inf]])
    colors = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")
    layers = []
    for i, (y, c) in enumerate(zip(ys, centres, strict=True)):
        color = colors[i % len(colors)]
        lo, hi = max(cuts[i], x[0]), min(cuts[i + 1], x[-1])
        layers.append(hv.VSpan(lo, hi).opts(color=color, alpha=0.12))
        layers.append(hv.Curve((x, norm.pdf(x, c, np.sqrt(s2))), "x", "density", label=f"y = {y:g}").opts(
            color=color, line_width=2))
    return (img + hv.Overlay(layers).opts(title="(b) X | Y = y_i and Bayes regions",
                                          legend_position="top_right")).cols(2)


@_register("zheng_fig6", "Distribution of the k-class risk over random label sets, its mean and AvRisk_k",
           paper="003 Fig 6")
def zheng_fig6(*, rho: float = 0.7, k_max: int = 10, n_sets: int = 300, seed: int = 0) -> hv.Overlay:
    """Fig 6: box plots of Risk(Y_1..Y_k) for k = 2..k_max, their means and Theorem 4.1's average."""
    from buviz import extrapolation as ex

    rho = _real(rho, "rho", 0.0, 0.99)
    dist = ex.toy_risk_distribution(range(2, _int(k_max, "k_max", low=3, high=50) + 1), rho,
                                    n_sets=_int(n_sets, "n_sets", low=10), random_state=seed)
    return xplots.risk_distribution(dist, rho)


@_register("zheng_fig7", "Level curves of U_x(y) and the function D̄(u) for the toy model", paper="003 Fig 7",
           size=(9, 4))
def zheng_fig7(*, rho: float = 0.7) -> hv.Layout:
    """Fig 7: (a) U_x(y) (the corrected formula: 1 − the printed expression), (b) D̄(u)."""
    rho = _real(rho, "rho", 0.01, 0.99)
    return (xplots.toy_level_sets(rho, n=81) + xplots.dbar_curves((rho,))).cols(2)


@_register("zheng_fig8", "Average risk for k = 2..7, D̄(u), and the polynomial approximation error of D̄",
           paper="003 Fig 8", size=(11, 4))
def zheng_fig8(*, rhos=(0.3, 0.5, 0.7, 0.9), k_max: int = 7, max_degree: int = 10) -> hv.Layout:
    """Fig 8: (a) AvRisk_k, (b) D̄(u), (c) ℓ∞ error of the best degree-d polynomial, for several ρ."""
    from buviz import extrapolation as ex

    rhos = [_real(r, "rhos", 0.01, 0.99) for r in _seq(rhos, "rhos")]
    ks = np.arange(2, _int(k_max, "k_max", low=3, high=100) + 1)
    colors = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b")
    risk = hv.Overlay([hv.Curve((ks, ex.toy_average_risk(ks, r)), "k", "AvRisk_k", label=f"ρ = {r:g}").opts(
        color=colors[i % len(colors)], line_width=2) for i, r in enumerate(rhos)]).opts(
        title="(a) average risk", legend_position="bottom_right")
    err = pd.concat([ex.toy_polynomial_error(r, range(1, _int(max_degree, "max_degree", low=1, high=30) + 1),
                                             n_grid=200) for r in rhos], ignore_index=True)
    return (risk + xplots.dbar_curves(rhos).opts(title="(b) D̄(u)")
            + xplots.polynomial_error(err).opts(title="(c) polynomial error")).cols(3)


def _population(n_classes, rho, seed):
    from buviz import extrapolation as ex

    return ex.make_population(_int(n_classes, "n_classes", low=10, high=20000), 10,
                              rho=_real(rho, "rho", 0.0, 0.99), n_train=5, n_test=10, random_state=seed)


@_register("zheng_fig11", "Extrapolating AverageTA_k from K observed classes to a larger population (ground truth)",
           paper="003 Fig 11", size=(9, 4.5))
def zheng_fig11(*, n_classes: int = 400, K: int = 100, rho: float = 0.8, classifier: str = "1nn",
                methods=("moment", "classexreg", "kde"), seed: int = 0) -> hv.Layout:
    """Fig 11: (a) AverageTA_k (eq 3) on K random classes; (b) each estimator's extrapolation to all
    ``n_classes`` against the ground truth (eq 3 on the whole population)."""
    from buviz import extrapolation as ex

    pop = _population(n_classes, rho, seed)
    K = _int(K, "K", low=5, high=pop.n_classes - 1)
    if classifier not in ex.CLASSIFIERS:
        raise ValueError(f"classifier must be one of {ex.CLASSIFIERS}, got {classifier!r}")
    methods = [m for m in (methods if isinstance(methods, list | tuple) else [methods])]
    for m in methods:
        if m not in ex.METHODS:
            raise ValueError(f"methods must be among {ex.METHODS}, got {m!r}")
    rng = np.random.default_rng(seed)
    sub = ex.subsample_classes(pop, np.sort(rng.choice(pop.n_classes, K, replace=False)))
    M, y = ex.population_margins(sub, classifier, random_state=seed)
    k_all = np.unique(np.round(np.geomspace(2, pop.n_classes, 40)).astype(int))
    truth = (k_all, ex.ground_truth(pop, classifier, k_all, random_state=seed))
    est, observed = {}, None
    for m in methods:
        fit = ex.fit_extrapolator(M, y, m, random_state=seed, n_boot=10)
        observed = (fit.ks, fit.observed)
        est[m] = (k_all, fit.accuracy(k_all))
    ko = np.arange(2, K + 1)
    r = ex.ranks_from_margins(M, y, random_state=seed)
    a = hv.Curve((ko, ex.average_accuracy_from_ranks(r, ko, k1=K, groups=y)), "k",
                 hv.Dimension("accuracy", range=(0, 1)), label="AverageTA_k").opts(
        color="black", line_width=2, title=f"(a) {K} observed classes ({classifier})")
    b = xplots.extrapolation_curves(observed, est, truth, k_observed=K).opts(
        title=f"(b) extrapolation to {pop.n_classes} classes")
    return (a + b).cols(2)


@_register("zheng_fig12", "Moment-method extrapolations from subsamples of K classes, repeated, against the truth",
           paper="003 Fig 12", size=(11, 4))
def zheng_fig12(*, n_classes: int = 400, Ks=(25, 50, 100), repeats: int = 3, rho: float = 0.8,
                classifier: str = "1nn", method: str = "moment", seed: int = 0) -> hv.Layout:
    """Fig 12: for each K, ``repeats`` random subsets of K classes, each extrapolated (grey) to all classes,
    with the ground truth (black, dashed)."""
    from buviz import extrapolation as ex

    pop = _population(n_classes, rho, seed)
    if method not in ex.METHODS:
        raise ValueError(f"method must be one of {ex.METHODS}, got {method!r}")
    k_all = np.unique(np.round(np.geomspace(2, pop.n_classes, 40)).astype(int))
    truth = ex.ground_truth(pop, classifier, k_all, random_state=seed)
    rng = np.random.default_rng(seed)
    panels = []
    for K in _seq(Ks, "Ks", int):
        K = _int(K, "Ks", low=5, high=pop.n_classes - 1)
        layers = [hv.Curve((k_all, truth), "k", hv.Dimension("accuracy", range=(0, 1)), label="ground truth").opts(
            color="black", line_dash="dashed", line_width=2)]
        for rep in range(_int(repeats, "repeats", low=1, high=50)):
            sub = ex.subsample_classes(pop, np.sort(rng.choice(pop.n_classes, K, replace=False)))
            M, y = ex.population_margins(sub, classifier, random_state=seed)
            fit = ex.fit_extrapolator(M, y, method, random_state=seed, n_boot=10)
            layers.append(hv.Curve((k_all, fit.accuracy(k_all)), "k", "accuracy",
                                   label="estimates" if rep == 0 else "").opts(color="#1f77b4", alpha=0.6))
        layers.append(hv.VLine(K).opts(color="black", line_dash="dotted"))
        panels.append(hv.Overlay(layers).opts(title=f"K = {K}", logx=True, legend_position="bottom_left"))
    return hv.Layout(panels).cols(len(panels))


@_register("zheng_table1", "Table 1 style: test accuracy on K classes, at k_target, and the extrapolated AGA",
           kind="table", paper="003 Table 1", size=(8, 3))
def zheng_table1(*, n_classes: int = 400, K: int = 20, k_target: int = 400, rho: float = 0.8,
                 classifiers=("nearest_centroid", "naive_bayes", "1nn", "logistic"), method: str = "best",
                 seed: int = 0) -> pd.DataFrame:
    """Table 1: per classifier, accuracy on K classes, the truth at k_target and the extrapolation."""
    from buviz import extrapolation as ex

    pop = _population(n_classes, rho, seed)
    clfs = list(classifiers) if isinstance(classifiers, list | tuple) else [classifiers]
    for c in clfs:
        if c not in ex.CLASSIFIERS:
            raise ValueError(f"classifiers must be among {ex.CLASSIFIERS}, got {c!r}")
    return ex.compare_classifiers(pop, clfs, K=_int(K, "K", low=2), k_target=_int(k_target, "k_target", low=3),
                                  method=method, random_state=seed)


# =================================================================================================
# Discrete case (seed 002)
# =================================================================================================
def _nedelko_check(N, k):
    return _int(N, "N", low=2, high=400), _int(k, "k", low=1, high=200)


@_register("nedelko_table1", "Table 1: balanced-optimal per-cell values N·x*_mn (N = 50, k = 10)", kind="table",
           paper="002 Table 1", size=(7, 3.5))
def nedelko_table1(*, N: int = 50, k: int = 10, n_rows: int = 9, m_cols: int = 6) -> pd.DataFrame:
    """Table 1: rows n, columns m, the paper's units N·x (errors)."""
    from buviz import discrete

    N, k = _nedelko_check(N, k)
    x = discrete.cell_values("balanced_optimal", N, N, k=k)
    return dplots.table_frame(x, N, n_rows=_int(n_rows, "n_rows", 1, N + 1), m_cols=_int(m_cols, "m_cols", 1, N + 1)
                              ).reset_index()


@_register("nedelko_table2", "Table 2: combined .632 bootstrap per-cell values N·ẍ_mn (N = 50)", kind="table",
           paper="002 Table 2", size=(7, 3.5))
def nedelko_table2(*, N: int = 50, n_rows: int = 9, m_cols: int = 6) -> pd.DataFrame:
    """Table 2: rows n, columns m, the paper's units N·x (errors)."""
    from buviz import discrete

    N = _int(N, "N", low=2, high=400)
    n_rows = _int(n_rows, "n_rows", 1, N + 1)
    x = discrete.cell_values("bootstrap632", N, n_rows - 1)
    return dplots.table_frame(x, N, n_rows=n_rows, m_cols=_int(m_cols, "m_cols", 1, N + 1)).reset_index()


_NEDELKO_METHODS = ("resubstitution", "loo", "bootstrap632", "balanced_optimal")


@_register("nedelko_fig1", "Fig 1: the four estimators' per-cell values N·x[n, m] at n = 5", paper="002 Fig 1")
def nedelko_fig1(*, N: int = 50, k: int = 10, n: int = 5) -> hv.Overlay:
    """Fig 1: per-cell estimates against m at fixed n."""
    from buviz import discrete

    N, k = _nedelko_check(N, k)
    n = _int(n, "n", low=0, high=N)
    tables = {m: discrete.cell_values(m, N, N, k=k) for m in _NEDELKO_METHODS}
    return dplots.fig1_estimates(tables, n, N).opts(legend_position="top_left")


@_register("nedelko_fig2", "Fig 2: exact RMS deviation S = sqrt(E(f − g)²) against p for the four estimators",
           paper="002 Fig 2")
def nedelko_fig2(*, N: int = 50, k: int = 10, n_p: int = 101) -> hv.Overlay:
    """Fig 2: S(p) for p in [0, 1] (exact moments, no simulation)."""
    from buviz import discrete

    N, k = _nedelko_check(N, k)
    p = np.linspace(0, 1, _int(n_p, "n_p", low=3, high=2001))
    S = {m: discrete.rms_deviation(m, N, k, p) for m in _NEDELKO_METHODS}
    return dplots.fig2_rms(p, S).opts(legend_position="top_left")


# =================================================================================================
# static export through the Matplotlib backend
# =================================================================================================
def _mpl_color(c):
    if isinstance(c, str):
        return _COLOR_MAP.get(c.lower(), c)
    return c


def _mpl_cmap(cmap):
    if isinstance(cmap, str):
        return _CMAP_MAP.get(cmap, cmap)
    if isinstance(cmap, Mapping):
        return {k: _mpl_color(v) for k, v in cmap.items()}
    if isinstance(cmap, list | tuple):
        if cmap is bplots.DIVERGING_CMAP or list(cmap) == list(bplots.DIVERGING_CMAP):
            return _DIVERGING
        return [_mpl_color(c) for c in cmap]
    return cmap


def _translate(el):
    """Carry an element's Bokeh options over to the Matplotlib backend (Okabe–Ito colours)."""
    from holoviews import Store

    try:
        style = dict(Store.lookup_options("bokeh", el, "style").kwargs)
        plot = dict(Store.lookup_options("bokeh", el, "plot").kwargs)
    except Exception:  # bokeh backend not loaded: nothing to translate
        return el
    name = type(el).__name__
    try:
        mpl_opts = Store.options(backend="matplotlib")[name]
    except Exception:
        return el
    allowed_style = set(mpl_opts.groups["style"].allowed_keywords)
    allowed_plot = set(mpl_opts.groups["plot"].allowed_keywords)
    out: dict = {}
    is_points = name in ("Points", "Scatter")
    for key, val in style.items():
        if isinstance(val, hv.Cycle):
            continue
        if key == "color":
            out["color"] = _mpl_color(val) if not (isinstance(val, str) and val in [d.name for d in el.dimensions()]) \
                else val
        elif key in ("line_width",):
            out["linewidth"] = val
        elif key == "line_dash":
            out["linestyle"] = _DASH.get(val, val) if isinstance(val, str) else val
        elif key == "alpha":
            out["alpha"] = val
        elif key == "size" and is_points:
            out["s"] = float(val) ** 2 / 1.6
        elif key == "marker":
            out["marker"] = _MARKERS.get(val, val)
        elif key == "line_color" and is_points:
            out["edgecolors"] = "none" if val is None else _mpl_color(val)
        elif key == "line_color" and name in ("Histogram", "Bars", "Area", "VSpan"):
            out["edgecolor"] = _mpl_color(val)
        elif key == "fill_color" and is_points and val is None:  # hollow markers
            out["facecolors"] = "none"
        elif key == "fill_color":
            out["facecolor"] = _mpl_color(val)
        elif key == "fill_alpha":
            out["alpha"] = val
        elif key == "cmap":
            out["cmap"] = _mpl_cmap(val)
    if is_points and out.get("facecolors") == "none":
        out.pop("color", None)
        out.setdefault("edgecolors", "#D55E00")
    if name in ("VSpan", "HSpan") and "color" in out:
        out["facecolor"] = out.pop("color")
        out.setdefault("edgecolor", "none")
    if name == "Histogram" and "facecolor" in out:
        out["color"] = out.pop("facecolor")
    style_out = {k: v for k, v in out.items() if k in allowed_style}
    plot_out = {}
    for key in ("title", "logx", "logy", "xlim", "ylim", "show_legend", "colorbar", "clim", "xlabel", "ylabel",
                "invert_axes"):
        if key in plot and key in allowed_plot:
            plot_out[key] = plot[key]
    if "legend_position" in plot and "legend_position" in allowed_plot and plot["legend_position"] in _LEGEND_POS:
        plot_out["legend_position"] = plot["legend_position"]
    if "legend_position" in plot_out and plot_out["legend_position"] in ("right", "left", "top", "bottom"):
        plot_out["legend_position"] = "inner"  # outside legends overlap the neighbouring panels
    if el.vdims and el.vdims[0].name == _NEG_U_DIM.name and "hooks" in allowed_plot:
        plot_out["hooks"] = [_mark_u]
    try:
        return el.clone().opts(backend="matplotlib", **style_out, **plot_out)
    except Exception:
        return el


def _mark_u(plot, element) -> None:
    """Matplotlib hook: flag the artist of a −Û element so that :func:`_twin_axes` moves it right."""
    artist = plot.handles.get("artist")
    if artist is not None:
        artist._buviz_u = True


def to_matplotlib(obj):
    """A copy of a HoloViews object whose Matplotlib options mirror its Bokeh ones."""
    import holoviews.plotting.mpl  # noqa: F401  (registers the backend without changing the current one)

    if isinstance(obj, hv.Layout | hv.NdLayout):
        items = [to_matplotlib(o) for o in obj]
        out = hv.Layout(items).opts(backend="matplotlib", sublabel_format="")
        ncols = getattr(obj, "_max_cols", None)
        return out.cols(ncols) if ncols else out
    if isinstance(obj, hv.Overlay):
        out = hv.Overlay([_translate(el) for el in obj])
        try:
            from holoviews import Store

            plot = dict(Store.lookup_options("bokeh", obj, "plot").kwargs)
            allowed = set(Store.options(backend="matplotlib")["Overlay"].groups["plot"].allowed_keywords)
            opts = {k: plot[k] for k in ("title", "logx", "logy", "xlim", "ylim", "xlabel", "ylabel")
                    if k in plot and k in allowed}
            pos = plot.get("legend_position")
            if pos in _LEGEND_POS:
                opts["legend_position"] = "inner" if pos in ("right", "left", "top", "bottom") else pos
            out = out.opts(backend="matplotlib", **opts)
        except Exception:
            pass
        return out
    if isinstance(obj, hv.Element):
        return _translate(obj)
    return obj


def _has_data(artist) -> bool:
    if hasattr(artist, "get_xdata"):
        x = np.asarray(artist.get_xdata(), dtype=float)
        y = np.asarray(artist.get_ydata(), dtype=float)
        return bool(len(x)) and bool(np.isfinite(x).any() and np.isfinite(y).any())
    offs = np.asarray(artist.get_offsets(), dtype=float)
    return bool(len(offs)) and bool(np.isfinite(offs).all(axis=1).any())


def _is_vertical(ln) -> bool:
    x = np.asarray(ln.get_xdata(), dtype=float)
    return len(x) == 2 and x[0] == x[1]


def _twin_axes(fig) -> None:
    """Move the −Û artists of each axes that also shows errors onto a right-hand twin axis (Figs 6-13);
    an axes showing only −Û gets its y axis on the right, as in the paper."""
    from matplotlib.collections import PathCollection

    for ax in list(fig.axes):
        if getattr(ax, "_buviz_twin", False):
            continue
        u_lines = [ln for ln in ax.lines if getattr(ln, "_buviz_u", False) and _has_data(ln)]
        u_colls = [c for c in ax.collections if isinstance(c, PathCollection) and getattr(c, "_buviz_u", False)
                   and _has_data(c)]
        others = [ln for ln in ax.lines if not getattr(ln, "_buviz_u", False) and _has_data(ln)
                  and not _is_vertical(ln)]
        if not (u_lines or u_colls):
            continue
        if not others:  # only −Û on this axes: the paper reads it against the right-hand axis
            ax.yaxis.tick_right()
            ax.yaxis.set_label_position("right")
            ax.set_ylabel("−Û (best −1)")
            continue
        ax.set_aspect("auto")  # a fixed data aspect would move the frozen limits (adjustable="datalim")
        tw = ax.twinx()
        tw._buviz_twin = True
        for ln in u_lines:
            ln.remove()
            ln.set_transform(tw.transData)
            tw.add_line(ln)
        for c in u_colls:
            c.remove()
            c.set_offset_transform(tw.transData)
            c.set_transform(c.get_transform())
            tw.add_collection(c)
        for a in (ax, tw):
            a.relim()
            a.set_autoscaley_on(True)
            a.autoscale_view(scalex=False)
            a.set_ylim(a.get_ylim())  # freeze: a lazy re-autoscale at draw time would undo this
        tw.set_ylabel("−Û (best −1)")
        ax.set_ylabel("error rate")


def _uniform_fonts(fig, size: float) -> None:
    from matplotlib.text import Text

    for t in fig.findobj(Text):
        is_title = any(t is getattr(ax, attr, None) for ax in fig.axes for attr in ("title", "_left_title",
                                                                                     "_right_title"))
        t.set_fontsize(size + 1 if is_title else size)


def _table_figure(df: pd.DataFrame, width: float, height: float, title: str, decimals: int = 3):
    import matplotlib.figure

    fig = matplotlib.figure.Figure(figsize=(width, height))
    ax = fig.add_subplot(111)
    ax.axis("off")
    shown = df.copy()
    for c in shown.columns:
        if pd.api.types.is_float_dtype(shown[c]):
            shown[c] = shown[c].map(lambda v: "" if pd.isna(v) else f"{v:.{decimals}g}" if abs(v) >= 1e3 or
                                    (v != 0 and abs(v) < 1e-3) else f"{v:.{decimals}f}")
    tab = ax.table(cellText=shown.astype(str).to_numpy(), colLabels=[str(c) for c in shown.columns],
                   loc="center", cellLoc="center")
    tab.auto_set_font_size(False)
    tab.set_fontsize(FONT_SIZE - 1)
    tab.scale(1.0, 1.2)
    ax.set_title(title, fontsize=FONT_SIZE + 1)
    return fig


def _rc():
    return {"font.size": FONT_SIZE, "font.family": "DejaVu Sans", "axes.titlesize": FONT_SIZE + 1,
            "axes.labelsize": FONT_SIZE, "xtick.labelsize": FONT_SIZE, "ytick.labelsize": FONT_SIZE,
            "legend.fontsize": FONT_SIZE - 1, "svg.fonttype": "none", "pdf.fonttype": 42,
            "svg.hashsalt": "buviz",  # stable element ids: the same figure gives the same bytes
            "axes.prop_cycle": cycler(color=list(OKABE_ITO[:3] + OKABE_ITO[4:]))}


def export(name: str, out_path, width: float | None = None, height: float | None = None, dpi: int = 150,
           **params) -> Path:
    """Render figure ``name`` with the Matplotlib backend and write it to ``out_path``.

    The extension picks the format: ``.svg``, ``.pdf``, ``.png`` (``width``·``dpi`` × ``height``·``dpi``
    pixels) or, for tables, ``.csv``. ``width``/``height`` (inches) default to the figure's
    :attr:`Figure.size`, at which no text overlaps; at smaller sizes fonts and tick counts shrink to fit.
    ``params`` are the figure's own parameters; an unknown one raises
    ``TypeError`` listing those accepted, a bad value ``ValueError`` (or ``TypeError``).
    Returns the path written.
    """
    fig_def = get(name)
    out = Path(os.fspath(out_path))
    ext = out.suffix.lower()
    if ext not in FORMATS:
        raise ValueError(f"unsupported file extension {out.suffix!r}; use one of {', '.join(FORMATS)}")
    if ext == ".csv" and fig_def.kind != "table":
        raise ValueError(f"{name!r} is a figure: export it as .svg, .pdf or .png (.csv is for tables)")
    width = _real(fig_def.size[0] if width is None else width, "width", 0.5, 100.0)
    height = _real(fig_def.size[1] if height is None else height, "height", 0.5, 100.0)
    dpi = _int(dpi, "dpi", low=10, high=2400)
    obj = fig_def(**params)
    if ext == ".csv":
        obj.to_csv(out, index=False)
        return out

    fig = _draw(obj, fig_def.kind, width, height, dpi, twin_y=fig_def.twin_y, title=fig_def.description)
    _save(fig, out, ext[1:], dpi)
    return out


def _draw(obj, kind: str, width: float, height: float, dpi: int, *, twin_y: bool = False, title: str = ""):
    """A Matplotlib figure of a HoloViews object (or a DataFrame drawn as a table) at the given size."""
    import warnings

    import matplotlib

    with matplotlib.rc_context(_rc()), warnings.catch_warnings():
        # Two notices HoloViews' own Matplotlib plots trigger (hollow 'x' markers, VSpan colours); the
        # drawing is right, so they are not passed on to the user.
        for message in ("You passed an edgecolor", "Setting the 'color' property will override"):
            warnings.filterwarnings("ignore", message=message, category=UserWarning)
        if kind == "table":
            return _table_figure(obj, width, height, title)
        mobj = to_matplotlib(obj)
        fig = hv.render(mobj, backend="matplotlib")
        fig.set_size_inches(width, height)
        fig.set_dpi(dpi)
        if twin_y:
            _twin_axes(fig)
        _tidy_layout(fig)
    return fig


def _save(fig, target, fmt: str, dpi: int) -> None:
    import matplotlib
    import matplotlib.pyplot as plt

    try:
        with matplotlib.rc_context(_rc()):
            # no creation date in the file, so exports are reproducible byte for byte
            metadata = {"Date": None} if fmt == "svg" else {"CreationDate": None} if fmt == "pdf" else None
            fig.savefig(target, dpi=dpi, format=fmt, metadata=metadata)
    finally:
        plt.close(fig)


def to_bytes(obj, fmt: str = "svg", width: float = 6.0, height: float = 4.0, dpi: int = 150, *,
             twin_y: bool = False, title: str = "") -> bytes:
    """Draw a HoloViews object (built with the :mod:`buviz.plots` builders) like :func:`export` does --
    Matplotlib backend, Okabe–Ito colours, one font size, −Û on a right-hand axis when ``twin_y`` -- and
    return the file content (``fmt``: ``"svg"``, ``"pdf"`` or ``"png"``) instead of writing a file.
    A ``pandas.DataFrame`` is drawn as a table. Used by the explorer's export buttons.
    """
    import io

    fmt = str(fmt).lower().lstrip(".")
    if f".{fmt}" not in FORMATS or fmt == "csv":
        raise ValueError(f"unsupported format {fmt!r}; use svg, pdf or png")
    width = _real(width, "width", 0.5, 100.0)
    height = _real(height, "height", 0.5, 100.0)
    dpi = _int(dpi, "dpi", low=10, high=2400)
    kind = "table" if isinstance(obj, pd.DataFrame) else "figure"
    fig = _draw(obj, kind, width, height, dpi, twin_y=twin_y, title=title)
    buf = io.BytesIO()
    _save(fig, buf, fmt, dpi)
    return buf.getvalue()


def _tidy_layout(fig) -> None:
    """Fit titles, labels, legends and colorbars inside the requested size (the size itself never changes).

    HoloViews places the axes itself (fixed positions, data aspects, colorbars added beside the axes);
    here every axes goes back on one figure-level grid with a box aspect instead of a data aspect, the
    colorbars are re-attached so that Matplotlib's constrained layout makes room for them, and the fonts
    and tick counts shrink step by step until :func:`layout_problems` finds no overlapping or clipped text
    (or the smallest step is reached).
    """
    from matplotlib.legend import Legend
    from matplotlib.ticker import MaxNLocator

    for ax in fig.axes:  # one categorical legend per layer: keep one of each (title, entries)
        seen = set()
        for leg in reversed([c for c in ax.get_children() if isinstance(c, Legend)]):  # the last one is drawn
            key = (leg.get_title().get_text(), frozenset(t.get_text() for t in leg.get_texts()))
            if key in seen:
                leg.set_visible(False)
            seen.add(key)
    grids: dict = {}
    for ax in list(fig.axes):
        spec = ax.get_subplotspec()
        if spec is None:
            continue
        spec = spec.get_topmost_subplotspec()
        gs = spec.get_gridspec()
        if gs not in grids:
            grids[gs] = fig.add_gridspec(gs.nrows, gs.ncols)
        if ax.get_aspect() != "auto":
            ratio = ax.get_data_ratio() * ax.get_aspect()
            ax.set_aspect("auto")
            ax.set_box_aspect(ratio)
        ax.set_in_layout(True)
        ax.set_subplotspec(grids[gs][spec.rowspan.start:spec.rowspan.stop, spec.colspan.start:spec.colspan.stop])
    fig.set_layout_engine("constrained", w_pad=0.02, h_pad=0.02, wspace=0.02, hspace=0.02)
    for cax in list(fig.axes):
        cbar = getattr(cax, "_colorbar", None)
        parent = getattr(getattr(cbar, "mappable", None), "axes", None)
        if cbar is None or parent is None:
            continue
        label = cax.get_ylabel()
        cax.remove()
        fig.colorbar(cbar.mappable, ax=parent, fraction=0.08, pad=0.02).set_label(label)
    for size, nbins in ((FONT_SIZE, None), (FONT_SIZE - 1, 5), (FONT_SIZE - 2, 4), (FONT_SIZE - 3, 3)):
        _uniform_fonts(fig, size)
        if nbins:
            for ax in fig.axes:
                if hasattr(ax, "_colorbar"):
                    continue
                for axis, scale in ((ax.xaxis, ax.get_xscale()), (ax.yaxis, ax.get_yscale())):
                    if scale == "linear":
                        axis.set_major_locator(MaxNLocator(nbins))
        problems = layout_problems(fig)
        if problems and size == FONT_SIZE and _legends_inside(fig):
            problems = layout_problems(fig)
        if not problems:
            break
    else:
        _stack_legends(fig)
    layout_problems(fig)  # one last draw with the layout engine on, then freeze: a later draw or save
    fig.set_layout_engine("none")  # (outside this rc context) must not move what was checked


def _stack_legends(fig) -> None:
    """Still crowded at the smallest fonts: drop a legend repeating another panel's, stack the rest."""
    from matplotlib.legend import Legend

    # still crowded at the smallest fonts: stack the legends of each axes in one corner, one below the other
    renderer = fig.canvas.get_renderer()
    shown = set()
    for ax in fig.axes:  # a legend that repeats another panel's entries and covers text goes
        for leg in [c for c in ax.get_children() if isinstance(c, Legend) and c.get_visible()]:
            key = (leg.get_title().get_text(), tuple(t.get_text() for t in leg.get_texts()))
            too_tall = leg.get_window_extent(renderer).height > 0.7 * ax.get_window_extent(renderer).height
            if key in shown and (too_tall or _legend_hits_text(fig, leg, renderer)):
                leg.set_visible(False)
            shown.add(key)
    for ax in fig.axes:
        legends = [c for c in ax.get_children() if isinstance(c, Legend) and c.get_visible()]
        if len(legends) < 2 and not (legends and _legend_hits_text(fig, legends[0], renderer)):
            continue
        top = 1.0
        for leg in legends:
            leg.set_loc("upper right")
            leg.set_bbox_to_anchor((0, 0, 1, top), transform=ax.transAxes)
            fig.canvas.draw()
            bb = leg.get_window_extent(renderer).transformed(ax.transAxes.inverted())
            top = bb.y0


def _legend_hits_text(fig, legend, renderer) -> bool:
    """True if a legend overlaps a text of the figure outside the legend."""
    from matplotlib.text import Text

    box = legend.get_window_extent(renderer)
    own = {id(t) for t in legend.findobj(Text)}
    return any(t.get_visible() and t.get_text().strip() and box.overlaps(t.get_window_extent(renderer))
               for t in fig.findobj(Text) if id(t) not in own)


def _legends_inside(fig) -> bool:
    """Move legends that stick out of the figure into their axes; True if one moved."""
    from matplotlib.legend import Legend

    renderer = fig.canvas.get_renderer()
    moved = False
    for ax in fig.axes:
        for leg in [c for c in ax.get_children() if isinstance(c, Legend)]:
            bb = leg.get_window_extent(renderer)
            if bb.x0 < fig.bbox.x0 or bb.x1 > fig.bbox.x1 or bb.y0 < fig.bbox.y0 or bb.y1 > fig.bbox.y1:
                leg.set_bbox_to_anchor(None)
                leg.set_loc("best")
                moved = True
    return moved


def layout_problems(fig, tol: float = 1.0) -> list[str]:
    """Overlapping or clipped text of a drawn Matplotlib figure: a list of readable messages, empty when
    every tick label, axis label, title, colorbar label and legend entry lies inside the figure and no
    two of them overlap by more than ``tol`` pixels."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.legend import Legend
    from matplotlib.text import Text

    if not isinstance(fig.canvas, FigureCanvasAgg):
        FigureCanvasAgg(fig)
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts, tick_texts = [], set()
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            ticks = axis.get_major_ticks() + axis.get_minor_ticks()
            tick_texts.update(id(lab) for t in ticks for lab in (t.label1, t.label2))
            if not (ax.get_visible() and ax.axison and axis.get_visible()):
                continue
            lo, hi = sorted(axis.get_view_interval())
            eps = 1e-9 * (hi - lo)
            for tick in axis.get_major_ticks():  # only the ticks drawn (inside the view limits)
                loc = tick.get_loc()
                if loc is None or not lo - eps <= loc <= hi + eps:
                    continue
                texts += [lab for lab in (tick.label1, tick.label2) if lab.get_visible() and lab.get_text().strip()]

    def visible(artist):  # the artists that are drawn: an invisible parent hides its children
        if artist.get_visible():
            yield artist
            for child in artist.get_children():
                yield from visible(child)

    texts += [t for t in visible(fig) if isinstance(t, Text) and id(t) not in tick_texts and t.get_text().strip()]
    boxes = [(t, t.get_window_extent(renderer)) for t in texts]
    boxes = [(t, bb) for t, bb in boxes if bb.width > 0 and bb.height > 0]
    fb = fig.bbox
    out = [f"clipped text {t.get_text()!r}" for t, bb in boxes
           if bb.x0 < fb.x0 - tol or bb.y0 < fb.y0 - tol or bb.x1 > fb.x1 + tol or bb.y1 > fb.y1 + tol]
    def hit(a, b) -> bool:
        return min(a.x1, b.x1) - max(a.x0, b.x0) > tol and min(a.y1, b.y1) - max(a.y0, b.y0) > tol

    for i, (t, a) in enumerate(boxes):
        for u, b in boxes[i + 1:]:
            if hit(a, b):
                out.append(f"overlapping text {t.get_text()!r} / {u.get_text()!r}")
    # legend frames: two legends must not overlap, nor a legend cover a text that is not its own
    legends = [(leg, leg.get_window_extent(renderer)) for leg in visible(fig) if isinstance(leg, Legend)]
    for i, (leg, a) in enumerate(legends):
        own = {id(t) for t in leg.findobj(Text)}
        for other, b in legends[i + 1:]:
            if hit(a, b):
                out.append(f"overlapping legends {_legend_name(leg)} / {_legend_name(other)}")
        out += [f"legend {_legend_name(leg)} covers {t.get_text()!r}" for t, b in boxes
                if id(t) not in own and hit(a, b)]
    return out


def _legend_name(leg) -> str:
    return repr(leg.get_title().get_text() or ", ".join(t.get_text() for t in leg.get_texts()[:2]))
