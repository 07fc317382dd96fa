"""Display objects between boundary-uncertainty results and the panes and notebook cells that show them.

After scikit-learn's Display objects: the constructor takes the data to draw (keyword only, kept as
public attributes), ``from_result`` / ``from_table`` / ``from_estimator`` compute that data from a
result (:class:`~buviz.uncertainty.BoundaryUncertaintyResult`, a sweep table) and its dataset, and
:meth:`~Display.plot` only draws: one live HoloViews object, fed by :meth:`~Display.update`. A
display is shown by Panel (``pn.panel(d)``, ``__panel__``) and as a notebook cell's last line. Every
display derives from :class:`Display` (:mod:`buviz.plots._display`).

- :class:`SampleSpaceDisplay` -- T by class (or by f(x;Λ)), predicted regions, B(Λ), B*, Proposal 1
  (Figs 3, 5, 15); d > 2: T in a plane fitted on T with the near-boundary samples of each pair.
- :class:`WeightsDisplay` -- probability weights k̂(x)/w_kl (Fig 14), at every d.
- :class:`OneSampleDisplay` -- one sample's N^M(x) and its kernel estimate in f-space (Fig 4).
- :class:`CovariateShiftDisplay` -- distributions of f(T;Λ), f(T̃;Λ), f(X_te;Λ) at every d, and for
  d = 2 the three maps on one colour scale (Fig 10).
- :class:`ErrorCurvesDisplay` -- errors and −Û against the status, and error against −Û (Figs 6-9).
- :class:`SensitivityDisplay` -- −Û_tr for several M or K (Figs 12, 13).
- :class:`~buviz.plots.extrapolation_displays.ToyModelDisplay` -- Zheng et al.'s toy model at one ρ (Figs 6-8).
- :class:`~buviz.plots.extrapolation_displays.ExtrapolationDisplay` -- accuracy extrapolation from K
  observed classes against the truth (Fig 11), and the moment method's fitted D̄(u).
- :class:`~buviz.plots.discrete.CellEstimatesDisplay` -- Nedel'ko's per-cell estimates x[n, m] (Tables 1-2, Fig 1).
- :class:`~buviz.plots.discrete.RmsDeviationDisplay` -- Nedel'ko's RMS deviation S against p (Fig 2).

Boundary uncertainty after D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary
Uncertainty-Based Estimation for Classifier Evaluation", Journal of Signal Processing Systems,
Springer, 2021 (doi:10.1007/s11265-021-01671-1).
"""

from __future__ import annotations

from types import SimpleNamespace

import holoviews as hv
import numpy as np

from buviz.grid import GridEvaluation, evaluate_grid
from buviz.plots import style
from buviz.plots import uncertainty as pb
from buviz.plots._display import (
    GRID_RESOLUTION,
    MAP_OPTS,
    Display,
    as_grid,
    bayes_layer,
    boundary_layer,
    class_names,
    fields_of,
    grid_of,
    limits,
    nearest,
    plane_of,
    project,
    regions_layer,
    titled,
)
from buviz.plots.curve_displays import CovariateShiftDisplay, ErrorCurvesDisplay, SensitivityDisplay
from buviz.plots.discrete import CellEstimatesDisplay, RmsDeviationDisplay
from buviz.plots.extrapolation_displays import ExtrapolationDisplay, ToyModelDisplay
from buviz.projection import Projection

# the base is defined in buviz.plots._display (the other display modules import it from there) and
# documented here, where users import it from (as numpy's set_module does)
Display.__module__ = __name__

__all__ = [
    "Display",
    "SampleSpaceDisplay",
    "WeightsDisplay",
    "CovariateShiftDisplay",
    "OneSampleDisplay",
    "ErrorCurvesDisplay",
    "SensitivityDisplay",
    "CellEstimatesDisplay",
    "ToyModelDisplay",
    "ExtrapolationDisplay",
    "RmsDeviationDisplay",
    "class_names",
    "as_grid",
    "GRID_RESOLUTION",
]


