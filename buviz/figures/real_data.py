"""The real-data figures and table of the boundary uncertainty paper, rendered from shipped tables.

D. Ha, S. Katagiri, H. Watanabe, M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", Journal of Signal Processing Systems, Springer, 2021,
doi:10.1007/s11265-021-01671-1, §6.4.2-§6.10 (Figs 7-9 and 11-13, Table 3), on the ten UCI datasets
of its Table 2.

The sweeps take minutes on two cores; they were run once by :mod:`buviz.reproduce` (``buviz reproduce
--figure KEY --recompute`` redoes them) and these figures read the shipped tables, so they render in
seconds. The settings are reduced from the paper's (log₂ γ step 2, 5-fold CV, training and test sets
capped at 2 000 samples, one seed; see :mod:`buviz.reproduce`). The caption of each figure
(its description and the first line of its docstring, completed when the module is imported) states
the paper's claim and what buviz measures on the shipped tables.
"""

from __future__ import annotations

import holoviews as hv
import pandas as pd
import param

from buviz import reproduce
from buviz.figures._base import PaperFigure
from buviz.plots import style
from buviz.plots import uncertainty as uplots

__all__ = ["FIGURES", "TITLES", "PAPER_ORDER"]

#: The real-data figures registered (those whose tables are shipped), in the paper's order.
FIGURES: list[type[PaperFigure]] = []

#: The paper's names of the datasets (its Table 2 and figure captions).
TITLES = {"abalone": "Abalone", "banknote": "Banknote", "breast_cancer_wisconsin": "Breast Cancer",
          "cardiotocography": "Cardiotocography", "german": "German", "spambase": "Spambase",
          "satimage": "Landsat Satellite", "letter": "Letter Recognition", "winequality_red": "Wine Quality Red",
          "winequality_white": "Wine Quality White", "gmm": "GMM"}
#: Fig 8's and Fig 11's order of the ten sets (the paper's, left to right and top to bottom).
PAPER_ORDER = ("abalone", "banknote", "breast_cancer_wisconsin", "cardiotocography", "german", "spambase",
               "satimage", "letter", "winequality_red", "winequality_white")


def _layout(panels: list, cols: int, legends=(0,)) -> hv.Layout:
    """Panels in a grid, a legend only on the panels ``legends`` (the others repeat its entries)."""
    return hv.Layout([p if i in legends else style.opts(p, show_legend=False)
                      for i, p in enumerate(panels)]).cols(cols)


def _svm(name: str, perturbation: float = reproduce.PERTURBATION) -> pd.DataFrame:
    t = reproduce.load_table("svm_gamma", name)
    return t[t["perturbation"] == perturbation]


def _available(key: str) -> bool:
    table, names = reproduce.FIGURE_TABLES[key]
    return all(reproduce.has_table(table, n) for n in names)


def _register(cls: type[PaperFigure]) -> None:
    """Keep a figure in the registry only when its tables are shipped (a figure never computes them)."""
    from buviz.figures._base import REGISTRY

    if not _available(cls.key):
        REGISTRY.pop(cls.key, None)
        return
    if cls.kind == "figure":  # a table's title is drawn above it: the table shows the printed values itself
        title, _, rest = (cls.__doc__ or "").partition("\n")
        cls.description = f"{title.strip()} Paper: {cls.claim}. buviz measures: {cls.measured()}."
        cls.__doc__ = f"{cls.description}\n{rest}"  # the docs gallery reads the docstring's first line
    FIGURES.append(cls)
    __all__.append(cls.__name__)


def _g(x: float) -> str:
    return f"{x:g}"


class _RealData(PaperFigure):
    """Base of the real-data figures: no parameters, every number read from the shipped tables.

    ``claim`` is the paper's claim; :meth:`measured` says what the shipped tables show; the first
    docstring line (the caption in ``buviz figure --list``, the explorer and the docs gallery) holds both.
    """

    paper = "uncertainty"
    twin_y = True
    claim: str = ""

    @classmethod
    def measured(cls) -> str:
        """What the shipped tables show, in the words of the caption."""
        raise NotImplementedError


