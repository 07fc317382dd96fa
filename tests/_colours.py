"""Colours of a figure on both backends: the solid colours and colour maps of its Bokeh rendering (the
screen) and those of its Matplotlib export, for the test that an export shows what the screen shows."""

from __future__ import annotations

import re

import holoviews as hv
import numpy as np
from matplotlib.colors import to_hex, to_rgb


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


def matplotlib_cmaps(fig) -> list:
    """The colour maps of a drawn Matplotlib figure's colour-mapped artists."""
    from matplotlib.cm import ScalarMappable

    mappables = fig.findobj(lambda a: isinstance(a, ScalarMappable) and a.get_array() is not None)
    return [a.get_cmap() for a in mappables]


def palette_samples(colours: list[str]) -> np.ndarray:
    rgb = np.array([to_rgb(c) for c in colours])
    return rgb[[0, len(rgb) // 2, -1]]
