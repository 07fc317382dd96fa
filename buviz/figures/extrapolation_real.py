"""Accuracy extrapolation on real data: Table 1 from the Telugu glyphs, Figs 11-12 on Omniglot.

C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017, §5.1 (Figs 11-12, LFW faces, 1-NN) and §5.2 (Table 1,
Telugu OCR). The experiments were run once by ``benchmarks/bench_telugu_table1.py`` and
``benchmarks/bench_omniglot_extrapolation.py`` on data fetched by :mod:`buviz.datasets` (never
shipped); these figures read the shipped result tables (our own numbers, ``buviz/data/tables/
extrapolation_*.csv``) and render in seconds. A figure whose tables are not shipped is not registered.

- ``extrapolation_table1_glyphs`` (table): Table 1 end to end: our naive Bayes, logistic, linear SVM,
  ε-NN and small CNN on 400 glyph classes (50 + 50 each), each estimator's ÂGA₄₀₀ from 20-class subsets
  (mean over the subsets), the measured 400-class accuracy, δ, and the paper's row beside it;
- ``extrapolation_table1_glyphs_delta``: the same δ as points, the paper's δ as stars;
- ``extrapolation_fig11`` (the paper's key): one 400-class subsample's extrapolated curves against the
  true curve (eq 3 on all 1623 classes), pixels and blurred pixels;
- ``extrapolation_fig12`` (the paper's key): the spread of the predicted 1623-class accuracy over repeated
  K-class subsamples, K = 50…800, against the truth; beside it the authors' own saved LFW predictions
  (theirs) when :func:`buviz.datasets.fetch_lfw_predictions` finds their file (not shipped: no licence).
"""

from __future__ import annotations

from importlib import resources

import holoviews as hv
import pandas as pd
import param

from buviz.datasets import DataFetchError, fetch_lfw_predictions
from buviz.figures._base import REGISTRY, PaperFigure
from buviz.plots import extrapolation_real as rplots
from buviz.plots.extrapolation_displays import ExtrapolationDisplay

__all__ = ["FIGURES", "METHODS", "load_table"]

METHODS = ("moment", "classexreg", "kde", "best")
#: The figures registered (those whose tables are shipped).
FIGURES: list[type[PaperFigure]] = []
#: Display names of the Telugu classifiers.
CLASSIFIER_NAMES = {"nb": "Naive Bayes", "logistic": "Logistic", "svm": "SVM", "enn": "ε-NN", "cnn": "CNN"}
REPRESENTATION_NAMES = {"pixels": "pixels", "blur2": "blurred (σ = 2)"}


def _path(name: str):
    return resources.files("buviz") / "data" / "tables" / f"extrapolation_{name}.csv"


def has_table(name: str) -> bool:
    """Whether ``buviz/data/tables/extrapolation_<name>.csv`` is shipped."""
    return _path(name).is_file()


def load_table(name: str) -> pd.DataFrame:
    """A shipped result table ``extrapolation_<name>.csv`` (``telugu_table1``, ``omniglot_summary``, ...)."""
    with resources.as_file(_path(name)) as p:
        return pd.read_csv(p)


def table1(protocol: str = "paper") -> pd.DataFrame:
    """Table 1 from the glyphs: one row per classifier (the rows of ``extrapolation_telugu_table1.csv``).

    ``protocol="paper"`` takes, for each classifier, the classifier retrained on each 20-class subset
    where it was run (naive Bayes is marginal: its columns are the same thing; the CNN is trained on
    400 classes only); ``"columns"`` always the 400-class model's margins restricted to the 20 classes.
    """
    t = load_table("telugu_table1")
    order = [c for c in CLASSIFIER_NAMES if c in set(t.classifier)]
    rows = []
    for c in order:
        g = t[t.classifier == c].set_index("protocol")
        rows.append(g.loc["retrain" if protocol == "paper" and "retrain" in g.index else "columns"])
    out = pd.DataFrame(rows).reset_index().rename(columns={"index": "protocol"})
    return out


#: How the LFW panel of ``extrapolation_fig12`` is obtained (part of its caption).
LFW_NOTE = ("The LFW panel (the authors' own saved predictions; they state no licence, so buviz does not ship "
            "them) is drawn when buviz.datasets.fetch_lfw_predictions() finds lfw_subsample_predictions_authors.csv "
            "in $BUVIZ_DATA_DIR/zheng")