class UncertaintyFig7Real(_RealData):
    """Fig 7 on Letter Recognition (2 000 train / 2 000 test of 10 000 / 10 000)."""

    key, number = "uncertainty_fig7_real", "Fig 7 (Letter Recognition, subsampled)"
    size = (9.0, 6.5)
    claim = "−Û_tr and −Û_te strikingly close; the minima of L_val and −Û_tr coincide; min −Û_tr is not −1"

    @classmethod
    def measured(cls) -> str:
        t, t0 = _svm("letter"), _svm("letter", 0.0)
        m = reproduce.minima(t)
        te = reproduce.minima(t, error="L_te", u="U_te")
        gap = float((t["U_tr"] - t["U_te"]).abs().max())
        gap0 = float((t0["U_tr"] - t0["U_te"]).abs().max())
        return (f"Û_tr and Û_te differ by at most {gap:.2f} ({gap0:.2f} without T̃); "
                f"argmin log₂γ: L_val {_g(m['x_error'])}, "
                f"−Û_tr {_g(m['x_u'])}, L_te {_g(te['x_error'])}, −Û_te {_g(te['x_u'])}; "
                f"min −Û_tr = {-t['U_tr'].max():.2f}")

    def build(self) -> hv.Layout:
        t, t0 = _svm("letter"), _svm("letter", 0.0)
        curves = uplots.error_curves
        return hv.Layout([
            curves(t, columns=("L_te", "U_te"), title="1: L_te, −Û_te"),
            curves(t, columns=("L_ho", "L_tr", "L_val"), title="2: L_HO, L_tr, L_val"),
            curves(t, columns=("U_tr", "U_te"), title="3: −Û_tr, −Û_te (with T̃)"),
            curves(t0, columns=("U_tr", "U_te"), title="1bis, 3bis: without T̃"),
        ]).cols(3)


def _sets_param():
    return param.ListSelector(default=list(DEFAULT_SETS), objects=list(PAPER_ORDER),
                              doc="datasets shown, one panel each (the caption's numbers are over all ten)")


#: The panels drawn by default (all ten: ``--set datasets=`` with the ten names, at 16 x 7 in).
DEFAULT_SETS = ("spambase", "letter", "winequality_red", "winequality_white")


