"""Figures and tables of the boundary uncertainty paper.

D. Ha, S. Katagiri, H. Watanabe, M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", Journal of Signal Processing Systems, Springer, 2021,
doi:10.1007/s11265-021-01671-1.

Defaults run in seconds (small N); scale up with ``n_train=`` etc. Û of these synthetic figures
follows buviz's tolerance reading of eq 39 (``separability=TOLERANCE_SEPARABILITY``: "w_kl = 0" read
as ω_kl < 0.05), not the package's default rule: eq 39 as printed (``PAPER_SEPARABILITY``, w_kl = 0
exactly) never reaches Fig 5's Case 1 with a Gaussian kernel (on ``gmm_separable``, N = 300, the
boundary in the empty band has w_kl ≈ 10⁻⁹, so Û is the mean of near-zero Û(x): 0, not U_max).
Fig 5 shows Û under both readings. The real-data figures (:mod:`buviz.figures.real_data`) read
the tables of :mod:`buviz.reproduce`, whose ``U_tr`` is eq 39 as printed.
"""

from __future__ import annotations

import warnings

import holoviews as hv
import numpy as np
import pandas as pd
import param

from buviz import datasets
from buviz.figures._base import Numbers, PaperFigure
from buviz.grid import evaluate_grid
from buviz.plots import real_data as rplots
from buviz.plots import style
from buviz.plots import uncertainty as uplots
from buviz.plots.displays import (
    CovariateShiftDisplay,
    ErrorCurvesDisplay,
    OneSampleDisplay,
    SampleSpaceDisplay,
    SensitivityDisplay,
    WeightsDisplay,
)
from buviz.uncertainty import FlatDiscriminantWarning
from buviz.uncertainty.proposal2 import PAPER_SEPARABILITY, TOLERANCE_SEPARABILITY, pair_uncertainty

__all__ = ["UncertaintyFig3", "UncertaintyFig4", "UncertaintyFig5", "UncertaintyFig6", "UncertaintyFig6Quick",
           "UncertaintyFig7", "fig6_table", "fig6_measured",
           "UncertaintyFig8", "UncertaintyFig9", "UncertaintyFig10",
           "UncertaintyFig11", "UncertaintyFig12", "UncertaintyFig13", "UncertaintyFig14", "UncertaintyFig15",
           "UncertaintyTable3"]

_GAMMAS = (-6, -4, -2, 0, 2, 4, 6)


def _error_curves(table: pd.DataFrame | None, x: str = "log2_gamma", *, columns, title: str,
                  current: float | None = None) -> hv.Overlay:
    """The curves panel of :class:`ErrorCurvesDisplay` as a static picture, its legend under the frame,
    errors on the left axis and −Û on the right one, no axis without its curve
    (:func:`buviz.plots.uncertainty_curves.twin_axes`)."""
    panel = ErrorCurvesDisplay.from_table(table, x, current, columns=columns, title=title, show_parametric=False
                                          ).element(**style.LEGEND_BELOW)
    return uplots.twin_axes(panel)


# -- parameter declarations shared by several figures ---------------------------------------------
def _dataset(default: str = "gmm", objects=datasets.DATASET_NAMES):
    return param.Selector(default=default, objects=list(objects), doc="data set (buviz.datasets)")


def _n_train(default: int):
    return param.Integer(default, bounds=(20, None), doc="training samples (real data sets: a 70/30 split)")


def _n_test(default: int):
    return param.Integer(default, bounds=(0, None), doc="test samples")


def _seed():
    return param.Integer(0, bounds=(0, None), doc="random seed")


def _log2_gamma(default: float):
    return param.Number(default, bounds=(-30, 30), doc="log₂ γ of the RBF SVM")


def _log2_gammas(default=_GAMMAS):
    return Numbers(list(default), item_bounds=(-30, 30), bounds=(2, None), doc="log₂ γ values of the sweep")


def _cv(default: int = 5):
    return param.Integer(default, bounds=(2, None), doc="cross-validation folds")


def _M(default: int = 20):
    return param.Integer(default, bounds=(2, None), doc="cluster size M of Proposal 2")


def _C():
    return param.Number(1.0, bounds=(1e-9, None), doc="SVM regularisation C")


def _perturbation():
    return param.Number(0.5, bounds=(0, 10), doc="perturbation a of T̃ (0: no T̃)")


def _cache():
    return param.Boolean(True, doc="cache the sweep on disk")


def _R_T(default: int):
    return param.Integer(default, bounds=(1, None), doc="Proposal 1: repetitions R_T")


def _statuses(default):
    return Numbers(list(default), item_bounds=(-30, 30), doc="log₂ γ of the statuses shown as maps")


# -- shared computations ---------------------------------------------------------------------------
def _data(name: str, n_train: int, n_test: int, seed: int):
    return datasets.load(name, n_train=n_train, n_test=n_test, random_state=seed)