def lfw_authors_summary(data_dir=None) -> pd.DataFrame | None:
    """The authors' saved LFW predictions (300 replicates per K) per K: n, median, mean, q10, q90.

    Their moment method with a 10 000-knot linear spline on OpenFace features, one-shot 1-NN, 1672 people
    (``snarles/fmri`` ``lfw_sub_preds.rds``, commit 444588e). ``None`` when
    :func:`buviz.datasets.fetch_lfw_predictions` does not find their file (it is not shipped).
    """
    try:
        raw = fetch_lfw_predictions(data_dir=data_dir)
    except DataFetchError:
        return None
    raw = raw[raw.source.str.startswith("lfw_sub_preds.rds (top level")]
    g = raw.groupby("K_subsample").predicted_acc_1672
    return pd.DataFrame({"K": g.size().index, "n_replicates": g.size().values, "median": g.median().values,
                         "mean": g.mean().values, "q10": g.quantile(0.1).values, "q90": g.quantile(0.9).values,
                         "n_zero": g.apply(lambda v: int((v == 0).sum())).values})


def _representations(table: pd.DataFrame) -> list[str]:
    """The representations in ``table``, in the order of :data:`REPRESENTATION_NAMES` (pixels first)."""
    present = set(table["representation"])
    return [r for r in REPRESENTATION_NAMES if r in present]


def _protocol() -> param.Selector:
    return param.Selector(default="paper", objects=["paper", "columns"],
                          doc="20-class margins: 'paper' = classifier retrained on the 20 classes (CNN: "
                              "columns), 'columns' = the 400-class model's columns")


class _Real(PaperFigure):
    """Base of the real-data extrapolation figures: numbers read from the shipped tables."""

    paper = "extrapolation"
    claim: str = ""
    tables: tuple = ()

    @classmethod
    def measured(cls) -> str:
        """What the shipped tables show, in the caption's words."""
        raise NotImplementedError


class ExtrapolationTable1Glyphs(_Real):
    """Table 1 on the Telugu glyphs, our classifiers

    400 classes, 50 training and 50 test glyphs each; ÂGA₄₀₀ predicted from random 20-class subsets. Per
    classifier: the mean 20-class accuracy over the subsets (``acc20``), the measured 400-class
    accuracy (``acc400``), each estimator's mean prediction (``aga400_<method>``) and its error
    ``delta_<method> = aga400 − acc400``; the paper's printed row in ``paper_*``.
    """

    key, number = "extrapolation_table1_glyphs", "Table 1 (Telugu glyphs, our classifiers)"
    kind, size = "table", (12.0, 3.0)
    tables = ("telugu_table1",)
    protocol = _protocol()

    def build(self) -> pd.DataFrame:
        t = table1(self.protocol)
        out = pd.DataFrame({"classifier": [CLASSIFIER_NAMES[c] for c in t.classifier], "protocol": t.protocol,
                            "subsets": t.n_subsets, "acc20": t.acc20_mean, "acc400": t.acc400_true})
        for m in METHODS:
            out[f"aga400_{m}"] = t[f"{m}_mean"]
        for m in METHODS:
            out[f"delta_{m}"] = t[f"{m}_delta"]
        for c in ("acc20", "acc400", "aga400", "delta"):
            out[f"paper_{c}"] = t[f"paper_{c}"]
        return out.round(3).reset_index(drop=True)


class ExtrapolationTable1GlyphsDelta(_Real):
    """Table 1 from the glyphs: error δ of each estimator's ÂGA₄₀₀ per classifier, the paper's δ as stars."""

    key, number = "extrapolation_table1_glyphs_delta", "Table 1 (Telugu glyphs, δ)"
    size = (7.5, 4.0)
    tables = ("telugu_table1",)
    claim = "naive Bayes has the worst |δ| (0.257); every other classifier |δ| < 0.2"
    protocol = _protocol()

    @classmethod
    def measured(cls) -> str:
        t = table1("paper")
        parts = []
        for m in ("moment", "classexreg"):
            d = t.set_index("classifier")[f"{m}_delta"].abs()
            parts.append(f"{m}: worst |δ| {CLASSIFIER_NAMES[d.idxmax()]} {d.max():.3f}, naive Bayes "
                         f"{d.get('nb', float('nan')):.3f}")
        return "; ".join(parts)

    def build(self) -> hv.Overlay:
        t = table1(self.protocol).copy()
        t["classifier"] = [CLASSIFIER_NAMES[c] for c in t.classifier]
        return rplots.table1_errors(t, METHODS, title="δ on 400 Telugu classes from 20")


