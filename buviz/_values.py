"""Result objects are values: frozen, holding read-only arrays that nothing else can change.

Every result class of the package is a ``@dataclass(frozen=True)`` whose ``__post_init__`` calls
:func:`freeze_fields`. An array field is kept as it is when it is read-only and so is every array
it is a view of (a computation seals its fresh arrays with :func:`seal`, an estimator keeps its
fitted arrays read-only), and copied once otherwise. What a result or an estimator holds is a view of
a read-only array, which numpy will not make writeable again (``flags.writeable = True`` raises), so
no write through a result's or an estimator's attribute reaches the memory results share (only code
that reaches for ``.base`` and unlocks it could). Lists become tuples and dicts
:class:`FrozenDict`. No copy is made on the package's own paths, and a caller's writeable array handed to a
result constructor is copied rather than frozen behind the caller's back.
"""

from __future__ import annotations

import dataclasses

import numpy as np

__all__ = ["FrozenDict", "freeze_fields", "seal", "sealed", "value_array"]


class FrozenDict(dict):
    """A dict that refuses changes (and still pickles, unlike ``types.MappingProxyType``)."""

    def _refuse(self, *args, **kwargs):
        raise TypeError(f"{type(self).__name__} is read-only: a result's mappings are values")

    __setitem__ = __delitem__ = __ior__ = clear = pop = popitem = setdefault = update = _refuse

    def __reduce__(self):
        return type(self), (dict(self),)


def seal(*arrays: np.ndarray | None) -> None:
    """Make freshly computed arrays read-only in place (for arrays nobody else holds).

    Parameters
    ----------
    *arrays : ndarray or None
        Arrays that the caller created and hands over; None is skipped.
    """
    for a in arrays:
        if isinstance(a, np.ndarray):
            a.flags.writeable = False


def sealed(a: np.ndarray) -> np.ndarray:
    """Return a freshly computed array made read-only, copied once if it is a view of a writeable array.

    For an estimator's fitted arrays (results hold views of them) and a result's computed-on-first-use
    properties.

    Parameters
    ----------
    a : ndarray
        An array the caller created (or a view of one).

    Returns
    -------
    ndarray
        ``a`` read-only (a view of it where it owns its memory, which numpy will not make writeable
        again) when it owns its memory or views only read-only arrays; else a read-only copy.
    """
    seal(a)
    return value_array(a)  # a view of the sealed array when it owns its memory: locked read-only


def _frozen_chain(a: np.ndarray) -> bool:
    """True where ``a`` and every ndarray it is a view of are read-only and the chain ends in numpy's own memory."""
    while isinstance(a, np.ndarray):
        if a.flags.writeable:
            return False
        if a.base is None:
            return True
        a = a.base
    return False  # memory owned by something that is not an ndarray (a torch tensor, a buffer): copy


def value_array(a: np.ndarray) -> np.ndarray:
    """Return ``a`` if it is read-only all the way down (a view of it where it owns its memory), else a
    read-only copy of it.

    Parameters
    ----------
    a : ndarray
        An array a result will hold.

    Returns
    -------
    ndarray
        A read-only array that no writeable array shares memory with.
    """
    if not _frozen_chain(a):
        a = a.copy()
        a.flags.writeable = False
    return _locked(a)


def _locked(a: np.ndarray) -> np.ndarray:
    """A read-only array that cannot be made writeable again: a view of ``a`` where ``a`` owns its
    memory (numpy refuses ``flags.writeable = True`` on a view of a read-only array), else ``a``."""
    return a.view() if a.base is None else a


def _value(v):
    if isinstance(v, np.ndarray):
        return value_array(v)
    if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
        return tuple(_value(x) for x in v)
    if isinstance(v, dict) and not isinstance(v, FrozenDict):
        return FrozenDict({k: _value(x) for k, x in v.items()})
    return v


def freeze_fields(obj) -> None:
    """Make every field of a frozen dataclass instance a value (see the module docstring).

    Parameters
    ----------
    obj : dataclass instance
        Called from its ``__post_init__``.
    """
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name)
        w = _value(v)
        if w is not v:
            object.__setattr__(obj, f.name, w)