def _svm(ds, log2_gamma: float, C: float = 1.0):
    from buviz.classifiers import svm_status

    return svm_status(ds.X_train, ds.y_train, 2.0 ** log2_gamma, C=C)


#: Grid resolution of the figures' maps (the explorer uses 160).
_RESOLUTION = 120


def _bayes(ds, resolution: int = _RESOLUTION):
    """B* on the figures' grid (exact-density datasets), else None."""
    return ds.model.bayes_boundary(ds.bounds(), resolution) if ds.model is not None else None


def _sweep(ds, log2_gamma, *, cv: int = 5, M: int = 40, K="aic", perturbation: float = 0.5, C: float = 1.0,
           seed: int = 0, cache=True, proposal1: bool = False) -> pd.DataFrame:
    from buviz import sweep

    return sweep.svm_gamma_sweep(ds, 2.0 ** np.asarray(log2_gamma, dtype=float), C=C, cv=cv, M=M, K=K,
                                 separability=TOLERANCE_SEPARABILITY, perturbation=perturbation, proposal1=proposal1,
                                 random_state=seed, cache=cache, n_jobs=2)


def _three_panels(t: pd.DataFrame, x: str = "log2_gamma") -> list:
    """Panels 1-3 of Figs 6, 7 and 9: L_te and −Û_te; L_HO, L_tr, L_val; −Û_tr and −Û_te."""
    return [_error_curves(t, x, columns=("L_te", "U_te"), title="1: L_te, −Û_te"),
            _error_curves(t, x, columns=("L_ho", "L_tr", "L_val"), title="2: L_HO, L_tr, L_val"),
            _error_curves(t, x, columns=("U_tr", "U_te"), title="3: −Û_tr, −Û_te")]


def _uncertainty(ds, *, M: int = 40, K="aic", perturbation: float = 0.5, seed: int = 0):
    from buviz.uncertainty import BoundaryUncertainty

    return BoundaryUncertainty(M=M, K=K, perturbation=perturbation, separability=TOLERANCE_SEPARABILITY,
                               random_state=seed).fit(ds.X_train, ds.y_train)


def _space(ds, result, title: str, *, layers=("points", "boundary", "bayes"), grid=None, proposal1=None,
           bayes=True, anchors_only: bool = False) -> hv.Overlay:
    """The sample space of a status through :class:`SampleSpaceDisplay` (the explorer's display);
    ``anchors_only`` keeps Proposal 1's anchors and drops its N_B and TDC clusters."""
    d = SampleSpaceDisplay.from_result(result, ds, grid=grid, bayes_fields=_bayes(ds) if bayes else None,
                                       proposal1=proposal1, title=title, resolution=_RESOLUTION)
    if anchors_only:
        d.update(proposal1_near=None, proposal1_clusters=None)
    return d.element(layers, title=title, legend_position="top_left")


def _linear_status(a: float, b: float, c: float):
    """Two-class discriminant g = [−s, s] with s = a·x1 + b·x2 − c (class 2 where s > 0)."""
    from buviz.classifiers import as_discriminant

    def g(X):
        X = np.asarray(X, dtype=float)
        s = a * X[:, 0] + b * X[:, 1] - c
        return np.column_stack([-s, s])

    return as_discriminant(g, n_classes=2, name=f"linear({a:g},{b:g},{c:g})")


# -- the figures -----------------------------------------------------------------------------------
class UncertaintyFig3(PaperFigure):
    """Proposal 1: anchors on B(Λ) and the near-boundary set N_B (SVM on gmm)"""

    key, alias, paper, number = "uncertainty_fig3", "bu_fig3", "uncertainty", "Fig 3"
    dataset = _dataset()
    n_train = _n_train(300)
    log2_gamma = _log2_gamma(0.0)
    C = _C()
    R_T = _R_T(3)
    i_max = param.Integer(20, bounds=(1, None), doc="Proposal 1: iterations of the anchor search")
    seed = _seed()

    def build(self) -> hv.Overlay:
        from buviz.uncertainty import Proposal1

        ds = _data(self.dataset, self.n_train, 0, self.seed)
        disc = _svm(ds, self.log2_gamma, self.C)
        res = Proposal1(R_T=self.R_T, i_max=self.i_max, random_state=self.seed).fit(
            ds.X_train, ds.y_train).evaluate(disc)
        return _space(ds, None, f"Proposal 1, log₂γ = {self.log2_gamma:g}: Û⁽¹⁾ = {res.value:.3f}",
                      layers=("points", "boundary", "bayes", "proposal1"),
                      grid=evaluate_grid(disc, ds.bounds(), _RESOLUTION), proposal1=res)


