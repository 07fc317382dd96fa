"""Shared input checks: a bad parameter raises :class:`InvalidParameterError` naming it."""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["InvalidParameterError", "check_int", "check_real", "check_X", "check_Xy"]


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
