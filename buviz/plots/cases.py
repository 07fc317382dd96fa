"""HoloViews builders for the separability cases of eq 39 along a sweep: results to elements.

No widgets, no state, no model fitting: the builders take the tidy sweep table of
:func:`buviz.sweep.svm_gamma_sweep` (or :func:`~buviz.sweep.mlp_epoch_sweep`), whose columns
``pairs_tr``, ``pair_case_tr``, ``pair_n_eff_tr``, ``pair_blend_tr`` and ``n_eff_tr`` say, per class
pair of Î*, which case of §4.5 dominates Û_kl and on how many effective near-boundary samples
the near-boundary mean rests (:func:`buviz.uncertainty.proposal2.pair_uncertainty`).

- :func:`pair_cases` -- one row of markers per pair along the sweep, coloured by Case 1, 2 or 3
  (hover: n_eff and λ_kl, the weight of the near-boundary mean).
- :func:`effective_size_curve` -- n_eff of each pair along the sweep (log scale).
- :func:`cases_panel` -- both, stacked (a static picture).
- :class:`SeparabilityCasesDisplay` -- both, live, for the explorer's *Error vs −Û* tab: a new sweep
  table changes their data, never their figures.

Pairs are written with the dataset's class names ("A-B"). With many classes (Letter Recognition: up to
325 pairs) the plots show the most telling pairs (:func:`ranked_pairs`) and say how many there are.

A status where a pair is Case 2 on a handful of effective samples while its neighbours are Case 1
or 3 is the pattern behind a spike of Û on a near-chance classifier (D. Ha, S. Katagiri, H. Watanabe,
M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for Classifier Evaluation", Journal of
Signal Processing Systems, Springer, 2021, doi:10.1007/s11265-021-01671-1, §4.5 and eq 39).
"""

from __future__ import annotations

import holoviews as hv
import holoviews.plotting.bokeh  # noqa: F401  (registers the bokeh backend so .opts works headless)
import pandas as pd

from buviz.plots import style
from buviz.plots._display import Display

__all__ = ["CASE_COLORS", "CASE_LABELS", "MAX_PAIRS", "case_table", "pair_label", "ranked_pairs", "pair_cases",
           "pair_cases_height", "effective_size_curve", "effective_size_points", "cases_panel",
           "SeparabilityCasesDisplay"]

#: Colours of the separability cases of §4.5 (Okabe-Ito): 1 boundary in an empty band, no error
#: (U_max); 2 boundary through the data (near-boundary mean); 3 boundary outside the data (U_min).
CASE_COLORS = {1: "#009E73", 2: "#0072B2", 3: "#D55E00"}
CASE_LABELS = {1: "Case 1 (U_max)", 2: "Case 2 (near-boundary mean)", 3: "Case 3 (U_min)"}
_COLUMNS = ("pairs_tr", "pair_case_tr", "pair_n_eff_tr", "pair_blend_tr")
_X_LABELS = {"log2_gamma": "log₂ γ", "epoch": "epoch"}


def _x_column(table: pd.DataFrame) -> str:
    return "log2_gamma" if "log2_gamma" in table else "epoch"


def pair_label(pair, classes=None) -> str:
    """A sweep's pair code "k-l" (class codes from 0) as the plots name classes: "A-B" with the
    dataset's class names ``classes``, "C1-C2" without (:func:`buviz.plots.displays.class_names`)."""
    codes = [int(c) for c in str(pair).split("-")]
    names = list(classes) if classes is not None else [f"C{j + 1}" for j in range(max(codes) + 1)]
    return "-".join(str(names[c]) for c in codes)


def pairs_text(pairs, classes, shown: int = 12) -> str:
    """Class pairs ``(k, l)`` (codes from 0) named as the plots name the classes (``classes``, e.g.
    :func:`buviz.plots.displays.class_names`): all of them up to ``shown``, else the first ones and the count."""
    pairs = list(pairs)
    text = ", ".join(f"({classes[k]}, {classes[l]})" for k, l in pairs[:shown])
    return text if len(pairs) <= shown else f"{text}, … ({len(pairs)} pairs)"


def case_table(table: pd.DataFrame | None, classes=None) -> pd.DataFrame:
    """Return the per-pair separability columns of a sweep table in long form.

    Parameters
    ----------
    table : pandas.DataFrame or None
        A sweep table with the columns ``pairs_tr``, ``pair_case_tr``, ``pair_n_eff_tr``,
        ``pair_blend_tr`` (lists, one entry per pair of Î*) and ``log2_gamma`` or ``epoch``.
    classes : sequence of str, optional
        The class names (class code j -> ``classes[j]``); C1, C2, ... by default.

    Returns
    -------
    pandas.DataFrame
        One row per (status, pair): ``x`` (log₂ γ or epoch), ``pair`` ("k-l" in class names, see
        :func:`pair_label`), ``case`` (1, 2, 3), ``n_eff``, ``blend`` (λ_kl). Empty (same columns)
        when the table is None, empty or lacks the columns.
    """
    cols = ["x", "pair", "case", "n_eff", "blend"]
    if table is None or len(table) == 0 or not set(_COLUMNS) <= set(table.columns):
        return pd.DataFrame({c: pd.Series(dtype=object if c == "pair" else float) for c in cols})
    x = _x_column(table)
    rows = []
    for _, r in table.iterrows():
        for pair, case, n_eff, blend in zip(*(r[c] for c in _COLUMNS), strict=True):
            rows.append((float(r[x]), pair_label(pair, classes), int(case), float(n_eff), float(blend)))
    return pd.DataFrame(rows, columns=cols).sort_values(["pair", "x"], kind="stable").reset_index(drop=True)


