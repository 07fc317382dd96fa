"""Shared input checks: a bad parameter raises :class:`InvalidParameterError` naming it."""

from __future__ import annotations

import functools
import numbers
from collections.abc import Callable, Iterable, Iterator

import numpy as np

__all__ = ["InvalidParameterError", "Interval", "Options", "SequenceOf", "InstanceOf", "Satisfies", "RANDOM_STATE",
           "check_params", "fit_context", "check_int", "check_real", "check_X", "check_Xy"]


class InvalidParameterError(ValueError, TypeError):
    """A parameter of a buviz function or class has an invalid type or value.

    One exception class for both kinds of mistake, as in scikit-learn: it derives from both
    :class:`ValueError` and :class:`TypeError`, so ``except ValueError`` and ``except TypeError``
    both catch it. The message names the parameter and its valid values.

    Examples
    --------
    >>> from buviz.datasets import paper_mixture
    >>> try:
    ...     paper_mixture("nope")
    ... except InvalidParameterError as exc:
    ...     print(str(exc).split(" must")[0])
    name
    """


def check_int(value, name: str, *, low: int | None = None, high: int | None = None) -> int:
    """Return ``value`` as an int, or raise :class:`InvalidParameterError` naming ``name``.

    Accepts Python and numpy integers (and integral floats such as ``4.0``); rejects bools.
    """
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InvalidParameterError(f"{name} must be an integer, got {value!r}")
    if not float(value).is_integer():
        raise InvalidParameterError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if low is not None and value < low:
        raise InvalidParameterError(f"{name} must be >= {low}, got {value}")
    if high is not None and value > high:
        raise InvalidParameterError(f"{name} must be <= {high}, got {value}")
    return value


def check_real(value, name: str, *, low: float | None = None, high: float | None = None,
               low_open: bool = False) -> float:
    """Return ``value`` as a finite float within bounds, or raise :class:`InvalidParameterError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
        raise InvalidParameterError(f"{name} must be a finite number, got {value!r}")
    value = float(value)
    if low is not None and (value <= low if low_open else value < low):
        raise InvalidParameterError(f"{name} must be {'>' if low_open else '>='} {low}, got {value}")
    if high is not None and value > high:
        raise InvalidParameterError(f"{name} must be <= {high}, got {value}")
    return value


def check_X(X, name: str = "X", *, n_features: int | None = None) -> np.ndarray:
    """Return a 2-D finite float array; raise :class:`InvalidParameterError` naming ``name`` otherwise."""
    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"{name} must be numeric: {exc}") from None
    if X.ndim != 2:
        raise InvalidParameterError(f"{name} must be 2-D (n_samples, n_features), got shape {X.shape}")
    if X.shape[0] == 0:
        raise InvalidParameterError(f"{name} has no samples")
    if not np.all(np.isfinite(X)):
        raise InvalidParameterError(f"{name} contains NaN or infinite values")
    if n_features is not None and X.shape[1] != n_features:
        raise InvalidParameterError(f"{name} must have {n_features} features, got {X.shape[1]}")
    return X


def check_Xy(X, y, *, min_classes: int = 2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validate a labelled sample; return ``(X, y_codes, classes)`` with ``y_codes`` in 0..J-1."""
    X = check_X(X)
    y = np.asarray(y)
    if y.ndim != 1:
        raise InvalidParameterError(f"y must be 1-D, got shape {y.shape}")
    if len(y) != len(X):
        raise InvalidParameterError(f"X and y have different lengths: {len(X)} != {len(y)}")
    classes, codes = np.unique(y, return_inverse=True)
    if len(classes) < min_classes:
        raise InvalidParameterError(f"y must hold at least {min_classes} classes, got {len(classes)}")
    return X, codes.astype(np.intp), classes


# -- declared constraints ---------------------------------------------------------------------------
# Every estimator declares ``_parameter_constraints``: parameter name -> list of accepted forms (any one
# suffices). A form is ``None`` (the value None), an :class:`Interval`, :class:`Options`,
# :class:`SequenceOf`, :class:`InstanceOf` or :class:`Satisfies`. :func:`fit_context` checks them all
# before ``fit`` runs, the way scikit-learn's ``_fit_context`` does; checks that need the data
# (``M <= N``) stay in ``fit``.