class _MapDisplay(Display):
    """A map of the training samples: in their plane for d = 2 (``projection`` None), else in a plane
    fitted on T. ``X`` are the plotted coordinates, ``xlim``/``ylim`` the fixed axis ranges."""

    def __init__(self, *, X, y, xlim=None, ylim=None, projection: Projection | None = None,
                 feature_names=None, class_names=None, title=None):
        X = np.asarray(X, dtype=float).reshape(-1, 2)
        y = np.asarray(y, dtype=int)
        if class_names is None:
            class_names = [f"C{j + 1}" for j in range(int(y.max()) + 1 if len(y) else 2)]
        super().__init__(feature_names=feature_names or ["x1", "x2"], class_names=class_names, title=title)
        self.X, self.y = X, y
        if xlim is None or ylim is None:
            xlim, ylim = limits(X) if len(X) else ((0.0, 1.0), (0.0, 1.0))
        self.xlim, self.ylim = tuple(map(float, xlim)), tuple(map(float, ylim))
        self.projection = projection

    @property
    def is_2d(self) -> bool:
        """Whether the axes are the data's two features (no projection)."""
        return self.projection is None

    def _limits(self) -> tuple:
        return (self.xlim, self.ylim)

    def _map_opts(self) -> dict:
        return {**MAP_OPTS, "xlim": self.xlim, "ylim": self.ylim}

    def _need_dataset(self, dataset):
        if dataset is None:
            raise TypeError(f"{type(self).__name__}.update(result=...) needs dataset= (the data the result is of: a "
                            "display holds what it draws, not the data to compute it from)")
        return dataset

    def nearest(self, x: float, y: float) -> int:
        """The training sample drawn nearest to the plotted point (x, y) (a tap)."""
        return nearest(self.X, x, y)

    @property
    def plane(self):
        """The plotted plane (``X_train``, ``projection``, ``axis_names``); kept for older callers."""
        return SimpleNamespace(X_train=self.X, projection=self.projection, axis_names=self.feature_names)

    @staticmethod
    def _common(dataset, projection) -> dict:
        """The constructor arguments every map of ``dataset`` shares (its plane, classes, axes)."""
        proj, X, axis = plane_of(dataset, projection)
        xlim, ylim = limits(X, dataset if proj is None else None)
        return dict(X=X, y=np.asarray(dataset.y_train), xlim=xlim, ylim=ylim, projection=proj,
                    feature_names=axis, class_names=class_names(dataset))


def _points_layer(X, feature_names, y=None, classes=None, f=None):
    """T by class, or by f(x;Λ) on the diverging scale when ``f`` is given."""
    if f is None:
        return pb.training_points(X, y, classes, feature_names=feature_names)
    c = pb.symmetric_limit(f)
    el = pb.shift_map(X, f, c, colorbar=True, feature_names=feature_names, size=4)
    return style.opts(el.get(0).relabel(pb.TRAINING_LABEL), show_legend=True)


def _near_layer(X, pairs, classes, feature_names, title=None):
    """The near-boundary samples (k̂(x) > 0) as hollow rings; the pair {k, l} of each in its hover."""
    el = hv.Points(
        {"x1": X[:, 0], "x2": X[:, 1], "pair": pairs},
        kdims=pb._kdims(feature_names),
        vdims=[hv.Dimension("pair", label="near B(Λ) of pair")],
        label="near-boundary (k̂ > 0)",
    )
    ring = style.opts(el, fill_color=None, line_color=style.HIGHLIGHT_COLOR, line_alpha=0.55, size=9,
                         line_width=1, tools=["hover"], show_legend=True)
    return titled(ring, title)


def _p1_layer(anchors, near, labels, feature_names, show_legend):
    return pb.proposal1_layers(anchors, near, labels, feature_names=feature_names, show_legend=show_legend)


