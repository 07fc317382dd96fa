"""The explorer's controls: the 16 parameters its sidebar widgets show, mirrored in the URL.

:class:`Controls` is the *State* role of Panel's architecture guidance: it holds what the user chose
and nothing derived from it (the :class:`~buviz.app.store.SessionStore` computes and publishes
that, and views read the store). Besides the parameters it knows how to go back to its defaults
(:meth:`Controls.reset`), how to follow the page's URL (:meth:`Controls.sync_url`) and how to read
the controls a URL names (:func:`url_settings`).
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
from buviz.app.compute import DEFAULT_MIXTURE_JSON, MAX_EPOCH, MLP_EPOCHS

__all__ = ["Controls", "CONTROL_PARAMS", "URL_PARAMS", "url_settings", "K_CHOICES", "DATASET_CHOICES"]

K_CHOICES = ("aic", "1", "3", "10", "20", "40")
MIXTURE_CHOICES = (*datasets.MIXTURE_NAMES, "custom")
DATASET_CHOICES = (*MIXTURE_CHOICES, *datasets.REAL_NAMES, *datasets.UCI_NAMES, "csv")

#: The controls that define the current status and estimator (what a snapshot is computed from).
CONTROL_PARAMS = ("dataset", "n_train", "seed", "classifier", "log2_gamma", "log2_C", "epoch", "M", "K",
                  "perturbation", "perturbation_mode", "tilde", "cv", "mixture_json", "csv_key")
#: Controls mirrored in the URL query string (name in the URL = parameter name).
URL_PARAMS = (*CONTROL_PARAMS, "sweep_proposal1")


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

    def settings(self) -> dict:
        """The current values of :data:`CONTROL_PARAMS`."""
        return {p: getattr(self, p) for p in CONTROL_PARAMS}

    def reset(self) -> None:
        """Back to the default controls (one change, so one recomputation)."""
        self.param.update(**{p: self.param[p].default for p in CONTROL_PARAMS})

    def is_default(self) -> bool:
        return all(getattr(self, p) == self.param[p].default for p in CONTROL_PARAMS)

    def status_column(self) -> str:
        """The sweep column of the classifier status (log₂ γ for the SVM, the epoch for the MLP)."""
        return "log2_gamma" if self.classifier == "SVM" else "epoch"

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
