"""Many classes on Letter Recognition (26 classes, shipped with the package): one colour per class told
apart at a glance, legends in class order, pairs written with the class names, and the separability-case
panel that summarises the pairs it cannot show."""

import holoviews as hv
import numpy as np
import pandas as pd
import pytest

from buviz import datasets
from buviz.classifiers import svm_status
from buviz.plots import cases, style
from buviz.plots import uncertainty as pb
from buviz.plots.displays import class_names
from buviz.sweep import _case_columns
from buviz.uncertainty import BoundaryUncertainty

hv.extension("bokeh")


@pytest.fixture(scope="module")
def letter():
    return datasets.load("letter", n_train=800, n_test=200, random_state=0)


@pytest.fixture(scope="module")
def letter_sweep(letter):
    """Two statuses of an SVC on 800 Letter samples: the per-pair columns of a sweep table, as
    :func:`buviz.sweep.svm_gamma_sweep` writes them (tens of pairs in Î*)."""
    bu = BoundaryUncertainty(M=10, random_state=0).fit(letter.X_train, letter.y_train)
    rows = []
    for lg in (-2.0, 2.0):
        r = bu.evaluate(svm_status(letter.X_train, letter.y_train, 2.0**lg, 1.0))
        rows.append({"log2_gamma": lg, "U_tr": r.value, **_case_columns(r)})
    return pd.DataFrame(rows)


def test_cie_lab_matches_the_reference_values():
    lab = style.cie_lab(["#FFFFFF", "#000000", "#FF0000", "#808080"])
    np.testing.assert_allclose(lab[0], [100, 0, 0], atol=0.01)
    np.testing.assert_allclose(lab[1], [0, 0, 0], atol=0.01)
    np.testing.assert_allclose(lab[2], [53.24, 80.09, 67.20], atol=0.02)  # sRGB red, D65 (CIE 1976)
    np.testing.assert_allclose(lab[3], [53.59, 0, 0], atol=0.02)


def test_class_palette_tells_26_classes_apart(letter):
    colors = [style.class_color(j) for j in range(letter.n_classes)]
    assert len(set(colors)) == 26  # Okabe-Ito's 8 colours cycled gave Y, D, T, L and I one orange
    lab = style.cie_lab(colors)
    dist = np.linalg.norm(lab[:, None] - lab[None], axis=-1)
    np.fill_diagonal(dist, np.inf)
    assert dist.min() >= style.CLASS_DELTA_E == 20.0  # CIE76 ΔE*ab: told apart at a glance
    assert lab[:, 0].max() <= 82  # none vanishes on the white page
    assert colors[:2] == ["#E69F00", "#0072B2"]  # two classes keep the papers' orange and blue
    assert len(style.CLASS_COLORS) >= 60
    # the regions of the map use the same colours (at low opacity)
    rgba = pb.region_rgba(np.arange(26).reshape(2, 13), 26)
    hexes = ["#{:02X}{:02X}{:02X}".format(*px[:3]) for px in rgba.reshape(-1, 4)]
    assert hexes == colors


def test_legend_lists_the_classes_in_order(letter):
    names = class_names(letter)
    assert names[:3] == ["A", "B", "C"]
    y = np.asarray(letter.y_train)
    assert list(pd.unique(np.asarray(names)[y]))[:3] != ["A", "B", "C"]  # the data are not in class order
    el = pb.training_points(letter.X_train[:, :2], y, names)
    # Bokeh lists a colour-mapped glyph's classes in the order they first appear in its data
    assert list(pd.unique(el.dimension_values("class"))) == names
    # and every sample is still drawn once, in its class colour
    assert sorted(map(tuple, el.array(["x1", "x2"]))) == sorted(map(tuple, letter.X_train[:, :2]))
    assert len(el) == len(y) and pd.Series(el.dimension_values("class")).value_counts().sum() == len(y)
    fig = hv.render(el, backend="bokeh")
    mapper = next(r.glyph.fill_color["transform"] for r in fig.renderers if hasattr(r, "glyph"))
    assert dict(zip(mapper.factors, mapper.palette, strict=True)) == {n: style.class_color(j)
                                                                      for j, n in enumerate(names)}


def test_the_training_set_label_never_reads_as_a_class(letter):
    names = class_names(letter)
    assert "T" in names and pb.TRAINING_LABEL not in names
    assert pb.training_points(letter.X_train[:5, :2], letter.y_train[:5], names).label == pb.TRAINING_LABEL


def test_pairs_are_named_by_class_as_the_plots_name_classes(letter, letter_sweep):
    names = class_names(letter)
    long = cases.case_table(letter_sweep, names)
    codes = {p for ps in letter_sweep["pairs_tr"] for p in ps}
    assert set(long["pair"]) == {f"{names[int(k)]}-{names[int(m)]}" for k, m in (p.split("-") for p in codes)}
    assert all(a in names and b in names for a, b in (p.split("-") for p in long["pair"]))
    el = cases.pair_cases(letter_sweep, classes=names)
    ticks = el.opts.get("plot", "bokeh").kwargs["yticks"]
    assert {label for _, label in ticks} <= set(long["pair"])


def test_case_panel_summarises_the_pairs_it_cannot_show(letter, letter_sweep):
    names = class_names(letter)
    long = cases.case_table(letter_sweep, names)
    n_pairs = long["pair"].nunique()
    assert n_pairs > cases.MAX_PAIRS * 3  # tens of pairs on 800 samples of 26 classes
    el = cases.pair_cases(letter_sweep, classes=names)
    shown = {p for s in el for p in s.dimension_values("pair")}
    assert len(shown) == cases.MAX_PAIRS
    assert f"{cases.MAX_PAIRS} of {n_pairs} pairs" in el.opts.get("plot", "bokeh").kwargs["title"]
    # the pairs shown are the most telling: every pair whose case changes comes before any steady one
    ranked = cases.ranked_pairs(long)
    changing = {p for p, g in long.groupby("pair") if g["case"].nunique() > 1}
    assert ranked[:len(changing)] == [p for p in ranked if p in changing]
    assert shown == set(ranked[:cases.MAX_PAIRS])
    # the explorer's plot has room for them: ROW_PX a row
    assert cases.pair_cases_height(cases.MAX_PAIRS) >= cases.MAX_PAIRS * cases.ROW_PX
    # the static panel grows with the pairs it shows (up to 40 here), and says how many there are
    panel = cases.cases_panel(letter_sweep, classes=names)
    top = list(panel)[0]
    rows = len({p for s in top for p in s.dimension_values("pair")})
    assert rows == min(40, n_pairs)
    assert top.opts.get("plot", "bokeh").kwargs["height"] == cases.pair_cases_height(rows) >= 20 * rows
    every = cases.pair_cases(letter_sweep, classes=names, max_pairs=None)
    assert len({p for s in every for p in s.dimension_values("pair")}) == n_pairs
    assert "pairs (" not in every.opts.get("plot", "bokeh").kwargs["title"]
    hv.render(panel, backend="bokeh")


def test_two_class_tables_keep_their_one_pair():
    t = pd.DataFrame({"log2_gamma": [0.0, 1.0], "pairs_tr": [["0-1"]] * 2, "pair_case_tr": [[1], [2]],
                      "pair_n_eff_tr": [[3.0], [9.0]], "pair_blend_tr": [[0.1], [0.8]]})
    el = cases.pair_cases(t)
    assert el.opts.get("plot", "bokeh").kwargs["title"] == "Separability case of each pair (eq 39, §4.5)"
    assert {p for s in el for p in s.dimension_values("pair")} == {"C1-C2"}
