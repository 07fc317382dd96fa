"""The explorer's one cache: thread-safe LRU stores around pure compute steps, shared by every
session and every tab of a process.

Every in-memory result of the explorer is kept here: the snapshot pipeline's steps
(:mod:`buviz.app.compute`), Proposal 1, the T̃-amplitude sweep, the discrete tables and Monte
Carlo, the extrapolation toy model (:mod:`buviz.app.tasks`) and the finished CV sweep tables
(:mod:`buviz.app.sweeps`). Each store has a bound (``max_items``, least recently used first out);
:func:`clear_all` empties them all and :func:`sizes` reports them. (The sweep's rows are also kept
on disk by :mod:`buviz.sweep`, outside the process memory, across restarts.)

Keys are the steps' arguments: frozen dataclasses (:mod:`buviz.app.compute`), ints, floats and
short strings.

The storage and the single flight (two threads asking for the same missing key compute it once) are
cachetools' ``LRUCache`` and ``cached(lock=..., condition=...)``. What this module adds is what the
explorer asks of a cache beyond that: answering "is this step cached?" without computing
(:meth:`LRUCache.peek`, :meth:`LRUCache.has`: the store answers a cached request without a thread
hop), a store filled from outside (:meth:`LRUCache.put`: finished sweep tables) and one registry of
every cache (:func:`clear_all`, :func:`sizes`). ``pn.cache`` (Panel 1.9) has no such query, hashes
the arguments at every call and lets every thread that asks for a missing key at once compute it
(its lock guards only the store); ``functools.lru_cache`` has neither a query nor a single flight.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable

import cachetools

__all__ = ["LRUCache", "cached", "clear_all", "sizes"]

_REGISTRY: list = []


def _args_key(*args) -> tuple:
    """The cache key of a call: its argument tuple (what :meth:`LRUCache.get` and ``put`` take)."""
    return args


class LRUCache:
    """``fn(*key)`` cached for at most ``max_items`` keys, least recently used first out; thread-safe.

    Two threads asking for the same missing key compute it once: the second waits for the first
    (cachetools' condition). :meth:`peek` answers without computing (the explorer's "is this step
    cached?").
    """

    def __init__(self, fn: Callable, max_items: int, *, derived: bool = True):
        self.fn, self.max_items = fn, int(max_items)
        if derived:  # what can be computed again; :func:`clear_all` empties it
            _REGISTRY.append(self)
        self.__doc__, self.__name__ = fn.__doc__, fn.__name__
        self._items = cachetools.LRUCache(maxsize=self.max_items)
        self._lock = threading.Condition()
        self._call = cachetools.cached(self._items, key=_args_key, lock=self._lock, condition=self._lock)(fn)

    def peek(self, *args):
        """The cached value of ``fn(*args)``, or ``None`` when it is not cached (never computes)."""
        return self.get(args)

    def has(self, *args) -> bool:
        """Whether ``fn(*args)`` is cached (never computes)."""
        return args in self

    def get(self, key: Hashable):
        """The value stored under ``key`` (for a cached function: its argument tuple), or ``None``
        (a hit counts as a use)."""
        with self._lock:
            return self._items.get(key)

    def __contains__(self, key) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __call__(self, *key):
        return self._call(*key)

    def put(self, key: Hashable, value) -> None:
        """Store ``value`` under ``key`` (a store filled from outside, e.g. finished sweep tables;
        for a cached function the key is its argument tuple)."""
        with self._lock:
            self._items[key] = value

    def pop(self, key: Hashable) -> None:
        """Forget ``key``."""
        with self._lock:
            self._items.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


def cached(max_items: int) -> Callable[[Callable], LRUCache]:
    """Decorator: an :class:`LRUCache` of ``max_items`` around a function of hashable arguments."""
    return lambda fn: LRUCache(fn, max_items)


def clear_all() -> None:
    """Empty every cache of the explorer (tests and benchmarks)."""
    for c in list(_REGISTRY):
        c.clear()


def sizes() -> dict[str, tuple[int, int]]:
    """``{step name: (items, max_items)}`` of every cache (memory checks, the load test)."""
    return {f"{c.fn.__module__}.{c.__name__}": (len(c), c.max_items) for c in _REGISTRY}
