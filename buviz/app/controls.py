"""The explorer's controls: the 16 parameters its sidebar widgets show, mirrored in the URL.

:class:`Controls` is the *State* role of Panel's architecture guidance: it holds what the user chose
and nothing derived from it (the :class:`~buviz.app.store.SessionStore` computes and publishes
that, and views read the store). Nothing outside writes them back: the store never corrects or
reverts a control. What depends on the data lives here, as ``param`` dependencies of the data
controls (:meth:`Controls._follow_data`):

- the bounds of N (a UCI dataset's training rows) and of M (2 ≤ M ≤ N(train)), which the sliders and
  number inputs follow, with M lowered to N when new data are smaller (said in :attr:`Controls.adjusted`);
- γ at a new dataset, started at scikit-learn's ``gamma="scale"`` for its data unless γ was set with it.

Besides the parameters it knows how to go back to its defaults (:meth:`Controls.reset`), how to follow
the page's URL (:meth:`Controls.sync_url`) and how to read the controls a URL names (:func:`url_settings`).
"""

from __future__ import annotations

import copy
import functools

import numpy as np
import panel as pn
import param

import buviz.uncertainty as bu
from buviz import datasets
from buviz.app._panel_compat import parse_url_query
from buviz.app.compute import DEFAULT_MIXTURE_JSON, MAX_EPOCH, MLP_EPOCHS, ResultKey, dataset_for, real_sizes
from buviz.app.notes import scale_log2_gamma

__all__ = ["Controls", "status_column", "CONTROL_PARAMS", "URL_PARAMS", "DATA_PARAMS", "DATA_BOUNDS",
           "url_settings", "K_CHOICES", "DATASET_CHOICES", "dataset_options"]

K_CHOICES = ("aic", "1", "3", "10", "20", "40")
MIXTURE_CHOICES = (*datasets.MIXTURE_NAMES, "custom")
DATASET_CHOICES = (*MIXTURE_CHOICES, *datasets.REAL_NAMES, *datasets.UCI_NAMES, "csv")

#: The controls that define the current status and estimator (what a snapshot is computed from).
CONTROL_PARAMS = ("dataset", "n_train", "seed", "classifier", "log2_gamma", "log2_C", "epoch", "M", "K",
                  "perturbation", "perturbation_mode", "tilde", "cv", "mixture_json", "csv_key")
#: Controls mirrored in the URL query string (name in the URL = parameter name).
URL_PARAMS = (*CONTROL_PARAMS, "sweep_proposal1")
#: The controls that name the data (what N(train), the bounds of N and M and the γ of "scale" follow).
DATA_PARAMS = ("dataset", "n_train", "seed", "mixture_json", "csv_key")
#: What the data named by the controls allow (the ends of the N slider and the M input), set by the
#: controls themselves (read-only to everyone else).
DATA_BOUNDS = ("n_train_max", "M_max")