class UncertaintyFig4(PaperFigure):
    """One sample up close: N^M(x), its perturbed members and the 1-D Parzen count on f"""

    key, alias, paper, number = "uncertainty_fig4", "bu_fig4", "uncertainty", "Fig 4"
    size = (8.0, 4.0)
    accepts = {"index": "none, or integer in [0, n_train − 1]"}
    dataset = _dataset()
    n_train = _n_train(400)
    log2_gamma = _log2_gamma(0.0)
    M = _M(20)
    perturbation = _perturbation()
    index = param.Integer(None, allow_None=True, bounds=(0, None),
                          doc="training sample shown (default: the largest k̂(x) among those with Û(x) > 0)")
    seed = _seed()

    def build(self) -> hv.Layout:
        ds = _data(self.dataset, self.n_train, 0, self.seed)
        disc = _svm(ds, self.log2_gamma)
        bu = _uncertainty(ds, M=self.M, perturbation=self.perturbation, seed=self.seed)
        r = bu.evaluate(disc)
        index = self.index
        if index is None:
            score = np.where(r.local_uncertainty > 0, r.k, -np.inf)
            index = int(np.argmax(score)) if np.isfinite(score).any() else int(np.argmax(r.k))
        index = self.check("index", index, 0, len(ds.X_train) - 1)
        d = OneSampleDisplay.from_result(r, ds, index, resolution=_RESOLUTION)
        return (d.element(panel="map", title=f"N^M(x), M = {bu.M}") + d.element(panel="zoom")).cols(2)


class UncertaintyFig5(PaperFigure):
    """Separability cases on gmm_separable: B(Λ) near B*, crossing the crowds, outside the data"""

    key, alias, paper, number = "uncertainty_fig5", "bu_fig5", "uncertainty", "Fig 5"
    size = (10.0, 4.0)
    n_train = _n_train(300)
    M = _M(20)
    seed = _seed()

    def build(self) -> hv.Layout:
        ds = _data("gmm_separable", self.n_train, 0, self.seed)
        bu = _uncertainty(ds, M=self.M, seed=self.seed)
        x_max = float(np.abs(ds.X_train[:, 0]).max())
        cases = {"Case 1: B(Λ) ≈ B*": _linear_status(1.0, 0.0, 0.0),
                 "Case 2: B(Λ) crosses the classes": _linear_status(1.0, -0.6, 0.0),
                 "Case 3: B(Λ) outside the data": _linear_status(1.0, 0.0, 1.15 * x_max)}
        panels = []
        for title, disc in cases.items():
            r = bu.evaluate(disc)
            printed = pair_uncertainty(r.k, r.local_uncertainty, r.pair_match, r.true_pair_index,
                                       r.pair_error_tilde, len(r.pairs), rule=PAPER_SEPARABILITY)  # eq 39 as printed
            u_printed = float(np.dot(r.pair_probabilities, printed.values))
            panels.append(_space(ds, r, f"{title}\nÛ⁽³⁾ = {r.value:.2f} (ω < 0.05), {u_printed:.2f} (w = 0)",
                                 layers=("regions", "points", "boundary", "bayes")))
        return hv.Layout(panels).cols(3)


class UncertaintyFig6Quick(PaperFigure):
    """Fig 6 computed at render time on a small sample (uncertainty_fig6 is the paper's size, from a shipped table): errors (left axis) and −Û (right axis) against log₂γ on gmm, with and without T̃. At the defaults (N = 300, seed 0) the minima disagree: with T̃, −Û_tr is lowest at log₂γ = 4 and −Û_te at −4, while L_te is lowest at −2 and L_val at 0 (without T̃: −Û_tr at 2, −Û_te at −2); Û_tr from 300 samples is noisy, raise n_train to see the curves close up"""  # noqa: E501

    key, alias, paper, number = "uncertainty_fig6_quick", "bu_fig6", "uncertainty", "Fig 6 (quick: N = 300, M = 20)"
    twin_y, size = True, (10.0, 6.5)
    dataset = _dataset()
    n_train = _n_train(300)
    n_test = _n_test(2000)
    log2_gamma = _log2_gammas()
    cv = _cv(5)
    M = _M(20)
    perturbation = _perturbation()
    C = _C()
    seed = _seed()
    cache = _cache()

    def build(self) -> hv.Layout:
        ds = _data(self.dataset, self.n_train, self.n_test, self.seed)
        kw = dict(cv=self.cv, M=self.M, C=self.C, seed=self.seed, cache=self.cache)
        t = _sweep(ds, self.log2_gamma, perturbation=self.perturbation, **kw)
        t0 = _sweep(ds, self.log2_gamma, perturbation=0.0, **kw)
        # a 2 × 2 grid, as the paper-size Fig 6's: the panels 1bis and 3bis share one
        return hv.Layout([*_three_panels(t)[:2],
                          _error_curves(t, columns=("U_tr", "U_te"), title="3: −Û_tr, −Û_te (with T̃)"),
                          _error_curves(t0, columns=("L_te", "U_tr", "U_te"), title="1bis, 3bis: without T̃"),
                          ]).cols(2)


