"""The real-data figures and table of the boundary uncertainty paper, at its settings, from shipped tables.

D. Ha, S. Katagiri, H. Watanabe, M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", Journal of Signal Processing Systems, Springer, 2021,
doi:10.1007/s11265-021-01671-1, §6.4.2-§6.10 (Figs 7-9 and 11-13, Table 3), on the ten UCI datasets
of its Table 2.

The experiments were run once by :mod:`buviz.reproduce` at the paper's settings (whole sets as training
sets, Letter Recognition 10 000 / 10 000, log₂ γ −15 to 15 in steps of 1, 10-fold CV, C chosen by CV,
M = 40, K by AIC), for several seeds of T̃, K-means, CV folds and hold-out split (``buviz reproduce
--all`` redoes them), and these figures read the shipped tables, so they render in seconds. Curves are
the mean over the seeds, bands their range. The caption of each figure (its description and the first
line of its docstring, completed when the module is imported) states the paper's claim and what buviz
measures, seed by seed, with the number of seeds in which it holds, under each reading of eq 39 the
tables hold (:data:`buviz.verdicts.READINGS`): eq 39 as printed (w_kl = 0, the ``U_tr`` column of the
tables and the curves drawn) and buviz's tolerance ω_kl < 0.05 (``U_tr_threshold``). A minimum of an
error is any status within :data:`buviz.verdicts.TIE_ATOL` of its smallest value (ties count).
"""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pandas as pd
import param

from buviz import reproduce, verdicts
from buviz.figures._base import PaperFigure
from buviz.plots import real_data as rplots
from buviz.plots import style
from buviz.verdicts import READINGS, reading_column

__all__ = ["FIGURES", "TITLES", "PAPER_ORDER", "SHORT_READINGS", "argmin_table", "shipped_table", "VERDICTS",
           "verdict_summary", "write_generated"]

#: The real-data figures registered (those whose tables are shipped), in the paper's order.
FIGURES: list[type[PaperFigure]] = []