def ranked_pairs(long: pd.DataFrame) -> list[str]:
    """The pairs of a :func:`case_table`, most telling first: those whose case changes along the sweep
    (where a spike of Û can come from), then the rest, each group by decreasing mean n_eff."""
    if not len(long):
        return []
    g = long.groupby("pair", sort=False)
    stats = pd.DataFrame({"steady": g["case"].nunique() == 1, "n_eff": -g["n_eff"].mean()})
    return list(stats.sort_values(["steady", "n_eff"], kind="stable").index)


#: Pairs shown at most by :func:`pair_cases` in a plot of fixed height (the explorer's).
MAX_PAIRS = 12
#: Pixels per pair row of :func:`pair_cases`, and the height of its title, axis and legend.
ROW_PX, FRAME_PX = 20, 110


def pair_cases_height(n_pairs: int) -> int:
    """Height (px) of a :func:`pair_cases` plot with ``n_pairs`` rows: :data:`ROW_PX` a row."""
    return FRAME_PX + ROW_PX * max(int(n_pairs), 1)


def _shown_pairs(long: pd.DataFrame, max_pairs: int | None) -> tuple[pd.DataFrame, list[str], int]:
    """(rows of the pairs shown, those pairs most telling first, all pairs)."""
    ranked = ranked_pairs(long)
    shown = ranked if max_pairs is None else ranked[:max(int(max_pairs), 1)]
    return long[long["pair"].isin(shown)], shown, len(ranked)


def _summary(title: str, shown: int, total: int) -> str:
    if shown >= total:
        return title
    return f"{title}: {shown} of {total} pairs (case changing first, then largest n_eff)"


def _x_dimension(table) -> hv.Dimension:
    """The sweep's x axis (log₂ γ or epoch) as the plots label it; log₂ γ for a missing table."""
    x = _x_column(table) if table is not None and len(table) else "log2_gamma"
    return hv.Dimension("x", label=_X_LABELS.get(x, x))


def pair_cases(table: pd.DataFrame | None, *, classes=None, max_pairs: int | None = MAX_PAIRS,
               title: str | None = None) -> hv.Overlay:
    """One row of markers per class pair along the sweep, coloured by the case of §4.5 that dominates Û_kl.

    Parameters
    ----------
    table : pandas.DataFrame or None
        A sweep table (see :func:`case_table`); None or empty gives the same layers with no points.
    classes : sequence of str, optional
        The class names the pairs are written with (C1, C2, ... by default).
    max_pairs : int or None
        Rows shown at most: beyond, the most telling pairs (:func:`ranked_pairs`) and the count of all
        in the title (Letter Recognition's 26 classes give up to 325 pairs). None: every pair. The
        plot's height for its rows is :func:`pair_cases_height`.
    title : str, optional

    Returns
    -------
    holoviews.Overlay
        One :class:`holoviews.Scatter` per case (label :data:`CASE_LABELS`, colour
        :data:`CASE_COLORS`) with x = log₂ γ (or epoch), y = the pair's row (ticks "k-l", the most
        telling pair on top), hover showing the pair, n_eff and λ_kl.
    """
    long, xd = case_table(table, classes), _x_dimension(table)
    long, labels, total = _shown_pairs(long, max_pairs)
    # the pair on a numeric axis (row 0, 1, ... labelled "k-l"): a live plot keeps one kind of axis
    # whatever pairs the next sweep table brings (a categorical axis cannot start empty)
    rows = {p: float(len(labels) - 1 - n) for n, p in enumerate(labels)}
    long = long.assign(row=long["pair"].map(rows).astype(float))
    yd = hv.Dimension("row", label="class pair (k-l)")
    layers = []
    for case in (1, 2, 3):
        d = long[long["case"] == case]
        el = hv.Scatter(d, xd, [yd, "pair", "n_eff", "blend"], label=CASE_LABELS[case])
        layers.append(style.opts(el, color=CASE_COLORS[case], size=12, marker="square", line_color="black",
                                 tools=["hover"]))
    ticks = [(rows[p], p) for p in labels] or [(0, "")]
    title = _summary(title or "Separability case of each pair (eq 39, §4.5)", len(labels), total)
    overlay = style.opts(hv.Overlay(layers), title=title, legend_position="right", framewise=True, yticks=ticks,
                         ylim=(-0.7, max(len(labels), 1) - 0.3))
    return overlay