def _cols(names) -> int:
    return min(5, max(2, (len(names) + 1) // 2))


def _panels(names, perturbation: float, proposal1: bool = False) -> list:
    cols = ("L_val", "L_ho", "U_tr")
    out = []
    for n in names:
        t = _svm(n, perturbation)
        with_p1 = proposal1 and n in reproduce.P1_DATASETS
        out.append(uplots.error_curves(t, columns=(*cols, "U1_tr") if with_p1 else cols, title=TITLES[n]))
    return out


class UncertaintyFig8Real(_RealData):
    """Fig 8 on the real sets (4 panels by default, the 10 with datasets=; ≤ 2 000 training samples): L_val, L_HO, −Û_tr and Proposal 1's −Û against log₂γ."""  # noqa: E501

    key, number = "uncertainty_fig8_real", "Fig 8 (the ten datasets of Table 2)"
    size = (9.0, 6.5)
    claim = ("for most sets −Û_tr matches CV in trend and minimum; its minimum is sharper and closer to −1 "
             "than Proposal 1's")

    @classmethod
    def measured(cls) -> str:
        m = reproduce.svm_minima(PAPER_ORDER)
        p1 = [(-_svm(n)["U_tr"].max(), -_svm(n)["U1_tr"].max()) for n in reproduce.P1_DATASETS]
        closer = sum(a < b for a, b in p1)
        return (f"argmin of −Û_tr on L_val's γ on {int((m['steps'] == 0).sum())}/10 sets, within one step "
                f"(Δlog₂γ = 2) on {int((m['steps'] <= 1).sum())}/10; Spearman ρ(−Û_tr, L_val) "
                f"{m['rho'].min():.2f} to {m['rho'].max():.2f} (median {m['rho'].median():.2f}); min −Û_tr "
                f"closer to −1 than Proposal 1's on {closer}/4")

    datasets = _sets_param()

    def build(self) -> hv.Layout:
        names = [n for n in PAPER_ORDER if n in self.datasets]
        first_p1 = next((i for i, n in enumerate(names) if n in reproduce.P1_DATASETS), 0)
        return _layout(_panels(names, reproduce.PERTURBATION, proposal1=True), _cols(names), legends=(0, first_p1))


class UncertaintyFig11Real(_RealData):
    """Fig 11 on the real sets (4 panels by default, the 10 with datasets=): Fig 8 without T̃ (f computed on T)."""

    key, number = "uncertainty_fig11_real", "Fig 11 (the ten datasets of Table 2)"
    size = (9.0, 6.5)
    datasets = _sets_param()
    claim = "without T̃, −Û_tr favours excessively high γ (high L_val) on almost all sets"

    @classmethod
    def measured(cls) -> str:
        m0 = reproduce.svm_minima(PAPER_ORDER, perturbation=0.0)
        m = reproduce.svm_minima(PAPER_ORDER)
        high0 = int((m0["x_u"] > m0["x_error"]).sum())
        high = int((m["x_u"] > m["x_error"]).sum())
        excess0 = float((m0["error_at_u"] - m0["error_min"]).mean())
        excess = float((m["error_at_u"] - m["error_min"]).mean())
        return (f"argmin of −Û_tr above L_val's γ on {high0}/10 sets without T̃ ({high}/10 with T̃); L_val there "
                f"exceeds its minimum by {excess0:.3f} on average ({excess:.3f} with T̃)")

    def build(self) -> hv.Layout:
        names = [n for n in PAPER_ORDER if n in self.datasets]
        return _layout(_panels(names, 0.0), _cols(names))


class UncertaintyFig9Real(_RealData):
    """Fig 9 on Letter Recognition: the MLP (128, 64) by training epoch."""

    key, number = "uncertainty_fig9_real", "Fig 9 (Letter Recognition, subsampled)"
    size = (10.0, 4.0)
    claim = "on the MLP too, −Û_tr ≈ −Û_te and −Û reaches its minimum with the errors"

    @classmethod
    def measured(cls) -> str:
        t = reproduce.load_table("mlp_epoch", "letter")
        m = reproduce.minima(t, "epoch")
        te = reproduce.minima(t, "epoch", error="L_te", u="U_te")
        gap = float((t["U_tr"] - t["U_te"]).abs().max())
        return (f"Û_tr and Û_te differ by at most {gap:.2f}; "
                f"argmin epoch: L_val {_g(m['x_error'])}, −Û_tr {_g(m['x_u'])}, "
                f"L_te {_g(te['x_error'])}, −Û_te {_g(te['x_u'])}")

    def build(self) -> hv.Layout:
        t = reproduce.load_table("mlp_epoch", "letter")
        curves = uplots.error_curves
        return hv.Layout([
            curves(t, "epoch", columns=("L_te", "U_te"), title="1: L_te, −Û_te"),
            curves(t, "epoch", columns=("L_ho", "L_tr", "L_val"), title="2: L_HO, L_tr, L_val"),
            curves(t, "epoch", columns=("U_tr", "U_te"), title="3: −Û_tr, −Û_te"),
        ]).cols(3)


def _variants(table: str, name: str, column: str) -> dict[str, pd.DataFrame]:
    t = reproduce.load_table(table, name)
    return {("K_aic" if v == "aic" else f"{column} = {v}"): g for v, g in t.groupby(column, sort=False)}


def _spread(table: str, name: str, column: str) -> str:
    """argmin log₂γ of −Û_tr per variant and the largest change of Û_tr between variants."""
    t = reproduce.load_table(table, name)
    argmins = sorted({reproduce.minima(g)["x_u"] for _, g in t.groupby(column)})
    wide = t.pivot_table(index="log2_gamma", columns=column, values="U_tr", aggfunc="first")
    change = float((wide.max(axis=1) - wide.min(axis=1)).max())
    return f"argmin log₂γ {', '.join(map(_g, argmins))}, max ΔÛ_tr {change:.2f}"


class UncertaintyFig12Real(_RealData):
    """Fig 12: −Û_tr for M = 20, 40, 80, 120, 160 on GMM and Wine Quality White."""

    key, number = "uncertainty_fig12_real", "Fig 12 (GMM and Wine Quality White)"
    size = (11.0, 4.5)
    claim = "minimum and trend of Û insensitive to M, the value itself may change slightly"

    @classmethod
    def measured(cls) -> str:
        return "; ".join(f"{TITLES[n]}: {_spread('u_by_M', n, 'M')}" for n in reproduce.FIG12_DATASETS)

    def build(self) -> hv.Layout:
        panels = []
        for name in reproduce.FIG12_DATASETS:
            tables = _variants("u_by_M", name, "M")
            ref = tables[f"M = {reproduce.M}"] if name == "gmm" else None
            panels.append(uplots.sensitivity_curves(tables, reference=ref, title=TITLES[name]))
        return hv.Layout(panels).cols(2)


class UncertaintyFig13Real(_RealData):
    """Fig 13: −Û_tr for K = 3, 10, 20, 40 prototypes per class and K by AIC on the multi-class sets."""

    key, number = "uncertainty_fig13_real", "Fig 13 (the multi-class datasets)"
    size = (9.0, 6.5)
    claim = "results almost the same for K = 3 to 40 and K by AIC"

    @classmethod
    def measured(cls) -> str:
        return "; ".join(f"{TITLES[n]}: {_spread('u_by_K', n, 'K')}" for n in reproduce.FIGURE_TABLES[cls.key][1])

    def build(self) -> hv.Layout:
        names = reproduce.FIGURE_TABLES[self.key][1]
        panels = [uplots.sensitivity_curves(_variants("u_by_K", n, "K"), title=TITLES[n]) for n in names]
        return _layout(panels, 2)


class UncertaintyTable3Real(_RealData):
    """Table 3 counted on the real sets, next to the printed gains

    Proposal 2's gains over Proposal 1 in elementary operations, counted while both run on one SVC status
    (log₂ γ = 0) of each dataset (training sets capped at 2 000 samples), in the columns ``G_*``; the
    paper's printed values in ``printed_G_*``.
    """

    key, number = "uncertainty_table3_real", "Table 3 (counted on the datasets)"
    kind, twin_y, size = "table", False, (12.0, 3.0)
    claim = "Proposal 2 is 100 to 1000 times faster (G_add 2E+02 to 2E+03, G_comp and G_CL 2E+01)"

    @classmethod
    def measured(cls) -> str:
        t = cls().build()
        return "counted " + ", ".join(f"{op} {t[op].min():.0e} to {t[op].max():.0e}"
                                      for op in ("G_add", "G_mul", "G_comp", "G_CL"))

    def build(self) -> pd.DataFrame:
        rows = [reproduce.load_table("table3", n) for n in reproduce.TABLE3_DATASETS]
        t = pd.concat(rows, ignore_index=True)
        cols = ["paper_dataset", "n_train", "d", "n_classes"]
        for op in ("add", "mul", "comp", "CL"):
            cols += [f"G_{op}", f"printed_G_{op}"]
        return t[cols].rename(columns={"paper_dataset": "dataset", "n_train": "N", "n_classes": "J"})


for _cls in (UncertaintyFig7Real, UncertaintyFig8Real, UncertaintyFig9Real, UncertaintyFig11Real,
             UncertaintyFig12Real, UncertaintyFig13Real, UncertaintyTable3Real):
    _register(_cls)
