"""An exported figure shows the colours the screen shows: for every registered figure, each colour the
Bokeh rendering gives a glyph, span or band is drawn in the exported SVG (Matplotlib), and each colour
map (images, colour-mapped points) runs through the same colours on both backends."""

from __future__ import annotations

import re

import holoviews as hv
import numpy as np
import pytest
from matplotlib.colors import to_hex, to_rgb

from buviz import figures, reproduce
from buviz.plots import _matplotlib as mpl_export
from buviz.plots import style

# Small parameters so that every figure renders in seconds.
SMALL = {
    "uncertainty_fig3": dict(n_train=100, R_T=1, i_max=6),
    "uncertainty_fig4": dict(n_train=120, M=10),
    "uncertainty_fig5": dict(n_train=100, M=10),
    "uncertainty_fig6_quick": dict(n_train=100, n_test=200, log2_gamma=[-4, 0, 4], cv=3, M=10),
    "uncertainty_fig6": {},  # the paper's size, read from a shipped table
    "uncertainty_fig7_sklearn": dict(log2_gamma=[-6, 0], cv=3, M=10),
    "uncertainty_fig8_sklearn": dict(datasets=["wine"], log2_gamma=[-6, 0], cv=3, M=10),
    "uncertainty_fig9_sklearn": dict(epochs=[1, 3], cv=2, M=10),
    "uncertainty_amplitude": dict(n_train=100, n_test=200, log2_gamma=[-4, 0, 4], amplitudes=[0.0, 0.5], M=10),
    "uncertainty_fig10": dict(n_train=120, n_test=200, M=10),
    "uncertainty_fig11_sklearn": dict(log2_gamma=[-6, 2], cv=3, M=10),
    "uncertainty_fig12_toy": dict(n_train=100, n_test=200, Ms=[10, 20], log2_gamma=[-4, 4], cv=3),
    "uncertainty_fig13_toy": dict(n_train=120, Ks=[3, "aic"], log2_gamma=[-4, 4], cv=3, M=10),
    "uncertainty_fig14": dict(n_train=100, statuses=[-6, 4], log2_gamma=[-6, 4], cv=3, M=10),
    "uncertainty_fig15": dict(n_train=120, statuses=[-6, 2], log2_gamma=[-6, 2], cv=3, M=10, R_T=1),
    "extrapolation_fig5": dict(n=40),
    "extrapolation_fig6": dict(n_sets=20, k_max=4),
    "extrapolation_fig7": {},
    "extrapolation_fig8": dict(rhos=[0.5, 0.9], max_degree=3),
    "extrapolation_fig11_synthetic": dict(n_classes=40, K=10, methods=["moment", "kde"]),
    "extrapolation_fig12_synthetic": dict(n_classes=40, Ks=[10], repeats=2),
    "extrapolation_unbiased_ta": dict(ks=[2, 5], r_trains=[2], k1=10, n_rep=40),
    "extrapolation_unbiased_beta": dict(k1=8, n_rep=40),
    "discrete_fig1": dict(N=20, k=5, n=4),
    "discrete_fig2": dict(N=20, k=5, n_p=11),
    # the schematic figures (buviz/figures/schematics.py)
    "extrapolation_fig1": dict(k=3, r=5),
    "extrapolation_fig2": dict(n=100),
    "extrapolation_fig3": dict(k=3, r=3, n_train_draws=5),
    "extrapolation_fig4": dict(ks=[2, 4], n_draws=5),
    "extrapolation_fig9": dict(n_rep=100),
    "extrapolation_fig10": dict(n_draws=500),
    "uncertainty_fig1": {},
    "uncertainty_fig2": {},
    "uncertainty_fig15_histogram": dict(n_train=150),
    # the real-data figures read shipped tables (buviz.reproduce)
    "uncertainty_fig7": {},
    "uncertainty_fig8": dict(datasets=["banknote", "spambase"]),
    "uncertainty_fig9": {},
    "uncertainty_fig11": dict(datasets=["banknote"]),
    "uncertainty_fig12": {},
    "uncertainty_fig13": {},
    "extrapolation_table1_glyphs_delta": {},
    "extrapolation_fig11": {},
    "extrapolation_fig12": {},
    "extrapolation_intervals": {},
}
# a real-data figure is registered only when its tables are shipped (buviz.reproduce)
SMALL = {k: v for k, v in SMALL.items() if k in figures.REGISTRY or k not in reproduce.FIGURE_TABLES}
_SLOW = {f"uncertainty_fig{n}" for n in (6, 14, 15)} | {"extrapolation_fig11", "extrapolation_fig12",
                                                       "extrapolation_fig11_synthetic",
                                                       "extrapolation_fig12_synthetic"}
_SLOW |= {f"uncertainty_fig{n}_sklearn" for n in (7, 8, 9, 11)} | {"uncertainty_fig12_toy", "uncertainty_fig13_toy"}


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("BUVIZ_CACHE_DIR", str(tmp_path / "cache"))


def _hex(c) -> str | None:
    try:
        return to_hex(c).lower()
    except (ValueError, TypeError):
        return None


def _has_data(renderer) -> bool:
    data = renderer.data_source.data
    return any(len(v) for v in data.values()) if data else False