#: The shipped table of the paper-size Fig 6 (written by ``python benchmarks/goal_a_oracle.py --write-table``).
FIG6_TABLE = "uncertainty_fig6_gmm.csv"


def fig6_table() -> pd.DataFrame | None:
    """The shipped paper-size Fig 6 table (GMM, N = 2 000, N_te = 18 000, M = 40, three seeds), or None.

    One row per (seed, log₂γ): L_HO, L_te, Û_tr and Û_te with and without T̃ (eq 39 as printed), and
    the true boundary uncertainty ``U_true`` of the status (:func:`buviz.uncertainty.true_boundary_uncertainty`).
    """
    from buviz.reproduce import tables_dir

    path = tables_dir() / FIG6_TABLE
    if not path.is_file():
        return None
    with path.open("r", encoding="utf-8") as fh:
        return pd.read_csv(fh)


def fig6_measured(t: pd.DataFrame) -> dict:
    """What the Fig 6 table shows: per seed, mean ∣Û_tr − Û_te∣, ∣Û_tr − U∣, ∣Û_te − U∣ over the γ grid
    (with T̃), and the log₂γ where −Û_tr, −Û_te, −U and L_te are lowest."""
    out = {}
    for seed, s in t.sort_values("log2_gamma").groupby("seed"):
        lg = s["log2_gamma"].to_numpy()
        out[int(seed)] = {
            "tr_te": float((s.U_tr - s.U_te).abs().mean()), "tr_true": float((s.U_tr - s.U_true).abs().mean()),
            "te_true": float((s.U_te - s.U_true).abs().mean()),
            "tr_te_noT": float((s.U_tr_noT - s.U_te_noT).abs().mean()),
            "argmax_U_tr": float(lg[np.argmax(s.U_tr.to_numpy())]),
            "argmax_U_te": float(lg[np.argmax(s.U_te.to_numpy())]),
            "argmax_U_true": float(lg[np.argmax(s.U_true.to_numpy())]),
            "argmin_L_te": float(lg[np.argmin(s.L_te.to_numpy())]),
        }
    return out


def _slash(values, fmt="{:.2f}") -> str:
    return "/".join(fmt.format(v) for v in values)


class UncertaintyFig6(PaperFigure):
    """Fig 6 at the paper's size (GMM, N = 2 000, N_te = 18 000, M = 40, three seeds), with the true U(Λ): errors (left axis), −Û_tr, −Û_te and −U(Λ) (right axis) against log₂γ, with and without T̃, the seeds' mean"""  # noqa: E501

    key, paper, number = "uncertainty_fig6", "uncertainty", "Fig 6 (GMM at the paper's size, with the true U(Λ))"
    twin_y, size = True, (10.0, 6.5)
    claim = "with T̃, Û_tr ≈ Û_te across γ (Goal (a), §6.4.1)"
    data_text = ("shipped table uncertainty_fig6_gmm (GMM, N = 2 000, N_te = 18 000, M = 40, C = 16, seeds 0/1/2, "
                 "log2 gamma −15 to 15, eq 39 as printed) with the true U(Λ) of each status "
                 "(buviz.uncertainty.true_boundary_uncertainty)")
    redo_command = "python benchmarks/goal_a_oracle.py --write-table"

    @classmethod
    def measured(cls) -> str:
        """What the shipped table shows, in the caption's words."""
        t = fig6_table()
        if t is None:
            return "table not shipped"
        m = fig6_measured(t)
        seeds = sorted(m)
        v = [m[s] for s in seeds]
        return (f"over log₂γ = {t.log2_gamma.min():g} … {t.log2_gamma.max():g} and seeds {_slash(seeds, '{}')}, "
                f"mean |Û_tr − Û_te| {_slash(x['tr_te'] for x in v)} with T̃ "
                f"({_slash(x['tr_te_noT'] for x in v)} without), |Û_tr − U| {_slash(x['tr_true'] for x in v)}, "
                f"|Û_te − U| {_slash(x['te_true'] for x in v)}; the maximum of U(Λ) at log₂γ = "
                f"{_slash((x['argmax_U_true'] for x in v), '{:g}')}, "
                f"of Û_tr at {_slash((x['argmax_U_tr'] for x in v), '{:g}')}, "
                f"of Û_te at {_slash((x['argmax_U_te'] for x in v), '{:g}')}, the minimum of L_te at "
                f"{_slash((x['argmin_L_te'] for x in v), '{:g}')} (docs/goal_a_oracle.md)")

    def build(self) -> hv.Layout:
        t = fig6_table()
        if t is None:
            raise FileNotFoundError(f"{FIG6_TABLE} is not shipped: python benchmarks/goal_a_oracle.py --write-table")
        mean = t.groupby("log2_gamma", as_index=False).mean(numeric_only=True)
        noT = mean.assign(U_tr=mean.U_tr_noT, U_te=mean.U_te_noT)
        errors = ("L_ho", "L_tr", "L_val") if "L_val" in mean else ("L_ho", "L_te")

        def with_truth(table, columns, title):
            el = _error_curves(table, columns=columns, title=title)
            el = el * uplots.u_curve(table, "U_true", label="−U(Λ) (true)", color="#CC79A7", dash="dashed")
            return uplots.twin_axes(style.opts(el, title=title, **style.LEGEND_BELOW))

        return style.opts(hv.Layout([
            _error_curves(mean, columns=("L_te", "U_te"), title="1: L_te, −Û_te"),
            _error_curves(mean, columns=errors, title=f"2: {', '.join(c.replace('_ho', '_HO') for c in errors)}"),
            with_truth(mean, ("U_tr", "U_te"), "3: −Û_tr, −Û_te, −U(Λ) (with T̃)"),
            with_truth(noT, ("L_te", "U_tr", "U_te"), "1bis, 3bis: L_te, −Û_tr, −Û_te, −U(Λ) without T̃"),
        ]).cols(2), title=rplots.data_title("GMM", t))  # a 2 × 2 grid (as Fig 7's); the data it shows