class Interval:
    """Numbers of one kind between two bounds.

    Parameters
    ----------
    kind : {"int", "real"}
        ``"int"``: integers (Python or numpy, or integral floats such as ``4.0``; never bools);
        ``"real"``: finite real numbers (integers included).
    low, high : float or None
        The bounds; None for no bound.
    closed : {"both", "left", "right", "neither"}, default="both"
        Which bounds belong to the interval.
    """

    def __init__(self, kind: str, low: float | None = None, high: float | None = None, *, closed: str = "both"):
        if kind not in ("int", "real") or closed not in ("both", "left", "right", "neither"):
            raise ValueError(f"bad Interval({kind!r}, closed={closed!r})")
        self.kind, self.low, self.high, self.closed = kind, low, high, closed

    def __call__(self, value) -> bool:
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value):
            return False
        if self.kind == "int" and not float(value).is_integer():
            return False
        if self.low is not None and (value < self.low or (value == self.low and self.closed in ("right", "neither"))):
            return False
        return not (self.high is not None
                    and (value > self.high or (value == self.high and self.closed in ("left", "neither"))))

    def __str__(self) -> str:
        what = "an integer" if self.kind == "int" else "a finite number"
        lo_in, hi_in = self.closed in ("both", "left"), self.closed in ("both", "right")
        if self.low is not None and self.high is not None:
            return f"{what} in {'[' if lo_in else '('}{self.low}, {self.high}{']' if hi_in else ')'}"
        if self.low is not None:
            return f"{what} {'>=' if lo_in else '>'} {self.low}"
        if self.high is not None:
            return f"{what} {'<=' if hi_in else '<'} {self.high}"
        return what


class Options:
    """One of a fixed set of values (compared with ``==``, types checked so that ``True != 1``)."""

    def __init__(self, *values):
        self.values = values

    def __call__(self, value) -> bool:
        return any(type(value) is type(v) and value == v for v in self.values)

    def __str__(self) -> str:
        return "one of " + ", ".join(repr(v) for v in self.values)


class SequenceOf:
    """A non-empty collection (list, tuple, range, 1-D array; not a one-shot iterator) of items satisfying ``item``."""

    def __init__(self, item: Callable[[object], bool], *, min_length: int = 1):
        self.item, self.min_length = item, min_length

    def __call__(self, value) -> bool:
        if isinstance(value, (str, bytes, Iterator)) or not isinstance(value, Iterable):
            return False
        if isinstance(value, np.ndarray):
            if value.ndim != 1:
                return False
            value = value.tolist()
        items = list(value)
        return len(items) >= self.min_length and all(self.item(v) for v in items)

    def __str__(self) -> str:
        return f"a non-empty sequence of items each {self.item}"


class InstanceOf:
    """An instance of one of ``types``, described as ``description``."""

    def __init__(self, *types: type, description: str):
        self.types, self.description = types, description

    def __call__(self, value) -> bool:
        return isinstance(value, self.types) and not (isinstance(value, bool) and bool not in self.types)

    def __str__(self) -> str:
        return self.description


class Satisfies:
    """A value for which ``predicate(value)`` is true, described as ``description``."""

    def __init__(self, predicate: Callable[[object], bool], *, description: str):
        self.predicate, self.description = predicate, description

    def __call__(self, value) -> bool:
        return bool(self.predicate(value))

    def __str__(self) -> str:
        return self.description


#: Accepted forms of a ``random_state``: None, an integer >= 0 or a numpy random generator.
RANDOM_STATE = [None, Interval("int", 0, None),
                InstanceOf(np.random.Generator, np.random.RandomState, description="a numpy Generator")]


def _satisfied(form, value) -> bool:
    return value is None if form is None else bool(form(value))


def check_params(params: dict, constraints: dict, owner: str) -> None:
    """Check ``params`` against their declared ``constraints``; raise naming the first bad one.

    Parameters
    ----------
    params : dict
        Parameter name -> value (``estimator.get_params(deep=False)``).
    constraints : dict
        Parameter name -> list of accepted forms (``None``, :class:`Interval`, :class:`Options`,
        :class:`SequenceOf`, :class:`InstanceOf`, :class:`Satisfies`).
    owner : str
        The class or function the parameters belong to, named in the message.

    Raises
    ------
    InvalidParameterError
        If a value satisfies none of its forms, e.g. ``"M must be an integer >= 2, got 1
        (a parameter of BoundaryUncertainty)"``.
    """
    for name, forms in constraints.items():
        if name not in params:
            continue
        value = params[name]
        if not any(_satisfied(form, value) for form in forms):
            accepted = " or ".join("None" if form is None else str(form) for form in forms)
            raise InvalidParameterError(f"{name} must be {accepted}, got {value!r} (a parameter of {owner})")


def fit_context(fit: Callable) -> Callable:
    """Decorate an estimator's ``fit``: check ``type(self)._parameter_constraints`` first.

    The one place where an estimator's hyper-parameters are validated, in the manner of
    scikit-learn's ``_fit_context``: ``fit`` itself only checks what needs the data (e.g. ``M <= N``).
    """

    @functools.wraps(fit)
    def checked_fit(self, *args, **kwargs):
        check_params(self.get_params(deep=False), type(self)._parameter_constraints, type(self).__name__)
        return fit(self, *args, **kwargs)

    return checked_fit
