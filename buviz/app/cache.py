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
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable

__all__ = ["LRUCache", "cached", "clear_all", "sizes"]

_REGISTRY: list = []
_MISSING = object()


class LRUCache:
    """``fn(*key)`` cached for at most ``max_items`` keys; thread-safe.

    Two threads asking for the same missing key compute it once: the second waits for the first.
    :meth:`peek` answers without computing (the explorer's "is this step cached?").
    """

    def __init__(self, fn: Callable, max_items: int, *, derived: bool = True):
        self.fn, self.max_items = fn, int(max_items)
        if derived:  # what can be computed again; :func:`clear_all` empties it
            _REGISTRY.append(self)
        self.__doc__, self.__name__ = fn.__doc__, fn.__name__
        self._items: OrderedDict[Hashable, object] = OrderedDict()
        self._running: dict[Hashable, threading.Event] = {}
        self._lock = threading.Lock()

    def peek(self, *args):
        """The cached value of ``fn(*args)``, or ``None`` when it is not cached (never computes)."""
        return self.get(args)

    def has(self, *args) -> bool:
        """Whether ``fn(*args)`` is cached (never computes)."""
        return args in self

    def get(self, key: Hashable):
        """The value stored under ``key`` (for a cached function: its argument tuple), or ``None``."""
        with self._lock:
            v = self._items.get(key, _MISSING)
            if v is _MISSING:
                return None
            self._items.move_to_end(key)
            return v

    def __contains__(self, key) -> bool:
        with self._lock:
            return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def __call__(self, *key):
        while True:
            with self._lock:
                v = self._items.get(key, _MISSING)
                if v is not _MISSING:
                    self._items.move_to_end(key)
                    return v
                busy = self._running.get(key)
                if busy is None:
                    busy = self._running[key] = threading.Event()
                    break
            busy.wait()  # another thread computes it; then look again (it may have failed)
        try:
            v = self.fn(*key)
            with self._lock:
                self._items[key] = v
                self._items.move_to_end(key)
                while len(self._items) > self.max_items:
                    self._items.popitem(last=False)
            return v
        finally:
            with self._lock:
                self._running.pop(key, None)
            busy.set()

    def put(self, key: Hashable, value) -> None:
        """Store ``value`` under ``key`` (a store filled from outside, e.g. finished sweep tables;
        for a cached function the key is its argument tuple)."""
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.max_items:
                self._items.popitem(last=False)

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