if fig6_table() is not None:
    UncertaintyFig6.state_measured(UncertaintyFig6.claim, UncertaintyFig6.measured())


class UncertaintyFig7(PaperFigure):
    """Fig 7's layout on scikit-learn's breast_cancer or wine (not the paper's data; uncertainty_fig7 is Letter Recognition)"""  # noqa: E501

    key, paper, number = "uncertainty_fig7_sklearn", "uncertainty", "Fig 7 layout (scikit-learn's breast_cancer / wine)"
    twin_y, size = True, (9.0, 6.5)
    dataset = _dataset("breast_cancer", ("breast_cancer", "wine"))
    log2_gamma = _log2_gammas((-10, -8, -6, -4, -2, 0, 2))
    cv = _cv(3)
    M = _M(20)
    C = _C()
    seed = _seed()
    cache = _cache()

    def build(self) -> hv.Layout:
        ds = _data(self.dataset, 300, 0, self.seed)  # real data sets: a 70/30 split, n_train unused
        kw = dict(cv=self.cv, M=self.M, C=self.C, seed=self.seed, cache=self.cache)
        t, t0 = _sweep(ds, self.log2_gamma, **kw), _sweep(ds, self.log2_gamma, perturbation=0.0, **kw)
        # a 2 × 2 grid, as the paper's Fig 7 on Letter Recognition (uncertainty_fig7)
        return hv.Layout([*_three_panels(t),
                          _error_curves(t0, columns=("L_te", "U_tr", "U_te"), title="1bis, 3bis: without T̃"),
                          ]).cols(2)


class UncertaintyFig8(PaperFigure):
    """Fig 8's layout on scikit-learn's breast_cancer and wine (not the paper's ten sets; uncertainty_fig8 is): L_val, −Û_tr and −Û1_tr against log₂γ"""  # noqa: E501

    key, paper, number = "uncertainty_fig8_sklearn", "uncertainty", "Fig 8 layout (scikit-learn's breast_cancer / wine)"
    twin_y, size = True, (10.0, 4.0)
    datasets = param.ListSelector(default=["breast_cancer", "wine"], objects=["breast_cancer", "wine"],
                                  doc="real data sets, one panel each")
    log2_gamma = _log2_gammas((-10, -7, -4, -1, 2))
    cv = _cv(3)
    M = _M(20)
    seed = _seed()
    cache = _cache()

    def build(self) -> hv.Layout:
        panels = []
        for name in self.datasets:
            ds = _data(name, 300, 0, self.seed)
            t = _sweep(ds, self.log2_gamma, cv=self.cv, M=self.M, seed=self.seed, cache=self.cache, proposal1=True)
            panels.append(_error_curves(t, columns=("L_val", "U_tr", "U1_tr"), title=f"{name}"))
        return hv.Layout(panels).cols(len(panels))


