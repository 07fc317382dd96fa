"""The figure registry and its static export (Matplotlib backend): every registered figure renders to an
SVG that shows the screen's colours, PNGs have the requested pixel size, tables export to CSV, bad names
and parameters raise."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import holoviews as hv
import numpy as np
import pandas as pd
import pytest
from _colours import bokeh_colours, matplotlib_cmaps, palette_samples, svg_colours

from buviz import figures, reproduce
from buviz.plots import _matplotlib as mpl_export

# Small parameters so the whole file runs in a few minutes on two cores.
FAST = {
    "uncertainty_fig3": dict(n_train=120, R_T=1, i_max=8),
    "uncertainty_fig4": dict(n_train=150, M=10),
    "uncertainty_fig5": dict(n_train=120, M=10),
    "uncertainty_fig6_quick": dict(n_train=120, n_test=300, log2_gamma=[-4, 0, 4], cv=3, M=10),
    "uncertainty_fig6": {},  # the paper's size, read from a shipped table
    "uncertainty_fig7_sklearn": dict(log2_gamma=[-6, 0], cv=3, M=10),
    "uncertainty_fig8_sklearn": dict(datasets=["wine"], log2_gamma=[-6, 0], cv=3, M=10),
    "uncertainty_fig9_sklearn": dict(epochs=[1, 3], cv=2, M=10),
    "uncertainty_amplitude": dict(n_train=120, n_test=300, log2_gamma=[-4, 0, 4], amplitudes=[0.0, 0.5, 2.0], M=10),
    "uncertainty_fig10": dict(n_train=150, n_test=300, M=10),
    "uncertainty_fig11_sklearn": dict(log2_gamma=[-6, -2, 2], cv=3, M=10),
    "uncertainty_fig12_toy": dict(n_train=120, n_test=300, Ms=[10, 20], log2_gamma=[-4, 0, 4], cv=3),
    "uncertainty_fig13_toy": dict(n_train=150, Ks=[3, "aic"], log2_gamma=[-4, 0, 4], cv=3, M=10),
    "uncertainty_fig14": dict(n_train=120, statuses=[-6, 4], log2_gamma=[-6, 0, 4], cv=3, M=10),
    "uncertainty_fig15": dict(n_train=150, statuses=[-6, 2], log2_gamma=[-6, 2], cv=3, M=10, R_T=1),
    "uncertainty_table3_formula": {},
    "extrapolation_fig5": dict(n=60),
    "extrapolation_fig6": dict(n_sets=40, k_max=5),
    "extrapolation_fig7": {},
    "extrapolation_fig8": dict(rhos=[0.5, 0.9], max_degree=4),
    "extrapolation_fig11_synthetic": dict(n_classes=80, K=20, methods=["moment", "kde"]),
    "extrapolation_fig12_synthetic": dict(n_classes=80, Ks=[20], repeats=2),
    "extrapolation_table1_synthetic": dict(n_classes=60, K=10, k_target=60, classifiers=["nearest_centroid", "1nn"],
                                           method="moment"),
    "extrapolation_unbiased_ta": dict(ks=[2, 5], r_trains=[2], k1=10, n_rep=50),
    "extrapolation_unbiased_beta": dict(k1=8, n_rep=50),
    # the schematic figures (buviz/figures/schematics.py): real draws, made small
    "extrapolation_fig1": dict(k=3, r=5),
    "extrapolation_fig2": dict(n=100),
    "extrapolation_fig3": dict(k=3, r=3, n_train_draws=5),
    "extrapolation_fig4": dict(ks=[2, 4], n_draws=5),
    "extrapolation_fig9": dict(n_rep=100),
    "extrapolation_fig10": dict(n_draws=500),
    "uncertainty_fig1": {},
    "uncertainty_fig2": {},
    "uncertainty_fig15_histogram": dict(n_train=150),
    # the paper's keys on real data read shipped result tables (Telugu Table 1, Omniglot Figs 11-12)
    "extrapolation_table1": dict(errors=True),
    "discrete_table1": dict(N=20, k=5),
    "discrete_table2": dict(N=20),
    "discrete_fig1": dict(N=20, k=5, n=4),
    "discrete_fig2": dict(N=20, k=5, n_p=21),
    # the real-data figures render from shipped tables (buviz.reproduce): nothing to make small
    "uncertainty_fig7": {},
    "uncertainty_fig8": dict(datasets=["banknote", "spambase"]),
    "uncertainty_fig9": {},
    "uncertainty_fig11": dict(datasets=["banknote", "spambase"]),
    "uncertainty_fig12": {},
    "uncertainty_fig13": {},
    "uncertainty_table3": {},
    # the real-data extrapolation figures read shipped tables (benchmarks/bench_telugu_table1.py, ...)
    "extrapolation_table1_glyphs": {},
    "extrapolation_table1_glyphs_delta": {},
    "extrapolation_fig11": {},
    "extrapolation_fig12": dict(seed=1),
    "extrapolation_intervals": dict(level=0.8, representation="blur2", seed=1),
}
# a real-data figure is registered only when its tables are shipped (buviz.reproduce)
FAST = {k: v for k, v in FAST.items() if k in figures.REGISTRY or k not in reproduce.FIGURE_TABLES}
SLOW = {n for n in FAST if n.startswith("uncertainty_fig")
        or n in ("extrapolation_fig11_synthetic", "extrapolation_fig12_synthetic", "extrapolation_table1_synthetic",
                 "extrapolation_fig11", "extrapolation_fig12")}


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("BUVIZ_CACHE_DIR", str(tmp_path / "cache"))


def _params(name):
    return [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in name]


def test_registry_covers_the_papers():
    expected = {f"uncertainty_fig{n}" for n in (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)}
    expected |= {"uncertainty_table3", "uncertainty_table3_formula", "uncertainty_amplitude"}
    expected |= {f"extrapolation_fig{n}" for n in (5, 6, 7, 8, 11, 12)} | {"extrapolation_table1"}
    expected |= {f"extrapolation_{n}_synthetic" for n in ("fig11", "fig12", "table1")}
    expected |= {"discrete_table1", "discrete_table2", "discrete_fig1", "discrete_fig2"}
    expected -= {k for k in reproduce.FIGURE_TABLES if k not in figures.REGISTRY}  # tables not shipped
    assert expected <= set(figures.REGISTRY)
    assert set(FAST) == set(figures.REGISTRY), "give every registered figure small test parameters"
    for name, fig in figures.REGISTRY.items():
        assert fig.key == name
        assert isinstance(fig.description, str) and fig.description
        assert fig.kind in ("figure", "table")
        assert figures.get(name) is fig


@pytest.mark.parametrize("name", _params([n for n, f in figures.REGISTRY.items() if f.kind == "figure"]))
def test_figure_exports_an_svg_that_shows_the_screens_colours(name, tmp_path):
    """Every figure exports to a valid SVG, and the export shows what the screen shows: each solid colour
    the Bokeh rendering gives a glyph, span or band is drawn in the SVG, and each continuous colour map
    runs through the same colours on both backends."""
    cls = figures.get(name)
    svg = figures.export(name, tmp_path / f"{name}.svg", width=7.0, height=4.5, dpi=60, **FAST[name])
    assert svg.stat().st_size > 1000 and ET.parse(svg).getroot().tag.endswith("svg")
    obj = figures.render(name, **FAST[name])  # the object the export drew (renders are memoised)
    solid, palettes = bokeh_colours(obj)
    missing = solid - svg_colours(svg.read_text())
    assert not missing, f"{name}: colours on screen but not in the export: {sorted(missing)}"
    if palettes:  # colour maps are read from the Matplotlib figure (an SVG embeds images as PNG)
        import matplotlib.pyplot as plt

        fig = mpl_export.draw(obj, "figure", 7.0, 4.5, 60, twin_y=cls.twin_y)
        cmaps = matplotlib_cmaps(fig)
        plt.close(fig)
        for palette in palettes:
            want = palette_samples(palette)
            found = [np.abs(cmap(np.array([0.0, 0.5, 1.0]))[:, :3] - want).max() if len(palette) > 2
                     else np.abs(cmap(np.array([0.0, 1.0]))[:, :3] - want[[0, 2]]).max() for cmap in cmaps]
            assert found and min(found) < 0.05, f"{name}: no exported colour map runs through {palette[:3]}..."


#: PNG export on three kinds of figure: one panel, a layout of panels, and twin axes (−Û on the right).
#: Every figure is rasterised by the layout test anyway (``test_figure_layout.py`` draws each with Agg).
PNG_FIGURES = ("discrete_fig1", "extrapolation_fig7", "uncertainty_fig7")


@pytest.mark.parametrize("name", PNG_FIGURES)
def test_figure_exports_a_png_of_the_requested_pixel_size(name, tmp_path):
    width, height, dpi = 7.0, 4.5, 60
    png = figures.export(name, tmp_path / f"{name}.png", width=width, height=height, dpi=dpi, **FAST[name])
    from matplotlib.image import imread

    h, w = imread(png).shape[:2]
    assert abs(w - width * dpi) <= 2 and abs(h - height * dpi) <= 2


@pytest.mark.parametrize("name", _params([n for n, f in figures.REGISTRY.items() if f.kind == "table"]))
def test_table_exports_csv_svg_png(name, tmp_path):
    df = figures.render(name, **FAST[name])
    assert isinstance(df, pd.DataFrame) and len(df)
    out = figures.export(name, tmp_path / f"{name}.csv", **FAST[name])
    back = pd.read_csv(out)
    assert back.shape == df.shape
    assert list(back.columns) == [str(c) for c in df.columns]
    png = figures.export(name, tmp_path / f"{name}.png", width=5, height=3, dpi=50, **FAST[name])
    from matplotlib.image import imread

    assert imread(png).shape[:2] == (150, 250)
    assert figures.export(name, tmp_path / f"{name}.svg", width=5, height=3, **FAST[name]).stat().st_size > 0


def test_table_shapes():
    t1 = figures.render("discrete_table1")
    assert t1.shape == (9, 7) and list(t1.columns)[:2] == ["n", "m=0"]
    t2 = figures.render("discrete_table2")
    assert t2.shape == (9, 7)
    # the row n = 1 of Table 2 is symmetric (m = 0 and m = 1 cost the same)
    assert np.isclose(t2.loc[1, "m=0"], t2.loc[1, "m=1"])
    t3 = figures.render("uncertainty_table3_formula")
    assert len(t3) == 5 and {"G_add", "G_mul", "G_comp", "G_CL"} <= set(t3.columns)


def test_pdf_export(tmp_path):
    out = figures.export("discrete_fig2", tmp_path / "f.pdf", width=4, height=3, dpi=72, N=20, k=5, n_p=11)
    assert out.read_bytes()[:4] == b"%PDF"


def test_render_returns_holoviews():
    obj = figures.render("extrapolation_fig6", n_sets=20, k_max=4)
    assert isinstance(obj, hv.core.Dimensioned)


def test_twin_axis_for_errors_and_uncertainty(tmp_path):
    """Errors stay on the left axis, −Û goes to a right-hand twin axis (the paper's convention)."""
    import matplotlib

    obj = figures.render("uncertainty_fig11_sklearn", **FAST["uncertainty_fig11_sklearn"])
    with matplotlib.rc_context(mpl_export._rc()):
        fig = hv.render(mpl_export.to_matplotlib(obj), backend="matplotlib")
        mpl_export._twin_axes(fig)
    twins = [ax for ax in fig.axes if getattr(ax, "_buviz_twin", False)]
    assert len(twins) == 1
    tw = twins[0]
    assert all(getattr(ln, "_buviz_u", False) for ln in tw.lines)
    lo, hi = tw.get_ylim()
    assert lo < 0 and hi <= 0.1  # −Û lies in [−1, 0]
    main = [ax for ax in fig.axes if ax is not tw][0]
    assert not any(getattr(ln, "_buviz_u", False) for ln in main.lines)


def test_unknown_name():
    with pytest.raises(ValueError, match="unknown figure"):
        figures.get("uncertainty_fig99")
    with pytest.raises(ValueError, match="unknown figure"):
        figures.render("nope")


def test_unknown_parameter_names_it_and_lists_accepted(tmp_path):
    with pytest.raises(TypeError) as exc:
        figures.export("discrete_fig2", tmp_path / "f.svg", bogus=1)
    msg = str(exc.value)
    assert "bogus" in msg and "N" in msg and "n_p" in msg
    with pytest.raises(TypeError, match="gama"):
        figures.render("uncertainty_fig4", gama=3)


@pytest.mark.parametrize("kwargs, exc", [
    (dict(N=1), ValueError),
    (dict(N="fifty"), TypeError),
    (dict(n_p=2), ValueError),
])
def test_bad_values(kwargs, exc, tmp_path):
    with pytest.raises(exc):
        figures.export("discrete_fig2", tmp_path / "f.svg", **kwargs)


def test_bad_extension_size_and_csv_for_a_figure(tmp_path):
    with pytest.raises(ValueError, match="extension"):
        figures.export("discrete_fig2", tmp_path / "f.jpg")
    with pytest.raises(ValueError, match="csv"):
        figures.export("discrete_fig2", tmp_path / "f.csv")
    with pytest.raises(ValueError, match="width"):
        figures.export("discrete_fig2", tmp_path / "f.png", width=0)
    with pytest.raises(ValueError, match="dpi"):
        figures.export("discrete_fig2", tmp_path / "f.png", dpi=1)
    assert not (tmp_path / "f.png").exists()


def test_cli_figure_roundtrip(tmp_path, capsys):
    from buviz.cli import main

    out = tmp_path / "t.csv"
    assert main(["figure", "discrete_table2", "--out", str(out), "--set", "N=20"]) == 0
    assert pd.read_csv(out).shape == (9, 7)
    assert main(["figure", "discrete_table2", "--out", str(out), "--set", "bogus=1"]) == 2
    assert "bogus" in capsys.readouterr().err


def test_former_names_are_aliases_everywhere(tmp_path, capsys):
    from buviz.cli import main

    former = {"bu_fig6": "uncertainty_fig6_quick", "bu_table3": "uncertainty_table3_formula",
              "zheng_fig5": "extrapolation_fig5",
              "zheng_table1": "extrapolation_table1", "nedelko_table1": "discrete_table1",
              "nedelko_fig2": "discrete_fig2"}
    for old, new in former.items():
        assert figures.ALIASES[old] == new
        assert figures.get(old) is figures.REGISTRY[new]
    assert set(figures.ALIASES.values()) == {k for k, f in figures.REGISTRY.items() if f.alias}
    pd.testing.assert_frame_equal(figures.render("nedelko_table2", N=20), figures.render("discrete_table2", N=20))
    assert figures.export("nedelko_table2", tmp_path / "t.csv", N=20).exists()
    assert main(["figure", "--list"]) == 0
    listing = capsys.readouterr().out
    line = next(ln for ln in listing.splitlines() if ln.startswith("uncertainty_fig6_quick "))
    assert "(bu_fig6)" in line and figures.REGISTRY["uncertainty_fig6_quick"].description in line
    assert main(["figure", "nedelko_fig2", "--out", str(tmp_path / "f.svg"), "--set", "N=20", "--set", "n_p=11"]) == 0


def test_parameters_come_from_the_param_declarations():
    import param

    table = figures.parameter_table("uncertainty_fig6_quick")
    assert list(table.columns) == ["name", "type", "default", "bounds", "doc"]
    row = table.set_index("name").loc["n_train"]
    assert row["type"] == "Integer" and row["default"] == 300 and row["bounds"] == "integer ≥ 20" and row["doc"]
    assert all(table["doc"].str.len() > 0)
    cls = figures.get("uncertainty_fig6_quick")
    assert isinstance(cls.param["n_train"], param.Integer) and cls.param["n_train"].bounds == (20, None)
    assert figures.parameters("bu_fig6")["log2_gamma"] == [-6, -4, -2, 0, 2, 4, 6]
    for name, fig in figures.REGISTRY.items():
        assert fig.paper in ("uncertainty", "extrapolation", "discrete") and name.startswith(fig.paper)
        assert fig.citation().startswith(figures.PAPERS[fig.paper])


@pytest.mark.parametrize("name, kwargs, words", [
    ("discrete_fig2", dict(N=1), ["discrete_fig2", "'N'", "integer in [2, 400]"]),
    ("discrete_fig2", dict(N="fifty"), ["'N'", "integer in [2, 400]"]),
    ("uncertainty_fig3", dict(dataset="gmx"), ["'dataset'", "gmm, gmm_separable"]),
    ("extrapolation_fig8", dict(rhos=[0.5, 1.5]), ["'rhos'", "numbers in [0.01, 0.99]"]),
    ("discrete_fig1", dict(N=20, n=30), ["'n'", "[0, 20]"]),
])
def test_bad_values_raise_one_exception_type_naming_figure_parameter_and_range(name, kwargs, words):
    from buviz._validation import InvalidParameterError

    with pytest.raises(InvalidParameterError) as exc:
        figures.render(name, **kwargs)
    assert isinstance(exc.value, ValueError) and isinstance(exc.value, TypeError)
    for w in words:
        assert w in str(exc.value)


@pytest.mark.parametrize("name", sorted(figures.REGISTRY))
def test_docstring_is_valid_restructuredtext(name):
    """The API pages render each figure's docstring; a caption's ``|x|`` once read as a substitution
    and failed the docs build."""
    import io

    from docutils import nodes
    from docutils.core import publish_doctree

    doc = figures.REGISTRY[name].__doc__ or ""
    tree = publish_doctree(doc, settings_overrides={"report_level": 2, "halt_level": 5,
                                                    "warning_stream": io.StringIO()})
    # docutils leaves a "problematic" node where the markup fails; Sphinx's roles (:func:) are unknown here
    problems = [n.astext() for n in tree.findall(nodes.problematic) if not n.astext().startswith(":")]
    assert not problems, problems


def test_fig15_draws_proposal1s_anchors_alone_through_the_sample_space_display():
    """Each status panel shows Proposal 1's valid anchors (the display's proposal1 layer, as in the
    explorer); N_B and the TDC clusters are empty and have no legend entry."""
    from buviz.uncertainty import Proposal1

    p = FAST["uncertainty_fig15"]
    layout = figures.render("uncertainty_fig15", **p)
    spaces = [layout[i] for i in (2, 4)]
    from buviz import datasets
    from buviz.classifiers import svm_status

    data = datasets.load("gmm_inclusion", n_train=p["n_train"], n_test=0, random_state=0)
    for lg, space in zip(p["statuses"], spaces, strict=True):
        status = svm_status(data.X_train, data.y_train, 2.0 ** lg, C=1.0)
        res = Proposal1(R_T=p["R_T"], random_state=0).fit(data.X_train, data.y_train).evaluate(status)
        anchors = [el for el in space if el.label == "P1 anchors"]
        assert len(anchors) == 1
        drawn = np.column_stack([anchors[0].dimension_values(0), anchors[0].dimension_values(1)])
        np.testing.assert_allclose(drawn, res.anchors[res.anchor_valid])
        assert len(drawn) > 0
        for label in ("P1 N_B (near-boundary)", "P1 clusters"):
            (el,) = [e for e in space if e.label == label]
            assert len(el) == 0 and el.opts.get("plot").kwargs.get("show_legend") is False
