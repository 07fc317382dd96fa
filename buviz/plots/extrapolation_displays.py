"""Displays of accuracy extrapolation, on the :class:`~buviz.plots._display.Display` contract; imported
from :mod:`buviz.plots.displays`.

- :class:`ToyModelDisplay` -- the bivariate-normal toy model at one ρ beside reference values of ρ:
  U_x(y) (Fig 7a), D̄(u) (Figs 7b, 8b), the k-class risk (Fig 6) and the polynomial error of D̄ (Fig 8c).
- :class:`ExtrapolationDisplay` -- AverageTA_k on the observed classes (eq 3), each estimator's
  extrapolation, the truth and reference predictions (Fig 11), and the moment method's fitted D̄(u).

After C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large Multi-Class
Problems", Journal of Machine Learning Research 19, 1-30, 2018.
"""

from __future__ import annotations

from collections.abc import Mapping

import holoviews as hv
import numpy as np
import pandas as pd

from buviz import extrapolation as ex
from buviz.plots import extrapolation as xp
from buviz.plots import style
from buviz.plots._display import Display

__all__ = ["ToyModelDisplay", "ExtrapolationDisplay"]


class ToyModelDisplay(Display):
    """The toy model of §4.1 at one ρ, live: four panels, ``level_sets`` (U_x(y), Fig 7a), ``dbar``
    (D̄(u) = P(U ≤ u) of the reference ρ and of this ρ, Figs 7b and 8b), ``risk`` (the k-class risk
    over random label sets, its mean and AvRisk_k of Theorem 4.1, Fig 6) and ``polynomial_error``
    (the ℓ∞ error of D̄'s best polynomial approximations, Fig 8c).

    The reference ρ are fixed at construction; a new ρ (:meth:`update`) redraws the same layers, so
    a live figure follows a ρ slider in place.

    Parameters
    ----------
    rho : float
        The correlation ρ shown.
    reference_rhos : sequence of float
        The ρ drawn beside it.
    level_grid : tuple of ndarray
        ``(y, x, U)``, U_x(y) on a grid (:func:`buviz.extrapolation.toy_accuracy_grid`).
    dbar : dict of float to tuple of ndarray
        ρ -> ``(u, D̄(u))``, for ``rho`` and every reference ρ.
    distribution : DataFrame
        The k-class risk of random label sets (:func:`buviz.extrapolation.toy_risk_distribution`).
    avrisk : ndarray
        AvRisk_k at the sorted k of ``distribution``.
    polynomial_error : DataFrame
        Rows ``rho``, ``degree``, ``linf_error`` for ``rho`` and the reference ρ.
    """

    NAMES = ("level_sets", "dbar", "risk", "polynomial_error")
    _fields = ("rho", "level_grid", "dbar", "distribution", "avrisk", "polynomial_error")

    def __init__(self, *, rho: float, reference_rhos, level_grid, dbar: Mapping, distribution: pd.DataFrame, avrisk,
                 polynomial_error: pd.DataFrame, title: str | None = None):
        super().__init__(title=title)
        self.rho, self.reference_rhos = float(rho), tuple(float(r) for r in reference_rhos)
        self.level_grid, self.dbar, self.distribution = level_grid, dict(dbar), distribution
        self.avrisk, self.polynomial_error = np.asarray(avrisk, dtype=float), polynomial_error

    @classmethod
    def from_rho(cls, rho: float, reference_rhos=ex.TOY_REFERENCE_RHOS, **kw) -> ToyModelDisplay:
        """Compute the toy model at ``rho`` (:func:`buviz.extrapolation.toy_model_summary`, whose
        keyword arguments ``kw`` takes)."""
        return cls(**ex.toy_model_summary(rho, reference_rhos, **kw))

    def _attributes_of(self, result, **kw) -> dict:
        """``update(result=summary)`` shows a :func:`~buviz.extrapolation.toy_model_summary` with this
        display's reference ρ (a display draws what it is given; :meth:`from_rho` is what computes)."""
        if not isinstance(result, Mapping) or kw:
            raise TypeError("ToyModelDisplay.update(result=...) takes a toy_model_summary: "
                            "update(result=buviz.extrapolation.toy_model_summary(rho, display.reference_rhos))")
        summary = result
        if tuple(summary["reference_rhos"]) != self.reference_rhos:
            raise ValueError(f"reference_rhos must stay {self.reference_rhos} (a live figure keeps its layers), "
                             f"got {tuple(summary['reference_rhos'])}")
        return {k: summary[k] for k in self._fields}

    def _panels(self) -> dict:
        builders = {"level_sets": xp.toy_level_sets, "dbar": xp.dbar_curves, "risk": xp.risk_distribution,
                    "polynomial_error": xp.polynomial_error}
        return {name: dict(builders={name: builders[name]}) for name in self.NAMES}

    def _args(self) -> dict:
        rho, refs, err = self.rho, self.reference_rhos, self.polynomial_error
        return {"level_sets": {"level_sets": {"grid": self.level_grid, "rho": rho}},
                "dbar": {"dbar": {"dbar": {r: self.dbar[r] for r in refs}, "highlight": (rho, self.dbar[rho])}},
                "risk": {"risk": {"dist": self.distribution, "rho": rho, "avrisk": self.avrisk}},
                "polynomial_error": {"polynomial_error": {"err": err[err["rho"].isin(refs)],
                                                          "highlight": err[err["rho"] == rho]}}}


