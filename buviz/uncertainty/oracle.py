"""The true boundary uncertainty U(Λ) of a classifier status on a model with exact posteriors.

Ha et al. (2021) define the expected boundary uncertainty of a status Λ (§4.3, eqs 15-20) as the
local uncertainty of the status's own boundary B(Λ), integrated with the data density over a band
``B(Λ) + δV`` of infinitesimal width, per true top-2 pair {k, l} ∈ I* (eq 13) and weighted by
P(C_kl) (eq 19). Proposal 2 (eqs 25-40) estimates it from a training set. On a mixture whose
densities are known (:class:`buviz.datasets.GaussianMixture`, ``ds.model``) the population quantity
itself can be computed: in 2-D, as a line integral along B(Λ). This module does that, so that Û
can be compared with the truth (the paper's Goal (a), §6).

Definition used (eqs 15-20 with the width δV → 0 and the normalisation they leave implicit)::

    U(Λ)    = Σ_{kl ∈ I*} P(C_kl) U_kl(Λ)                                           (eq 19)
    U_kl(Λ) = ∫_{B(Λ) ∩ B*(k,l)} −λ_U(x) p(x) ds  /  ∫_{B(Λ) ∩ B*(k,l)} p(x) ds      (eq 20)

where ds is arc length along B(Λ), −λ_U(x) = U(x; Λ) = 1 − ∣2 P − 1∣ with P = P(C_i | x) /
(P(C_i | x) + P(C_j | x)) for the classifier's top-2 pair {i(x;Λ), j(x;Λ)} (eq 37 applied to the exact
posteriors, normalised to the pair as eq 38 normalises k̂^m by k̂ = k̂^i + k̂^j), and −λ_U(x) = U_min = 0
where that pair is not the true top-2 pair {i*(x), j*(x)} (eq 18). For two classes I* = {{1, 2}},
P(C_12) = 1 and B*(1, 2) is the whole plane, so U(Λ) is the density-weighted mean of U(x; Λ) along
B(Λ).

Two choices the paper leaves open, named here:

- **Normalisation.** Eq 20 integrates over a band of width δV and "will [be clarified] in a future
  work"; as δV → 0 the unnormalised integral vanishes. Dividing by the band's probability mass makes
  U_kl the conditional mean of U(x; Λ) on the band, which is what the estimator computes (eq 30/31 is
  a weighted *mean*, Σ k̂(x) Û(x) / w_kl) and what eq 21 requires (U(Λ) = U_max = 1 iff the posteriors
  are equal everywhere on B(Λ)). Without it U(Λ) would scale with the band width.
- **The band** (:data:`BANDS`). ``"geometric"`` (default): δV is a band of uniform width in the
  sample space around B(Λ), so the weight along B(Λ) is p(x) ds. ``"discriminant"``: a band
  ∣f(x; Λ)∣ < ε of the near-boundary-ness f (eq 12), the space Proposal 2 counts in; by the coarea
  formula the weight is p(x) / ∣∇f(x; Λ)∣ ds, which depends on how f is scaled along B(Λ) (for an
  RBF SVC, ∣∇f∣ varies along the boundary). Proposal 2 adapts its bandwidth h_x to the spread of f
  around each x (eq 32), which cancels a local scale of f, so the geometric band is the default.
- **An empty boundary.** Where B(Λ) does not meet B*(k, l) (no boundary: the status gives one class
  everywhere) the ratio is undefined; eq 39 gives U_max when Λ makes no error there and U_min
  otherwise. On a mixture of Gaussians every region has mass from every class, so Λ errs there and
  U_kl = U_min = 0.

B(Λ) is traced by marching squares (contourpy) on a grid: its vertices are linearly interpolated on
the grid edges, the integral is the midpoint rule on the chords, so the error is O(h²) in the grid
step h (:attr:`TrueBoundaryUncertainty.accuracy` reports the change from a grid twice as coarse).
A status whose boundary has features much finer than the grid (an RBF SVC at large γ draws small
loops around single training samples) needs a fine grid; :func:`svc_boundary_region` gives one
restricted to where B(Λ) can lie, with a certificate.

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from buviz._validation import InvalidParameterError, check_int

__all__ = ["BANDS", "BOX_SD", "DEFAULT_RESOLUTION", "DENSITY_FLOOR", "CELLS_PER_LENGTH_SCALE", "BoundaryRegion",
           "TrueBoundaryUncertainty", "true_boundary_uncertainty", "svc_boundary_region", "mixture_bounds"]

#: The bands δV of eq 15 offered (see the module docstring).
BANDS = ("geometric", "discriminant")
#: The default grid reaches this many standard deviations beyond every mixture component (the mass
#: outside is below 2·10⁻⁹ per component, so B(Λ) outside carries no weight that shows).
BOX_SD = 6.0
#: Grid points per axis of the default grid (chords ≤ 1/300 of the box; the midpoint rule's error is
#: below 10⁻³ on the paper mixtures' SVC statuses, see ``check=True``).
DEFAULT_RESOLUTION = 301
#: Cells of the box's grid whose four corners all have p(x) below this fraction of the grid's largest
#: density are not traced: B(Λ) there would add at most this fraction, relative, per unit length to
#: the integrals (the status is not evaluated where no data can be). With 0 every node is evaluated.
DENSITY_FLOOR = 1e-5
#: Grid cells per length scale of a status with one (an RBF SVC: 1/√γ) in :func:`svc_boundary_region`.
CELLS_PER_LENGTH_SCALE = 8.0
#: Nodes per axis of one tile of a :class:`BoundaryRegion` grid (bounds the memory of a fine grid).
_TILE = 128


@dataclass(frozen=True)
class BoundaryRegion:
    """Where B(Λ) can lie: within ``radius`` of one of ``centres``; traced there on a grid of ``spacing``.

    Parameters
    ----------
    centres : ndarray of shape (n, 2)
        Centres of the discs.
    radius : float
        Radius of the discs (B(Λ) lies in their union).
    spacing : float
        Grid step inside the discs.
    """

    centres: np.ndarray
    radius: float
    spacing: float


@dataclass
class TrueBoundaryUncertainty:
    """The true boundary uncertainty U(Λ) of one status and the boundary integral behind it.

    Attributes
    ----------
    value : float
        U(Λ) in [0, 1] (eq 19 normalised as in the module docstring).
    pair_values : dict of (int, int) to float
        U_kl(Λ) per true pair {k, l} ∈ I* (eq 20).
    pair_probabilities : dict of (int, int) to float
        P(C_kl), the probability that {k, l} is the true top-2 pair (1 for two classes).
    boundary_mass : float
        ∫_{B(Λ)} w(x) ds, the band's mass per unit width: w = p for the geometric band,
        p / ∣∇f∣ for the discriminant band. 0 when B(Λ) is empty.
    boundary_length : float
        Length of B(Λ) inside the grid.
    points : ndarray of shape (n, 2)
        Midpoints of the chords of B(Λ).
    lengths : ndarray of shape (n,)
        Chord lengths.
    local_uncertainty : ndarray of shape (n,)
        −λ_U at the midpoints: U(x; Λ) from the exact posteriors, U_min where the pairs differ (eq 18).
    weights : ndarray of shape (n,)
        w(x) at the midpoints.
    band : str
        The band used (:data:`BANDS`).
    accuracy : float or None
        ∣U(Λ) − U(Λ) on a grid twice as coarse∣ when requested, else None.
    """

    value: float
    pair_values: dict
    pair_probabilities: dict
    boundary_mass: float
    boundary_length: float
    points: np.ndarray = field(repr=False)
    lengths: np.ndarray = field(repr=False)
    local_uncertainty: np.ndarray = field(repr=False)
    weights: np.ndarray = field(repr=False)
    band: str = "geometric"
    accuracy: float | None = None


def mixture_bounds(model, n_sd: float = BOX_SD) -> tuple[float, float, float, float]:
    """Return the box ``(x0, y0, x1, y1)`` reaching ``n_sd`` standard deviations beyond every component.

    Parameters
    ----------
    model : GaussianMixture
        A 2-D model.
    n_sd : float, default=BOX_SD
        Standard deviations beyond each component mean.

    Returns
    -------
    tuple of 4 float
        The box.
    """
    lo, hi = model._box(n_sd)
    return float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])


def svc_boundary_region(discriminant, bounds, cells_per_length_scale: float = CELLS_PER_LENGTH_SCALE,
                        resolution: int = DEFAULT_RESOLUTION) -> BoundaryRegion | None:
    """Return where the boundary of a two-class RBF SVC can lie, with a grid step fit for its γ.

    For an RBF SVC, f(x) = Σ_s α_s exp(−γ ||x − s||²) + b over its support vectors s. At a point
    whose distance to every support vector exceeds r = √(ln(Σ|α_s| / ∣b∣) / γ), ∣f(x) − b∣ < ∣b∣, so f
    has the sign of b: B(Λ) lies within r of a support vector (a certificate, not a heuristic). The
    step is 1/(``cells_per_length_scale`` √γ), so B(Λ)'s loops around single samples (large γ) are
    resolved.

    Parameters
    ----------
    discriminant : buviz.classifiers.Discriminant
        A status whose ``estimator`` is a fitted two-class :class:`sklearn.svm.SVC` with ``kernel="rbf"``.
    bounds : tuple of 4 float
        The box of the integral.
    cells_per_length_scale : float, default=CELLS_PER_LENGTH_SCALE
        Grid cells per 1/√γ.
    resolution : int, default=DEFAULT_RESOLUTION
        Grid points per axis of the box's own grid.

    Returns
    -------
    BoundaryRegion or None
        None when the status is not such an SVC, when b = 0 (no certificate), or when the box's
        own grid at ``resolution`` is already as fine.
    """
    from sklearn.svm import SVC

    est = getattr(discriminant, "estimator", None)
    if not isinstance(est, SVC) or est.kernel != "rbf" or len(est.classes_) != 2:
        return None
    gamma = float(est._gamma)
    b = float(abs(est.intercept_[0]))
    total = float(np.abs(est.dual_coef_).sum())
    if b <= 0 or total <= 0:
        return None
    spacing = 1.0 / (cells_per_length_scale * np.sqrt(gamma))
    step = max(bounds[2] - bounds[0], bounds[3] - bounds[1]) / (resolution - 1)
    if spacing >= step:
        return None
    radius = np.sqrt(max(np.log(total / b), 0.0) / gamma) if total > b else 0.0
    return BoundaryRegion(np.asarray(est.support_vectors_, dtype=float), float(radius), float(spacing))


def _rbf_svc_evaluator(discriminant, X_check: np.ndarray):
    """For a two-class RBF SVC status: an exact evaluator of g = [−s, s] that sums, at each point, only
    the support vectors whose kernel term can exceed 10⁻¹⁴ of Σ|α| (a KD-tree search), else None.

    It is checked against the status on ``X_check`` (to 10⁻⁸ relative) and not used if it differs.
    """
    from scipy.spatial import cKDTree
    from sklearn.svm import SVC

    est = getattr(discriminant, "estimator", None)
    if not isinstance(est, SVC) or est.kernel != "rbf" or len(est.classes_) != 2:
        return None
    gamma = float(est._gamma)
    sv = np.asarray(est.support_vectors_, dtype=float)
    coef = np.asarray(est.dual_coef_, dtype=float)[0]
    b = float(est.intercept_[0])
    cut = np.sqrt(np.log(1e14) / gamma)
    tree = cKDTree(sv)

    def s_of(X):
        X = np.asarray(X, dtype=float)
        out = np.full(len(X), b)
        if cut > 0.5 * np.ptp(sv, axis=0).max():  # most pairs count: one dense product per chunk
            for i in range(0, len(X), 2048):
                d = X[i:i + 2048, None, :] - sv[None, :, :]
                out[i:i + 2048] += np.exp(-gamma * np.einsum("nsk,nsk->ns", d, d)) @ coef
            return out
        m = cKDTree(X).sparse_distance_matrix(tree, cut, output_type="coo_matrix")
        np.add.at(out, m.row, coef[m.col] * np.exp(-gamma * m.data ** 2))
        return out

    def g(X):
        s = s_of(X)
        return np.column_stack([-s, s])

    ref = np.asarray(discriminant(X_check), dtype=float)
    mine = g(X_check)
    if ref.shape != mine.shape or not np.allclose(mine, ref, rtol=1e-8, atol=1e-8 * max(1.0, np.abs(ref).max())):
        return None
    return g


# -- tracing -----------------------------------------------------------------------------------------
def _segments(xs: np.ndarray, ys: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Midpoints and lengths of the chords of the zero contour of ``z`` (nodes, NaN = masked)."""
    import contourpy

    zm = np.ma.masked_invalid(z)
    if zm.count() == 0:
        return np.empty((0, 2)), np.empty(0)
    gen = contourpy.contour_generator(xs, ys, zm, line_type=contourpy.LineType.Separate)
    mids, lens = [], []
    for line in gen.lines(0.0):
        if len(line) < 2:
            continue
        d = np.diff(line, axis=0)
        mids.append(0.5 * (line[1:] + line[:-1]))
        lens.append(np.hypot(d[:, 0], d[:, 1]))
    if not mids:
        return np.empty((0, 2)), np.empty(0)
    return np.concatenate(mids), np.concatenate(lens)