class SampleSpaceDisplay(_MapDisplay):
    """The sample space of a classifier status (Figs 3, 5, 15 of Ha et al. 2021).

    Layers: ``regions`` (predicted class on the grid, an RGB image drawn under the glyphs; it
    carries the title for d = 2), ``points`` (T by class, or by f(x;Λ) when ``f`` is given),
    ``near`` (d > 2: the near-boundary samples, k̂(x) > 0, of each class pair in Î*; the title),
    ``boundary`` (B(Λ)), ``bayes`` (B*, dashed) and ``proposal1`` (anchors, N_B, TDC clusters). For
    d = 2 the axes are the two features; for d > 2 a plane fitted on T
    (:func:`buviz.projection.fit_projection`), where B(Λ), B* and the regions are not drawn (they
    are surfaces of the full space).

    The regions and B(Λ) are one group, drawn by one ``DynamicMap``: both are the status on the grid,
    so a status step always changes them together, and one callback and one synced sub-plot fewer
    per step is what a γ step costs less on the server. Every other layer keeps its own
    ``DynamicMap``: T and B* never change with the status, Proposal 1 arrives later.

    Parameters
    ----------
    X : ndarray of shape (n_samples, 2)
        The training samples T in the plotted plane.
    y : ndarray of shape (n_samples,)
        Their class codes.
    grid : GridEvaluation, optional
        The status on a grid (d = 2): predicted regions and the fields of B(Λ).
    bayes_fields : dict, optional
        The fields of B* on a grid (exact-density datasets, d = 2).
    f : ndarray of shape (n_samples,), optional
        f(x;Λ) on T: the samples are coloured by it (else by class).
    near_boundary : ndarray of int, optional
        The samples with k̂(x) > 0 (drawn for d > 2), and ``near_pairs`` ((m, 2) ints) their class pairs.
    proposal1_anchors, proposal1_near : ndarray of shape (m, 2), optional
        Proposal 1's anchors on B(Λ) and its near-boundary set N_B in the plane;
        ``proposal1_clusters`` the TDC cluster of each member of N_B (−1: dropped).
    xlim, ylim : (float, float), optional
        The fixed axis ranges (the padded range of ``X`` by default).
    projection : Projection, optional
        The plane of d > 2 data (None: ``X`` are the first two features).
    feature_names, class_names, title
        Axis names, legend names of the classes, the title.
    """

    _fields = ("X", "y", "grid", "bayes_fields", "f", "near_boundary", "near_pairs", "proposal1_anchors",
               "proposal1_near", "proposal1_clusters", "xlim", "ylim")

    def __init__(self, *, X, y, grid: GridEvaluation | None = None, bayes_fields=None, f=None, near_boundary=None,
                 near_pairs=None, proposal1_anchors=None, proposal1_near=None, proposal1_clusters=None, xlim=None,
                 ylim=None, projection: Projection | None = None, feature_names=None, class_names=None,
                 title: str | None = None):
        super().__init__(X=X, y=y, xlim=xlim, ylim=ylim, projection=projection,
                         feature_names=feature_names, class_names=class_names, title=title)
        self.grid = as_grid(grid)
        self.bayes_fields = bayes_fields
        self.f = None if f is None else np.asarray(f, dtype=float)
        self.near_boundary = None if near_boundary is None else np.asarray(near_boundary, dtype=int)
        self.near_pairs = None if near_pairs is None else np.asarray(near_pairs, dtype=int).reshape(-1, 2)
        self.proposal1_anchors = proposal1_anchors
        self.proposal1_near = proposal1_near
        self.proposal1_clusters = proposal1_clusters

    @classmethod
    def from_result(cls, result, dataset, *, grid=None, bayes_fields=None, proposal1=None,
                    projection: str | Projection = "pca", color_by: str = "class", title: str | None = None,
                    resolution: int = GRID_RESOLUTION) -> SampleSpaceDisplay:
        """Compute the sample space of ``result`` (a :class:`BoundaryUncertaintyResult`) on ``dataset``.

        Parameters
        ----------
        result : BoundaryUncertaintyResult or None
            The status's result (f on T, the weights, the discriminant). None draws the data alone
            (with the status of ``grid`` when given; no near-boundary samples, colour by class).
        dataset : buviz.datasets.Dataset
            The data the result was computed on (class names, axis names, the grid's bounds).
        grid : GridEvaluation, optional
            The status on a grid (d = 2); evaluated from ``result.discriminant`` when None.
        bayes_fields : dict, optional
            B* on a grid (exact-density datasets).
        proposal1 : Proposal1Result, optional
            Proposal 1's anchors, N_B and TDC clusters of the same status.
        projection : {"pca", "lda"} or Projection, default="pca"
            The plane for d > 2.
        color_by : {"class", "f"}, default="class"
            Colour T by class, or by f(x;Λ) on the diverging scale.
        title : str, optional
            The dataset's name by default.
        resolution : int, default=160
            Grid resolution when ``grid`` is None.
        """
        if color_by not in ("class", "f"):
            raise ValueError(f"color_by must be 'class' or 'f', got {color_by!r}")
        common = cls._common(dataset, projection)
        data = cls._computed(result, dataset, common["projection"], common["class_names"], grid=grid,
                             bayes_fields=bayes_fields, proposal1=proposal1, color_by=color_by, title=title,
                             resolution=resolution)
        return cls(**common, **data)

    @classmethod
    def from_estimator(cls, estimator, dataset, *, bayes_fields=None, projection: str | Projection = "pca",
                       title: str | None = None, resolution: int = GRID_RESOLUTION) -> SampleSpaceDisplay:
        """The data and the status of a classifier without a boundary-uncertainty result: ``estimator``
        (a fitted scikit-learn classifier, a :class:`~buviz.classifiers.Discriminant` or a callable
        X -> class scores) is evaluated on the grid of d = 2 data (predicted regions and B(Λ))."""
        grid = None
        if dataset.n_features == 2:
            if not callable(estimator):
                from buviz.classifiers import as_discriminant

                estimator = as_discriminant(estimator)
            grid = evaluate_grid(estimator, dataset.bounds(), resolution)
        return cls.from_result(None, dataset, grid=grid, bayes_fields=bayes_fields, projection=projection,
                               title=title)

    @staticmethod
    def _computed(result, dataset, projection, names, *, grid=None, bayes_fields=None, proposal1=None,
                  color_by="class", title=None, resolution=GRID_RESOLUTION) -> dict:
        out = {"grid": grid_of(result, dataset, grid, resolution), "bayes_fields": bayes_fields,
               "title": title if title is not None else dataset.name,
               "f": np.asarray(result.f_train) if color_by == "f" and result is not None else None,
               "near_boundary": None, "near_pairs": None,
               "proposal1_anchors": None, "proposal1_near": None, "proposal1_clusters": None}
        if result is not None:
            pos = np.flatnonzero(np.asarray(result.near_boundary_weights) > 0)
            out["near_boundary"] = pos
            out["near_pairs"] = np.column_stack([result.pair_i[pos], result.pair_j[pos]]).astype(int)
        if proposal1 is not None:
            out["proposal1_anchors"] = project(projection, proposal1.anchors[proposal1.anchor_valid])
            out["proposal1_near"] = project(projection, proposal1.near_boundary_X).reshape(-1, 2)
            out["proposal1_clusters"] = np.asarray(proposal1.cluster_labels[0])
        return out

    def _attributes_of(self, result, *, dataset=None, grid=None, bayes_fields=None, proposal1=None, title=None,
                       resolution: int = GRID_RESOLUTION) -> dict:
        """The attributes of another status ``result`` of ``dataset`` in this plane (as :meth:`from_result`)."""
        return self._computed(result, self._need_dataset(dataset), self.projection, self.class_names, grid=grid,
                              bayes_fields=bayes_fields, proposal1=proposal1,
                              color_by="f" if self.f is not None else "class", title=title, resolution=resolution)

    def _panels(self) -> dict:
        live = ["regions", "points", "boundary"] if self.is_2d else ["points", "near"]
        live += ["bayes"] if self.bayes_fields is not None and self.is_2d else []
        live += ["proposal1"] if self.proposal1_anchors is not None else []
        # drawn in this order: the near-boundary rings (d > 2) under the points, so that no ring covers a
        # class colour (on Letter's 26 classes the rings on top hid it at 12 % of the points' centres)
        builders = {"regions": regions_layer, "near": _near_layer, "points": _points_layer, "boundary": boundary_layer,
                    "bayes": bayes_layer, "proposal1": _p1_layer}
        return {"map": dict(builders=builders, opts=self._map_opts(), live=live,
                            groups={"status": ("regions", "boundary")})}

    def _args(self) -> dict:
        names, fn, twod = self.class_names, self.feature_names, self.is_2d
        if self.f is not None:
            points = {"X": self.X, "f": self.f, "feature_names": fn}
        else:
            points = {"X": self.X, "y": self.y, "classes": names, "feature_names": fn}
        if twod or self.near_boundary is None:
            near = {"X": np.empty((0, 2)), "pairs": np.array([], dtype=object)}
        else:
            pairs = [f"{{{names[i]}, {names[j]}}}" for i, j in self.near_pairs]
            near = {"X": self.X[self.near_boundary], "pairs": np.array(pairs, dtype=object)}
        # the title rides on a layer that changes with the status anyway (the regions for d = 2)
        near.update(classes=names, feature_names=fn, title=None if twod else self.title)
        g = self.grid if twod else None
        return {"map": {
            "regions": {"xs": g and g.xs, "ys": g and g.ys, "predicted": g and g.predicted,
                        "n_classes": len(names), "feature_names": fn, "title": self.title if twod else None},
            "points": points,
            "near": near,
            "boundary": {"fields": fields_of(g), "feature_names": fn, "limits": self._limits()},
            "bayes": {"fields": self.bayes_fields if twod else None, "feature_names": fn, "limits": self._limits()},
            "proposal1": {"anchors": self.proposal1_anchors, "near": self.proposal1_near,
                          "labels": self.proposal1_clusters, "show_legend": self.proposal1_anchors is not None,
                          "feature_names": fn},
        }}