#: The legend name of the observed curve.
OBSERVED = "AverageTA_k (observed, eq 3)"
_MARKERS = ("triangle", "square", "diamond", "inverted_triangle")
_ACCURACY = hv.Dimension("accuracy", range=(0, 1))


def _extrapolation_layers(observed, estimates, truth, k_observed, references, methods, reference_names,
                          title) -> hv.Overlay:
    """The layers of :class:`ExtrapolationDisplay`'s curves, the same whatever the data: the observed
    curve, the truth and its last point, a curve per estimator of ``methods`` and a marker per name of
    ``reference_names`` (empty where there is no data), the line at ``k_observed``."""
    empty = np.empty(0)
    tk, ta = truth if truth is not None else (empty, empty)
    tk, ta = np.asarray(tk), np.asarray(ta)
    layers = [style.opts(hv.Curve(tuple(observed), "k", _ACCURACY, label=OBSERVED), color="black", line_width=3,
                         title=title),
              style.opts(hv.Curve((tk, ta) if len(tk) > 1 else (empty, empty), "k", "accuracy", label="ground truth"),
                         color="#777777", line_dash="dashed", line_width=3),
              style.opts(hv.Scatter((tk[-1:], ta[-1:]), "k", "accuracy", label="truth at all classes"),
                         color="black", marker="star", size=14)]
    for i, name in enumerate(methods):
        k, a = estimates.get(name, (empty, empty))
        layers.append(style.opts(hv.Curve((k, a), "k", "accuracy", label=name), color=style.PALETTE[i % 6]))
    for i, name in enumerate(reference_names):
        at = references.get(name)
        point = ([at[0]], [at[1]]) if at is not None else (empty, empty)
        layers.append(style.opts(hv.Scatter(point, "k", "accuracy", label=name),
                                 color=style.PALETTE[(i + 4) % len(style.PALETTE)],
                                 marker=_MARKERS[i % len(_MARKERS)], size=10))
    vline = np.nan if k_observed is None else float(k_observed)
    layers.append(style.opts(hv.VLine(vline, kdims=["k", "accuracy"]), color="black", line_dash="dotted"))
    return hv.Overlay(layers)


def _fitted_dbar(dbar_fit, title) -> hv.Overlay:
    u = np.linspace(0, 1, 401)
    d = dbar_fit.dbar(u) if dbar_fit is not None else np.full_like(u, np.nan)
    return hv.Overlay([style.opts(hv.Curve((u, d), "u", hv.Dimension("Dbar", label="D̄(u)"), label="fitted D̄(u)"),
                                  color=style.PALETTE[0], title=title)])


