"""The papers' schematic figures, each drawn from a real draw or computation instead of a diagram.

C. Zheng, R. Achanta, Y. Benjamini, "Extrapolating expected accuracies for multi-class classification",
manuscript, April 21, 2017 (published as "Extrapolating expected accuracies for large multi-class
problems", Journal of Machine Learning Research 19, 2018), §2.3-§4.2:

- ``extrapolation_fig1`` -- sampling of classes and training sets: k letters drawn from the 26 of Letter
  Recognition (the label set S), r training points of each (the empirical distributions F̂_y);
- ``extrapolation_fig2`` -- the marginal rule (Definition 2.1): the margin functions m_y(x) of a
  marginal classifier fitted on one draw, on the first principal component, and their argmax;
- ``extrapolation_fig3`` -- generalization accuracy GA of one fixed draw (per class, then averaged), and
  GA_S of a fixed label set over repeated training sets;
- ``extrapolation_fig4`` -- average generalization accuracy AGA_{k,r}: GA over repeated draws of label
  sets and training sets, and its mean, for several k;
- ``extrapolation_fig9`` -- the conditional accuracy CondAcc_k(y*, x*) of the toy model's nearest-centre
  rule (§4.1), drawn by Monte Carlo over the incorrect labels, against the exact U_{x*}(y*)^(k−1);
- ``extrapolation_fig10`` -- the U-function U_x(y) of that rule, the uniformity of U_x(Y) for Y ~ π, and
  D̄(u) from drawn pairs (Y, X) against :func:`buviz.extrapolation.toy_dbar`.

D. Ha, S. Katagiri, H. Watanabe, M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", Journal of Signal Processing Systems, Springer, 2021,
doi:10.1007/s11265-021-01671-1:

- ``uncertainty_fig1`` -- classifier selection by a metric: a shipped γ sweep (:func:`buviz.reproduce.load_table`)
  and the status each metric selects;
- ``uncertainty_fig2`` -- the two local-uncertainty functions, binary Shannon entropy (eq 9, Proposal 1) and
  the triangle (eq 37, Proposal 2), evaluated by :func:`buviz.uncertainty.binary_entropy` and
  :func:`buviz.uncertainty.proposal2.local_uncertainty`;
- ``uncertainty_fig15_histogram`` -- Fig 15's inset: the histograms of f(x;Λ_A) = g_1 − g_2 over the training
  samples of each class of ``gmm_inclusion``, with the misclassified samples filled.

The Letter draws (Figs 1-4) use the paper's split of :func:`buviz.datasets.load` (``"letter"``): training
points are drawn from its 10 000 training rows, and the class-conditional distributions F_y are the
10 000 test rows (so GA is exact for that empirical F_y).
"""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pandas as pd
import param

from buviz import datasets
from buviz import extrapolation as ex
from buviz.figures._base import Numbers, PaperFigure
from buviz.plots import style

__all__ = ["draw_task", "generalization_accuracy", "letter_plane", "conditional_accuracy_draws", "selected_status",
           "ExtrapolationFig1", "ExtrapolationFig2", "ExtrapolationFig3", "ExtrapolationFig4", "ExtrapolationFig9",
           "ExtrapolationFig10", "UncertaintyFig1", "UncertaintyFig2", "UncertaintyFig15Histogram"]

#: Letter Recognition, the data set of the schematic draws (26 classes).
LETTER = "letter"
_GREY = "#999999"
#: Fill of the misclassified samples in Fig 15's histograms (the paper's yellow areas; Okabe & Ito yellow).
_MISCLASSIFIED = "#F0E442"


# -- the draws: label sets, training sets, generalization accuracy -----------------------------------------
def _wide(obj, size: tuple[float, float]):
    """A single-panel figure drawn across its export width (HoloViews' Matplotlib default is a square frame)."""
    return obj.opts(aspect=0.92 * size[0] / size[1], backend="matplotlib")


def _letter():
    return datasets.load(LETTER)