class UncertaintyFig9(PaperFigure):
    """Fig 9's layout on scikit-learn's digits (not the paper's Letter Recognition; uncertainty_fig9 is): errors and −Û against the training epoch"""  # noqa: E501

    key, paper, number = "uncertainty_fig9_sklearn", "uncertainty", "Fig 9 layout (scikit-learn's digits)"
    twin_y, size = True, (7.0, 4.5)
    epochs = Numbers([1, 3, 10, 30], item_bounds=(1, 2000), integer=True, bounds=(2, None),
                     doc="training epochs read off (one network per fold, as in the paper)")
    cv = _cv(3)
    M = _M(20)
    seed = _seed()
    cache = _cache()

    def build(self) -> hv.Overlay:
        from sklearn.datasets import load_digits

        from buviz import sweep

        X, y = load_digits(return_X_y=True)
        X = X[:, (X > 0).sum(axis=0) >= 30]  # border pixels that are (almost) always blank carry nothing
        ds = datasets.from_arrays(X, y, random_state=self.seed, name="digits")
        t = sweep.mlp_epoch_sweep(ds, self.epochs, cv=self.cv, M=self.M, separability=TOLERANCE_SEPARABILITY,
                                  hidden_layer_sizes=(64,),
                                  random_state=self.seed, cache=self.cache, n_jobs=2)
        return _error_curves(t, "epoch", columns=("L_te", "L_val", "U_tr", "U_te"),
                             title="digits, MLP: errors (left) and −Û (right)")  # the legend under the frame


class UncertaintyAmplitude(PaperFigure):
    """−Û_tr against log₂γ for several T̃ amplitudes a, next to the test error (the T̃ law of Algorithm 1)"""

    key, paper, number = "uncertainty_amplitude", "uncertainty", "T̃ law (Algorithm 1 leaves it open)"
    twin_y, size = True, (10.0, 4.5)
    dataset = _dataset()
    n_train = _n_train(300)
    n_test = _n_test(2000)
    log2_gamma = _log2_gammas()
    amplitudes = Numbers([0.0, 0.25, 0.5, 1.0, 2.0, 4.0], item_bounds=(0, 10), bounds=(1, 6),
                         doc="T̃ amplitudes a drawn (0: T̃ = T); at most six")
    M = _M(20)
    C = _C()
    seed = _seed()

    def build(self) -> hv.Layout:
        from sklearn.svm import SVC

        from buviz.model_selection import perturbation_amplitude_sweep
        from buviz.plots.selection import AmplitudeDisplay

        ds = _data(self.dataset, self.n_train, self.n_test, self.seed)
        table = perturbation_amplitude_sweep(
            ds.X_train, ds.y_train, ds.X_test, ds.y_test, estimator=SVC(C=self.C), param="gamma",
            values=[2.0 ** g for g in self.log2_gamma], amplitudes=tuple(self.amplitudes), M=self.M,
            max_test=len(ds.X_train), random_state=self.seed)
        return AmplitudeDisplay.from_table(table).element()


class UncertaintyFig10(PaperFigure):
    """Covariate shift: f(T), f(T̃) and f(X_te) coloured on one scale (SVM on gmm)"""

    key, alias, paper, number = "uncertainty_fig10", "bu_fig10", "uncertainty", "Fig 10"
    size = (8.0, 7.5)
    dataset = _dataset()
    n_train = _n_train(400)
    n_test = _n_test(2000)
    log2_gamma = _log2_gamma(2.0)
    perturbation = _perturbation()
    M = _M(20)
    seed = _seed()

    def build(self) -> hv.Layout:
        ds = _data(self.dataset, self.n_train, self.n_test, self.seed)
        disc = _svm(ds, self.log2_gamma)
        r = _uncertainty(ds, M=self.M, perturbation=self.perturbation, seed=self.seed).evaluate(disc, train_scores=True)
        data = _space(ds, r, "1: T with given labels", layers=("points",), bayes=False)
        shift = CovariateShiftDisplay.from_result(r, ds, resolution=_RESOLUTION)
        maps = [shift.element(panel=name, title=f"{n + 2}: {name}") for n, name in enumerate(shift.map_names)]
        return hv.Layout([data, *maps]).cols(2)


class UncertaintyFig11(PaperFigure):
    """Fig 11's layout on scikit-learn's breast_cancer (not the paper's ten sets; uncertainty_fig11 is): L_val, L_HO (left) and −Û_tr computed on T (right) against log₂γ"""  # noqa: E501

    key, alias, paper, number = ("uncertainty_fig11_sklearn", "bu_fig11", "uncertainty",
                                  "Fig 11 layout (scikit-learn's breast_cancer)")
    twin_y, size = True, (7.0, 4.5)
    dataset = _dataset("breast_cancer")
    n_train = _n_train(400)
    log2_gamma = _log2_gammas((-10, -8, -6, -4, -2, 0, 2, 4))
    cv = _cv(5)
    M = _M(20)
    C = _C()
    with_tilde = param.Boolean(True, doc="add −Û_tr with T̃ (dashed) for comparison")
    seed = _seed()
    cache = _cache()

    def build(self) -> hv.Overlay:
        ds = _data(self.dataset, self.n_train, 0, self.seed)
        kw = dict(cv=self.cv, M=self.M, C=self.C, seed=self.seed, cache=self.cache)
        with warnings.catch_warnings():
            # the figure's point: a large-γ SVC is flat on the neighbourhoods (h_x = 0), without T̃ most of all
            warnings.simplefilter("ignore", FlatDiscriminantWarning)
            t0 = _sweep(ds, self.log2_gamma, perturbation=0.0, **kw)
            t = _sweep(ds, self.log2_gamma, perturbation=0.5, **kw) if self.with_tilde else None
        el = _error_curves(t0, columns=("L_val", "L_ho", "U_tr"), title=f"{self.dataset}: −Û_tr without T̃")
        if t is not None:
            el = el * uplots.u_curve(t, "U_tr", label="−Û_tr with T̃")
        return uplots.twin_axes(style.opts(el, **style.LEGEND_BELOW))  # beside, it took the frame's width


