"""The figure registry and its static export (Matplotlib backend): every registered figure renders to
SVG and PNG at the requested pixel size, tables export to CSV, bad names and parameters raise."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import holoviews as hv
import numpy as np
import pandas as pd
import pytest

from buviz import figures

# Small parameters so the whole file runs in a few minutes on two cores.
FAST = {
    "bu_fig3": dict(n_train=120, R_T=1, i_max=8),
    "bu_fig4": dict(n_train=150, M=10),
    "bu_fig5": dict(n_train=120, M=10),
    "bu_fig6": dict(n_train=120, n_test=300, log2_gamma=[-4, 0, 4], cv=3, M=10),
    "bu_fig10": dict(n_train=150, n_test=300, M=10),
    "bu_fig11": dict(log2_gamma=[-6, -2, 2], cv=3, M=10),
    "bu_fig12": dict(n_train=120, n_test=300, Ms=[10, 20], log2_gamma=[-4, 0, 4], cv=3),
    "bu_fig13": dict(n_train=150, Ks=[3, "aic"], log2_gamma=[-4, 0, 4], cv=3, M=10),
    "bu_fig14": dict(n_train=120, statuses=[-6, 4], log2_gamma=[-6, 0, 4], cv=3, M=10),
    "bu_fig15": dict(n_train=150, statuses=[-6, 2], log2_gamma=[-6, 2], cv=3, M=10, R_T=1),
    "bu_table3": {},
    "zheng_fig5": dict(n=60),
    "zheng_fig6": dict(n_sets=40, k_max=5),
    "zheng_fig7": {},
    "zheng_fig8": dict(rhos=[0.5, 0.9], max_degree=4),
    "zheng_fig11": dict(n_classes=80, K=20, methods=["moment", "kde"]),
    "zheng_fig12": dict(n_classes=80, Ks=[20], repeats=2),
    "zheng_table1": dict(n_classes=60, K=10, k_target=60, classifiers=["nearest_centroid", "1nn"], method="moment"),
    "nedelko_table1": dict(N=20, k=5),
    "nedelko_table2": dict(N=20),
    "nedelko_fig1": dict(N=20, k=5, n=4),
    "nedelko_fig2": dict(N=20, k=5, n_p=21),
}
SLOW = {n for n in FAST if n.startswith("bu_fig") or n in ("zheng_fig11", "zheng_fig12", "zheng_table1")}


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("BUVIZ_CACHE_DIR", str(tmp_path / "cache"))


def _params(name):
    return [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in name]


def test_registry_covers_the_papers():
    expected = {"bu_fig3", "bu_fig4", "bu_fig5", "bu_fig6", "bu_fig10", "bu_fig11", "bu_fig12", "bu_fig13",
                "bu_fig14", "bu_fig15", "bu_table3", "zheng_fig5", "zheng_fig6", "zheng_fig7", "zheng_fig8",
                "zheng_fig11", "zheng_fig12", "zheng_table1", "nedelko_table1", "nedelko_table2",
                "nedelko_fig1", "nedelko_fig2"}
    assert expected <= set(figures.REGISTRY)
    assert set(FAST) == set(figures.REGISTRY), "give every registered figure small test parameters"
    for name, fig in figures.REGISTRY.items():
        assert fig.name == name
        assert isinstance(fig.description, str) and fig.description
        assert fig.kind in ("figure", "table")
        assert figures.get(name) is fig


@pytest.mark.parametrize("name", _params([n for n, f in figures.REGISTRY.items() if f.kind == "figure"]))
def test_figure_exports_svg_and_png(name, tmp_path):
    width, height, dpi = 7.0, 4.5, 60
    svg = figures.export(name, tmp_path / f"{name}.svg", width=width, height=height, dpi=dpi, **FAST[name])
    png = figures.export(name, tmp_path / f"{name}.png", width=width, height=height, dpi=dpi, **FAST[name])
    assert svg.stat().st_size > 1000 and png.stat().st_size > 1000
    root = ET.parse(svg).getroot()
    assert root.tag.endswith("svg")
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
    t1 = figures.render("nedelko_table1")
    assert t1.shape == (9, 7) and list(t1.columns)[:2] == ["n", "m=0"]
    t2 = figures.render("nedelko_table2")
    assert t2.shape == (9, 7)
    # the row n = 1 of Table 2 is symmetric (m = 0 and m = 1 cost the same)
    assert np.isclose(t2.loc[1, "m=0"], t2.loc[1, "m=1"])
    t3 = figures.render("bu_table3")
    assert len(t3) == 5 and {"G_add", "G_mul", "G_comp", "G_CL"} <= set(t3.columns)


def test_pdf_export(tmp_path):
    out = figures.export("nedelko_fig2", tmp_path / "f.pdf", width=4, height=3, dpi=72, N=20, k=5, n_p=11)
    assert out.read_bytes()[:4] == b"%PDF"


def test_render_returns_holoviews():
    obj = figures.render("zheng_fig6", n_sets=20, k_max=4)
    assert isinstance(obj, hv.core.Dimensioned)


def test_twin_axis_for_errors_and_uncertainty(tmp_path):
    """Errors stay on the left axis, −Û goes to a right-hand twin axis (the paper's convention)."""
    import matplotlib

    obj = figures.render("bu_fig11", **FAST["bu_fig11"])
    with matplotlib.rc_context(figures._rc()):
        fig = hv.render(figures.to_matplotlib(obj), backend="matplotlib")
        figures._twin_axes(fig)
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
        figures.get("bu_fig99")
    with pytest.raises(ValueError, match="unknown figure"):
        figures.render("nope")


def test_unknown_parameter_names_it_and_lists_accepted(tmp_path):
    with pytest.raises(TypeError) as exc:
        figures.export("nedelko_fig2", tmp_path / "f.svg", bogus=1)
    msg = str(exc.value)
    assert "bogus" in msg and "N" in msg and "n_p" in msg
    with pytest.raises(TypeError, match="gama"):
        figures.render("bu_fig4", gama=3)


@pytest.mark.parametrize("kwargs, exc", [
    (dict(N=1), ValueError),
    (dict(N="fifty"), TypeError),
    (dict(n_p=2), ValueError),
])
def test_bad_values(kwargs, exc, tmp_path):
    with pytest.raises(exc):
        figures.export("nedelko_fig2", tmp_path / "f.svg", **kwargs)


def test_bad_extension_size_and_csv_for_a_figure(tmp_path):
    with pytest.raises(ValueError, match="extension"):
        figures.export("nedelko_fig2", tmp_path / "f.jpg")
    with pytest.raises(ValueError, match="csv"):
        figures.export("nedelko_fig2", tmp_path / "f.csv")
    with pytest.raises(ValueError, match="width"):
        figures.export("nedelko_fig2", tmp_path / "f.png", width=0)
    with pytest.raises(ValueError, match="dpi"):
        figures.export("nedelko_fig2", tmp_path / "f.png", dpi=1)
    assert not (tmp_path / "f.png").exists()


def test_cli_figure_roundtrip(tmp_path, capsys):
    from buviz.cli import main

    out = tmp_path / "t.csv"
    assert main(["figure", "nedelko_table2", "--out", str(out), "--set", "N=20"]) == 0
    assert pd.read_csv(out).shape == (9, 7)
    assert main(["figure", "nedelko_table2", "--out", str(out), "--set", "bogus=1"]) == 2
    assert "bogus" in capsys.readouterr().err