def _chunked(func, X: np.ndarray, chunk: int = 200_000) -> np.ndarray:
    return np.concatenate([np.asarray(func(X[i:i + chunk]), dtype=float) for i in range(0, len(X), chunk)]) \
        if len(X) else np.empty((0,))


def _pair_field(G: np.ndarray, k: int, l: int) -> np.ndarray:
    """f_kl = g_k − g_l where {k, l} are the top-2 of G (NaN elsewhere is not needed: the pair is checked
    at the chords' midpoints)."""
    return G[..., k] - G[..., l]


def _dense_enough(p: np.ndarray) -> np.ndarray:
    """Nodes evaluated: those of a cell with a corner where p ≥ DENSITY_FLOOR · max p (see the constant)."""
    keep = p >= DENSITY_FLOOR * p.max()
    grown = keep.copy()  # a node of any kept cell: dilate by one node in each direction
    grown[1:, :] |= keep[:-1, :]
    grown[:-1, :] |= keep[1:, :]
    g2 = grown.copy()
    g2[:, 1:] |= grown[:, :-1]
    g2[:, :-1] |= grown[:, 1:]
    return g2


def _trace_grid(g, J: int, xs: np.ndarray, ys: np.ndarray, active: np.ndarray | None):
    """Chords of every pair's boundary on one grid (``active``: nodes evaluated; None = all)."""
    gx, gy = np.meshgrid(xs, ys)
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    G = np.full((len(pts), J), np.nan)
    sel = np.ones(len(pts), bool) if active is None else active.ravel()
    if sel.any():
        G[sel] = _chunked(lambda X: np.asarray(g(X), float).reshape(len(X), J), pts[sel]).reshape(-1, J)
    G = G.reshape(len(ys), len(xs), J)
    out = {}
    for k in range(J):
        for l in range(k + 1, J):
            out[(k, l)] = _segments(xs, ys, _pair_field(G, k, l))
    return out