class UncertaintyFig12(PaperFigure):
    """Fig 12's question on a small sample of the GMM mixture (uncertainty_fig12 is the paper's GMM and Wine Quality White): sensitivity of −Û_tr to M, with −Û_te as reference"""  # noqa: E501

    key, paper, number = "uncertainty_fig12_toy", "uncertainty", "Fig 12 layout (a small GMM sample)"
    twin_y, size = True, (7.0, 4.5)
    accepts = {"Ms": "integers in [2, n_train] (a list)"}
    dataset = _dataset()
    n_train = _n_train(300)
    n_test = _n_test(1500)
    Ms = Numbers([10, 20, 40, 80], item_bounds=(2, None), integer=True, doc="cluster sizes M compared")
    log2_gamma = _log2_gammas()
    cv = _cv(3)
    seed = _seed()
    cache = _cache()

    def build(self) -> hv.Overlay:
        ds = _data(self.dataset, self.n_train, self.n_test, self.seed)
        kw = dict(cv=self.cv, seed=self.seed, cache=self.cache)
        Ms = [self.check("Ms", int(m), 2, len(ds.X_train)) for m in self.Ms]
        tables = {f"M = {m}": _sweep(ds, self.log2_gamma, M=m, **kw) for m in Ms}
        ref = _sweep(ds, self.log2_gamma, M=min(40, len(ds.X_train)), **kw)
        return SensitivityDisplay(tables=tables, reference=ref, title=f"{self.dataset}: −Û_tr for several M").element()


class UncertaintyFig13(PaperFigure):
    """Fig 13's question on the three-class mixture gmm3 (uncertainty_fig13 is the paper's multi-class sets): sensitivity of −Û_tr to K"""  # noqa: E501

    key, paper, number = "uncertainty_fig13_toy", "uncertainty", "Fig 13 layout (the gmm3 mixture)"
    twin_y, size = True, (7.0, 4.5)
    accepts = {"Ks": "integers ≥ 1 or 'aic' (a list)"}
    dataset = _dataset("gmm3", ("gmm3", "wine"))
    n_train = _n_train(450)
    Ks = param.List([3, 10, 20, 40, "aic"], doc="prototypes per class compared (an integer ≥ 1, or 'aic')")
    log2_gamma = _log2_gammas()
    cv = _cv(3)
    M = _M(20)
    seed = _seed()
    cache = _cache()

    @param.depends("Ks", watch=True, on_init=True)
    def _check_Ks(self):
        for K in self.Ks:
            if K != "aic" and (isinstance(K, bool) or not isinstance(K, int) or K < 1):
                raise ValueError(f"Ks must hold integers ≥ 1 or 'aic', got {K!r}")

    def build(self) -> hv.Overlay:
        ds = _data(self.dataset, self.n_train, 0, self.seed)
        smallest = int(np.bincount(ds.y_train).min())
        tables = {}
        for K in self.Ks:
            if K != "aic" and K > smallest:
                continue  # more prototypes than samples in the smallest class
            tables["K_aic" if K == "aic" else f"K = {K}"] = _sweep(ds, self.log2_gamma, cv=self.cv, M=self.M, K=K,
                                                                  seed=self.seed, cache=self.cache)
        if not tables:
            self.check("Ks", min(self.Ks), 1, smallest)
        return SensitivityDisplay(tables=tables, title=f"{self.dataset}: −Û_tr for several K").element()


class UncertaintyFig14(PaperFigure):
    """Probability weights k̂(x)/w_kl on gmm_separable for four γ, with L_val and −Û_tr"""

    key, alias, paper, number = "uncertainty_fig14", "bu_fig14", "uncertainty", "Fig 14"
    twin_y, size = True, (10.0, 7.0)
    n_train = _n_train(300)
    statuses = _statuses((-8, -3, 0, 4))
    log2_gamma = _log2_gammas((-10, -8, -6, -4, -2, 0, 2, 4, 6))
    cv = _cv(5)
    M = _M(20)
    seed = _seed()
    cache = _cache()

    def build(self) -> hv.Layout:
        ds = _data("gmm_separable", self.n_train, 0, self.seed)
        t = _sweep(ds, self.log2_gamma, cv=self.cv, M=self.M, seed=self.seed, cache=self.cache)
        bu = _uncertainty(ds, M=self.M, seed=self.seed)
        panels = [_space(ds, None, "gmm_separable", layers=("points",), bayes=False),
                  _error_curves(t, columns=("L_val", "U_tr"), title="L_val, −Û_tr")]
        for n, lg in enumerate(self.statuses):
            r = bu.evaluate(_svm(ds, lg))
            title = f"γ{n + 1}: log₂γ = {lg:g}, Û = {r.value:.2f}"
            panels.append(WeightsDisplay.from_result(r, ds, title=title, resolution=_RESOLUTION).element(
                title=title, legend_position="top_left"))
        return hv.Layout(panels).cols(3)


