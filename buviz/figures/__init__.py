"""Registry of the reproduced paper figures and tables, and their static export.

Every entry of :data:`REGISTRY` is a :class:`~buviz.figures._base.PaperFigure` subclass whose typed,
bounded and documented ``param`` Parameters (defaults that run in seconds: small N; scale up with
``n_train=`` etc.) configure :meth:`~buviz.figures._base.PaperFigure.build`, which returns a HoloViews
object, or a ``pandas.DataFrame`` for tables. The HoloViews objects carry the options of the builders
in :mod:`buviz.plots` for both backends, so they show interactively in a notebook (Bokeh) and
:func:`export` draws them with **Matplotlib** (no browser) at an explicit size in inches and dpi.

>>> from buviz import figures
>>> sorted(figures.REGISTRY)[:2]
['discrete_fig1', 'discrete_fig2']
>>> obj = figures.render("extrapolation_fig6", rho=0.7)          # a HoloViews overlay
>>> figures.export("extrapolation_fig6", "fig6.svg", width=6, height=4, dpi=150)  # doctest: +SKIP

Keys are ``<paper>_fig<N>`` and ``<paper>_table<N>`` with the paper's own numbers: ``uncertainty_*``
(Ha, Katagiri, Watanabe & Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for Classifier
Evaluation", Journal of Signal Processing Systems, 2021), ``extrapolation_*`` (Zheng, Achanta &
Benjamini, "Extrapolating expected accuracies for multi-class classification", 2017; Journal of Machine
Learning Research 19, 2018) and ``discrete_*`` (Nedel'ko, "Optimization of the misclassification
probability estimate in the discrete case", KDS 2009). The former names (``bu_fig6``, ``zheng_fig5``,
``nedelko_table1``, ...) are accepted everywhere as aliases (:data:`ALIASES`).
``buviz figure --list`` prints the descriptions.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pandas as pd

from buviz._validation import InvalidParameterError
from buviz.figures import (  # noqa: F401  (the modules register their figures)
    discrete,
    extrapolation,
    extrapolation_intervals,
    extrapolation_real,
    real_data,
    schematics,
    uncertainty,
)
from buviz.figures._base import ALIASES, PAPERS, REGISTRY, PaperFigure
from buviz.plots import style
from buviz.plots._matplotlib import FONT_SIZE, FORMATS, OKABE_ITO, figure_bytes, layout_problems, to_matplotlib
from buviz.plots._matplotlib import draw as _draw
from buviz.plots._matplotlib import save as _save

__all__ = ["PaperFigure", "REGISTRY", "ALIASES", "PAPERS", "get", "key", "render", "export", "to_bytes", "parameters",
           "parameter_table", "layout_problems", "to_matplotlib", "FORMATS", "OKABE_ITO", "FONT_SIZE",
           "InvalidParameterError"]


def key(name: str) -> str:
    """The registry key of ``name`` (a key or a former name); ``ValueError`` with suggestions otherwise."""
    if isinstance(name, str) and name in REGISTRY:
        return name
    if isinstance(name, str) and name in ALIASES:
        return ALIASES[name]
    close = difflib.get_close_matches(str(name), [*REGISTRY, *ALIASES], n=3)
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    raise InvalidParameterError(f"unknown figure {name!r}{hint}; known: {', '.join(sorted(REGISTRY))}")


def get(name: str) -> type[PaperFigure]:
    """The figure class registered as ``name``.

    Parameters
    ----------
    name : str
        A key (``"uncertainty_fig6"``) or a former name (``"bu_fig6"``).

    Returns
    -------
    type[PaperFigure]

    Raises
    ------
    InvalidParameterError
        (a ``ValueError``) for an unknown name, with the closest names as suggestions.
    """
    return REGISTRY[key(name)]


def parameters(name: str) -> dict:
    """Accepted parameters of figure ``name`` and their defaults, in declaration order."""
    cls = get(name)
    return {p: cls.param[p].default for p in cls.parameter_names()}


def parameter_table(name: str) -> pd.DataFrame:
    """The parameters of figure ``name``: one row per parameter, columns ``name``, ``type`` (the param
    Parameter class), ``default``, ``bounds`` (what it accepts, in words) and ``doc``."""
    cls = get(name)
    rows = [(p, type(cls.param[p]).__name__, cls.param[p].default, cls.accepts_text(p), cls.param[p].doc or "")
            for p in cls.parameter_names()]
    return pd.DataFrame(rows, columns=["name", "type", "default", "bounds", "doc"])


def instance(name: str, **params) -> PaperFigure:
    """A configured instance of figure ``name``; a bad parameter raises :class:`InvalidParameterError`."""
    return get(name)(**params)


def render(name: str, **params):
    """Build the HoloViews object (or DataFrame, for tables) of a registered figure.

    Parameters
    ----------
    name : str
        Key or former name of the figure.
    **params
        The figure's own parameters (see :func:`parameter_table`).

    Raises
    ------
    InvalidParameterError
        For an unknown parameter (the message lists the accepted ones) or a bad value (it names the
        figure, the parameter and what it accepts).

    Notes
    -----
    On screen (Bokeh) a figure is drawn at its export size, each panel of a layout getting its share
    (:func:`buviz.plots.style.screen_sized`), so that no plot frame is squeezed by its axes and legend.
    """
    fig = instance(name, **params)
    return style.screen_sized(fig.build(), fig.size)


def _size(value: float, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0.5 <= value <= 100.0:
        raise InvalidParameterError(f"{what} must be a number of inches in [0.5, 100], got {value!r}")
    return float(value)


def _dpi(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 10 <= value <= 2400:
        raise InvalidParameterError(f"dpi must be an integer in [10, 2400], got {value!r}")
    return value


def export(name: str, out_path, width: float | None = None, height: float | None = None, dpi: int = 150,
           **params) -> Path:
    """Render figure ``name`` with the Matplotlib backend and write it to ``out_path``.

    Parameters
    ----------
    name : str
        Key or former name of the figure.
    out_path : str or path-like
        The extension picks the format: ``.svg``, ``.pdf``, ``.png`` (``width``·``dpi`` × ``height``·``dpi``
        pixels) or, for tables, ``.csv``.
    width, height : float, optional
        Inches, default the figure's :attr:`~PaperFigure.size`, at which no text overlaps; at smaller
        sizes fonts and tick counts shrink to fit.
    dpi : int
        Resolution, in [10, 2400].
    **params
        The figure's own parameters.

    Returns
    -------
    pathlib.Path
        The path written.

    Raises
    ------
    InvalidParameterError
        Unknown figure or parameter, bad value, size or extension (nothing is written).
    """
    cls = get(name)
    out = Path(os.fspath(out_path))
    ext = out.suffix.lower()
    if ext not in FORMATS:
        raise InvalidParameterError(f"unsupported file extension {out.suffix!r}; use one of {', '.join(FORMATS)}")
    if ext == ".csv" and cls.kind != "table":
        raise InvalidParameterError(f"{name!r} is a figure: export it as .svg, .pdf or .png (.csv is for tables)")
    width = _size(cls.size[0] if width is None else width, "width")
    height = _size(cls.size[1] if height is None else height, "height")
    dpi = _dpi(dpi)
    obj = render(name, **params)
    if ext == ".csv":
        obj.to_csv(out, index=False)
        return out
    _save(_draw(obj, cls.kind, width, height, dpi, twin_y=cls.twin_y, title=cls.description), out, ext[1:], dpi)
    return out


def to_bytes(obj, fmt: str = "svg", width: float = 6.0, height: float = 4.0, dpi: int = 150, *,
             twin_y: bool = False, title: str = "") -> bytes:
    """Draw a HoloViews object (built with the :mod:`buviz.plots` builders) like :func:`export` does and
    return the file content instead of writing a file.

    Parameters
    ----------
    obj : HoloViews object, ``pandas.DataFrame`` (drawn as a table), or a :class:`PaperFigure` instance
        (built first; its ``twin_y`` and description then apply).
    fmt : str
        ``"svg"``, ``"pdf"`` or ``"png"``.
    width, height : float
        Inches. dpi : int.
    twin_y : bool
        −Û on a right-hand axis. title : str, title of a table.

    Returns
    -------
    bytes
    """
    fmt = str(fmt).lower().lstrip(".")
    if f".{fmt}" not in FORMATS or fmt == "csv":
        raise InvalidParameterError(f"unsupported format {fmt!r}; use svg, pdf or png")
    if isinstance(obj, PaperFigure):
        twin_y, title, obj = obj.twin_y or twin_y, title or obj.description, obj.build()
    return figure_bytes(obj, fmt, _size(width, "width"), _size(height, "height"), _dpi(dpi), twin_y=twin_y,
                        title=title)