def _trace(g, J: int, bounds, resolution: int, region: BoundaryRegion | None, model):
    """Chords of B(Λ) per pair (k, l): midpoints and lengths, over the whole box or a region's discs."""
    x0, y0, x1, y1 = bounds
    if region is None:
        xs, ys = np.linspace(x0, x1, resolution), np.linspace(y0, y1, resolution)
        gx, gy = np.meshgrid(xs, ys)
        p = model.density(np.column_stack([gx.ravel(), gy.ravel()])).reshape(gx.shape)
        return _trace_grid(g, J, xs, ys, _dense_enough(p))
    from scipy.spatial import cKDTree

    h = region.spacing
    nx = int(np.ceil((x1 - x0) / h))
    ny = int(np.ceil((y1 - y0) / h))
    reach = region.radius + 1.5 * h  # a cell crossed by B(Λ) has its four corners within this of a centre
    c = region.centres
    inside = ((c[:, 0] > x0 - reach) & (c[:, 0] < x1 + reach) & (c[:, 1] > y0 - reach) & (c[:, 1] < y1 + reach))
    c = c[inside]
    out: dict = {(k, l): ([], []) for k in range(J) for l in range(k + 1, J)}
    if len(c):
        tree = cKDTree(c)
        t = _TILE - 1  # cells per tile
        tiles = set()
        lo_i = np.clip(np.floor((c[:, 0] - reach - x0) / (h * t)).astype(int), 0, None)
        hi_i = np.clip(np.floor((c[:, 0] + reach - x0) / (h * t)).astype(int), None, nx // t)
        lo_j = np.clip(np.floor((c[:, 1] - reach - y0) / (h * t)).astype(int), 0, None)
        hi_j = np.clip(np.floor((c[:, 1] + reach - y0) / (h * t)).astype(int), None, ny // t)
        for a, b_, cc, d in zip(lo_i, hi_i, lo_j, hi_j, strict=True):
            for i in range(a, b_ + 1):
                for j in range(cc, d + 1):
                    tiles.add((i, j))
        for i, j in sorted(tiles):
            ia, ja = i * t, j * t
            ib, jb = min(ia + t, nx), min(ja + t, ny)
            if ib <= ia or jb <= ja:
                continue
            xs = x0 + h * np.arange(ia, ib + 1)
            ys = y0 + h * np.arange(ja, jb + 1)
            gx, gy = np.meshgrid(xs, ys)
            dist, _ = tree.query(np.column_stack([gx.ravel(), gy.ravel()]), distance_upper_bound=reach)
            active = np.isfinite(dist).reshape(gx.shape)
            if active.sum() < 4:
                continue
            for key, (m, ln) in _trace_grid(g, J, xs, ys, active).items():
                out[key][0].append(m)
                out[key][1].append(ln)
    return {key: (np.concatenate(m) if m else np.empty((0, 2)), np.concatenate(ln) if ln else np.empty(0))
            for key, (m, ln) in out.items()}


def _top2(A: np.ndarray) -> np.ndarray:
    """Top-2 indexes per row, ordered i < j (ties to the smaller index, as ``argsort`` stable does)."""
    order = np.argsort(-A, axis=1, kind="stable")[:, :2]
    return np.sort(order, axis=1)


def _pair_probabilities(model, bounds, resolution: int) -> dict:
    """P(C_kl): the mass of B*(k, l) (the region where {k, l} are the true top-2), by the trapezoid rule."""
    J = model.n_classes
    if J == 2:
        return {(0, 1): 1.0}
    xs = np.linspace(bounds[0], bounds[2], resolution)
    ys = np.linspace(bounds[1], bounds[3], resolution)
    gx, gy = np.meshgrid(xs, ys)
    pts = np.column_stack([gx.ravel(), gy.ravel()])
    lj = model.log_joint(pts)
    p = np.exp(lj).sum(1).reshape(gx.shape)
    pair = _top2(lj)
    code = (pair[:, 0] * J + pair[:, 1]).reshape(gx.shape)
    out = {}
    for k in range(J):
        for l in range(k + 1, J):
            out[(k, l)] = float(np.trapezoid(np.trapezoid(np.where(code == k * J + l, p, 0.0), xs, axis=1), ys))
    total = sum(out.values())
    return {key: v / total for key, v in out.items() if v > 0}


def _gradient_norm(g, J: int, pts: np.ndarray, pairs: np.ndarray, step: float) -> np.ndarray:
    """|∇f_kl| at ``pts`` by central differences (f_kl = g_k − g_l for each row's pair)."""
    grads = []
    for e in np.eye(2):
        gp = np.asarray(g(pts + step * e), float).reshape(len(pts), J)
        gm = np.asarray(g(pts - step * e), float).reshape(len(pts), J)
        r = np.arange(len(pts))
        fp = gp[r, pairs[:, 0]] - gp[r, pairs[:, 1]]
        fm = gm[r, pairs[:, 0]] - gm[r, pairs[:, 1]]
        grads.append((fp - fm) / (2 * step))
    return np.hypot(*grads)


def _integrate(g, J: int, model, chords: dict, band: str, step: float, pair_prob: dict):
    mids, lens, pairs = [], [], []
    for (k, l), (m, ln) in chords.items():
        if not len(m):
            continue
        if J > 2:  # keep the chords where {k, l} is the status's top-2 pair (B(Λ) of eq 7)
            keep = np.all(_top2(np.asarray(g(m), float).reshape(len(m), J)) == (k, l), axis=1)
            m, ln = m[keep], ln[keep]
        mids.append(m)
        lens.append(ln)
        pairs.append(np.tile([k, l], (len(m), 1)))
    if mids:
        pts, lens, pairs = np.concatenate(mids), np.concatenate(lens), np.concatenate(pairs)
    else:
        pts, lens, pairs = np.empty((0, 2)), np.empty(0), np.empty((0, 2), int)
    from buviz.uncertainty.proposal2 import U_MIN, local_uncertainty

    post = model.posterior(pts) if len(pts) else np.empty((0, J))
    p = model.density(pts) if len(pts) else np.empty(0)
    r = np.arange(len(pts))
    pi, pj = post[r, pairs[:, 0]], post[r, pairs[:, 1]]
    with np.errstate(invalid="ignore", divide="ignore"):
        share = np.where(pi + pj > 0, pi / (pi + pj), 0.5)
    u = local_uncertainty(share)
    true_pair = _top2(np.log(np.clip(post, 1e-300, None))) if len(pts) else np.empty((0, 2), int)
    same = np.all(true_pair == pairs, axis=1)
    u = np.where(same, u, U_MIN)  # eq 18
    w = p.copy()
    if band == "discriminant" and len(pts):
        w = p / np.maximum(_gradient_norm(g, J, pts, pairs, step), 1e-300)
    pair_values = {}
    value = 0.0
    for key, prob in pair_prob.items():
        on = np.all(true_pair == key, axis=1) if len(pts) else np.zeros(0, bool)
        den = float(np.sum(w[on] * lens[on]))
        pair_values[key] = float(np.sum(w[on] * lens[on] * u[on]) / den) if den > 0 else U_MIN
        value += prob * pair_values[key]
    return TrueBoundaryUncertainty(value=float(value), pair_values=pair_values, pair_probabilities=pair_prob,
                                   boundary_mass=float(np.sum(w * lens)), boundary_length=float(lens.sum()),
                                   points=pts, lengths=lens, local_uncertainty=u, weights=w, band=band)


def true_boundary_uncertainty(discriminant, model, *, bounds=None, resolution: int = DEFAULT_RESOLUTION,
                              region: BoundaryRegion | str | None = "auto", band: str = "geometric",
                              check: bool = False) -> TrueBoundaryUncertainty:
    """Return the true boundary uncertainty U(Λ) of a status (Ha et al. 2021, eqs 15-20), a line integral.

    U(Λ) = Σ_kl P(C_kl) U_kl(Λ) (eq 19); U_kl(Λ) is the mean of the local uncertainty U(x; Λ) (eq 37
    on the exact posteriors of the status's top-2 pair; U_min where that pair is not the true one,
    eq 18) along the status's boundary B(Λ) ∩ B*(k, l), weighted by the density p(x) ds (eq 20 with
    δV → 0, normalised by the band's mass; see the module docstring for the two choices this makes).

    Parameters
    ----------
    discriminant : callable
        The status: X of shape (n, 2) -> discriminants g of shape (n, J) (eq 5), e.g. a
        :class:`buviz.classifiers.Discriminant`.
    model : GaussianMixture
        The exact 2-D model the data come from (``ds.model``, in the dataset's coordinates).
    bounds : tuple of 4 float, optional
        Box ``(x0, y0, x1, y1)`` of the integral; default :func:`mixture_bounds`.
    resolution : int, default=DEFAULT_RESOLUTION
        Grid points per axis over the box (when no region is used).
    region : BoundaryRegion, "auto" or None, default="auto"
        A fine grid restricted to where B(Λ) can lie; ``"auto"``: :func:`svc_boundary_region` of
        the status (None when it does not apply); None: the box's grid.
    band : {"geometric", "discriminant"}, default="geometric"
        The band δV of eq 15: weight p(x) ds, or p(x)/∣∇f(x; Λ)∣ ds (:data:`BANDS`).
    check : bool, default=False
        Also compute U(Λ) on a grid twice as coarse and report the difference as ``accuracy``.

    Returns
    -------
    TrueBoundaryUncertainty
        U(Λ) and the boundary integral behind it.

    Raises
    ------
    InvalidParameterError
        If the model is not 2-D, ``band`` is unknown, ``resolution`` < 11 or ``bounds`` is not a box.
    """
    if getattr(model, "n_features", None) != 2:
        raise InvalidParameterError("model must be a 2-D GaussianMixture (ds.model of a 2-D mixture dataset)")
    if band not in BANDS:
        raise InvalidParameterError(f"band must be one of {BANDS}, got {band!r}")
    resolution = check_int(resolution, "resolution", low=11)
    if bounds is None:
        bounds = mixture_bounds(model)
    bounds = tuple(float(b) for b in bounds)
    if len(bounds) != 4 or not all(np.isfinite(bounds)) or bounds[2] <= bounds[0] or bounds[3] <= bounds[1]:
        raise InvalidParameterError(f"bounds must be (x0, y0, x1, y1) with x0 < x1 and y0 < y1, got {bounds}")
    if isinstance(region, str):
        if region != "auto":
            raise InvalidParameterError(f"region must be a BoundaryRegion, 'auto' or None, got {region!r}")
        region = svc_boundary_region(discriminant, bounds, resolution=resolution)
    J = model.n_classes
    pair_prob = _pair_probabilities(model, bounds, resolution)
    check_pts = np.random.default_rng(0).uniform(bounds[:2], bounds[2:], size=(64, 2))
    fast = _rbf_svc_evaluator(discriminant, check_pts)
    g = fast if fast is not None else discriminant

    def run(res: int, reg: BoundaryRegion | None):
        step = (reg.spacing if reg is not None else max(bounds[2] - bounds[0], bounds[3] - bounds[1]) / (res - 1))
        chords = _trace(g, J, bounds, res, reg, model)
        return _integrate(g, J, model, chords, band, 1e-3 * step, pair_prob)

    out = run(resolution, region)
    if check:
        coarse_region = None if region is None else BoundaryRegion(region.centres, region.radius, 2 * region.spacing)
        out.accuracy = abs(out.value - run((resolution + 1) // 2, coarse_region).value)
    return out
