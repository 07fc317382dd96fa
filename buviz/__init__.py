"""buviz: see how classifiers are evaluated.

Submodules (imported lazily, so ``import buviz`` stays cheap):

- :mod:`buviz.datasets` -- exact Gaussian mixtures, paper datasets, real sets, CSV.
- :mod:`buviz.classifiers` -- discriminant adapters g(X) -> (n, J) and classifier statuses.
- :mod:`buviz.uncertainty` -- boundary uncertainty (Proposal 2 and the Proposal 1 baseline).
- :mod:`buviz.sweep` -- error and uncertainty over a sweep of classifier statuses.
- :mod:`buviz.model_selection` -- Û as a scikit-learn scorer / splitter, ``select_by_uncertainty``.
- :mod:`buviz.extrapolation` -- accuracy extrapolation through D(u).
- :mod:`buviz.discrete` -- exact moments of error estimates in the discrete case.

- :mod:`buviz.grid` -- evaluate a discriminant on a 2-D grid; the top-2 difference f(x) of every row.

A bad parameter anywhere raises :class:`buviz.InvalidParameterError` (a ``ValueError`` and a
``TypeError``) naming the parameter. The compute modules never import :mod:`panel`,
:mod:`holoviews` or :mod:`bokeh`; the app lives in :mod:`buviz.app`.
"""

from __future__ import annotations

import importlib
from typing import Any

from buviz._validation import InvalidParameterError

__version__ = "0.1.0"

_SUBMODULES = ("datasets", "classifiers", "uncertainty", "sweep", "model_selection", "extrapolation", "discrete",
               "grid", "figures")


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"buviz.{name}")
    raise AttributeError(f"module 'buviz' has no attribute {name!r}")


__all__ = ["InvalidParameterError", *_SUBMODULES]