class ExtrapolationFig11(_Real):
    """Fig 11 on Omniglot: AGA_k extrapolated from one subsample of 400 of 1623 classes, one-shot 1-NN"""

    key, alias, number = "extrapolation_fig11", "zheng_fig11", "Fig 11 (Omniglot, one-shot 1-NN)"
    size = (10.0, 4.5)
    tables = ("omniglot_curves",)
    claim = "the extrapolated curve from 400 of 1672 faces follows the ground-truth curve"

    @classmethod
    def measured(cls) -> str:
        c = load_table("omniglot_curves")
        kmax = c.k.max()
        end = c[c.k == kmax].set_index(["representation", "curve"]).accuracy
        parts = []
        for r in _representations(c):
            truth = end[(r, next(x for x in end[r].index if x.startswith("truth")))]
            parts.append(f"{REPRESENTATION_NAMES[r]}: truth {truth:.3f}, "
                         + ", ".join(f"{m} {end[(r, m)]:.3f}" for m in METHODS))
        return f"at k = {kmax}: " + "; ".join(parts)

    def build(self) -> hv.Layout:
        c = load_table("omniglot_curves")
        panels = []
        for r in _representations(c):
            g = c[c.representation == r]
            obs = g[g.curve.str.startswith("observed")]
            tru = g[g.curve.str.startswith("truth")]
            est = {m: (g[g.curve == m].k.to_numpy(), g[g.curve == m].accuracy.to_numpy()) for m in METHODS}
            p = ExtrapolationDisplay(observed=(obs.k.to_numpy(), obs.accuracy.to_numpy()), estimates=est,
                                     truth=(tru.k.to_numpy(), tru.accuracy.to_numpy()), k_observed=int(g.K.iloc[0]),
                                     title=f"Omniglot, {REPRESENTATION_NAMES[r]}")
            panels.append(p.panels["curves"].element(logy=True, ylim=(0.02, 1.0)))
        return hv.Layout(panels).cols(2)


class ExtrapolationFig12(_Real):
    """Fig 12 on Omniglot: predicted 1623-class accuracy from K = 50…800 classes (mean, 10-90 % band) vs truth"""

    key, alias, number = "extrapolation_fig12", "zheng_fig12", "Fig 12 (Omniglot, one-shot 1-NN; LFW: the authors')"
    size = (13.0, 4.5)
    tables = ("omniglot_summary",)
    claim = "the spread of the estimates shrinks with K and centres on the ground truth"
    seed = param.Integer(0, bounds=(0, 5), doc="drawer seed (which drawers give the training and test images)")

    @classmethod
    def measured(cls) -> str:
        s = load_table("omniglot_summary")
        parts = []
        for r in _representations(s):
            g = s[(s.representation == r) & (s.K == s.K.max())]
            rm = g.groupby("method").rmse.mean()
            parts.append(f"{REPRESENTATION_NAMES[r]} (K = {s.K.max()}, mean RMSE over seeds): "
                         + ", ".join(f"{m} {rm[m]:.3f}" for m in METHODS if m in rm))
        return "; ".join(parts) + f". {LFW_NOTE}"

    def build(self) -> hv.Layout:
        s = load_table("omniglot_summary")
        s = s[s.seed == self.seed]
        if s.empty:
            raise ValueError(f"seed: no shipped results for drawer seed {self.seed}")
        panels = [rplots.prediction_spread(s[s.representation == r], float(s[s.representation == r].acc_true.iloc[0]),
                                           methods=METHODS, n_total=1623, name=f"accuracy_{r}",
                                           title=f"Omniglot, {REPRESENTATION_NAMES[r]}")
                  for r in _representations(s)]
        lfw = lfw_authors_summary()
        if lfw is not None:
            panels.append(rplots.authors_lfw_spread(lfw, title="LFW, the authors' own"))
        return hv.Layout(panels).cols(len(panels))


def _register(cls: type[_Real]) -> None:
    """Keep a figure registered only when its tables are shipped (a figure never computes them)."""
    if not all(has_table(t) for t in cls.tables):
        REGISTRY.pop(cls.key, None)
        return
    if cls.kind == "figure" and cls.claim:
        cls.state_measured(cls.claim, cls.measured())
    FIGURES.append(cls)


for _cls in (ExtrapolationTable1Glyphs, ExtrapolationTable1GlyphsDelta, ExtrapolationFig11, ExtrapolationFig12):
    _register(_cls)
