"""The "Python code" panel: a snippet that reproduces the current view with the public API.

:func:`snippet` turns the explorer's settings (``Controls.settings()``) into a script that loads
the same dataset (``buviz.datasets``), fits the same classifier status (``buviz.classifiers``),
evaluates Proposal 2 with the same estimator settings (``buviz.uncertainty.BoundaryUncertainty``)
and runs the same sweep (``buviz.sweep``). Run as is, it prints the numbers the app shows (Û_tr,
L_te, the Bayes error, the sweep row of the current status). The script names its results ``ds``,
``status``, ``result``, ``U_tr``, ``L_te`` and ``table``, so tests can ``exec`` it and compare.
"""

from __future__ import annotations

import json

import panel as pn
import param

from buviz import datasets
from buviz.app.compute import GAMMA_GRID, MLP_EPOCHS, N_TEST
from buviz.app.store import SessionStore

__all__ = ["snippet", "CodePanel"]


def _K(K: str) -> str:
    return repr("aic") if str(K) == "aic" else str(int(K))


def _dataset_lines(s: dict) -> list[str]:
    name, seed = s["dataset"], int(s["seed"])
    if name in datasets.MIXTURE_NAMES:
        return [f"ds = datasets.load({name!r}, n_train={int(s['n_train'])}, n_test={N_TEST}, random_state={seed})"]
    if name in datasets.REAL_NAMES:
        return [f"ds = datasets.load({name!r}, random_state={seed})"]
    if name in datasets.UCI_NAMES:
        from buviz.app.compute import real_sizes

        n_tr, n_te = real_sizes(name)
        n = int(s["n_train"])
        args = "".join([f", n_train={n}" if n < n_tr else "", f", n_test={N_TEST}" if n_te > N_TEST else ""])
        return [f"ds = datasets.load({name!r}{args}, random_state={seed})"]
    if name == "custom":
        spec = json.loads(s["mixture_json"])
        return [
            "# the custom mixture of the editor: per class, components (weight, mean, covariance)",
            f"spec = {spec!r}",
            'mixture = datasets.GaussianMixture([[(c.get("weight", 1.0), c["mean"], c["cov"]) for c in cl]',
            '                                    for cl in spec["classes"]], priors=spec.get("priors"))',
            f"ds = datasets.from_mixture(mixture, {int(s['n_train'])}, {N_TEST}, {seed}, name='custom',",
            "                           description='custom mixture')",
        ]
    if name == "csv":
        return ["# the uploaded file (numeric feature columns, the label last, a header row)",
                f"ds = datasets.read_csv('your_file.csv', n_features=None, random_state={seed})"]
    raise ValueError(f"unknown dataset {name!r}")


def snippet(settings: dict, *, sweep: bool = True, proposal1: bool = True) -> str:
    """Python source reproducing the explorer's view for ``settings`` (the control values).

    ``sweep``: include the γ (or epoch) sweep of the curves; ``proposal1``: the sweep also computes
    Proposal 1's column ``U1_tr`` (the app's sweep does).
    """
    s = dict(settings)
    seed = int(s["seed"])
    svm = s["classifier"] == "SVM"
    pert = float(s["perturbation"]) if s["tilde"] else 0.0
    est = (f"M={int(s['M'])}, K={_K(s['K'])}, perturbation={pert!r}, perturbation_mode={s['perturbation_mode']!r}, "
           f"random_state={seed}")
    lines = [
        "import numpy as np",
        "",
        "from buviz import classifiers, datasets, sweep",
        "from buviz.uncertainty import BoundaryUncertainty",
        "",
        *_dataset_lines(s),
        "",
        "# the classifier status Λ",
    ]
    if svm:
        lines.append(f"status = classifiers.svm_status(ds.X_train, ds.y_train, gamma=2.0 ** {int(s['log2_gamma'])}, "
                     f"C=2.0 ** {int(s['log2_C'])})")
    else:
        e = int(s["epoch"])
        lines.append(f"status = dict(classifiers.mlp_statuses(ds.X_train, ds.y_train, [{e}], "
                     f"random_state={seed}))[{e}]")
    lines += [
        "L_te = sweep.evaluate_on_test_set(status, ds.X_test, ds.y_test).L_te  # NaN without a test set",
        "",
        "# Proposal 2: neighbourhoods, perturbed set T~ and prototypes (fit), then Û for this status" +
        ("" if s["tilde"] else " (T~ off: f on T)"),
        f"estimator = BoundaryUncertainty({est})",
        "result = estimator.fit(ds.X_train, ds.y_train).evaluate(status)",
        "U_tr = result.value",
        "bayes_error = ds.model.bayes_error(resolution=601) if ds.model is not None and ds.n_features == 2 else None",
        "print(f'L_te = {L_te:.4f}, U_tr = {U_tr:.4f}, -U_tr = {-U_tr:.4f}, Bayes error = {bayes_error}')",
    ]
    if sweep:
        common = (f"cv={int(s['cv'])}, M={int(s['M'])}, K={_K(s['K'])}, perturbation={pert!r},\n"
                  f"        perturbation_mode={s['perturbation_mode']!r}, random_state={seed}")
        lines += ["", "# the sweep of the curves (errors L_tr, L_val, L_ho, L_te and U_tr, U_te per status)"]
        if svm:
            lo, hi = GAMMA_GRID[0], GAMMA_GRID[-1]
            lines += [
                f"table = sweep.svm_gamma_sweep(ds, 2.0 ** np.arange({lo}, {hi + 1}, dtype=float), "
                f"C=2.0 ** {int(s['log2_C'])}, {common},",
                f"        proposal1={bool(proposal1)})",
                f"print(table[table.log2_gamma == {int(s['log2_gamma'])}].T)",
            ]
        else:
            lines += [
                f"table = sweep.mlp_epoch_sweep(ds, {list(MLP_EPOCHS)}, {common})",
                f"print(table[table.epoch == {int(s['epoch'])}].T)",
            ]
    return "\n".join(lines) + "\n"


class CodePanel(pn.viewable.Viewer):
    """A collapsed card with the snippet of the current settings (read-only, follows the store).

    The snippet is rendered only while the card is open: a γ step does not send the code of every
    position to a browser that does not show it.
    """

    store = param.ClassSelector(class_=SessionStore)

    def __init__(self, **params):
        super().__init__(**params)
        self.pane = pn.pane.Markdown("", sizing_mode="stretch_width", css_classes=["buviz-code"])
        note = pn.pane.Markdown("Reproduces the numbers of this view with the public `buviz` API "
                                "(copy into a script or notebook).", sizing_mode="stretch_width")
        self.card = pn.Card(note, self.pane, title="Python code for this view", collapsed=True,
                            sizing_mode="stretch_width")
        self.card.param.watch(self._refresh, "collapsed")
        self.store.param.watch(self._refresh, "snapshot")
        self.store.controls.param.watch(self._refresh, "sweep_proposal1")

    def code(self) -> str:
        """The Markdown of the current snippet."""
        snap = self.store.snapshot
        if snap is None:
            return "*No valid settings yet.*"
        return f"```python\n{snippet(snap.settings, proposal1=self.store.controls.sweep_proposal1)}```"

    def _refresh(self, *events):
        if not self.card.collapsed:
            self.pane.object = self.code()

    def __panel__(self):
        return self.card