def draw_task(y_pool, k: int, r: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Draw a label set S of ``k`` classes and ``r`` training points of each (Zheng et al. 2017, §2.3).

    Parameters
    ----------
    y_pool : array-like of int
        Class of every row of the training pool (classes 0..J−1).
    k : int
        Classes drawn, without replacement, uniformly among the J (the prior π uniform on the label space).
    r : int
        Training points drawn, without replacement, from each drawn class's rows (r_1 of the paper).
    rng : numpy.random.Generator
        Source of the draw (the classes first, then each class's rows in the order of S).

    Returns
    -------
    classes : ndarray of shape (k,)
        The label set S, sorted.
    train_idx : ndarray of shape (k r,)
        Rows of the pool: the r rows of ``classes[0]`` first (sorted), then those of ``classes[1]``, ...
    """
    y_pool = np.asarray(y_pool)
    n_classes = int(y_pool.max()) + 1
    classes = np.sort(rng.choice(n_classes, size=k, replace=False))
    rows = [np.sort(rng.choice(np.flatnonzero(y_pool == c), size=r, replace=False)) for c in classes]
    return classes, np.concatenate(rows)


def generalization_accuracy(ds, classes, train_idx, classifier: str = "nearest_centroid") -> tuple[float, np.ndarray]:
    """GA of the marginal classifier trained on ``train_idx`` for the label set ``classes`` (§2.3).

    ``GA = (1/k) Σ_i P[m_{y(i)}(X) = max_j m_{y(j)}(X) | X ~ F_{y(i)}]``, with F_y the test rows of class y
    (each class weighs 1/k whatever its number of test rows). Margins are
    :func:`buviz.extrapolation.margin_matrix`'s; a tie with the true class counts as correct
    (:func:`buviz.extrapolation.ranks_from_margins`, ``ties="max"``, the package's convention).

    Parameters
    ----------
    ds : buviz.datasets.Dataset
        Training pool ``X_train, y_train`` and the distributions F_y (``X_test, y_test``).
    classes : array-like of int
        The label set S (sorted).
    train_idx : array-like of int
        Rows of ``ds.X_train`` used for training (classes within ``classes``).
    classifier : str
        One of :data:`buviz.extrapolation.MARGINAL`.

    Returns
    -------
    ga : float
        The generalization accuracy.
    per_class : ndarray of shape (k,)
        P(correct | Y = y(i)) for each class of S, in the order of ``classes``.
    """
    classes = np.asarray(classes)
    train_idx = np.asarray(train_idx)
    ytr = np.searchsorted(classes, ds.y_train[train_idx])
    mask = np.isin(ds.y_test, classes)
    yte = np.searchsorted(classes, ds.y_test[mask])
    M = ex.margin_matrix(classifier, ds.X_train[train_idx], ytr, ds.X_test[mask])
    correct = ex.ranks_from_margins(M, yte) == len(classes)
    per_class = np.bincount(yte, weights=correct, minlength=len(classes)) / np.bincount(yte, minlength=len(classes))
    return float(per_class.mean()), per_class


def letter_plane(X_fit, X, n_components: int = 2) -> np.ndarray:
    """The first principal components of ``X`` (PCA fitted on ``X_fit``; each axis signed so that its
    largest loading is positive, so the picture does not flip between BLAS builds)."""
    X_fit = np.asarray(X_fit, float)
    mean = X_fit.mean(0)
    _, _, vt = np.linalg.svd(X_fit - mean, full_matrices=False)
    v = vt[:n_components]
    v = v * np.sign(v[np.arange(n_components), np.abs(v).argmax(1)])[:, None]
    return (np.asarray(X, float) - mean) @ v.T


def _letters(ds, classes) -> list[str]:
    return [str(ds.classes[c]) for c in classes]


def _k_param(default: int, high: int = 26):
    return param.Integer(default, bounds=(2, high), doc="classes k drawn from Letter's 26")


def _r_param(default: int):
    return param.Integer(default, bounds=(1, 300), doc="training points r drawn per class")


def _seed():
    return param.Integer(0, bounds=(0, None), doc="random seed of the draw")


def _classifier(default: str = "nearest_centroid"):
    return param.Selector(default=default, objects=list(ex.MARGINAL), doc="marginal classifier (Definition 2.1)")


class ExtrapolationFig1(PaperFigure):
    """Sampling of classes and training sets: k letters drawn from Letter Recognition's 26, r training points each"""

    key, alias, paper, number = "extrapolation_fig1", "", "extrapolation", "Fig 1"
    size = (10.0, 4.5)
    k = _k_param(4, high=8)
    r = _r_param(10)
    seed = _seed()

    def build(self) -> hv.Layout:
        ds = _letter()
        classes, idx = draw_task(ds.y_train, self.k, self.r, np.random.default_rng(self.seed))
        names = _letters(ds, classes)
        centres = np.array([ds.X_train[ds.y_train == c].mean(0) for c in range(ds.n_classes)])
        P_c = letter_plane(ds.X_train, centres)
        P_tr = letter_plane(ds.X_train, ds.X_train[idx])
        kd = ["PC 1", "PC 2"]
        others = np.setdiff1d(np.arange(ds.n_classes), classes)
        rest = hv.Scatter((P_c[others, 0], P_c[others, 1]), kd[0], kd[1], label=f"the other {len(others)} letters")
        a = [style.opts(rest, color=_GREY, size=6)]
        b = []
        for i, (c, name) in enumerate(zip(classes, names, strict=True)):
            color = style.class_color(i)
            a.append(style.opts(hv.Scatter((P_c[[c], 0], P_c[[c], 1]), kd[0], kd[1], label=f"y({i + 1}) = {name}"),
                                color=color, size=12, marker="diamond"))
            pts = P_tr[i * self.r:(i + 1) * self.r]
            cloud = hv.Scatter((pts[:, 0], pts[:, 1]), kd[0], kd[1], label=f"F̂ of {name} ({self.r} points)")
            b.append(style.opts(cloud, color=color, size=6))
            mean = pts.mean(0)
            b.append(style.opts(hv.Scatter(([mean[0]], [mean[1]]), kd[0], kd[1]), color=color, size=12,
                                marker="diamond"))
        left = style.opts(hv.Overlay(a), title=f"(a) label set S: {self.k} of 26 letters (class means)",
                          show_legend=True, **style.LEGEND_BELOW)
        right = style.opts(hv.Overlay(b), title=f"(b) training set: r = {self.r} per class (◆ its mean)",
                           show_legend=True, **style.LEGEND_BELOW)
        return (left + right).cols(2)


class ExtrapolationFig2(PaperFigure):
    """The marginal rule: margin functions m_y(x) of a classifier fitted on one Letter draw, and their argmax"""

    key, alias, paper, number = "extrapolation_fig2", "", "extrapolation", "Fig 2"
    size = (8.0, 4.5)
    k = _k_param(3, high=6)
    r = param.Integer(20, bounds=(2, 300), doc="training points r drawn per class")
    classifier = param.Selector(default="qda", objects=["qda", "naive_bayes", "nearest_centroid"],
                                doc="marginal classifier, fitted on the first principal component")
    n = param.Integer(401, bounds=(20, 5000), doc="points of the x grid")
    seed = _seed()

    def margins(self) -> tuple[np.ndarray, np.ndarray, list[str], np.ndarray, np.ndarray]:
        """The grid x, the margins M (n, k) on it, the letters of S, and the training points' x and class."""
        ds = _letter()
        classes, idx = draw_task(ds.y_train, self.k, self.r, np.random.default_rng(self.seed))
        z = letter_plane(ds.X_train, ds.X_train[idx], 1)[:, 0]
        scale = letter_plane(ds.X_train, ds.X_train, 1)[:, 0].std()
        z = z / scale
        ytr = np.searchsorted(classes, ds.y_train[idx])
        lo, hi = z.min() - 1.0, z.max() + 1.0
        x = np.linspace(lo, hi, self.n)
        # qda on one feature: no shrinkage (the 1-D variance is estimated from r >= 2 points)
        M = ex.margin_matrix(self.classifier, z[:, None], ytr, x[:, None], qda_reg=0.0)
        return x, M, _letters(ds, classes), z, ytr

    def build(self) -> hv.Overlay:
        x, M, names, z, ytr = self.margins()
        win = M.argmax(1)
        top = M.max(1)
        ylo, yhi = float(np.quantile(top, 0.0)) - 4.0, float(top.max()) + 1.0
        kd, vd = hv.Dimension("x", label="x (PC 1, standardised)"), hv.Dimension("m", label="m_y(x)")
        layers = []
        for i, name in enumerate(names):
            color = style.class_color(i)
            layers.append(style.opts(hv.Curve((x, np.clip(M[:, i], ylo, None)), kd, vd, label=f"m_{name}(x)"),
                                     color=color, line_width=1.5))
            zi = z[ytr == i]
            layers.append(style.opts(hv.Scatter((zi, np.full(len(zi), ylo + 0.5)), kd, vd), color=color, size=7,
                                     marker="x"))
        # the argmax: the upper envelope, drawn thick in the colour of the class it picks, run by run
        edges = np.flatnonzero(np.diff(win)) + 1
        for s, e in zip(np.r_[0, edges], np.r_[edges, len(x)], strict=True):
            seg = slice(s, min(e + 1, len(x)))
            layers.append(style.opts(hv.Curve((x[seg], top[seg]), kd, vd), color=style.class_color(int(win[s])),
                                     line_width=6, alpha=0.45))
        for b in x[edges]:
            layers.append(style.opts(hv.VLine(float(b)), color=_GREY, line_dash="dotted"))
        title = f"{self.classifier} margins on PC 1, r = {self.r} (× training points; shading: argmax)"
        return _wide(style.opts(hv.Overlay(layers), title=title, ylim=(ylo, yhi), legend_position="top_right",
                                show_legend=True), self.size)


class ExtrapolationFig3(PaperFigure):
    """Generalization accuracy of one fixed draw (per class and GA), and GA_S over repeated training sets"""

    key, alias, paper, number = "extrapolation_fig3", "", "extrapolation", "Fig 3"
    size = (10.0, 4.5)
    k = _k_param(5)
    r = _r_param(5)
    classifier = _classifier()
    n_train_draws = param.Integer(100, bounds=(2, 5000), doc="training sets drawn for the fixed label set")
    seed = _seed()

    def draws(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The label set S, the per-class accuracies of the first training draw, and GA of every draw."""
        ds = _letter()
        rng = np.random.default_rng(self.seed)
        classes, idx = draw_task(ds.y_train, self.k, self.r, rng)
        _, per_class = generalization_accuracy(ds, classes, idx, self.classifier)
        ga = [generalization_accuracy(ds, classes, idx, self.classifier)[0]]
        for _ in range(self.n_train_draws - 1):
            rows = np.concatenate([np.sort(rng.choice(np.flatnonzero(ds.y_train == c), self.r, replace=False))
                                   for c in classes])
            ga.append(generalization_accuracy(ds, classes, rows, self.classifier)[0])
        return classes, per_class, np.asarray(ga)

    def build(self) -> hv.Layout:
        ds = _letter()
        classes, per_class, ga = self.draws()
        names = _letters(ds, classes)
        a = [style.opts(hv.Scatter((np.arange(1, self.k + 1), per_class), "class y(i) of S", "P(correct | y(i))",
                                   label="P(correct | Y = y(i))"), color=style.PALETTE[0], size=9)]
        a.append(style.opts(hv.Curve(([1, self.k], [ga[0], ga[0]]), "class y(i) of S", "P(correct | y(i))",
                                     label=f"GA = mean = {ga[0]:.3f}"), color=style.PALETTE[3], line_dash="dashed"))
        left = style.opts(hv.Overlay(a), title=f"(a) one draw: S = {{{{{', '.join(names)}}}}}, r = {self.r}",
                          ylim=(0, 1.02), legend_position="bottom_right", show_legend=True)
        ticks = [(i + 1, name) for i, name in enumerate(names)]
        left = left.opts(xticks=ticks, backend="bokeh").opts(xticks=ticks, backend="matplotlib")
        edges = np.linspace(max(0.0, ga.min() - 0.02), min(1.0, ga.max() + 0.02), 21)
        counts, _ = np.histogram(ga, edges)
        hist = hv.Histogram((edges, counts), kdims=["GA"], vdims=["training sets"], label="GA of each training set")
        hist = style.opts(hist, fill_color=style.PALETTE[0], line_color=style.PALETTE[0], fill_alpha=0.35)
        mean = style.opts(hv.VLine(ga.mean()), color=style.PALETTE[3], line_width=2)
        right = style.opts(hv.Overlay([hist, mean]),
                           title=f"(b) S fixed, {self.n_train_draws} training sets: GA_S ≈ {ga.mean():.3f} (line)",
                           show_legend=False)
        return (left + right).cols(2)


class ExtrapolationFig4(PaperFigure):
    """Average generalization accuracy AGA_{k,r}: GA over repeated draws of label sets and training sets"""

    key, alias, paper, number = "extrapolation_fig4", "", "extrapolation", "Fig 4"
    size = (8.0, 4.5)
    ks = Numbers([2, 4, 8, 16], item_bounds=(2, 26), integer=True, bounds=(1, None), doc="class counts k")
    r = _r_param(5)
    classifier = _classifier()
    n_draws = param.Integer(100, bounds=(2, 5000), doc="draws of (S, training set) per k")
    seed = _seed()

    def draws(self) -> pd.DataFrame:
        """One row per draw: ``k``, ``draw``, ``ga`` (its generalization accuracy) and ``classes`` (S)."""
        ds = _letter()
        rng = np.random.default_rng(self.seed)
        rows = []
        for k in sorted({int(k) for k in self.ks}):
            for d in range(self.n_draws):
                classes, idx = draw_task(ds.y_train, k, self.r, rng)
                rows.append((k, d, generalization_accuracy(ds, classes, idx, self.classifier)[0], tuple(classes)))
        return pd.DataFrame(rows, columns=["k", "draw", "ga", "classes"])

    def build(self) -> hv.Overlay:
        t = self.draws()
        jitter = np.random.default_rng(self.seed).uniform(-0.12, 0.12, len(t))
        x = np.log2(t.k.to_numpy(float)) + jitter
        pts = hv.Scatter((x, t.ga.to_numpy(float)), "log₂ k", "GA", label="GA of one draw of (S, training set)")
        pts = style.opts(pts, color=style.PALETTE[5], size=4, alpha=0.5)
        g = t.groupby("k").ga
        mean, se = g.mean(), g.std(ddof=1) / np.sqrt(g.count())
        lk = np.log2(mean.index.to_numpy(float))
        curve = style.opts(hv.Curve((lk, mean.to_numpy()), "log₂ k", "GA", label="AGA_k,r (mean over draws)"),
                           color=style.PALETTE[3], line_width=2)
        dots = style.opts(hv.Scatter((lk, mean.to_numpy()), "log₂ k", "GA"), color=style.PALETTE[3], size=8)
        bars = style.opts(hv.ErrorBars((lk, mean.to_numpy(), 2 * se.to_numpy()), "log₂ k", ["GA", "yerr"]),
                          color=style.PALETTE[3])
        title = f"Letter, {self.classifier}, r = {self.r}: {self.n_draws} draws per k (±2 se)"
        return _wide(style.opts(hv.Overlay([pts, curve, dots, bars]), title=title, legend_position="bottom_left",
                                show_legend=True), self.size)


# -- the toy model's conditional accuracy and U-functions (§4.2) ---------------------------------------------
def conditional_accuracy_draws(y_star, x_star: float, rho: float, k: int, n_rep: int,
                               rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Monte Carlo CondAcc_k(y*, x*) of the toy model's nearest-centre rule (Zheng et al. 2017, §4.2).

    For each y*: draw the k − 1 incorrect labels Y(i) ~ N(0, 1) ``n_rep`` times (step C1; the centres ρY are
    known, so step C2 draws nothing) and count how often ∣x* − ρy*∣ < min_i ∣x* − ρY(i)∣.

    Returns
    -------
    mean, se : ndarray of shape (len(y_star),)
        The share correct and its binomial standard error.
    """
    y_star = np.atleast_1d(np.asarray(y_star, float))
    d_true = np.abs(x_star - rho * y_star)
    Y = rng.standard_normal((len(y_star), n_rep, k - 1))
    d_wrong = np.abs(x_star - rho * Y).min(axis=2)
    hit = d_true[:, None] < d_wrong
    mean = hit.mean(1)
    return mean, np.sqrt(mean * (1 - mean) / n_rep)


class ExtrapolationFig9(PaperFigure):
    """Conditional accuracy CondAcc_k(y*, x*) of the toy model's nearest-centre rule: drawn and exact U^(k−1)"""

    key, alias, paper, number = "extrapolation_fig9", "", "extrapolation", "Fig 9"
    size = (8.0, 4.5)
    rho = param.Number(0.7, bounds=(0.05, 0.99), doc="correlation ρ of the toy model")
    x_star = param.Number(0.5, bounds=(-3.0, 3.0), doc="the fixed test point x*")
    ks = Numbers([2, 5, 20], item_bounds=(2, 1000), integer=True, bounds=(1, 6), doc="class counts k")
    n_rep = param.Integer(2000, bounds=(20, 1_000_000), doc="draws of the incorrect labels per y*")
    seed = _seed()

    def build(self) -> hv.Overlay:
        y = np.linspace(-3, 3, 301)
        y_mc = np.linspace(-3, 3, 25)
        U = ex.toy_conditional_accuracy(self.x_star, y, self.rho)
        rng = np.random.default_rng(self.seed)
        layers = []
        for i, k in enumerate(sorted({int(k) for k in self.ks})):
            color = style.PALETTE[i % len(style.PALETTE)]
            layers.append(style.opts(hv.Curve((y, U ** (k - 1)), "y*", "CondAcc_k(y*, x*)",
                                              label=f"k = {k}: U_x*(y*)^(k−1)"), color=color, line_width=2))
            mean, se = conditional_accuracy_draws(y_mc, self.x_star, self.rho, k, self.n_rep, rng)
            layers.append(style.opts(hv.Scatter((y_mc, mean), "y*", "CondAcc_k(y*, x*)"), color=color, size=6))
            layers.append(style.opts(hv.ErrorBars((y_mc, mean, 2 * se), "y*", ["CondAcc_k(y*, x*)", "yerr"]),
                                     color=color))
        layers.append(style.opts(hv.VLine(self.x_star / self.rho), color=_GREY, line_dash="dotted"))  # ρy* = x*
        title = (f"x* = {self.x_star:g}, ρ = {self.rho:g}: lines exact, dots {self.n_rep} draws of the wrong labels "
                 "(±2 se)")
        return _wide(style.opts(hv.Overlay(layers), title=title, ylim=(-0.02, 1.02), legend_position="top_left",
                                show_legend=True), self.size)


class ExtrapolationFig10(PaperFigure):
    """U-functions of the toy model's nearest-centre rule: U_x(y), U_x(Y) ~ Uniform(0, 1) and D̄(u) from draws"""

    key, alias, paper, number = "extrapolation_fig10", "", "extrapolation", "Fig 10"
    size = (12.0, 4.2)
    rho = param.Number(0.7, bounds=(0.05, 0.99), doc="correlation ρ of the toy model")
    xs = Numbers([-1.0, 0.0, 1.5], item_bounds=(-3.0, 3.0), bounds=(1, 5), doc="test points x of the U-functions")
    n_draws = param.Integer(5000, bounds=(50, 1_000_000), doc="draws of Y (b) and of pairs (Y, X) (c)")
    seed = _seed()

    def samples(self) -> tuple[np.ndarray, np.ndarray]:
        """U_{x0}(Y) for Y ~ N(0, 1) (x0 the first of ``xs``), and U_X(Y) over pairs (Y, X | Y ~ N(ρY, 1 − ρ²))."""
        rng = np.random.default_rng(self.seed)
        Y = rng.standard_normal(self.n_draws)
        u_fixed = ex.toy_conditional_accuracy(self.xs[0], Y, self.rho)
        Y2 = rng.standard_normal(self.n_draws)
        X2 = self.rho * Y2 + np.sqrt(1 - self.rho**2) * rng.standard_normal(self.n_draws)
        return u_fixed, ex.toy_conditional_accuracy(X2, Y2, self.rho)

    def build(self) -> hv.Layout:
        y = np.linspace(-3, 3, 301)
        a = [style.opts(hv.Curve((y, ex.toy_conditional_accuracy(x, y, self.rho)), "y", "U_x(y)", label=f"x = {x:g}"),
                        color=style.PALETTE[i % len(style.PALETTE)], line_width=2) for i, x in enumerate(self.xs)]
        left = style.opts(hv.Overlay(a), title=f"(a) U_x(y), ρ = {self.rho:g}", legend_position="top_left",
                          show_legend=True, ylim=(0, 1.4))
        u_fixed, u_pairs = self.samples()
        edges = np.linspace(0, 1, 11)
        dens, _ = np.histogram(u_fixed, edges, density=True)
        hist = style.opts(hv.Histogram((edges, dens), kdims=["u"], vdims=["density"]), fill_color=style.PALETTE[0],
                          line_color=style.PALETTE[0], fill_alpha=0.35)
        flat = style.opts(hv.HLine(1.0), color=style.PALETTE[3], line_dash="dashed")
        mid = style.opts(hv.Overlay([hist, flat]), title=f"(b) U_x(Y), x = {self.xs[0]:g}, {self.n_draws} Y ~ π",
                         ylim=(0, 1.6), show_legend=False)
        u = np.linspace(0, 1, 201)
        ecdf = np.searchsorted(np.sort(u_pairs), u, side="right") / len(u_pairs)
        c = [style.opts(hv.Curve((u, ecdf), "u", "D̄(u)", label=f"{self.n_draws} draws"),
                        color=style.PALETTE[1], line_width=4, alpha=0.6),
             style.opts(hv.Curve((u, ex.toy_dbar(u, self.rho)), "u", "D̄(u)", label="exact (eq 8)"),
                        color=style.PALETTE[0], line_dash="dashed", line_width=2)]
        right = style.opts(hv.Overlay(c), title="(c) D̄(u) = P(U_X(Y) ≤ u)", legend_position="top_left",
                           show_legend=True)
        return (left + mid + right).cols(3)


# -- Ha et al. (2021): selection by a metric, the local-uncertainty functions, Fig 15's histograms -------------
#: The metrics of Fig 1's selection: column of the sweep table, its label, and whether larger is better.
SELECTION_METRICS = {"L_val": ("L_val (CV)", False), "L_ho": ("L_HO (hold-out)", False),
                     "U_tr": ("−Û_tr (Proposal 2)", True)}


def selected_status(table: pd.DataFrame, column: str, larger_is_better: bool, x: str = "log2_gamma") -> float:
    """The status (``x``) a metric selects: its best value; a tie goes to the smallest ``x`` (the simplest
    RBF status, whose boundary is the smoothest)."""
    t = table.dropna(subset=[column]).sort_values(x, kind="stable")
    v = t[column].to_numpy()
    best = v.max() if larger_is_better else v.min()
    return float(t[x].to_numpy()[np.flatnonzero(v == best)[0]])


def _sweep_datasets() -> list[str]:
    from buviz import reproduce

    return list(reproduce.TABLES["svm_gamma"].datasets)


class UncertaintyFig1(PaperFigure):
    """Classifier selection by a metric: one shipped γ sweep, and the status each metric selects"""

    key, alias, paper, number = "uncertainty_fig1", "", "uncertainty", "Fig 1"
    size = (10.0, 4.5)
    dataset = param.Selector(default="letter", objects=_sweep_datasets(), doc="data set of the shipped sweep")
    seed = param.Integer(0, bounds=(0, 2), doc="seed of the shipped sweep")

    def table(self) -> pd.DataFrame:
        """The sweep of this data set and seed (variant ``base``), sorted by log₂ γ."""
        from buviz import reproduce

        t = reproduce.load_table("svm_gamma", self.dataset)
        t = t[(t.seed == self.seed) & (t.variant == "base")]
        return t.sort_values("log2_gamma", kind="stable").reset_index(drop=True)

    def selections(self) -> pd.DataFrame:
        """One row per metric present: ``metric``, ``log2_gamma`` selected, and L_te there (when measured)."""
        t = self.table()
        rows = []
        for col, (label, larger) in SELECTION_METRICS.items():
            if col in t and t[col].notna().any():
                lg = selected_status(t, col, larger)
                te = t.loc[t.log2_gamma == lg, "L_te"].iloc[0] if "L_te" in t else np.nan
                rows.append((label, col, lg, te))
        return pd.DataFrame(rows, columns=["metric", "column", "log2_gamma", "L_te"])

    def build(self) -> hv.Layout:
        t = self.table()
        sel = self.selections()
        x = t.log2_gamma.to_numpy()
        u_dim = hv.Dimension("minus_U_tr", label="−Û_tr")  # a curve labelled as its axis fails to draw in Matplotlib
        a, b = [], []
        for col in ("L_te", "L_val", "L_ho"):
            if col in t and t[col].notna().any():
                color, dash, label = style.CURVE_STYLES[col]
                a.append(style.opts(hv.Curve((x, t[col].to_numpy(float)), "log₂ γ", "error", label=label), color=color,
                                    line_dash=dash, line_width=2))
        color, dash, label = style.CURVE_STYLES["U_tr"]
        u_curve = hv.Curve((x, -t["U_tr"].to_numpy(float)), "log₂ γ", u_dim, label=f"{label} (Proposal 2)")
        b.append(style.opts(u_curve, color=color, line_width=2))
        for row in sel.itertuples(index=False):
            target, ylabel = (b, u_dim) if row.column == "U_tr" else (a, "error")
            y = -t.loc[t.log2_gamma == row.log2_gamma, "U_tr"].iloc[0] if row.column == "U_tr" else \
                t.loc[t.log2_gamma == row.log2_gamma, row.column].iloc[0]
            color = style.CURVE_STYLES[row.column][0]
            target.append(style.opts(hv.Scatter(([row.log2_gamma], [float(y)]), "log₂ γ", ylabel,
                                                label=f"selected by {row.metric.split(' ')[0]}"),
                                     color=color, size=12, marker="diamond"))
        n = len(t)
        left = style.opts(hv.Overlay(a), title=f"(a) {n} statuses Λ_m of {self.dataset}: errors", show_legend=True,
                          **style.LEGEND_BELOW)
        chosen = ", ".join(f"{r.metric.split(' ')[0]} {r.log2_gamma:g}" for r in sel.itertuples(index=False))
        right = style.opts(hv.Overlay(b), title=f"(b) −Û_tr; ◆ selected log₂γ: {chosen}", show_legend=True,
                           **style.LEGEND_BELOW)
        return (left + right).cols(2)


class UncertaintyFig2(PaperFigure):
    """The two local-uncertainty functions: binary Shannon entropy (Proposal 1) and the triangle (Proposal 2)"""

    key, alias, paper, number = "uncertainty_fig2", "", "uncertainty", "Fig 2"
    size = (6.5, 4.5)
    K = param.Integer(10, bounds=(1, 200), doc="neighbours of the k-NN regression: P̂ takes the values j/K (dots)")
    n = param.Integer(401, bounds=(3, 100_000), doc="points of the P grid")

    def build(self) -> hv.Overlay:
        from buviz.uncertainty import binary_entropy
        from buviz.uncertainty.proposal2 import local_uncertainty

        p = np.linspace(0, 1, self.n)
        pk = np.arange(self.K + 1) / self.K
        kd, vd = "P(C_i(x;Λ)|x) or P(C_j(x;Λ)|x)", "U(x;Λ)"
        ent, tri = style.PALETTE[0], style.PALETTE[1]
        layers = [style.opts(hv.Curve((p, binary_entropy(p)), kd, vd, label="binary Shannon entropy (eq 9)"),
                             color=ent, line_width=2),
                  style.opts(hv.Curve((p, local_uncertainty(p)), kd, vd, label="triangle 1 − |2P − 1| (eq 37)"),
                             color=tri, line_width=2),
                  style.opts(hv.Scatter((pk, binary_entropy(pk)), kd, vd), color=ent, size=6),
                  style.opts(hv.Scatter((pk, local_uncertainty(pk)), kd, vd, label=f"at P̂ = j/{self.K} (k-NN)"),
                             color=tri, size=6)]
        return _wide(style.opts(hv.Overlay(layers), title="U_min = 0, U_max = 1 at P = 1/2", ylim=(0, 1.45),
                                legend_position="top_right", show_legend=True), self.size)


class UncertaintyFig15Histogram(PaperFigure):
    """Fig 15's inset: histograms of f(x;Λ_A) = g_1 − g_2 over each class's training samples, misclassified filled"""

    key, alias, paper, number = "uncertainty_fig15_histogram", "", "uncertainty", "Fig 15 (histogram inset)"
    size = (7.0, 4.5)
    n_train = param.Integer(400, bounds=(20, None), doc="training samples of gmm_inclusion")
    log2_gamma = param.Number(-6.0, bounds=(-30, 30), doc="log₂ γ of the RBF SVM (γ_A of Fig 15)")
    bins = param.Integer(30, bounds=(2, 500), doc="histogram bins")
    seed = param.Integer(0, bounds=(0, None), doc="random seed")

    def values(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """f(x;Λ) at every training sample, its class, and whether the status misclassifies it."""
        from buviz.classifiers import svm_status

        ds = datasets.load("gmm_inclusion", n_train=self.n_train, n_test=0, random_state=self.seed)
        disc = svm_status(ds.X_train, ds.y_train, 2.0 ** self.log2_gamma)
        g = disc(ds.X_train)
        return g[:, 0] - g[:, 1], ds.y_train, disc.predict(ds.X_train) != ds.y_train

    def build(self) -> hv.Overlay:
        f, y, wrong = self.values()
        edges = np.linspace(f.min(), f.max(), self.bins + 1)
        colors = (style.PALETTE[0], style.PALETTE[3])
        kd = hv.Dimension("f", label="f(x;Λ) = g_1 − g_2")
        layers = []
        for c, name in ((0, "C_1"), (1, "C_2")):
            counts, _ = np.histogram(f[y == c], edges)
            layers.append(style.opts(hv.Histogram((edges, counts), kdims=[kd], vdims=["training samples"], label=name),
                                     fill_color=colors[c], line_color=colors[c], fill_alpha=0.25))
        counts, _ = np.histogram(f[wrong], edges)
        layers.append(style.opts(hv.Histogram((edges, counts), kdims=[kd], vdims=["training samples"],
                                              label=f"misclassified ({int(wrong.sum())})"),
                                 fill_color=_MISCLASSIFIED, line_color=_MISCLASSIFIED, fill_alpha=0.9))
        layers.append(style.opts(hv.VLine(0.0), color="#000000", line_dash="dashed"))
        title = f"gmm_inclusion, SVM log₂γ = {self.log2_gamma:g}: B(Λ) at f = 0"
        return _wide(style.opts(hv.Overlay(layers), title=title, legend_position="top_right", show_legend=True),
                     self.size)