def _weights_layer(**kw):
    return pb.weights_layers(**kw)["weights"]


class WeightsDisplay(_MapDisplay):
    """Probability weights k̂(x)/w_kl on T (Fig 14): layers ``weights`` and ``boundary`` (B(Λ), d = 2);
    for d > 2 in the plane of :class:`SampleSpaceDisplay`.

    Parameters
    ----------
    X, y : ndarray
        T in the plotted plane and its class codes.
    weights : ndarray of shape (n_samples,)
        k̂(x)/w_kl of each training sample (``result.near_boundary_weights``).
    grid : GridEvaluation, optional
        The status on a grid (d = 2), for B(Λ).
    xlim, ylim, projection, feature_names, class_names, title
        As for :class:`SampleSpaceDisplay`.
    """

    _fields = ("X", "y", "weights", "grid", "xlim", "ylim")
    DEFAULT_TITLE = "Probability weights k̂(x)/w_kl"

    def __init__(self, *, X, y, weights, grid: GridEvaluation | None = None, xlim=None, ylim=None,
                 projection: Projection | None = None, feature_names=None, class_names=None,
                 title: str | None = DEFAULT_TITLE):
        super().__init__(X=X, y=y, xlim=xlim, ylim=ylim, projection=projection,
                         feature_names=feature_names, class_names=class_names, title=title)
        self.weights = np.asarray(weights, dtype=float)
        self.grid = as_grid(grid)

    @classmethod
    def from_result(cls, result, dataset, *, grid=None, projection: str | Projection = "pca",
                    title: str | None = None, resolution: int = GRID_RESOLUTION) -> WeightsDisplay:
        """Compute the weights of ``result`` on ``dataset`` (parameters as :meth:`SampleSpaceDisplay.from_result`)."""
        common = cls._common(dataset, projection)
        return cls(**common, **cls._computed(result, dataset, grid, title, resolution))

    @classmethod
    def _computed(cls, result, dataset, grid, title, resolution) -> dict:
        return {"weights": np.asarray(result.near_boundary_weights), "grid": grid_of(result, dataset, grid, resolution),
                "title": title if title is not None else cls.DEFAULT_TITLE}

    def _attributes_of(self, result, *, dataset=None, grid=None, title=None,
                       resolution: int = GRID_RESOLUTION) -> dict:
        """The attributes of another status ``result`` of ``dataset``."""
        return self._computed(result, self._need_dataset(dataset), grid, title, resolution)

    def _panels(self) -> dict:
        return {"map": dict(builders={"weights": _weights_layer, "boundary": boundary_layer},
                            opts=self._map_opts(), live=("weights", "boundary") if self.is_2d else ("weights",))}

    def _args(self) -> dict:
        fn = self.feature_names
        return {"map": {
            "weights": {"X": self.X, "y": self.y, "weights": self.weights, "classes": self.class_names,
                        "feature_names": fn, "title": self.title},
            "boundary": {"fields": fields_of(self.grid) if self.is_2d else None, "feature_names": fn,
                         "limits": self._limits()},
        }}


