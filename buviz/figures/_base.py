"""Base class of the reproduced paper figures and tables, and the registry its subclasses fill.

A figure is a :class:`PaperFigure` subclass: class attributes say which paper and figure it
reproduces, its parameters are typed, bounded and documented ``param`` Parameters (so that validation,
the command line's ``--params`` table and the explorer's widgets all come from one declaration), and
:meth:`PaperFigure.build` returns a HoloViews object (or a ``pandas.DataFrame`` for a table).
"""

from __future__ import annotations

import difflib
import numbers
from typing import ClassVar

import numpy as np
import param
from param.parameterized import Undefined

from buviz._validation import InvalidParameterError
from buviz.plots._hv_compat import parameter_slot_defaults

__all__ = ["PAPERS", "PaperFigure", "Numbers", "REGISTRY", "ALIASES", "accepts_text", "parse_text", "parse_literal"]

#: Full citation of each paper a figure can come from.
PAPERS: dict[str, str] = {
    "uncertainty": ("D. Ha, S. Katagiri, H. Watanabe, M. Ohsaki, \"An Improved Boundary Uncertainty-Based "
                    "Estimation for Classifier Evaluation\", Journal of Signal Processing Systems, Springer, 2021, "
                    "doi:10.1007/s11265-021-01671-1"),
    "extrapolation": ("C. Zheng, R. Achanta, Y. Benjamini, \"Extrapolating expected accuracies for multi-class "
                      "classification\", manuscript, April 21, 2017 (published as \"Extrapolating expected "
                      "accuracies for large multi-class problems\", Journal of Machine Learning Research 19, 2018)"),
    "discrete": ("V. M. Nedel'ko, \"Optimization of the misclassification probability estimate in the discrete "
                 "case\" (in Russian), XVth International Conference Knowledge-Dialogue-Solution KDS 2009, "
                 "Varna, Bulgaria, 2009"),
}

#: Every concrete figure class by its key (``uncertainty_fig6``, ...), filled by subclassing.
REGISTRY: dict[str, type[PaperFigure]] = {}
#: Former names of the figures (``bu_fig6``, ``zheng_fig5``, ``nedelko_table1``, ...) -> their keys.
ALIASES: dict[str, str] = {}


class Numbers(param.List):
    """A list of numbers, each within ``item_bounds`` (and an integer when ``integer``)."""

    __slots__ = ["item_bounds", "integer"]
    _slot_defaults = parameter_slot_defaults(param.List, item_bounds=(None, None), integer=False)

    def __init__(self, default=Undefined, *, item_bounds=Undefined, integer=Undefined, **params):
        self.item_bounds = item_bounds
        self.integer = integer
        super().__init__(default=default, item_type=numbers.Real, **params)

    def _validate(self, val):
        super()._validate(val)
        if val is None:
            return
        lo, hi = self.item_bounds
        for v in val:
            if isinstance(v, bool) or (self.integer and not isinstance(v, numbers.Integral)):
                raise TypeError(f"{self.name} must hold {'integers' if self.integer else 'numbers'}, got {v!r}")
            if not np.isfinite(v) or (lo is not None and v < lo) or (hi is not None and v > hi):
                raise ValueError(f"{self.name} values must lie in [{lo}, {hi}], got {v!r}")


def _range(kind: str, bounds) -> str:
    lo, hi = bounds if bounds is not None else (None, None)
    if lo is not None and hi is not None:
        return f"{kind} in [{lo:g}, {hi:g}]"
    if lo is not None:
        return f"{kind} ≥ {lo:g}"
    if hi is not None:
        return f"{kind} ≤ {hi:g}"
    return kind


def accepts_text(p: param.Parameter) -> str:
    """What a figure parameter accepts, in words (as ``buviz figure NAME --params`` prints it)."""
    if isinstance(p, param.Boolean):
        text = "true/false"
    elif isinstance(p, param.Integer):
        text = _range("integer", p.bounds)
    elif isinstance(p, param.Number):
        text = _range("number", p.bounds)
    elif isinstance(p, param.ListSelector):
        text = f"among {', '.join(map(str, p.objects))} (a list)"
    elif isinstance(p, param.Selector):
        text = ", ".join(map(str, p.objects))
    elif isinstance(p, Numbers):
        text = _range("integers" if p.integer else "numbers", p.item_bounds) + " (a list"
        lo = (p.bounds or (None, None))[0]
        text += ", at least two)" if lo == 2 else ")"
    else:
        text = type(p).__name__.lower()
    return f"none, or {text}" if p.allow_None and p.default is None else text