class Controls(param.Parameterized):
    """What the user chose: dataset, classifier status, estimator and sweep options (the sidebar)."""

    dataset = param.Selector(default="gmm", objects=list(DATASET_CHOICES), doc="Dataset")
    n_train = param.Integer(default=1000, bounds=(20, 5000),
                            doc="Training-set size N (mixtures; the live subsample of a large real dataset)")
    seed = param.Integer(default=0, bounds=(0, 1_000_000), doc="Random seed (sampling, T̃, K-means, folds)")
    classifier = param.Selector(default="SVM", objects=["SVM", "MLP"], doc="Classifier family")
    log2_gamma = param.Integer(default=0, bounds=(-15, 15), doc="log₂ γ of the RBF kernel")
    log2_C = param.Integer(default=0, bounds=(-5, 10), doc="log₂ C of the SVC")
    epoch = param.Integer(default=20, bounds=(1, MAX_EPOCH), doc="MLP training epoch")
    M = param.Integer(default=40, bounds=(2, 5000), doc="Neighbourhood size M (2 ≤ M ≤ N)")
    K = param.Selector(default="aic", objects=list(K_CHOICES), doc="Prototypes per class (Î*)")
    perturbation = param.Number(default=0.5, bounds=(0.0, 2.0), step=0.05, doc="Amplitude a of T̃")
    perturbation_mode = param.Selector(default="features", objects=list(bu.PERTURBATION_MODES))
    tilde = param.Boolean(default=True, doc="Evaluate f on T̃ (off: on T, the paper's 'bis' panels)")
    cv = param.Integer(default=10, bounds=(2, 40), doc="CV folds of the sweep")
    mixture_json = param.String(default=DEFAULT_MIXTURE_JSON, doc="Custom mixture (JSON)")
    csv_key = param.String(default="", doc="Digest of the uploaded CSV")
    sweep_proposal1 = param.Boolean(default=False, doc="Add Proposal 1 (U1_tr) to the sweep (about twice as long)")

    # -- what the data named above allow (set by the controls themselves, never by the user)
    n_train_max = param.Integer(default=5000, constant=True, precedence=-1,
                                doc="Largest N the data allow (a UCI dataset's training rows; the N slider's end)")
    M_max = param.Integer(default=5000, constant=True, precedence=-1,
                          doc="Largest M the data allow: N(train) (the M input's end)")

    def __init__(self, **params):
        gamma_from_data = "dataset" in params and "log2_gamma" not in params
        super().__init__(**params)
        #: What the controls changed on their own at the last change of data ('' when nothing): the
        #: session store shows it with the new data's snapshot.
        self.adjusted = ""
        self._as_given = False
        #: True while the controls change themselves for new data (one change for the watchers to see)
        self.following = False
        self._follow_data(fit_gamma=gamma_from_data)
        self.param.watch(self._on_data, [*DATA_PARAMS, "log2_gamma"])

    def _on_data(self, *events) -> None:
        names = {e.name for e in events}
        if names & set(DATA_PARAMS) and not self.following:  # not again for the values it sets itself
            dataset_changed = "dataset" in names and "log2_gamma" not in names
            self._follow_data(fit_gamma=dataset_changed and not self._as_given)

    def _follow_data(self, fit_gamma: bool) -> None:
        """The data-dependent part of the controls, after the data they name changed:

        - :attr:`n_train_max` is a UCI dataset's training rows (5000 elsewhere), N lowered to it;
        - :attr:`M_max` is N(train) of the data (the neighbourhood N^M(x) cannot exceed N), M lowered
          to it when the new data are smaller, with a note in :attr:`adjusted`;
        - ``fit_gamma`` (a new dataset with γ left as it was, or first settings naming a dataset but
          no γ): γ starts at scikit-learn's ``gamma="scale"`` for the new data, snapped to the γ grid
          (:func:`~buviz.app.notes.scale_log2_gamma`), with a note.

        The parameters' own bounds stay the widest (2 ≤ M ≤ 5000), so that one update may change the
        data and M together; an M set beyond :attr:`M_max` is refused by the store, with a message.
        Data that cannot be built (a bad mixture or CSV) leave the controls as they are: the store
        reports the error when it computes them.
        """
        notes, values = [], {}
        n_max = Controls.param.n_train.bounds[1]
        if self.dataset in datasets.UCI_NAMES:
            n_max = min(n_max, real_sizes(self.dataset)[0])
            if self.n_train > n_max:
                values["n_train"] = n_max
        try:
            ds = dataset_for(ResultKey.of({**self.settings(), **values}).data)
        except Exception:  # reported by the computation itself
            ds = None
        if ds is not None and fit_gamma and len(ds.X_train) > 1:
            g = scale_log2_gamma(ds.X_train)
            if g != self.log2_gamma:
                values["log2_gamma"] = g
                notes.append(f"γ set to 2^{g}, nearest to scikit-learn's gamma = \"scale\" = 1/(d·Var X) = "
                             f"{1 / (ds.n_features * float(np.var(ds.X_train))):.3g} for these data")
        N = None if ds is None else len(ds.X_train)
        m_max = Controls.param.M.bounds[1] if N is None or N < 2 else min(Controls.param.M.bounds[1], N)
        if self.M > m_max:
            values["M"] = m_max
            notes.append(f"M = {self.M} is more than the {N} training samples of this dataset: "
                         f"M set to {m_max} (the neighbourhood N^M(x) cannot exceed N)")
        self.adjusted = "; ".join(notes)
        with param.edit_constant(self):
            self.param.update(n_train_max=n_max, M_max=m_max)
        self.following = True
        try:
            self.param.update(**values)
        finally:
            self.following = False

    def update_as_given(self, **values) -> None:
        """Set controls as given: a new dataset keeps the γ given (or left), not fitted to its data."""
        self._as_given = True
        try:
            self.param.update(**values)
        finally:
            self._as_given = False

    def settings(self) -> dict:
        """The current values of :data:`CONTROL_PARAMS`."""
        return {p: getattr(self, p) for p in CONTROL_PARAMS}

    def reset(self) -> None:
        """Back to the default controls (one change, so one recomputation; γ as given, not fitted)."""
        self.update_as_given(**{p: self.param[p].default for p in CONTROL_PARAMS})

    def is_default(self) -> bool:
        return all(getattr(self, p) == self.param[p].default for p in CONTROL_PARAMS)

    def status_column(self) -> str:
        """The sweep column of the classifier status (:func:`status_column` of the current controls)."""
        return status_column(self.settings())

    def set_status_from_tap(self, x: float | None) -> None:
        """Curve tap: move to the sweep status nearest to x (log₂ γ or epoch)."""
        if x is None or not np.isfinite(x):
            return
        if self.classifier == "SVM":
            lo, hi = self.param.log2_gamma.bounds
            self.log2_gamma = int(np.clip(round(float(x)), lo, hi))
        else:
            self.epoch = int(min(MLP_EPOCHS, key=lambda e: abs(e - float(x))))

    def sync_url(self, location=None) -> None:
        """Served: mirror :data:`URL_PARAMS` in the page's query string (both ways)."""
        location = location if location is not None else pn.state.location
        if location is not None:
            location.sync(self, {p: p for p in URL_PARAMS})