def _cluster_points(**kw):
    return pb.cluster_layers(**kw)["points"]


def _cluster(**kw):
    return pb.cluster_layers(**kw)["cluster"]


def _zoom(view, classes, title):
    return pb.cluster_zoom(view, classes=classes, title=title)


class OneSampleDisplay(_MapDisplay):
    """One training sample up close (Fig 4): the sample-space map (panel :attr:`map`: layers ``points``,
    ``cluster``, ``boundary``; for d > 2 in the plane of :class:`SampleSpaceDisplay`) and N^M(x) on the
    f axis with its Parzen kernels and kernel estimates (panel :attr:`zoom`, every d).

    Parameters
    ----------
    X, y : ndarray
        T in the plotted plane and its class codes.
    sample : dict, optional
        The sample shown up close, ``result.sample_view(index)`` (None: nothing selected).
    X_tilde : ndarray of shape (n_samples, 2), optional
        T̃ in the plotted plane (the perturbed members of N^M(x) are drawn from it).
    grid : GridEvaluation, optional
        The status on a grid (d = 2), for B(Λ).
    xlim, ylim, projection, feature_names, class_names, title
        As for :class:`SampleSpaceDisplay`; ``title`` (None: a caption of the sample) titles the map.
    """

    _fields = ("X", "y", "sample", "X_tilde", "grid", "xlim", "ylim")

    def __init__(self, *, X, y, sample=None, X_tilde=None, grid: GridEvaluation | None = None, xlim=None, ylim=None,
                 projection: Projection | None = None, feature_names=None, class_names=None,
                 title: str | None = None):
        super().__init__(X=X, y=y, xlim=xlim, ylim=ylim, projection=projection,
                         feature_names=feature_names, class_names=class_names, title=title)
        self.sample = sample
        self.X_tilde = None if X_tilde is None else np.asarray(X_tilde, dtype=float)
        self.grid = as_grid(grid)

    @property
    def index(self) -> int | None:
        """The index of the sample shown up close (None: none)."""
        return None if self.sample is None else int(self.sample["index"])

    @classmethod
    def from_result(cls, result, dataset, index: int | None = None, *, grid=None,
                    projection: str | Projection = "pca", resolution: int = GRID_RESOLUTION) -> OneSampleDisplay:
        """Compute sample ``index`` of ``result`` (None or negative: nothing selected); ``grid`` is the
        status on a grid (d = 2), evaluated when None."""
        common = cls._common(dataset, projection)
        data = cls._computed(result, dataset, common["projection"], index, grid, resolution)
        return cls(**common, **data)

    @staticmethod
    def _computed(result, dataset, projection, index, grid, resolution) -> dict:
        chosen = result is not None and index is not None and index >= 0
        return {"sample": result.sample_view(index) if chosen else None,
                "X_tilde": project(projection, result.X_tilde) if chosen else None,
                "grid": grid_of(result, dataset, grid, resolution) if result is not None else None}

    def _attributes_of(self, result, *, dataset=None, index=None, grid=None,
                       resolution: int = GRID_RESOLUTION) -> dict:
        return self._computed(result, self._need_dataset(dataset), self.projection, index, grid, resolution)

    def _panels(self) -> dict:
        live = ("points", "cluster", "boundary") if self.is_2d else ("points", "cluster")
        return {"map": dict(builders={"points": _cluster_points, "cluster": _cluster, "boundary": boundary_layer},
                            opts=self._map_opts(), live=live),
                "zoom": dict(builders={"zoom": _zoom})}

    def _args(self) -> dict:
        names, fn, view = self.class_names, self.feature_names, self.sample
        title = self.title
        if title is None:
            title = (f"Sample #{view['index']} and its N^M(x), M = {len(view['neighbours'])}" if view is not None
                     else "N^M(x) in the sample space")
        common = {"X": self.X, "y": self.y, "classes": names, "feature_names": fn}
        zoom_title = "Locally 1-D count on f(·;Λ) (Fig 4)"
        if view is not None:
            zoom_title = (f"h_x = {view['bandwidth']:.3g}, P̂ = {view['posterior']:.2f}, "
                          f"Û(x) = {view['local_uncertainty']:.2f}")
        return {
            "map": {
                "points": {**common, "index": None},
                "cluster": {**common, "title": title, "index": self.index,
                            "neighbours": None if view is None else view["neighbours"], "X_tilde": self.X_tilde},
                "boundary": {"fields": fields_of(self.grid) if self.is_2d else None, "feature_names": fn,
                             "limits": self._limits()},
            },
            "zoom": {"zoom": {"view": view, "classes": names, "title": zoom_title}},
        }
