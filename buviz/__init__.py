"""buviz: see how classifiers are evaluated.

Submodules (imported lazily, so ``import buviz`` stays cheap):

- :mod:`buviz.datasets` -- exact Gaussian mixtures, paper datasets, real sets, CSV.
- :mod:`buviz.classifiers` -- discriminant adapters g(X) -> (n, J) and classifier statuses.
- :mod:`buviz.uncertainty` -- boundary uncertainty (Proposal 2 and the Proposal 1 baseline).
- :mod:`buviz.sweep` -- error and uncertainty over a sweep of classifier statuses.
- :mod:`buviz.model_selection` -- Û as a scikit-learn scorer / splitter, ``select_by_uncertainty``.
- :mod:`buviz.extrapolation` -- accuracy extrapolation through D(u).
- :mod:`buviz.discrete` -- exact moments of error estimates in the discrete case.

The package never imports :mod:`panel`; the app lives in :mod:`buviz.app`.
"""

from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

_SUBMODULES = ("datasets", "classifiers", "uncertainty", "sweep", "model_selection", "extrapolation", "discrete",
               "figures")


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f"buviz.{name}")
    raise AttributeError(f"module 'buviz' has no attribute {name!r}")


__all__ = list(_SUBMODULES)
