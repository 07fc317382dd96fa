"""Intervals for the extrapolated accuracy AGA_K against the measured truth, with their coverage.

The interval of :func:`buviz.extrapolation.accuracy_interval` (``extrapolate(..., interval=level)``): the
moment method's identifiability range widened by the delete-one-class jackknife error of the observed
accuracies. ``benchmarks/bench_extrapolation_intervals.py`` computed it on the repeated subsamples of the
real-data benchmarks (Telugu: 20 of 400 glyph classes, naive Bayes, logistic regression and a linear
SVM; Omniglot: K1 = 50…800 of 1623 characters, one-shot 1-NN) and shipped
``buviz/data/tables/extrapolation_interval_{replicates,coverage}.csv``; the figure reads them (no data
needed). Not a figure of the paper, which gives no interval: no claim of the ledger, the caption states
the measured coverage.
"""

from __future__ import annotations

from importlib import resources

import holoviews as hv
import numpy as np
import pandas as pd
import param

from buviz.figures._base import REGISTRY, PaperFigure
from buviz.plots import style

__all__ = ["ExtrapolationIntervals", "load_table", "coverage_text"]

TABLES = {"replicates": "extrapolation_interval_replicates.csv", "coverage": "extrapolation_interval_coverage.csv"}
REPRESENTATION_NAMES = {"pixels": "pixels", "blur2": "blurred (σ = 2)"}
COVERED, MISSED, TRUTH = style.OKABE_ITO[4], style.OKABE_ITO[5], style.OKABE_ITO[7]


def _path(name: str):
    return resources.files("buviz") / "data" / "tables" / TABLES[name]


def load_table(name: str) -> pd.DataFrame:
    """The shipped ``"replicates"`` or ``"coverage"`` table of the interval benchmark."""
    with resources.as_file(_path(name)) as p:
        return pd.read_csv(p)


def coverage_text(level: float = 0.9) -> str:
    """The measured coverage at ``level``, in the caption's words."""
    c = load_table("coverage")
    c = c[np.isclose(c.level, level)]
    parts = []
    for r in c[c.dataset == "telugu"].itertuples():
        parts.append(f"Telugu {TELUGU_NAMES.get(r.setting, r.setting)} 20 → 400 classes: {r.coverage:.2f} of {r.n} "
                     f"(range alone {r.range_coverage:.2f}, mean width {r.mean_width:.2f})")
    for s, g in c[c.dataset == "omniglot"].groupby("setting", sort=False):
        cells = ", ".join(f"K1 = {int(r.k1)}: {r.coverage:.2f} (width {r.mean_width:.2f})" for r in g.itertuples())
        name = REPRESENTATION_NAMES.get(s, s)
        parts.append(f"Omniglot {name} → 1623 over {int(g.n.iloc[0])} subsamples each, {cells}")
    return f"coverage at level {level:g}: " + "; ".join(parts)


#: The Telugu classifiers the interval benchmark measures, by their table name (Table 1 of Zheng et al.;
#: ε-NN and the CNN are left out: their recomputed outputs do not reproduce the shipped ones).
TELUGU_NAMES = {"nb": "naive Bayes", "logistic": "logistic regression", "svm": "linear SVM"}


def _intervals(g: pd.DataFrame, x: np.ndarray, kdim: str) -> list:
    """Vertical intervals (covered / missed) and the point estimates at positions ``x``."""
    layers = []
    for covered, color, label in ((True, COVERED, "interval holds the truth"), (False, MISSED, "interval misses it")):
        sel = g.covered.to_numpy(bool) == covered
        if sel.any():
            e = g[sel]
            bars = hv.ErrorBars((x[sel], e.estimate, e.estimate - e.lower, e.upper - e.estimate), kdim,
                                ["AGA_K", "neg", "pos"], label=label)
            # the Matplotlib backend draws error bars with its own edgecolor ('k') unless told
            layers.append(style.opts(bars, color=color, line_width=1.5).opts(backend="matplotlib", edgecolor=color))
    layers.append(style.opts(hv.Scatter((x, g.estimate), kdim, "AGA_K", label="ClassExReg estimate"),
                             color=style.OKABE_ITO[0], size=5))
    return layers