def bokeh_colours(obj) -> tuple[set[str], list[list[str]]]:
    """Solid colours of the drawn glyphs, spans and bands of a Bokeh rendering, and the palettes of its
    continuous colour mappers."""
    from bokeh.models import BoxAnnotation, CategoricalColorMapper, ColorMapper, GlyphRenderer, Span

    model = hv.render(obj, backend="bokeh")
    solid: set[str] = set()
    palettes: list[list[str]] = []
    for m in model.references():
        if isinstance(m, GlyphRenderer) and _has_data(m) and m.visible:
            g = m.glyph
            for attr in ("fill_color", "line_color"):
                if not hasattr(g, attr):
                    continue
                alpha = getattr(g, attr.replace("color", "alpha"), 1.0)
                if isinstance(alpha, int | float) and alpha == 0:
                    continue
                v = getattr(g, attr)
                if isinstance(v, str):
                    solid.add(_hex(v))
                elif getattr(v, "transform", None) is not None or isinstance(v, dict):
                    mapper = v.get("transform") if isinstance(v, dict) else v.transform
                    if isinstance(mapper, CategoricalColorMapper):
                        factors = m.data_source.data.get(v.get("field") if isinstance(v, dict) else v.field, [])
                        used = set(factors)
                        solid |= {_hex(c) for f, c in zip(mapper.factors, mapper.palette, strict=False) if f in used}
                    elif isinstance(mapper, ColorMapper):
                        palettes.append([_hex(c) for c in mapper.palette])
        elif isinstance(m, Span) and m.visible and m.location is not None and np.isfinite(m.location):
            solid.add(_hex(m.line_color))
        elif isinstance(m, BoxAnnotation) and m.visible and (m.fill_alpha or 0) > 0:
            solid.add(_hex(m.fill_color))
    for m in model.references():  # image glyphs carry their mapper on the glyph
        mapper = getattr(getattr(m, "glyph", None), "color_mapper", None)
        if isinstance(m, GlyphRenderer) and isinstance(mapper, ColorMapper) and _has_data(m):
            palettes.append([_hex(c) for c in mapper.palette])
    solid.discard(None)
    return solid, palettes


def svg_colours(svg: str) -> set[str]:
    return {c.lower() for c in re.findall(r"(?:fill|stroke)(?::\s*|=\")(#[0-9a-fA-F]{6})", svg)}


def matplotlib_cmaps(obj, fig_cls) -> list:
    from matplotlib.cm import ScalarMappable

    fig = mpl_export.draw(obj, "figure", 6, 4, 50, twin_y=fig_cls.twin_y)
    mappables = fig.findobj(lambda a: isinstance(a, ScalarMappable) and a.get_array() is not None)
    return [a.get_cmap() for a in mappables]


def _samples(colours: list[str]) -> np.ndarray:
    rgb = np.array([to_rgb(c) for c in colours])
    return rgb[[0, len(rgb) // 2, -1]]


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in _SLOW else n for n in SMALL])
def test_export_uses_the_screen_colours(name):
    cls = figures.get(name)
    obj = figures.render(name, **SMALL[name])
    solid, palettes = bokeh_colours(obj)
    svg = figures.to_bytes(obj, "svg", 6, 4, 50, twin_y=cls.twin_y).decode()
    missing = solid - svg_colours(svg)
    assert not missing, f"{name}: colours on screen but not in the export: {sorted(missing)}"
    cmaps = matplotlib_cmaps(obj, cls)
    for palette in palettes:
        want = _samples(palette)
        found = [np.abs(cmap(np.array([0.0, 0.5, 1.0]))[:, :3] - want).max() if len(palette) > 2
                 else np.abs(cmap(np.array([0.0, 1.0]))[:, :3] - want[[0, 2]]).max() for cmap in cmaps]
        assert found and min(found) < 0.05, f"{name}: no exported colour map runs through {palette[:3]}..."


def test_every_figure_is_checked():
    assert set(SMALL) == {n for n, f in figures.REGISTRY.items() if f.kind == "figure"}


def test_a_title_too_long_for_its_panel_is_broken_into_lines_that_fit():
    """wrapped_title breaks at spaces into lines of at most (width − margin) / char-width characters,
    keeps a title that fits and loses no word; screen_sized wraps the titles of panels drawn narrower
    than their title (Zheng et al.'s Fig 1 at 640 px: its two titles lost their ends on screen)."""
    title = "(b) training set: r = 10 per class (◆ its mean)"
    most = int((320 - style.TITLE_MARGIN_PX) / style.TITLE_CHAR_PX)
    lines = style.wrapped_title(title, 320).split("\n")
    assert len(lines) == 2 and all(len(line) <= most for line in lines) and " ".join(lines) == title
    assert style.wrapped_title(title, 1000) == title
    fig = style.screen_sized(figures.render("extrapolation_fig1"), (6.4, 4.5))  # two panels of 320 px
    titles = [hv.Store.lookup_options("bokeh", p, "plot").kwargs["title"] for p in fig]
    assert all("\n" in t and all(len(line) <= most for line in t.split("\n")) for t in titles), titles
