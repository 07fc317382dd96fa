"""The explorer's computations beside the snapshot pipeline, cached in the one cache and run by the
one runner: Proposal 1, the T̃-amplitude sweep, the discrete-case tables and Monte Carlo, and the
accuracy-extrapolation toy model and curves. Views ask for these on the session's job bus
(:class:`buviz.app.bus.Requested`, :mod:`buviz.app.stores`) and only draw what comes back.

Every function here is pure: same key, same value. Keys are named: a step the views ask for with
more than two numbers takes a frozen key (the snapshot pipeline's :class:`~buviz.app.compute.StatusKey`, and
:class:`AmplitudeKey`, :class:`DiscreteKey`, :class:`MonteCarloKey`, :class:`PopulationKey`,
:class:`CurvesKey` here), whose fields coerce widget values to one type; the others take one or two
ints, floats or short strings.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import numpy as np
import pandas as pd

from buviz import discrete
from buviz import extrapolation as ex
from buviz.app.cache import cached
from buviz.app.compute import DataKey, ResultKey, StatusKey, dataset_for, prototypes_per_class, status_eval
from buviz.extrapolation._population import _ties_for as ties_for

__all__ = ["proposal1_result", "amplitude_sweep", "AmplitudeKey", "AMPLITUDES", "AMPLITUDE_LOG2_GAMMAS",
           "DiscreteKey", "MonteCarloKey", "PopulationKey", "CurvesKey",
           "discrete_tables", "discrete_curves", "discrete_at_p", "discrete_monte_carlo", "BALANCED_MAX_N",
           "toy_model", "label_population", "population_margins", "extrapolation_curves", "extrapolation_interval",
           "INTERVAL_LEVEL", "classex_fixture",
           "peer_comparison", "classifier_comparison"]


# -- Proposal 1 (the paper's baseline, Figs 3 and 15) --------------------------------------------------
@cached(max_items=24)
def proposal1_result(key: StatusKey):
    """Proposal 1's result (anchors, N_B, TDC clusters, Û⁽¹⁾) for one classifier status, seeded with
    the data seed (Ha et al., "An Improved Boundary Uncertainty-Based Estimation for Classifier
    Evaluation", J. Signal Processing Systems, 2021, §3)."""
    from buviz.uncertainty import Proposal1

    ds = dataset_for(key.data)
    status = status_eval(key)
    return Proposal1(random_state=key.data.seed).fit(ds.X_train, ds.y_train).evaluate(status.discriminant)


# -- T̃ amplitude sweep -----------------------------------------------------------------------------------
#: Amplitudes a of the T̃-amplitude sweep (the study's grid; a = 0 is T̃ = T).
AMPLITUDES = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
#: log₂ γ of the T̃-amplitude sweep.
AMPLITUDE_LOG2_GAMMAS = tuple(range(-6, 7))


@dataclass(frozen=True)
class AmplitudeKey:
    """The T̃-amplitude sweep of one dataset at one C, M and K."""

    data: DataKey
    log2_C: int
    M: int
    K: str

    @classmethod
    def of(cls, settings: dict) -> AmplitudeKey:
        k = ResultKey.of(settings)
        return cls(k.data, int(settings["log2_C"]), k.fit.M, k.fit.K)


@cached(max_items=8)
def amplitude_sweep(key: AmplitudeKey) -> pd.DataFrame:
    """−Û_tr, Û_te and the errors over the RBF-SVC γ sweep for every amplitude of :data:`AMPLITUDES`
    and both T̃ modes (:func:`buviz.model_selection.perturbation_amplitude_sweep`)."""
    from sklearn.svm import SVC

    from buviz.model_selection import perturbation_amplitude_sweep

    ds = dataset_for(key.data)
    log2_C, M, K, seed = key.log2_C, key.M, key.K, key.data.seed
    if not len(ds.X_test):
        raise ValueError("this dataset has no test set: L_te and Û_te need one")
    N = len(ds.X_train)
    return perturbation_amplitude_sweep(
        ds.X_train, ds.y_train, ds.X_test, ds.y_test, estimator=SVC(C=2.0 ** log2_C), param="gamma",
        values=[2.0 ** g for g in AMPLITUDE_LOG2_GAMMAS], amplitudes=AMPLITUDES, M=min(M, N),
        K=prototypes_per_class(K), max_test=N, random_state=seed)


# -- the discrete case (Nedelko 2009) ---------------------------------------------------------------------
#: The balanced-optimal iteration over n <= N costs seconds per (N, k) beyond this.
BALANCED_MAX_N = 80


@cached(max_items=32)
def discrete_tables(N: int, k: int) -> dict[str, np.ndarray]:
    """Each estimator's cell values x[n, m] for N points in k cells (Tables 1-2)."""
    methods = [m for m in discrete.METHODS if m != "balanced_optimal" or N <= BALANCED_MAX_N]
    return {m: discrete.cell_values(m, N, N, k=k) for m in methods}


@cached(max_items=32)
def discrete_curves(N: int, k: int, n_p: int = 101) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """The root mean square deviation S(p) of every estimator on a grid of n_p values of p (Fig 2)."""
    p = np.linspace(0, 1, n_p)
    return p, {m: discrete.moments(x, N, k, p).S for m, x in discrete_tables(N, k).items()}


class _Key:
    """A frozen key whose int, float and str fields are made ints, floats and strs: widget values
    (numpy ints, an int for a float) hash as the same key."""

    def __post_init__(self):
        for f in fields(self):
            kind = {"int": int, "float": float, "str": str, int: int, float: float, str: str}.get(f.type)
            if kind is not None:
                object.__setattr__(self, f.name, kind(getattr(self, f.name)))


@dataclass(frozen=True)
class DiscreteKey(_Key):
    """The discrete case at N points in k cells, P(y = 1 | x) = p in every cell (Nedelko 2009)."""

    N: int
    k: int
    p: float


@dataclass(frozen=True)
class MonteCarloKey(_Key):
    """The simulated S of every estimator at a grid of ``n_points`` values of p and at ``p``."""

    N: int
    k: int
    p: float
    samples: int
    n_points: int = 11
    random_state: int = 0


@cached(max_items=64)
def discrete_at_p(key: DiscreteKey) -> dict[str, float]:
    """The root mean square deviation S of every estimator at p (the view's read-out)."""
    return {m: float(discrete.moments(x, key.N, key.k, key.p).S) for m, x in discrete_tables(key.N, key.k).items()}


@cached(max_items=32)
def discrete_view(key: DiscreteKey) -> dict:
    """What the Discrete tab draws for N, k and p: the tables, the S(p) curves and S at p."""
    p_grid, S = discrete_curves(key.N, key.k)
    return {"tables": discrete_tables(key.N, key.k), "p": p_grid, "S": S, "S_at_p": discrete_at_p(key)}


@cached(max_items=16)
def discrete_monte_carlo(key: MonteCarloKey) -> pd.DataFrame:
    """Simulated S ± se at a grid of p and at ``p``, per estimator (overlaid on Fig 2;
    :func:`buviz.discrete.simulate_rms_deviation_curve`)."""
    N, k = key.N, key.k
    grid = np.unique(np.r_[np.linspace(0, 1, key.n_points), key.p])
    frames = []
    for method, x in discrete_tables(N, k).items():
        S, se = discrete.simulate_rms_deviation_curve(x, N, k, grid, key.samples, random_state=key.random_state)
        frames.append(pd.DataFrame({"method": method, "p": grid, "S": S, "se": se}))
    return pd.concat(frames, ignore_index=True)


# -- accuracy extrapolation (Zheng, Achanta and Benjamini, JMLR 19, 2018) ------------------------------
#: Classes of the synthetic Gaussian label population.
N_POPULATION_CLASSES = 400


@cached(max_items=16)
def toy_model(rho: float) -> dict:
    """The §4.1 toy model at ρ beside the reference ρ (:func:`buviz.extrapolation.toy_model_summary`),
    what the toy tab's :class:`~buviz.plots.displays.ToyModelDisplay` draws."""
    return ex.toy_model_summary(rho)


@dataclass(frozen=True)
class PopulationKey(_Key):
    """A label population: ``digits``, or the synthetic Gaussian one at signal correlation ``rho``."""

    name: str
    rho: float
    seed: int


@dataclass(frozen=True)
class CurvesKey(_Key):
    """The extrapolation curves of one classifier from K observed classes of a population."""

    population: PopulationKey
    classifier: str
    K: int
    method: str
    basis: str


@cached(max_items=8)
def label_population(key: PopulationKey) -> ex.LabelPopulation:
    """The digits population, or the synthetic Gaussian one at ρ."""
    if key.name == "digits":
        return ex.load_digits_population(random_state=key.seed)
    return ex.make_population(N_POPULATION_CLASSES, 10, rho=key.rho, n_train=5, n_test=20,
                              random_state=key.seed)


@cached(max_items=32)
def population_margins(key: PopulationKey, classifier: str, classes: tuple | None):
    """The classifier's margins on the population (on its ``classes`` subset when given)."""
    pop = label_population(key)
    if classes is not None:
        pop = ex.subsample_classes(pop, np.array(classes))
    return ex.population_margins(pop, classifier, random_state=key.seed)


@cached(max_items=16)
def extrapolation_curves(key: CurvesKey) -> ex.ExtrapolationCurves:
    """Observed AverageTA_k (eq 3) on K random classes, each estimator's extrapolation, the truth
    (:func:`buviz.extrapolation.extrapolation_curves` on this module's cached margins)."""
    pop, seed, K = label_population(key.population), key.population.seed, key.K
    n = pop.n_classes
    if K < 2 or K >= n:
        raise ValueError(f"K must be between 2 and {n - 1} for this population ({n} classes)")
    classes = tuple(int(c) for c in ex.observed_classes(n, K, seed))
    methods = ex.METHODS if key.method == "all" else (key.method,)
    return ex.extrapolation_curves(pop, key.classifier, K, methods, basis=key.basis, random_state=seed,
                                   margins=population_margins(key.population, key.classifier, None),
                                   observed_margins=population_margins(key.population, key.classifier, classes))


#: Nominal coverage of the interval the explorer shows for AGA at the population's class count.
INTERVAL_LEVEL = 0.9


@cached(max_items=16)
def extrapolation_interval(key: CurvesKey) -> dict:
    """The :data:`INTERVAL_LEVEL` interval for AGA_n at the population's n classes from the K observed
    ones (:func:`buviz.extrapolation.accuracy_interval`, around the moment method's estimate when the
    curves hold one), with the truth it is judged against: ``interval``, ``truth``, ``k``, ``K``."""
    curves = extrapolation_curves(key)
    if curves.K < 3:
        raise ValueError(f"an interval needs K >= 3 observed classes, got K = {curves.K}")
    margins, labels = population_margins(key.population, key.classifier, tuple(int(c) for c in curves.classes))
    moment = curves.estimates.get("moment")
    ties = ties_for(key.classifier)  # as the curves' own fits
    interval = ex.accuracy_interval(margins, labels, curves.n_classes, INTERVAL_LEVEL,
                                    estimate=None if moment is None else float(moment[-1]), ties=ties,
                                    random_state=key.population.seed)
    return {"interval": interval, "truth": float(curves.truth[-1]), "k": int(curves.n_classes), "K": curves.K}


@cached(max_items=1)
def classex_fixture() -> dict:
    """The ClassEx reference fixture shipped with the package (30 instances computed by the R package's
    own code; provenance in ``buviz/data/peers/README.md``)."""
    return ex.load_classex_fixture()


@cached(max_items=8)
def peer_comparison(index: int) -> dict:
    """One fixture instance: observed curve, every estimator's prediction, the R package's."""
    return ex.peer_comparison(classex_fixture(), index)


@cached(max_items=4)
def classifier_comparison(key: PopulationKey) -> pd.DataFrame:
    """The Table-1-style comparison of classifiers on a population (K = 20 observed classes -> all)."""
    return ex.compare_classifiers(label_population(key), ex.CLASSIFIERS, K=20, k_target=N_POPULATION_CLASSES,
                                  method="best", random_state=key.seed)