class ExtrapolationDisplay(Display):
    """Accuracy extrapolation from K observed classes (Fig 11), live: panel ``curves`` draws AverageTA_k
    on the observed classes (eq 3), each estimator's predicted accuracy against k, the truth (a curve,
    and a star at its largest k) and reference predictions (e.g. the ClassEx R package's) as markers;
    panel ``dbar`` draws the moment method's fitted D̄(u) (eq 14) when one is given.

    The estimators drawn are every one of :data:`buviz.extrapolation.METHODS` (then any other name of
    ``estimates``) and the references are the names given at construction, each empty without data: a
    live figure keeps its layers whatever the data.

    Parameters
    ----------
    observed : tuple of ndarray
        ``(ks, AverageTA_k)`` on the observed classes.
    estimates : dict of str to tuple of ndarray
        Estimator -> ``(k, predicted accuracy)``.
    truth : tuple of ndarray, optional
        ``(k, true accuracy)``: the classifier trained on every class (a curve from two points on).
    k_observed : int, optional
        The number K of observed classes (a dotted line).
    references : dict of str to tuple of float, optional
        Name -> ``(k, predicted accuracy)``, a marker each.
    dbar_fit : DbarFit, optional
        The moment method's fit (:attr:`buviz.extrapolation.Extrapolation.dbar_fit`).
    show_dbar : bool, optional
        Draw the panel ``dbar`` (default: when ``dbar_fit`` is given; True keeps it for fits to come).
    title : str, optional
        The curves' title.

    Raises
    ------
    ValueError
        If :meth:`update` gives a reference the display was not built with.
    """

    _fields = ("observed", "estimates", "truth", "k_observed", "references", "dbar_fit")

    def __init__(self, *, observed, estimates: Mapping, truth=None, k_observed: int | None = None,
                 references: Mapping | None = None, dbar_fit=None, show_dbar: bool | None = None,
                 title: str | None = "Accuracy extrapolation"):
        super().__init__(title=title)
        self.observed, self.estimates, self.truth = observed, dict(estimates), truth
        self.k_observed, self.references, self.dbar_fit = k_observed, dict(references or {}), dbar_fit
        self._methods = (*ex.METHODS, *(m for m in self.estimates if m not in ex.METHODS))
        self._reference_names = tuple(self.references)
        self.show_dbar = dbar_fit is not None if show_dbar is None else bool(show_dbar)

    @classmethod
    def from_curves(cls, curves: ex.ExtrapolationCurves, *, basis: str | None = None, **kw) -> ExtrapolationDisplay:
        """The display of :func:`buviz.extrapolation.extrapolation_curves` (its moment fit's D̄(u),
        when it has one); ``basis`` names the moment method's basis in the title."""
        return cls(**{**cls._of_curves(curves, basis), **kw})

    @classmethod
    def from_peer_comparison(cls, data: Mapping, **kw) -> ExtrapolationDisplay:
        """The display of :func:`buviz.extrapolation.peer_comparison`: one ClassEx fixture instance, the
        R package's predictions as references."""
        return cls(**{**cls._of_peer(data), **kw})

    @staticmethod
    def _of_curves(c: ex.ExtrapolationCurves, basis: str | None) -> dict:
        moment = c.fits.get("moment")
        title = f"Extrapolation, {c.K} → {c.n_classes} classes"
        return {"observed": (c.ks, c.observed), "estimates": {m: (c.k_grid, a) for m, a in c.estimates.items()},
                "truth": (c.truth_ks, c.truth), "k_observed": c.K, "references": {},
                "dbar_fit": None if moment is None else moment.dbar_fit,
                "title": title + (f" (moment basis: {basis})" if basis and moment is not None else "")}

    @staticmethod
    def _of_peer(d: Mapping) -> dict:
        k_tot = d["k_total"]
        return {"observed": d["observed"], "estimates": d["estimates"], "truth": d["truth"],
                "k_observed": d["k_observed"], "dbar_fit": None,
                "references": {f"ClassEx (R): {n}": (k_tot, v) for n, v in d["peer"].items()},
                "title": f"ClassEx fixture, σ² = {d['sigma2']:g}: {d['k_observed']} observed → {k_tot} classes"}

    def _attributes_of(self, result, *, basis: str | None = None) -> dict:
        """``update(result=curves, basis=...)`` or ``update(result=peer_comparison)``, as the class methods."""
        return self._of_curves(result, basis) if isinstance(result, ex.ExtrapolationCurves) else self._of_peer(result)

    def update(self, **data) -> list[str]:
        """Show new data (:meth:`Display.update`); the references keep the names of the first."""
        data = self._data_of(data)
        unknown = sorted(set(data.get("references", {})) - set(self._reference_names))
        if unknown:
            raise ValueError(f"references must be among {list(self._reference_names)} (a live figure keeps its "
                             f"layers), got {unknown}")
        return super().update(**data)

    def _panels(self) -> dict:
        out = {"curves": dict(builders={"curves": _extrapolation_layers},
                              opts={"logx": True, "legend_position": "bottom_left", "framewise": True})}
        if self.show_dbar:
            out["dbar"] = dict(builders={"dbar": _fitted_dbar}, opts={"legend_position": "top_left"})
        return out

    def _args(self) -> dict:
        basis = getattr(self.dbar_fit, "basis", None)
        out = {"curves": {"curves": {"observed": self.observed, "estimates": self.estimates, "truth": self.truth,
                                     "k_observed": self.k_observed, "references": self.references,
                                     "methods": self._methods, "reference_names": self._reference_names,
                                     "title": self.title}}}
        if self.show_dbar:
            out["dbar"] = {"dbar": {"dbar_fit": self.dbar_fit,
                                    "title": "Fitted D̄(u)" + (f", {basis} basis" if basis else "")}}
        return out