#: Menu labels that tell apart datasets whose names alone do not.
DATASET_HINTS = {
    "breast_cancer": "breast_cancer (scikit-learn's copy: diagnostic WDBC, 569 × 30)",
    "breast_cancer_wisconsin": "breast_cancer_wisconsin (the paper's UCI set: original, 683 × 9)",
}


def dataset_options() -> dict[str, str]:
    """The dataset menu: label -> name, every choice of the controls, the ambiguous ones explained."""
    return {DATASET_HINTS.get(n, n): n for n in Controls.param.dataset.objects}


def status_column(settings) -> str:
    """The sweep column of the classifier status of control values ``settings`` (log₂ γ for the SVM,
    the epoch for the MLP)."""
    return "log2_gamma" if settings["classifier"] == "SVM" else "epoch"


@functools.cache
def _url_probe_class():
    return param.parameterized_class("URLProbe", {k: copy.copy(Controls.param[k]) for k in URL_PARAMS})


def url_settings() -> tuple[dict, list[str]]:
    """The controls given in the served page's URL (``?n_train=200&M=30``), checked one by one:
    ``(valid values, rejected "name=value" strings)``. Read before the store exists, so a new session
    computes one snapshot, for these settings, rather than the defaults' first."""
    args = getattr(pn.state, "session_args", None) or {}
    query = {k: v[-1].decode("utf-8", "replace") for k, v in args.items() if k in URL_PARAMS and v}
    if not query:
        return {}, []
    parsed = parse_url_query(query)
    valid, rejected = {}, []
    for k, raw in query.items():
        p = Controls.param[k]
        v = raw if isinstance(p, (param.String, param.Selector)) else parsed.get(k, raw)  # K=3 is a choice
        if isinstance(p, param.Integer) and isinstance(v, float) and v.is_integer():
            v = int(v)  # the URL parser reads "-2" as a float
        elif isinstance(p, param.Boolean) and v in (0, 1) and not isinstance(v, bool):
            v = bool(v)
        try:
            if isinstance(v, bool) and not isinstance(p, param.Boolean):
                raise ValueError("not a number")
            setattr(_url_probe_class()(), k, v)  # type and bounds, as setting the control would check them
        except Exception:
            rejected.append(f"{k}={raw[:40]}")
        else:
            valid[k] = v
    return valid, rejected