class PaperFigure(param.Parameterized):
    """A reproduced figure or table of one of the papers; subclasses declare its parameters.

    Attributes
    ----------
    key : str
        Registry name, ``<paper>_fig<N>`` or ``<paper>_table<N>``.
    alias : str
        Former name (``bu_fig6``, ...), still accepted everywhere.
    paper : str
        ``"uncertainty"``, ``"extrapolation"`` or ``"discrete"`` (see :data:`PAPERS`).
    number : str
        The figure or table in the paper (``"Fig 6"``).
    kind : str
        ``"figure"`` (:meth:`build` returns HoloViews) or ``"table"`` (a ``pandas.DataFrame``).
    twin_y : bool
        Errors on the left axis, −Û on a right-hand axis in the static export.
    size : tuple of float
        Default export size in inches, at which no text overlaps.
    description : str
        One line, the first line of the class docstring.
    accepts : dict
        Words for what a parameter accepts where they depend on another parameter.
    """

    key: ClassVar[str] = ""
    alias: ClassVar[str] = ""
    paper: ClassVar[str] = ""
    number: ClassVar[str] = ""
    kind: ClassVar[str] = "figure"
    twin_y: ClassVar[bool] = False
    size: ClassVar[tuple[float, float]] = (6.0, 4.0)
    description: ClassVar[str] = ""
    accepts: ClassVar[dict[str, str]] = {}

    __abstract = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.description = (cls.__doc__ or "").strip().splitlines()[0] if cls.__doc__ else cls.__name__
        if "key" in cls.__dict__ and cls.key:
            if cls.paper not in PAPERS or cls.kind not in ("figure", "table"):
                raise TypeError(f"{cls.__name__}: paper must be one of {sorted(PAPERS)}, kind figure or table")
            REGISTRY[cls.key] = cls
            if cls.alias:
                ALIASES[cls.alias] = cls.key

    @classmethod
    def state_measured(cls, claim: str, measured: str) -> None:
        """Make the description (and the docstring's first line, which the docs gallery and API pages read)
        say the paper's claim and what buviz measures on the shipped tables.

        The docstring copy escapes ``|`` (``max |Û_tr − Û_te|``), which reStructuredText reads as a
        substitution reference.
        """
        title, _, rest = (cls.__doc__ or "").partition("\n")
        cls.description = f"{title.strip().rstrip('.')}. Paper: {claim}. buviz measures: {measured}."
        cls.__doc__ = f"{cls.description.replace('|', chr(92) + '|')}\n{rest}"

    def __init__(self, **params):
        accepted = self.parameter_names()
        for key in params:
            if key not in accepted:
                close = difflib.get_close_matches(str(key), accepted, n=2)
                hint = f" (did you mean {' or '.join(close)}?)" if close else ""
                raise InvalidParameterError(
                    f"figure {self.key!r} has no parameter {key!r}{hint}; accepted: "
                    f"{', '.join(accepted) if accepted else '(none)'}")
        super().__init__()
        for key, value in params.items():
            self.set(key, value)

    @classmethod
    def parameter_names(cls) -> list[str]:
        """The figure's parameters, in declaration order."""
        return [n for n in cls.param if n != "name"]

    @classmethod
    def accepts_text(cls, name: str) -> str:
        """What parameter ``name`` accepts, in words."""
        return cls.accepts.get(name) or accepts_text(cls.param[name])

    @classmethod
    def citation(cls) -> str:
        """Full reference of the paper and the figure reproduced."""
        return f"{PAPERS[cls.paper]}, {cls.number}" if cls.number else PAPERS[cls.paper]

    def set(self, name: str, value) -> None:
        """Set parameter ``name``; a bad value raises :class:`InvalidParameterError` naming the figure, the
        parameter and what it accepts. Integral floats count as integers, tuples and single values as lists."""
        p = self.param[name]
        if isinstance(p, param.Integer) and isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(p, param.List | param.ListSelector):
            if isinstance(value, tuple | np.ndarray):
                value = list(value.tolist() if isinstance(value, np.ndarray) else value)
            elif not isinstance(value, list) and value is not None:
                value = [value]
        if isinstance(p, param.Number) and isinstance(value, bool):
            raise InvalidParameterError(self._bad(name, value, "a boolean is not a number"))
        try:
            setattr(self, name, value)
        except (ValueError, TypeError) as exc:
            raise InvalidParameterError(self._bad(name, value, str(exc))) from None

    def _bad(self, name: str, value, why: str) -> str:
        return (f"figure {self.key!r}: parameter {name!r} got {value!r}; it accepts {self.accepts_text(name)} "
                f"({why})")

    def check(self, name: str, value, low=None, high=None):
        """Check a bound that depends on another parameter (or on the data); returns ``value``."""
        if (low is not None and value < low) or (high is not None and value > high):
            raise InvalidParameterError(self._bad(name, value, f"must lie in [{low}, {high}] here"))
        return value

    def build(self):
        """The HoloViews object of the figure, or the ``pandas.DataFrame`` of a table."""
        raise NotImplementedError


def parse_text(p: param.Parameter, text: str):
    """A value typed as text (the CLI's ``--set``, the explorer's Figures tab) read as what ``p`` holds.

    Text that does not parse is returned as is, so that the figure's own check reports it with the
    accepted values.
    """
    if text.lower() == "none" and p.allow_None:
        return None
    if isinstance(p, param.Boolean):
        return {"true": True, "false": False}.get(text.lower(), text)
    if isinstance(p, param.Integer | param.Number):
        return parse_literal(text) if "," not in text else text
    if isinstance(p, param.Selector) and not isinstance(p, param.ListSelector):
        return text
    if isinstance(p, param.ListSelector):
        return [t.strip() for t in text.split(",") if t.strip()]
    if isinstance(p, param.List):
        return [parse_literal(t.strip()) for t in text.split(",") if t.strip()]
    return parse_literal(text)


def parse_literal(text: str):
    """int, float, bool, None, a comma list of those, or the string itself (never evaluated as code)."""
    if "," in text:
        return [parse_literal(t) for t in text.split(",") if t]
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low == "none":
        return None
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text