#: The paper's names of the datasets (its Table 2 and figure captions).
TITLES = {"abalone": "Abalone", "banknote": "Banknote", "breast_cancer_wisconsin": "Breast Cancer",
          "cardiotocography": "Cardiotocography", "german": "German", "spambase": "Spambase",
          "satimage": "Landsat (satimage)", "letter": "Letter Recognition", "winequality_red": "Wine Quality Red",
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


def _present(key: str) -> tuple[str, ...]:
    """The datasets of a figure whose tables are shipped (in the figure's order)."""
    table, names = reproduce.FIGURE_TABLES[key]
    order = PAPER_ORDER if set(names) == set(PAPER_ORDER) else names
    return tuple(n for n in order if reproduce.has_table(table, n))


def _available(key: str) -> bool:
    return bool(_present(key))


def _missing(key: str) -> str:
    """The datasets of a figure whose tables are not shipped, as a caption clause ("" when none)."""
    names = reproduce.FIGURE_TABLES[key][1]
    gone = [TITLES[n] for n in names if n not in _present(key)]
    return f"; tables not yet computed at these settings: {', '.join(gone)}" if gone else ""


def _register(cls: type[PaperFigure]) -> None:
    """Keep a figure in the registry only when its tables are shipped (a figure never computes them)."""
    from buviz.figures._base import ALIASES, REGISTRY

    if not _available(cls.key):
        REGISTRY.pop(cls.key, None)
        ALIASES.pop(cls.alias, None)
        return
    cls.state_measured(cls.claim, cls.measured())  # tables too: the caption says the claim and the verdict
    FIGURES.append(cls)
    __all__.append(cls.__name__)


def _g(x: float) -> str:
    return f"{x:g}".replace("-", "−")


def _per_seed(values) -> str:
    """Values per seed, e.g. "−2/−3/−2"."""
    return "/".join(_g(v) if isinstance(v, float | int | np.floating | np.integer) else str(v) for v in values)


def _n_seeds(seeds) -> str:
    """The seeds as text: "3 seeds (0/1/2)" or "1 seed (0)"."""
    seeds = list(seeds)
    return f"{len(seeds)} seed{'s' if len(seeds) != 1 else ''} ({_per_seed(seeds)})"


def _named(layout: hv.Layout, name: str, t: pd.DataFrame) -> hv.Layout:
    """``layout`` titled with the data it shows, on screen and in the export (:func:`rplots.data_title`)."""
    return style.opts(layout, title=rplots.data_title(TITLES.get(name, name), t))


def _count(flags) -> str:
    flags = list(flags)
    return f"{sum(bool(f) for f in flags)}/{len(flags)} seeds"


def _drawn(tables) -> str:
    """Which reading of eq 39 the tables' ``U_tr`` (the curves drawn) holds."""
    rules = set().union(*(set(t["separability"].astype(str)) for t in tables))
    return " and ".join(READINGS.get(r, r) for r in sorted(rules))


def _under_readings(tables, text) -> str:
    """``text(reading)`` for each reading of eq 39 that every table in ``tables`` holds, each named."""
    tables = list(tables)
    parts = [f"−Û drawn: {_drawn(tables)}"]
    for reading, label in READINGS.items():
        if all(reading_column(t, reading) is not None for t in tables):
            parts.append(f"[{label}] {text(reading)}")
        else:
            parts.append(f"[{label}] not in the shipped tables")
    return "; ".join(parts)


def _u(t: pd.DataFrame, reading: str, u: str = "U_tr") -> pd.DataFrame:
    """``t`` with its ``u`` column replaced by the column of ``reading`` (so the caption code reads ``U_tr``)."""
    col = reading_column(t, reading, u)
    return t if col == u else t.assign(**{u: t[col]})


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


def _seeds(t: pd.DataFrame) -> list[int]:
    return reproduce.seeds_of(t)


class UncertaintyFig7(_RealData):
    """Fig 7 on Letter Recognition (10 000 training / 10 000 test samples, the paper's split), the seeds' mean drawn over each seed's own curve."""  # noqa: E501

    key, alias, number = "uncertainty_fig7", "uncertainty_fig7_real", "Fig 7 (Letter Recognition)"
    size = (9.0, 6.5)
    claim = "−Û_tr and −Û_te strikingly close; the minima of L_val and −Û_tr coincide; min −Û_tr is not −1"

    @classmethod
    def measured(cls) -> str:
        t_all = _svm("letter")
        seeds = _seeds(t_all)

        def text(reading: str) -> str:
            t = _u(_u(_svm("letter"), reading), reading, "U_te")
            t0 = _u(_u(_svm("letter", 0.0), reading), reading, "U_te")
            per = [(t[t["seed"] == s], t0[t0["seed"] == s]) for s in seeds]
            gap = [float((a["U_tr"] - a["U_te"]).abs().max()) for a, _ in per]
            gap0 = [float((b["U_tr"] - b["U_te"]).abs().max()) for _, b in per]
            m = [reproduce.minima(a) for a, _ in per]
            te = [reproduce.minima(a, error="L_te", u="U_te") for a, _ in per]
            steps = [min(abs(x - v["x_u"]) for x in v["x_error_ties"]) for v in m]
            return (f"max |Û_tr − Û_te| {_per_seed(round(g, 3) for g in gap)} "
                    f"({_per_seed(round(g, 3) for g in gap0)} without T̃); argmin log₂γ of L_val "
                    f"{_per_seed(x['x_error'] for x in m)}, of −Û_tr {_per_seed(x['x_u'] for x in m)}: on a "
                    f"minimum of L_val in {_count(x['on_min'] for x in m)}, within one step in "
                    f"{_count(d <= 1 for d in steps)} (L_val cost of −Û_tr's pick "
                    f"{_per_seed(round(x['error_at_u'] - x['error_min'], 3) for x in m)}); argmin of L_te "
                    f"{_per_seed(x['x_error'] for x in te)}, of −Û_te {_per_seed(x['x_u'] for x in te)}; "
                    f"min −Û_tr {_per_seed(round(-a['U_tr'].max(), 2) for a, _ in per)}")

        return f"{_n_seeds(seeds)}; " + _under_readings([t_all], text)

    def build(self) -> hv.Layout:
        t, t0 = _svm("letter"), _svm("letter", 0.0)
        curves = rplots.spread_curves
        return _named(hv.Layout([
            curves(t, columns=("L_te", "U_te"), title="1: L_te, −Û_te"),
            curves(t, columns=("L_ho", "L_tr", "L_val"), title="2: L_HO, L_tr, L_val"),
            curves(t, columns=("U_tr", "U_te"), title="3: −Û_tr, −Û_te (with T̃)"),
            curves(t0, columns=("U_tr", "U_te"), title="1bis, 3bis: without T̃"),
        ]).cols(2), "letter", t)  # a 2 × 2 grid: no empty cell


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
        with_p1 = proposal1 and n in reproduce.P1_DATASETS and t["U1_tr"].notna().any()
        out.append(rplots.spread_curves(t, columns=(*cols, "U1_tr") if with_p1 else cols, title=TITLES[n]))
    return out


def _by_seed(m: pd.DataFrame) -> dict[int, pd.DataFrame]:
    """svm_minima's rows grouped by seed (only seeds every dataset has)."""
    seeds = sorted(set.intersection(*(set(g.index.get_level_values("seed")) for _, g in m.groupby(level="dataset"))))
    return {s: m.xs(s, level="seed") for s in seeds}


class UncertaintyFig8(_RealData):
    """Fig 8 on the datasets of Table 2 (4 panels by default, all with datasets=; whole sets as training sets): L_val, L_HO, −Û_tr and Proposal 1's −Û against log₂γ, the seeds' mean drawn over each seed's own curve."""  # noqa: E501

    key, alias, number = "uncertainty_fig8", "uncertainty_fig8_real", "Fig 8 (the ten datasets of Table 2)"
    size = (9.0, 6.5)
    claim = ("for most sets −Û_tr matches CV in trend and minimum; its minimum is sharper and closer to −1 "
             "than Proposal 1's")

    @classmethod
    def measured(cls) -> str:
        names = _present(cls.key)
        seeds = list(_by_seed(reproduce.svm_minima(names)))

        def text(reading: str) -> str:
            per = _by_seed(reproduce.svm_minima(names, reading=reading))
            same = [int(m["on_min"].sum()) for m in per.values()]
            near = [int((m["steps"] <= 1).sum()) for m in per.values()]
            rho = pd.concat([m["rho"] for m in per.values()])
            out = (f"argmin of −Û_tr on a minimum of L_val (ties counted) on {_per_seed(same)} of "
                   f"{len(names)} sets, within one step (Δlog₂γ = 1) on {_per_seed(near)}; "
                   f"Spearman ρ(−Û_tr, L_val) {rho.min():.2f} to {rho.max():.2f} (median {rho.median():.2f})")
            closer = []
            for s in per:
                pairs = []
                for n in (n for n in reproduce.P1_DATASETS if n in names):
                    t = _u(_svm(n), reading)
                    t = t[t["seed"] == s]
                    if t["U1_tr"].notna().all():
                        pairs.append(-t["U_tr"].max() < -t["U1_tr"].max())
                if pairs:
                    closer.append(f"{sum(pairs)}/{len(pairs)} (seed {s})")
            if closer:
                return out + f"; min −Û_tr closer to −1 than Proposal 1's on {', '.join(closer)}"
            return out + "; Proposal 1 not computed at these settings"

        tables = [_svm(n) for n in names]
        return f"{_n_seeds(seeds)}; " + _under_readings(tables, text) + _missing(cls.key)

    datasets = _sets_param()

    def build(self) -> hv.Layout:
        names = [n for n in _present(self.key) if n in self.datasets]
        first_p1 = next((i for i, n in enumerate(names) if n in reproduce.P1_DATASETS), 0)
        return _layout(_panels(names, reproduce.PERTURBATION, proposal1=True), _cols(names), legends=(0, first_p1))


class UncertaintyFig11(_RealData):
    """Fig 11 on the datasets of Table 2 (4 panels by default, all with datasets=): Fig 8 without T̃ (f computed on T), the seeds' mean drawn over each seed's own curve."""  # noqa: E501

    key, alias, number = "uncertainty_fig11", "uncertainty_fig11_real", "Fig 11 (the ten datasets of Table 2)"
    size = (9.0, 6.5)
    datasets = _sets_param()
    claim = "without T̃, −Û_tr favours excessively high γ (high L_val) on almost all sets"

    @classmethod
    def measured(cls) -> str:
        names = _present(cls.key)
        seeds = list(_by_seed(reproduce.svm_minima(names, perturbation=0.0)))

        def text(reading: str) -> str:
            per0 = _by_seed(reproduce.svm_minima(names, perturbation=0.0, reading=reading))
            per = _by_seed(reproduce.svm_minima(names, reading=reading))
            # above every tied minimum of L_val: a larger γ than the largest γ of least L_val
            high0 = [int(sum(u > max(ts) for u, ts in zip(m["x_u"], m["x_error_ties"], strict=True)))
                     for m in per0.values()]
            high = [int(sum(u > max(ts) for u, ts in zip(per[s]["x_u"], per[s]["x_error_ties"], strict=True)))
                    for s in per0]
            ex0 = [round(float((m["error_at_u"] - m["error_min"]).mean()), 3) for m in per0.values()]
            ex = [round(float((per[s]["error_at_u"] - per[s]["error_min"]).mean()), 3) for s in per0]
            return (f"argmin of −Û_tr above L_val's γ on {_per_seed(high0)} of {len(names)} sets without T̃ "
                    f"({_per_seed(high)} with T̃); L_val there exceeds its minimum by {_per_seed(ex0)} on average "
                    f"({_per_seed(ex)} with T̃)")

        tables = [_svm(n) for n in names]
        return f"{_n_seeds(seeds)}; " + _under_readings(tables, text) + _missing(cls.key)

    def build(self) -> hv.Layout:
        names = [n for n in _present(self.key) if n in self.datasets]
        return _layout(_panels(names, 0.0), _cols(names))


class UncertaintyFig9(_RealData):
    """Fig 9 on Letter Recognition: the paper's MLP (128-64 ReLU, RMSProp) by training epoch, the seeds' mean drawn over each seed's own curve."""  # noqa: E501

    key, alias, number = "uncertainty_fig9", "uncertainty_fig9_real", "Fig 9 (Letter Recognition)"
    size = (10.0, 4.0)
    claim = "on the MLP too, −Û_tr ≈ −Û_te and −Û reaches its minimum with the errors"

    @classmethod
    def measured(cls) -> str:
        t_all = reproduce.load_table("mlp_epoch", "letter")
        seeds = _seeds(t_all)
        opt = ", ".join(sorted(set(t_all["optimizer"].astype(str)))) if "optimizer" in t_all else "?"

        def text(reading: str) -> str:
            t = _u(_u(t_all, reading), reading, "U_te")
            per = [t[t["seed"] == s] for s in seeds]
            m = [reproduce.minima(a, "epoch") for a in per]
            te = [reproduce.minima(a, "epoch", error="L_te", u="U_te") for a in per]
            gap = [round(float((a["U_tr"] - a["U_te"]).abs().max()), 3) for a in per]
            return (f"max |Û_tr − Û_te| {_per_seed(gap)}; argmin epoch of L_val {_per_seed(x['x_error'] for x in m)}, "
                    f"of −Û_tr {_per_seed(x['x_u'] for x in m)}; of L_te {_per_seed(x['x_error'] for x in te)}, "
                    f"of −Û_te {_per_seed(x['x_u'] for x in te)}")

        return f"{_n_seeds(seeds)}, {opt}; " + _under_readings([t_all], text)

    def build(self) -> hv.Layout:
        t = reproduce.load_table("mlp_epoch", "letter")
        curves = rplots.spread_curves
        return _named(hv.Layout([
            curves(t, "epoch", columns=("L_te", "U_te"), title="1: L_te, −Û_te"),
            curves(t, "epoch", columns=("L_ho", "L_tr", "L_val"), title="2: L_HO, L_tr, L_val"),
            curves(t, "epoch", columns=("U_tr", "U_te"), title="3: −Û_tr, −Û_te"),
        ]).cols(3), "letter", t)


def _variants(table: str, name: str, column: str) -> dict[str, pd.DataFrame]:
    t = reproduce.load_table(table, name)
    return {("K_aic" if v == "aic" else f"{column} = {v}"): g for v, g in t.groupby(column, sort=False)}


def _spread(table: str, name: str, column: str, reading: str) -> str:
    """Per seed: the argmins of −Û_tr over the variants and the largest change of Û_tr between variants."""
    t = _u(reproduce.load_table(table, name), reading)
    argmins, change = [], []
    for s in _seeds(t):
        ts = t[t["seed"] == s]
        xs = sorted({reproduce.minima(g)["x_u"] for _, g in ts.groupby(column)})
        argmins.append("{" + ", ".join(map(_g, xs)) + "}")
        wide = ts.pivot_table(index="log2_gamma", columns=column, values="U_tr", aggfunc="first")
        change.append(round(float((wide.max(axis=1) - wide.min(axis=1)).max()), 2))
    same = sum(a.count(",") == 0 for a in argmins)
    return (f"argmin log₂γ over the variants {' / '.join(argmins)} (one argmin for all variants in "
            f"{same}/{len(argmins)} seeds), max ΔÛ_tr {_per_seed(change)}")


def _sensitivity_caption(key: str, table: str, column: str) -> str:
    """Figs 12 and 13: the seeds every set has, then per set its seeds and :func:`_spread`."""
    names = _present(key)
    seeds = {n: _seeds(reproduce.load_table(table, n)) for n in names}
    common = sorted(set.intersection(*(set(s) for s in seeds.values())))

    def text(reading: str) -> str:
        return "; ".join(f"{TITLES[n]}, {_n_seeds(seeds[n])}: {_spread(table, n, column, reading)}" for n in names)

    tables = [reproduce.load_table(table, n) for n in names]
    return f"{_n_seeds(common)} on every set shipped; " + _under_readings(tables, text) + _missing(key)


class UncertaintyFig12(_RealData):
    """Fig 12: −Û_tr for M = 20, 40, 80, 120, 160 on GMM and the ten sets of Table 2 (the paper's GMM and Wine Quality White by default, all with datasets=), the seeds' mean drawn over each seed's own curve."""  # noqa: E501

    key, alias, number = "uncertainty_fig12", "uncertainty_fig12_real", "Fig 12 (GMM and the ten datasets)"
    size = (11.0, 4.5)
    claim = "minimum and trend of Û insensitive to M, the value itself may change slightly"

    @classmethod
    def measured(cls) -> str:
        return _sensitivity_caption(cls.key, "u_by_M", "M")

    datasets = param.ListSelector(default=list(reproduce.FIG12_DATASETS), objects=["gmm", *PAPER_ORDER],
                                  doc="datasets shown, one panel each (the caption's numbers are over all shipped)")

    def build(self) -> hv.Layout:
        panels = [rplots.spread_sensitivity(_variants("u_by_M", n, "M"), title=TITLES[n])
                  for n in _present(self.key) if n in self.datasets]
        return hv.Layout(panels).cols(2)


class UncertaintyFig13(_RealData):
    """Fig 13: −Û_tr for K = 3, 10, 20, 40 prototypes per class and K by AIC on the ten sets of Table 2 (the paper's four multi-class sets by default, all with datasets=), the seeds' mean drawn over each seed's own curve."""  # noqa: E501

    key, alias, number = "uncertainty_fig13", "uncertainty_fig13_real", "Fig 13 (the ten datasets of Table 2)"
    size = (9.0, 6.5)
    claim = "results almost the same for K = 3 to 40 and K by AIC"

    @classmethod
    def measured(cls) -> str:
        return _sensitivity_caption(cls.key, "u_by_K", "K")

    datasets = param.ListSelector(default=list(reproduce.MULTICLASS_DATASETS), objects=list(PAPER_ORDER),
                                  doc="datasets shown, one panel each (the caption's numbers are over all shipped)")

    def build(self) -> hv.Layout:
        names = [n for n in _present(self.key) if n in self.datasets]
        panels = [rplots.spread_sensitivity(_variants("u_by_K", n, "K"), title=TITLES[n]) for n in names]
        return _layout(panels, 2)


#: Short names of the readings of eq 39 in table headers.
SHORT_READINGS = {"literal": "w = 0", "threshold": "ω < 0.05"}


def argmin_table() -> str:
    """The per-dataset table of docs/real_data.md, in Markdown: C, L_val's argmin and, under each reading
    of eq 39 (:data:`buviz.verdicts.READINGS`), −Û_tr's argmin with and without T̃, the L_val it costs and
    Spearman's ρ(−Û_tr, L_val); values per seed, "/"-separated; "—" where the tables lack the reading.

    Returns
    -------
    str
        The Markdown table (header, rule, one row per shipped ``svm_gamma`` set in the paper's order).
    """
    names = _present("uncertainty_fig8")
    head = ["dataset", "C", "argmin log₂γ L_val"]
    for r in READINGS:
        k = SHORT_READINGS[r]
        head += [f"argmin −Û_tr, {k}", f"without T̃, {k}", f"L_val cost, {k}", f"ρ, {k}"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for n in names:
        t = reproduce.load_table("svm_gamma", n)
        with_t = reproduce.svm_minima([n])
        row = [TITLES[n], _g(float(t["C"].iloc[0])), _per_seed(with_t["x_error"])]
        for r in READINGS:
            if reading_column(t, r) is None:
                row += ["—"] * 4
                continue
            m, m0 = reproduce.svm_minima([n], reading=r), reproduce.svm_minima([n], perturbation=0.0, reading=r)
            row += [_per_seed(m["x_u"]), _per_seed(m0["x_u"]),
                    "/".join(f"{c:.3f}" for c in m["error_at_u"] - m["error_min"]),
                    "/".join(f"{c:.2f}" for c in m["rho"])]
        lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def _frac(flags) -> str:
    flags = list(flags)
    return f"{sum(bool(f) for f in flags)}/{len(flags)}"


def _verdict_fig7(reading: str) -> str:
    t = _u(_u(_svm("letter"), reading), reading, "U_te")
    per = [t[t["seed"] == s] for s in _seeds(t)]
    m = [reproduce.minima(a) for a in per]
    near = [min(abs(x - v["x_u"]) for x in v["x_error_ties"]) <= 1 for v in m]
    return (f"−Û_tr's argmin on a minimum of L_val in {_count(v['on_min'] for v in m)}, within one step in "
            f"{_count(near)}")


def _verdict_goal_a(reading: str) -> str:
    out = []
    for label, t in (("SVC", _svm("letter")), ("MLP", reproduce.load_table("mlp_epoch", "letter"))):
        t = _u(_u(t, reading), reading, "U_te")
        gaps = [float((g["U_tr"] - g["U_te"]).abs().max()) for _, g in t.groupby("seed")]
        out.append(f"{label} {_count(g <= verdicts.CLOSE_GAP for g in gaps)} "
                   f"(max gap {_per_seed(round(g, 3) for g in gaps)})")
    return ", ".join(out)


def _verdict_fig8(reading: str) -> str:
    names = _present("uncertainty_fig8")
    m = reproduce.svm_minima(names, reading=reading)
    every = [n for n in names if m.xs(n, level="dataset")["on_min"].all()]
    per = _by_seed(m)
    return (f"−Û_tr's argmin on a minimum of L_val in {_frac(m['on_min'])} (set, seed) pairs "
            f"({_per_seed(int(g['on_min'].sum()) for g in per.values())} of {len(names)} sets per seed), within one "
            f"step in {_frac(m['steps'] <= 1)}; in every seed on {len(every)} of {len(names)} sets"
            + (f" ({', '.join(TITLES[n] for n in every)})" if every else ""))


def _verdict_fig11(reading: str) -> str:
    names = _present("uncertainty_fig11")
    out = []
    for p in (0.0, reproduce.PERTURBATION):
        m = reproduce.svm_minima(names, perturbation=p, reading=reading)
        out.append(_frac(u > max(ts) for u, ts in zip(m["x_u"], m["x_error_ties"], strict=True)))
    return (f"−Û_tr's argmin above every minimum of L_val in {out[0]} (set, seed) pairs without T̃, "
            f"{out[1]} with T̃")


def _verdict_p1(reading: str) -> str:
    sharper, closer = [], []
    for n in (n for n in reproduce.P1_DATASETS if n in _present("uncertainty_fig8")):
        t = _u(_svm(n), reading)
        for _, g in t.groupby("seed"):
            if g["U1_tr"].notna().all():
                sharper.append(verdicts.near_top(g["U_tr"]) < verdicts.near_top(g["U1_tr"]))
                closer.append(g["U_tr"].max() > g["U1_tr"].max())
    if not sharper:
        return "Proposal 1 not computed at these settings"
    return (f"Proposal 2's minimum sharper (fewer γ with Û_tr within {verdicts.SHARP_WITHIN} of its largest) in "
            f"{_frac(sharper)} (set, seed) pairs, closer to −1 in {_frac(closer)}")


def _argmin_spreads(t: pd.DataFrame, column: str, reading: str) -> list[float]:
    """Per seed: the largest minus the smallest argmin over log₂ γ of −Û_tr among the variants of ``column``."""
    t = _u(t, reading)
    out = []
    for _, ts in t.groupby("seed"):
        xs = [reproduce.minima(g)["x_u"] for _, g in ts.groupby(column)]
        out.append(max(xs) - min(xs))
    return out


def _verdict_sensitivity(key: str, table: str, column: str):
    """Figs 12 and 13's criterion (docs/real_data.md): a (set, seed) is insensitive to ``column`` when the argmins
    of −Û_tr over its variants lie within one step of log₂ γ; a set passes when every seed shipped does."""
    step = reproduce.LOG2_GAMMAS[1] - reproduce.LOG2_GAMMAS[0]

    def text(reading: str) -> str:
        spreads = {n: _argmin_spreads(reproduce.load_table(table, n), column, reading) for n in _present(key)}
        pairs = [s for v in spreads.values() for s in v]
        failed = [f"{TITLES[n]} {_per_seed(v)}" for n, v in spreads.items() if max(v) > step]
        return (f"argmins of −Û_tr over the {column} within one step of log₂γ on "
                f"{len(spreads) - len(failed)}/{len(spreads)} sets (in every seed), in "
                f"{_frac(s <= step for s in pairs)} (set, seed) pairs; one argmin for every {column} in "
                f"{_frac(s == 0 for s in pairs)} pairs; "
                + (f"not within one step on {'; '.join(failed)} (argmin spread in log₂γ per seed)" if failed
                   else "within one step everywhere"))
    return text


#: The verdicts of :func:`verdict_summary`: (claim in words, figure whose tables it reads, reading -> text).
VERDICTS = (
    ("Goal (a), Û_tr ≈ Û_te on Letter Recognition (Figs 7 and 9; max |Û_tr − Û_te| over the statuses at most "
     "CLOSE_GAP = 0.05)", ("uncertainty_fig7", "uncertainty_fig9"), _verdict_goal_a),
    ("Goal (b) on Letter Recognition (Fig 7)", ("uncertainty_fig7",), _verdict_fig7),
    ("Goal (b) on the ten sets (Fig 8)", ("uncertainty_fig8",), _verdict_fig8),
    ("Without T̃, −Û_tr favours excessive γ (Fig 11)", ("uncertainty_fig11",), _verdict_fig11),
    ("Proposal 2's minimum sharper and closer to −1 than Proposal 1's (Fig 8, its four sets)", ("uncertainty_fig8",),
     _verdict_p1),
    ("Insensitivity to M (Fig 12)", ("uncertainty_fig12",), _verdict_sensitivity("uncertainty_fig12", "u_by_M", "M")),
    ("Insensitivity to K (Fig 13)", ("uncertainty_fig13",), _verdict_sensitivity("uncertainty_fig13", "u_by_K", "K")),
)


def verdict_summary() -> str:
    """The real-data verdicts under each reading of eq 39, with seed counts, as Markdown bullets.

    One bullet per claim of :data:`VERDICTS`; for each reading of :data:`buviz.verdicts.READINGS` the
    counts over seeds (or over (set, seed) pairs), or "not in the shipped tables" where a table the
    claim reads lacks that reading. docs/real_data.md quotes it.

    Returns
    -------
    str
        Markdown, one line per claim.
    """
    lines = []
    for claim, keys, text in VERDICTS:
        tables = [reproduce.load_table(reproduce.FIGURE_TABLES[k][0], n) for k in keys for n in _present(k)]
        parts = [f"{label}: {text(r)}" if all(reading_column(t, r) is not None for t in tables)
                 else f"{label}: not in the shipped tables" for r, label in READINGS.items()]
        lines.append(f"- **{claim}** — " + "; ".join(parts) + ".")
    return "\n".join(lines)


def shipped_table() -> str:
    """The "What is shipped" table of docs/real_data.md, in Markdown: for each table of
    :data:`buviz.reproduce.TABLES`, what it holds and the datasets shipped with their seeds (a seed is in
    a table only when all its cells are).

    Returns
    -------
    str
    """
    rows = ["| table | holds | datasets (seeds) |", "|---|---|---|"]
    for spec in reproduce.TABLES.values():
        seeds = {n: reproduce.seeds_of(reproduce.load_table(spec.name, n)) for n in spec.datasets
                 if reproduce.has_table(spec.name, n)}
        shipped = [f"{TITLES.get(n, n)} (seeds {', '.join(map(str, ss))})" for n, ss in seeds.items()]
        rows.append(f"| `{spec.name}` | {spec.doc} | {'; '.join(shipped) or 'none'} |")
    return "\n".join(rows)


def write_generated(path) -> None:
    """Rewrite the generated parts of docs/real_data.md from the shipped tables: the captions list
    (lines ``- **uncertainty_figN**: ...``), the "What is shipped" table (:func:`shipped_table`), the
    per-dataset table (:func:`argmin_table`) and the verdicts between ``<!-- verdicts:start -->`` and
    ``<!-- verdicts:end -->`` (:func:`verdict_summary`).

    Parameters
    ----------
    path : str or path-like
        The Markdown file.
    """
    import re
    from pathlib import Path

    path = Path(path)
    lines = path.read_text(encoding="utf-8").split("\n")
    caps = [i for i, line in enumerate(lines) if re.match(r"^- \*\*uncertainty_\w+\*\*: ", line)]
    new_caps = [f"- **{c.key}**: {c.description}" for c in FIGURES if c.kind == "figure"]
    if caps:
        lines[caps[0]:caps[-1] + 1] = new_caps
    for head, table in (("| table | holds |", shipped_table), ("| dataset |", argmin_table)):
        start = next(i for i, line in enumerate(lines) if line.startswith(head))
        end = next(i for i in range(start, len(lines) + 1) if i == len(lines) or not lines[i].startswith("|"))
        lines[start:end] = table().split("\n")
    a, b = lines.index("<!-- verdicts:start -->"), lines.index("<!-- verdicts:end -->")
    lines[a + 1:b] = verdict_summary().split("\n")
    path.write_text("\n".join(lines), encoding="utf-8")


def _sig(x: float, digits: int = 2) -> float:
    """``x`` rounded to ``digits`` significant digits."""
    if not np.isfinite(x) or x == 0:
        return float(x)
    return float(round(x, digits - 1 - int(np.floor(np.log10(abs(x))))))


class UncertaintyTable3(_RealData):
    """Table 3 counted on the data, beside formulas and printed gains

    Proposal 2's gains over Proposal 1 in elementary operations, counted while both evaluate one SVC status
    (log₂ γ = 0, the dataset's C) on the whole training set (mean over the seeds shipped), next to the §5
    cost formulas with every O(·) constant 1 and the paper's printed values.
    """

    key, alias, number = "uncertainty_table3", "uncertainty_table3_real", "Table 3 (counted on the datasets)"
    kind, twin_y, size = "table", False, (12.0, 3.0)
    claim = "Proposal 2 is 100 to 1000 times faster (G_add 2E+02 to 2E+03, G_comp and G_CL 2E+01)"

    @classmethod
    def measured(cls) -> str:
        t = cls._table()
        seeds = sorted(set().union(*(reproduce.seeds_of(reproduce.load_table("table3", n))
                                     for n in _present(cls.key))))
        return (f"{_n_seeds(seeds)}, mean over them; counted "
                + ", ".join(f"G_{op} {t[f'G_{op}'].min():.0e} to {t[f'G_{op}'].max():.0e}"
                            for op in ("add", "mul", "comp", "CL"))
                + "; the cost formulas (every O(·) constant 1) give "
                + ", ".join(f"G_{op} {t[f'formula_G_{op}'].min():.0e} to {t[f'formula_G_{op}'].max():.0e}"
                            for op in ("add", "comp")))

    @classmethod
    def _table(cls) -> pd.DataFrame:
        rows = [reproduce.load_table("table3", n) for n in _present(cls.key)]
        t = pd.concat(rows, ignore_index=True)
        num = t.select_dtypes("number").columns.difference(["seed"])
        return t.groupby("dataset", sort=False)[list(num)].mean().reset_index()

    def build(self) -> pd.DataFrame:
        t = self._table()
        out = pd.DataFrame({"dataset": [TITLES[n] for n in t["dataset"]], "N": t["n_train"].astype(int),
                            "d": t["d"].astype(int), "J": t["n_classes"].astype(int)})
        for op in ("add", "mul", "comp", "CL"):
            out[f"G_{op} counted"] = [_sig(v) for v in t[f"G_{op}"]]
            out[f"G_{op} formula"] = [_sig(v, 1) for v in t[f"formula_G_{op}"]]
            out[f"G_{op} printed"] = t[f"printed_G_{op}"].to_numpy(float)
        return out


for _cls in (UncertaintyFig7, UncertaintyFig8, UncertaintyFig9, UncertaintyFig11,
             UncertaintyFig12, UncertaintyFig13, UncertaintyTable3):
    _register(_cls)