class UncertaintyFig15(PaperFigure):
    """gmm_inclusion: B* with two fragments, L_val/−Û_tr, and decisions with anchors for γ_A, γ_B"""

    key, alias, paper, number = "uncertainty_fig15", "bu_fig15", "uncertainty", "Fig 15"
    twin_y, size = True, (10.0, 7.0)
    n_train = _n_train(400)
    statuses = _statuses((-6, 2))
    log2_gamma = _log2_gammas((-10, -8, -6, -4, -2, 0, 2, 4, 6))
    cv = _cv(5)
    M = _M(20)
    R_T = _R_T(2)
    seed = _seed()
    cache = _cache()

    def build(self) -> hv.Layout:
        from buviz.uncertainty import Proposal1

        ds = _data("gmm_inclusion", self.n_train, 0, self.seed)
        t = _sweep(ds, self.log2_gamma, cv=self.cv, M=self.M, seed=self.seed, cache=self.cache)
        bu = _uncertainty(ds, M=self.M, seed=self.seed)
        p1 = Proposal1(R_T=self.R_T, random_state=self.seed).fit(ds.X_train, ds.y_train)
        panels = [_space(ds, None, "gmm_inclusion and B*", layers=("points", "bayes")),
                  _error_curves(t, columns=("L_val", "U_tr"), title="L_val, −Û_tr")]
        for tag, lg in zip("AB", self.statuses, strict=False):
            disc = _svm(ds, lg)
            grid = evaluate_grid(disc, ds.bounds(), _RESOLUTION)  # one evaluation for both panels
            r = bu.evaluate(disc)
            res = p1.evaluate(disc)
            # the anchors alone (Fig 15 of the paper): N_B and the clusters would crowd a 6 × 4 inch export
            panels.append(_space(ds, r, f"γ_{tag}: log₂γ = {lg:g}", grid=grid, proposal1=res, anchors_only=True,
                                 layers=("regions", "points", "boundary", "bayes", "proposal1")))
            title = f"γ_{tag}: weights, Û = {r.value:.2f}"
            panels.append(WeightsDisplay.from_result(r, ds, grid=grid, title=title).element(
                title=title, legend_position="top_left"))
        return hv.Layout(panels).cols(3)


class UncertaintyTable3(PaperFigure):
    """Table 3 from the §5 cost formulas (uncertainty_table3 counts the operations on the data)"""

    key, alias, paper, number = "uncertainty_table3_formula", "bu_table3", "uncertainty", "Table 3 (cost formulas)"
    kind, size = "table", (7.0, 3.0)
    M = param.Integer(40, bounds=(2, None), doc="cluster size M of Proposal 2")
    i_max = param.Integer(20, bounds=(1, None), doc="Proposal 1: iterations of the anchor search")
    R_T = _R_T(10)
    i_K = param.Integer(20, bounds=(1, None), doc="k-means iterations")
    N_max = param.Integer(40, bounds=(1, None), doc="Proposal 1: largest cluster")

    def build(self) -> pd.DataFrame:
        from buviz.uncertainty import costs

        return costs.table3(M=self.M, i_max=self.i_max, R_T=self.R_T, i_K=self.i_K, N_max=self.N_max).reset_index()

    @classmethod
    def measured(cls) -> str:
        """The formulas at the defaults against the printed gains, operation by operation (the caption's
        verdict; the claims ledger judges Table 3 on the counts, ``uncertainty_table3``)."""
        t = cls().build()

        def span(col: str) -> str:
            lo, hi = t[col].min(), t[col].max()
            return f"{lo:.3g}" if np.isclose(lo, hi) else f"{lo:.3g} to {hi:.3g}"

        return "the formulas (every O(·) constant 1, defaults) give " + ", ".join(
            f"G_{op} {span(f'G_{op}')} (printed {span(f'printed_G_{op}')})" for op in ("add", "mul", "comp", "CL"))


UncertaintyTable3.state_measured("Proposal 2 is 100 to 1000 times faster (G_add 2E+02 to 2E+03, G_comp and G_CL 2E+01)",
                                 UncertaintyTable3.measured())
