"""Displays of f-distributions and of sweep curves (Ha et al. 2021, Figs 6-10), on the
:class:`~buviz.plots._display.Display` contract; imported from :mod:`buviz.plots.displays`.

- :class:`CovariateShiftDisplay` -- distributions of f(T;Λ), f(T̃;Λ), f(X_te;Λ) at every d, and for
  d = 2 the three maps on one colour scale (Fig 10).
- :class:`ErrorCurvesDisplay` -- errors and −Û against the status, and error against −Û (Figs 6-9).
- :class:`SensitivityDisplay` -- −Û_tr against the status for several M or K (Figs 12, 13).

Boundary uncertainty after D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary
Uncertainty-Based Estimation for Classifier Evaluation", Journal of Signal Processing Systems,
Springer, 2021 (doi:10.1007/s11265-021-01671-1).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from buviz.grid import GridEvaluation, top2_difference
from buviz.plots import style
from buviz.plots import uncertainty as pb
from buviz.plots._display import GRID_RESOLUTION, Display, as_grid, fields_of, grid_of, plane_of, project

__all__ = ["CovariateShiftDisplay", "ErrorCurvesDisplay", "SensitivityDisplay"]


def _shift_map(X, f, clim, fields, title, colorbar, feature_names, size):
    return pb.shift_map(X, f, clim, fields=fields, title=title, colorbar=colorbar, feature_names=feature_names,
                        size=size)


def _hist(values, clim):
    # framewise (the overlay and each histogram): every frame gets its own ranges. With the first
    # frame's, a later status's peaks were cut off (γ 0 → 5 in the explorer: densities of about 3
    # under a y axis ending at 0.45) while the export, drawn once, was right.
    return style.opts(pb.shift_histograms(values, clim=clim), framewise=True)


class CovariateShiftDisplay(Display):
    """Covariate shift in f (Fig 10): the distributions of f(T;Λ), f(T̃;Λ) and f(X_te;Λ) (panel
    :attr:`hist`, every d) and, when the samples' coordinates are given (d = 2), the three maps on one
    diverging colour scale (panels :attr:`maps`, named after :attr:`NAMES`).

    f is defined at every d, so the histograms show the shift in the space where the paper defines it.

    Parameters
    ----------
    f_train, f_tilde, f_test : ndarray
        f(x;Λ) on T, on T̃ and on the test set.
    X_train, X_tilde, X_test : ndarray of shape (n, 2), optional
        The same samples in the plane of the maps (None: no maps).
    grid : GridEvaluation, optional
        The status on a grid, for B(Λ) on the maps.
    feature_names, class_names, title
        As for every :class:`Display`.
    """

    NAMES = ("f(T)", "f(T̃)", "f(X_te)")
    _fields = ("f_train", "f_tilde", "f_test", "X_train", "X_tilde", "X_test", "grid")

    def __init__(self, *, f_train, f_tilde, f_test, X_train=None, X_tilde=None, X_test=None,
                 grid: GridEvaluation | None = None, feature_names=None,
                 class_names=None, title: str | None = None):
        super().__init__(feature_names=feature_names or ["x1", "x2"], class_names=class_names, title=title)
        self.f_train, self.f_tilde, self.f_test = (np.asarray(v, dtype=float) for v in (f_train, f_tilde, f_test))
        self.X_train, self.X_tilde, self.X_test = X_train, X_tilde, X_test
        self.grid = as_grid(grid)

    @classmethod
    def from_result(cls, result, dataset, *, f_test=None, grid=None, maps: bool = True,
                    resolution: int = GRID_RESOLUTION) -> CovariateShiftDisplay:
        """Compute f on T, T̃ and the test set.

        Parameters
        ----------
        result : BoundaryUncertaintyResult
        dataset : buviz.datasets.Dataset
        f_test : ndarray, optional
            f(x;Λ) on ``dataset.X_test``; computed from ``result.discriminant`` when None.
        grid : GridEvaluation, optional
            The status on a grid (d = 2 maps); evaluated when None.
        maps : bool, default=True
            Draw the maps of a two-feature dataset (the histograms alone when False, or for d > 2).
        """
        maps = maps and dataset.n_features == 2
        axis = plane_of(dataset)[2] if maps else None  # no plane is fitted for the histograms alone
        data = cls._computed(result, dataset, f_test, grid, resolution, maps)
        return cls(**data, feature_names=axis)

    @staticmethod
    def _computed(result, dataset, f_test, grid, resolution, maps: bool) -> dict:
        if f_test is None:
            f_test = top2_difference(result.discriminant(dataset.X_test)) if len(dataset.X_test) else np.empty(0)
        out = {"f_train": result.f_train, "f_tilde": result.f_tilde, "f_test": f_test,
               "X_train": None, "X_tilde": None, "X_test": None, "grid": None}
        if maps:
            out.update(X_train=project(None, dataset.X_train), X_tilde=project(None, result.X_tilde),
                       X_test=project(None, dataset.X_test), grid=grid_of(result, dataset, grid, resolution))
        return out

    def _attributes_of(self, result, *, dataset=None, f_test=None, grid=None,
                       resolution: int = GRID_RESOLUTION) -> dict:
        """The attributes of another status ``result`` of ``dataset``."""
        if dataset is None:
            raise TypeError("CovariateShiftDisplay.update(result=...) needs dataset= (the data the result is of: a "
                            "display holds what it draws, not the data to compute it from)")
        return self._computed(result, dataset, f_test, grid, resolution, self.X_train is not None)

    @property
    def map_names(self) -> list[str]:
        """The panels of the maps drawn, among f(T), f(T̃), f(X_te) (none without coordinates)."""
        return [n for n in self.NAMES if n in self.panels]

    def _panels(self) -> dict:
        out = {}
        if self.X_train is not None:
            out = {n: dict(builders={"map": _shift_map}) for n in self.NAMES}
        out["hist"] = dict(builders={"hist": _hist})
        return out

    def _args(self) -> dict:
        values = dict(zip(self.NAMES, (self.f_train, self.f_tilde, self.f_test), strict=True))
        out = {}
        if self.X_train is not None:
            c = pb.symmetric_limit(*values.values())
            xs = (self.X_train, self.X_tilde, self.X_test)
            for k, (name, X) in enumerate(zip(self.NAMES, xs, strict=True)):
                out[name] = {"map": {"X": X if len(X) else np.empty((0, 2)), "f": values[name], "clim": c,
                                     "fields": fields_of(self.grid), "title": name, "colorbar": k == 2,
                                     "feature_names": self.feature_names, "size": 4 if len(X) <= 3000 else 2.5}}
        out["hist"] = {"hist": {"values": values, "clim": None}}
        return out


#: The sweep columns drawn by default.
COLUMNS = ("L_te", "L_val", "L_ho", "L_tr", "U_tr", "U_te", "U1_tr")


class ErrorCurvesDisplay(Display):
    """Errors and −Û against the status (panel :attr:`curves`: layers ``curves`` and ``current``) and
    error against −Û (panel :attr:`parametric`: layers ``sweep`` and ``current``), from a sweep table
    (Figs 6-9). A new row of a running sweep feeds the curves; a status step moves only the
    current-status layers.

    Parameters
    ----------
    table : DataFrame, optional
        A row per status: the status column ``x`` and columns L_te, L_val, ..., U_tr, ... (absent
        columns, or no table, draw empty curves while a sweep fills in).
    x : str, default="log2_gamma"
        The status column (``"epoch"`` for the MLP).
    current : float, optional
        The current status: a vertical line and markers on L_te and −Û_tr (a ring on the parametric plot).
    columns : sequence of str
        The columns drawn against the status.
    show_parametric : bool, default=True
        Draw the parametric plot (error against −Û) beside the curves.
    title, parametric_title : str
        The two plots' titles.
    """

    _fields = ("table", "x", "current", "columns")
    _prefix = {"parametric": "parametric "}

    def __init__(self, *, table: pd.DataFrame | None = None, x: str = "log2_gamma", current: float | None = None,
                 columns=COLUMNS, show_parametric: bool = True,
                 title: str = "Error (left) and −Û (right) over the sweep",
                 parametric_title: str = "Error against −Û (colour: status)"):
        super().__init__(title=title)
        self.table, self.x, self.current, self.columns = table, x, current, tuple(columns)
        self.parametric_title, self.show_parametric = parametric_title, bool(show_parametric)

    @classmethod
    def from_table(cls, table: pd.DataFrame | None, x: str = "log2_gamma", current: float | None = None,
                   **kw) -> ErrorCurvesDisplay:
        """The curves of a sweep table (a row per status), with the marker at ``current``; ``kw`` as
        for the constructor."""
        return cls(table=table, x=x, current=current, **kw)

    def update(self, **data) -> list[str]:
        """Show new named attributes (:meth:`Display.update`: ``table``, ``current``, ``x``...); returns
        the layers that changed."""
        if "title" in data:
            raise TypeError("ErrorCurvesDisplay.update: the titles are plot options, fixed at construction")
        return super().update(**data)

    def _panels(self) -> dict:
        out = {"curves": dict(
            builders={"curves": pb.error_curve_layers, "current": pb.current_status_layers},
            opts={"multi_y": True, "title": self.title, "legend_position": "right", "framewise": True})}
        if self.show_parametric:
            out["parametric"] = dict(
                builders={"sweep": pb.parametric_layers, "current": pb.parametric_current},
                opts={"title": self.parametric_title, "legend_position": "right", "framewise": True, "padding": 0.08})
        return out

    def _args(self) -> dict:
        t, x = self.table, self.x
        out = {"curves": {"curves": {"table": t, "x": x, "columns": self.columns},
                          "current": {"table": t, "x": x, "current": self.current}}}
        if self.show_parametric:
            out["parametric"] = {"sweep": {"table": t, "x": x},
                                 "current": {"table": t, "x": x, "current": self.current}}
        return out


class SensitivityDisplay(Display):
    """−Û_tr against the status for several settings of one hyper-parameter of Û, M (Fig 12) or K
    (Fig 13), with −Û_te of a reference sweep (panel ``curves``: layers ``settings`` and ``reference``).

    A live figure draws the settings of its first frame: give it the settings it will show (a new
    reference sweep, or new tables for the same settings, update it in place).

    Parameters
    ----------
    tables : mapping of str to DataFrame
        Setting label (``"M = 20"``, ``"K_aic"``...) -> its sweep table (columns ``x`` and ``U_tr``).
    reference : DataFrame, optional
        A sweep whose ``U_te`` is drawn black and dashed.
    x : str, default="log2_gamma"
        The status column.
    title : str
        The plot's title.
    """

    _fields = ("tables", "reference", "x")

    def __init__(self, *, tables, reference: pd.DataFrame | None = None, x: str = "log2_gamma",
                 title: str = "−Û_tr for several settings"):
        super().__init__(title=title)
        self.tables, self.reference, self.x = dict(tables), reference, x

    def _panels(self) -> dict:
        return {"curves": dict(builders={"settings": pb.sensitivity_layers, "reference": pb.reference_layer},
                               opts={"legend_position": "right", "framewise": True})}

    def _args(self) -> dict:
        return {"curves": {"settings": {"tables": self.tables, "x": self.x, "title": self.title},
                           "reference": {"reference": self.reference, "x": self.x}}}