def effective_size_curve(table: pd.DataFrame | None, *, classes=None, max_pairs: int | None = MAX_PAIRS,
                         title: str | None = None) -> hv.Overlay:
    """The effective number of near-boundary samples n_eff of each pair along the sweep.

    Parameters
    ----------
    table : pandas.DataFrame or None
        A sweep table (see :func:`case_table`); None or empty gives one empty curve.
    classes, max_pairs
        As for :func:`pair_cases` (the same pairs are shown).
    title : str, optional

    Returns
    -------
    holoviews.Overlay
        One curve per pair (log y axis; zeros are left out), with markers coloured by case.
    """
    long, xd = case_table(table, classes), _x_dimension(table)
    long, pairs, total = _shown_pairs(long, max_pairs)
    yd = hv.Dimension("n_eff", label="effective near-boundary samples n_eff")
    layers = []
    for n, pair in enumerate(pairs):
        d = long[(long["pair"] == pair) & (long["n_eff"] > 0)]
        layers.append(style.opts(hv.Curve(d, xd, [yd, "case", "blend"], label=f"pair {pair}"),
                                 color=style.class_color(n), line_width=2, tools=["hover"]))
    if not pairs:
        layers.append(hv.Curve(([], []), xd, yd, label="n_eff"))
    title = _summary(title or "Effective near-boundary sample size per pair", len(pairs), total)
    return style.opts(hv.Overlay(layers), title=title, logy=True, legend_position="right", framewise=True)


def effective_size_points(table: pd.DataFrame | None, *, classes=None, max_pairs: int | None = MAX_PAIRS,
                          title: str | None = None) -> hv.Scatter:
    """n_eff of every pair along the sweep as one element, coloured by pair.

    The same numbers as :func:`effective_size_curve` in a structure that does not depend on the data
    (one :class:`holoviews.Scatter` whatever the number of pairs), so that a live plot fed by a stream
    updates its data rather than rebuilding its glyphs.

    Parameters
    ----------
    table : pandas.DataFrame or None
        A sweep table (see :func:`case_table`); None or empty gives an empty element.
    classes, max_pairs
        As for :func:`pair_cases` (the same pairs are shown).
    title : str, optional

    Returns
    -------
    holoviews.Scatter
        x = log₂ γ (or epoch), y = n_eff > 0 (log axis), colour = the pair, hover with the case and λ_kl.
    """
    long, xd = case_table(table, classes), _x_dimension(table)
    long, pairs, total = _shown_pairs(long, max_pairs)
    long = long[long["n_eff"] > 0]
    yd = hv.Dimension("n_eff", label="effective near-boundary samples n_eff")
    el = hv.Scatter(long, xd, [yd, hv.Dimension("pair", label="class pair (k-l)"), "case", "blend"])
    title = _summary(title or "Effective near-boundary sample size per pair", len(pairs), total)
    return style.opts(el, color="pair", cmap=list(style.CLASS_COLORS), size=8, tools=["hover"], logy=True,
                      title=title, framewise=True)


def cases_panel(table: pd.DataFrame | None, *, classes=None, max_pairs: int | None = 40) -> hv.Layout:
    """:func:`pair_cases` above :func:`effective_size_curve`, sharing the sweep's x axis; the case
    plot is :func:`pair_cases_height` tall for the pairs it shows (at most ``max_pairs``)."""
    n = len(_shown_pairs(case_table(table, classes), max_pairs)[1])
    return hv.Layout([pair_cases(table, classes=classes, max_pairs=max_pairs).opts(height=pair_cases_height(n)),
                      effective_size_curve(table, classes=classes, max_pairs=max_pairs)]).cols(1)


class SeparabilityCasesDisplay(Display):
    """The separability case of each class pair along a sweep (eq 39, §4.5) and each pair's effective
    near-boundary sample size n_eff, live: panels ``cases`` (:func:`pair_cases`) and ``n_eff``
    (:func:`effective_size_points`, one element whatever the number of pairs).

    Parameters
    ----------
    table : DataFrame, optional
        A sweep table (see :func:`case_table`); None draws the same layers with no points.
    class_names : sequence of str, optional
        The class names the pairs are written with (C1, C2, ... by default).
    max_pairs : int or None, default=MAX_PAIRS
        Pairs shown at most (the most telling ones, :func:`ranked_pairs`); None: every pair.

    Style is given where it is drawn: ``plot(cases=dict(...), n_eff=dict(...))``.
    """

    _fields = ("table", "class_names")

    def __init__(self, *, table: pd.DataFrame | None = None, class_names=None, max_pairs: int | None = MAX_PAIRS):
        super().__init__(class_names=class_names)
        self.table, self.max_pairs = table, max_pairs

    @classmethod
    def from_table(cls, table: pd.DataFrame | None, class_names=None, **kw) -> SeparabilityCasesDisplay:
        """The cases of a sweep table; ``kw`` as for the constructor."""
        return cls(table=table, class_names=class_names, **kw)

    def _panels(self) -> dict:
        return {"cases": dict(builders={"cases": pair_cases}),
                "n_eff": dict(builders={"n_eff": effective_size_points})}

    def _args(self) -> dict:
        kw = {"table": self.table, "classes": self.class_names, "max_pairs": self.max_pairs}
        return {"cases": {"cases": kw}, "n_eff": {"n_eff": dict(kw)}}