class ExtrapolationIntervals(PaperFigure):
    """Intervals for AGA_K (identifiability range + jackknife error) against the measured truth

    Left: the 50 Telugu subsets (20 of 400 classes, one classifier), sorted by the ClassExReg estimate
    (dots); middle: the Omniglot subsamples of one representation and drawer seed at K1 = 50…800; the
    measured truth dashed, intervals that hold it blue, those that miss it vermilion. Right: Omniglot
    coverage by K1 over all seeds against the nominal level (dashed).
    """

    key, number = "extrapolation_intervals", "intervals for AGA_K (Telugu, Omniglot)"
    paper = "extrapolation"
    size = (13.0, 4.5)
    level = param.Selector(default=0.9, objects=[0.8, 0.9, 0.95], doc="nominal coverage of the intervals")
    representation = param.Selector(default="pixels", objects=list(REPRESENTATION_NAMES),
                                    doc="Omniglot representation drawn")
    seed = param.Integer(0, bounds=(0, 5), doc="Omniglot drawer seed drawn")
    classifier = param.Selector(default="nb", objects=list(TELUGU_NAMES), doc="Telugu classifier drawn")

    def build(self) -> hv.Layout:
        rep, cov = load_table("replicates"), load_table("coverage")
        rep, cov = rep[np.isclose(rep.level, self.level)], cov[np.isclose(cov.level, self.level)]
        panels = []
        tel = rep[(rep.dataset == "telugu") & (rep.setting == self.classifier)].sort_values("estimate")
        if tel.empty and (rep.dataset == "telugu").any():
            raise ValueError(f"classifier: no shipped Telugu intervals for {self.classifier!r}")
        if not tel.empty:
            c = cov[(cov.dataset == "telugu") & (cov.setting == self.classifier)].iloc[0]
            layers = _intervals(tel, np.arange(len(tel), dtype=float), "subset (by estimate)")
            truth = hv.HLine(float(tel.truth.iloc[0]), label="truth")
            layers.append(style.opts(truth, color=TRUTH, line_dash="dashed"))
            panels.append(style.opts(hv.Overlay(layers), legend_position="bottom_right", ylim=(0.0, 1.0),
                                     title=f"Telugu, {TELUGU_NAMES[self.classifier]}, 20 → 400: coverage "
                                           f"{c.coverage:.2f}"))
        om = rep[(rep.dataset == "omniglot") & (rep.setting == self.representation) & (rep.seed == self.seed)]
        if om.empty:
            raise ValueError(f"seed: no shipped intervals for representation {self.representation!r}, seed {self.seed}")
        om = om.sort_values(["k1", "rep"])
        reps = om.rep.to_numpy(float)
        x = np.log2(om.k1.to_numpy(float)) + 0.7 * (reps - reps.max() / 2) / (reps.max() + 1)  # side by side
        layers = _intervals(om, x, "log2 K1 (observed classes)")
        layers.append(style.opts(hv.HLine(float(om.truth.iloc[0]), label="truth"), color=TRUTH, line_dash="dashed"))
        panels.append(style.opts(hv.Overlay(layers), title=f"Omniglot, {REPRESENTATION_NAMES[self.representation]}, "
                                 f"seed {self.seed}: K1 → 1623", show_legend=False))
        oc = cov[cov.dataset == "omniglot"]
        lines = []
        for i, (s, g) in enumerate(oc.groupby("setting", sort=False)):   # equal coverages: markers tell them apart
            xy = (np.log2(g.k1.to_numpy(float)), g.coverage)
            name = REPRESENTATION_NAMES.get(s, s)
            lines.append(style.opts(hv.Curve(xy, "log2 K1 (observed classes)", "coverage", label=name),
                                    color=style.OKABE_ITO[i], line_width=2))
            lines.append(style.opts(hv.Scatter(xy, "log2 K1 (observed classes)", "coverage"),
                                    color=style.OKABE_ITO[i], size=8 - 3 * i, marker=("square", "circle")[i % 2]))
        lines.append(style.opts(hv.HLine(self.level, label="nominal"), color=TRUTH, line_dash="dashed"))
        panels.append(style.opts(hv.Overlay(lines), title="Omniglot coverage (all seeds)", ylim=(0.0, 1.05),
                                 legend_position="bottom_right"))
        return hv.Layout(panels).cols(len(panels))


def _register(cls) -> None:
    """Registered only where the tables are shipped; the caption states the measured coverage."""
    if not all(_path(n).is_file() for n in TABLES):
        REGISTRY.pop(cls.key, None)
        return
    title, _, rest = (cls.__doc__ or "").partition("\n")
    cls.description = f"{title.strip()}. buviz measures: {coverage_text(0.9)}."
    cls.__doc__ = f"{cls.description}\n{rest}"


_register(ExtrapolationIntervals)
