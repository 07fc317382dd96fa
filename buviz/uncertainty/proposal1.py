"""Proposal 1: the earlier boundary-uncertainty estimate Û⁽¹⁾, the baseline of Table 3.

Section and equation numbers are those of Ha et al. (2021) (§3, eq 8-11).

Step 1 (§3.3) finds R_A *anchors* on the classifier boundary B(Λ) (eq 7) by dichotomy on segments
between random pairs of training samples predicted in different classes; Step 2 (§3.4) takes the
nearest training sample of each anchor (the near-boundary set N_B(Λ)), partitions N_B(Λ) by Tree
Divisive Clustering (TDC), and averages the clusters' binary entropies (eq 9-10) over R_T TDC runs
(eq 11).

Everything is batched: the R_A dichotomies advance together (one classifier call on an (R_A, d)
array per bisection step, i_max calls in all, plus one call on T), and the R_T TDC runs and all the
clusters of one TDC level run their 2-means together as flat array operations. Elementary operations
are tallied as they are done (:mod:`buviz.uncertainty.costs`).

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.spatial import cKDTree
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from buviz._validation import (
    RANDOM_STATE,
    InstanceOf,
    Interval,
    InvalidParameterError,
    check_int,
    check_Xy,
    fit_context,
)
from buviz._values import freeze_fields
from buviz.classifiers import Discriminant, as_discriminant
from buviz.grid import top2
from buviz.uncertainty.opcounts import OpCounts, distance_ops
from buviz.uncertainty.proposal2 import U_MIN

__all__ = ["Proposal1", "Proposal1Result", "binary_entropy"]

_LN2 = math.log(2.0)


def binary_entropy(p: np.ndarray) -> np.ndarray:
    """Return the binary entropy −p log p − (1 − p) log(1 − p) divided by ln 2 (eq 9, §6.4.2).

    Parameters
    ----------
    p : array-like
        Probabilities in [0, 1].

    Returns
    -------
    ndarray
        The entropy in bits, in [0, 1].

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -(np.where(p > 0, p * np.log(p), 0.0) + np.where(p < 1, (1 - p) * np.log1p(-p), 0.0))
    return np.clip(h / _LN2, 0.0, 1.0)


class Proposal1(BaseEstimator):
    """Boundary uncertainty of classifier statuses, Proposal 1 (Û⁽¹⁾, eq 11): the paper's baseline.

    A scikit-learn estimator (``get_params``, ``set_params``, ``clone``): ``fit(X, y)`` stores the
    training set, ``evaluate(classifier)`` scores one classifier status.

    Parameters
    ----------
    R_A : int or None, default=None
        Number of anchors (random pairs of training samples); None means N (§6.10.1).
    i_max : int, default=20
        Dichotomy steps per anchor (§3.3).
    R_T : int, default=10
        TDC runs averaged in eq 11.
    i_K : int, default=20
        Maximum iterations of each 2-means of the TDC (a 2-means also stops when no assignment
        changes, which does not change its result).
    N_max : int, default=40
        TDC splits clusters with more than N_max samples. **Not published**: 40 is our choice.
    N_min : int, default=10
        Clusters with at most N_min samples are dropped. **Not published**: 10 is our choice.
        Must be smaller than N_max.
    prior_correction : bool, default=True
        Divide each cluster posterior P̂(C_l | C) by the class prior P̂_l = N_l / N before the
        entropy of eq 9, as Proposal 1 did to address class imbalance (§4.4.4, which adds that
        Proposal 2 does not). The two corrected values are renormalised over the pair {î, ĵ}, so
        P̂ = (n_î / N_î) / (n_î / N_î + n_ĵ / N_ĵ) and the entropy stays in [0, 1]. ``False`` gives
        the plain share n_î / (n_î + n_ĵ).
    random_state : int, Generator or None, default=0
        Seeds the pairs and the 2-means seeds. ``evaluate`` draws from a fresh generator seeded with
        it, so every status gets the same random stream and a status evaluated twice gives the same
        result.

    Attributes
    ----------
    X_ : ndarray of shape (N, d)
        The training set.
    y_ : ndarray of shape (N,)
        Its labels as codes 0..J-1.
    n_classes_ : int
        J.
    classes_ : ndarray
        The original labels, ``classes_[code]``.
    n_features_in_ : int
        d.
    R_A_ : int
        The R_A used.
    tree_ : scipy.spatial.cKDTree
        KD-tree of T for the 1-NN of anchors (built once: per-dataset, like Proposal 2's eq 42).
    fit_time_ : float
        Seconds spent in ``fit``.

    Notes
    -----
    Choices the paper leaves open:

    * Pairs (§3.3): drawn uniformly, with replacement, among the pairs of training samples with
      different predicted classes (for J = 2: f > 0 at one, f < 0 at the other, f = g₁ − g₂).
    * Multi-class re-check (§3.3): the segment end that keeps class k (resp. l) is moved to a
      midpoint predicted k (resp. l). When the midpoint is predicted a third class m, the pair
      {k, l} is not the local top-2 there, so the dichotomy switches to the sub-segment [k-end,
      midpoint] and the pair {k, m}: the anchor stays on an existing boundary. After i_max steps an
      anchor whose bracket ends do not both have {k, l} as top-2 is dropped (``anchor_valid``).
    * The anchor is the zero of the linear interpolant of f_kl = g_k − g_l on the final bracket
      (no extra classifier call); the bracket has length 2^(−i_max) of the pair's distance. Where
      g jumps across B(Λ) (scikit-learn's "ovr" SVC scores add vote counts) f does not vanish
      there, but the anchor still lies in a bracket whose ends are predicted k and l.
    * N_B(Λ) is a *set*: anchors sharing their nearest training sample give one member.
    * Eq 9: P̂ is the given-label share of the two most frequent *predicted* classes î, ĵ of the
      cluster normalised over those two classes, n_î / (n_î + n_ĵ) (divided by the priors first with
      ``prior_correction``), so the binary entropy / ln 2 lies in [0, 1] for any J. Ties pick the
      smaller class index.
    * Eq 10: ``|¶_Λ|`` is read as the number of samples in the retained clusters, so the weights sum to 1.
    * A status predicting one class on all of T has no anchors, and a run keeping no cluster (fewer
      than N_min + 1 near-boundary samples) has no estimate: both give U_min = 0 (the boundary does
      not run through the data).
    * A cluster whose 2-means leaves one side empty (duplicated points) is not split further.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """

    _parameter_constraints: dict = {
        "R_A": [None, Interval("int", 1, None)],
        "i_max": [Interval("int", 1, None)],
        "R_T": [Interval("int", 1, None)],
        "i_K": [Interval("int", 1, None)],
        "N_max": [Interval("int", 1, None)],
        "N_min": [Interval("int", 0, None)],
        "prior_correction": [InstanceOf(bool, np.bool_, description="a bool")],
        "random_state": RANDOM_STATE,
    }

    def __init__(self, *, R_A: int | None = None, i_max: int = 20, R_T: int = 10, i_K: int = 20,
                 N_max: int = 40, N_min: int = 10, prior_correction: bool = True, random_state=0):
        self.R_A = R_A
        self.i_max = i_max
        self.R_T = R_T
        self.i_K = i_K
        self.N_max = N_max
        self.N_min = N_min
        self.prior_correction = prior_correction
        self.random_state = random_state

    @fit_context
    def fit(self, X, y) -> Proposal1:
        """Store the training set and build the KD-tree used for the anchors' nearest neighbours.

        Parameters
        ----------
        X : array-like of shape (N, d)
            The training set T.
        y : array-like of shape (N,)
            Its labels.

        Returns
        -------
        Proposal1
            The fitted estimator (``self``).

        Raises
        ------
        InvalidParameterError
            If a parameter is outside its declared constraints (``_parameter_constraints``) or
            ``N_min`` >= ``N_max``.
        """
        t0 = time.perf_counter()
        if self.N_min >= self.N_max:
            raise InvalidParameterError(f"N_min must be smaller than N_max, got N_min={self.N_min}, "
                                        f"N_max={self.N_max}")
        X, y, classes = check_Xy(X, y)
        self.R_A_ = len(X) if self.R_A is None else int(self.R_A)
        self.X_, self.y_, self.classes_ = X, y, classes
        self.n_classes_ = len(classes)
        self.n_features_in_ = X.shape[1]
        self.tree_ = cKDTree(X)
        self.fit_time_ = time.perf_counter() - t0
        return self

    # -- Step 1: anchors (§3.3) -----------------------------------------------------------------
    def _draw_pairs(self, pred: np.ndarray, R: int, rng: np.random.Generator) -> np.ndarray:
        """R pairs (a, b), uniform among training pairs with pred[a] != pred[b]; (0, 2) if none."""
        N, J = len(pred), self.n_classes_
        counts = np.bincount(pred, minlength=J)
        others = N - counts[pred]  # partners available to each sample
        total = others.sum()
        if total == 0:
            return np.empty((0, 2), dtype=np.intp)
        a = rng.choice(N, size=R, p=others / total)
        order = np.argsort(pred, kind="stable")
        start = np.concatenate([[0], np.cumsum(counts)[:-1]])
        ka = pred[a]
        pos = np.floor(rng.random(R) * others[a]).astype(np.intp)
        pos = np.minimum(pos, others[a] - 1)
        pos = np.where(pos >= start[ka], pos + counts[ka], pos)  # skip the block of a's class
        return np.column_stack([a, order[pos]])

    def _anchors(self, disc: Discriminant, g_train: np.ndarray, pred: np.ndarray, pairs: np.ndarray,
                 costs: dict) -> dict:
        X, J = self.X_, self.n_classes_
        R, d = len(pairs), X.shape[1]
        rows = np.arange(R)
        xa, xb = X[pairs[:, 0]].copy(), X[pairs[:, 1]].copy()
        ga, gb = g_train[pairs[:, 0]].copy(), g_train[pairs[:, 1]].copy()
        k, l = pred[pairs[:, 0]].copy(), pred[pairs[:, 1]].copy()
        ops = OpCounts()
        t_cl = 0.0
        for _ in range(int(self.i_max)):
            xm = 0.5 * (xa + xb)
            t0 = time.perf_counter()
            gm = disc(xm)
            t_cl += time.perf_counter() - t0
            cm = np.argmax(gm, axis=1)
            to_a = cm == k
            to_b = ~to_a  # predicted l, or a third class m: the sign change lies in [a, midpoint]
            l = np.where(to_b, cm, l)
            xa[to_a], ga[to_a] = xm[to_a], gm[to_a]
            xb[to_b], gb[to_b] = xm[to_b], gm[to_b]
            ops = ops + OpCounts(add=R * d, mul=R * d, comp=R * (J - 1) + 2 * R)
        fa = ga[rows, k] - ga[rows, l]  # >= 0: k is the arg-max at a
        fb = gb[rows, k] - gb[rows, l]  # <= 0: l is the arg-max at b
        den = fa - fb
        t = np.where(den > 0, fa / np.where(den > 0, den, 1.0), 0.5)
        anchors = xa + t[:, None] * (xb - xa)
        ops = ops + OpCounts(add=3 * R + 2 * R * d, mul=R + R * d, comp=R)
        if J > 2:
            ia, ja = top2(ga)
            ib, jb = top2(gb)
            lo, hi = np.minimum(k, l), np.maximum(k, l)
            valid = (ia == lo) & (ja == hi) & (ib == lo) & (jb == hi)
            ops = ops + OpCounts(comp=2 * R * (2 * J - 3) + 4 * R)
        else:
            valid = np.ones(R, dtype=bool)
        costs["anchors"] = ops
        return dict(anchors=anchors, valid=valid, classes=np.column_stack([k, l]), bracket_a=xa,
                    bracket_b=xb, f_bracket=np.column_stack([fa, fb]), classifier_time=t_cl)

    # -- Step 2: TDC (§3.4.2) -------------------------------------------------------------------
    def _tdc(self, XB: np.ndarray, rng: np.random.Generator, costs: dict) -> tuple[np.ndarray, int]:
        """R_T independent TDC runs on the near-boundary points XB, batched.

        Returns ``(labels, levels)``: labels (R_T, n_B) cluster ids, unique across runs (not compact).
        """
        R_T, i_K, N_max = self.R_T, self.i_K, self.N_max
        n, d = XB.shape
        point = np.tile(np.arange(n), R_T)  # flat entries: run r occupies [r·n, (r+1)·n)
        cid = np.repeat(np.arange(R_T), n)
        n_ids = R_T
        final = np.zeros(R_T, dtype=bool)  # clusters that cannot be split (one side empty)
        ops = OpCounts()
        levels = 0
        while True:
            size = np.bincount(cid, minlength=n_ids)
            split = (size > N_max) & ~final
            entries = np.flatnonzero(split[cid])
            if len(entries) == 0:
                break
            levels += 1
            ids = np.flatnonzero(split)
            C = len(ids)
            compact = np.full(n_ids, -1, dtype=np.intp)
            compact[ids] = np.arange(C)
            c = compact[cid[entries]]
            Xe = XB[point[entries]]
            # Random seeds: two distinct members of each cluster.
            order = entries[np.argsort(c, kind="stable")]
            csize = size[ids]
            start = np.concatenate([[0], np.cumsum(csize)[:-1]])
            u1 = np.minimum(np.floor(rng.random(C) * csize).astype(np.intp), csize - 1)
            u2 = np.minimum(np.floor(rng.random(C) * (csize - 1)).astype(np.intp), csize - 2)
            u2 = np.where(u2 >= u1, u2 + 1, u2)
            cent = np.stack([XB[point[order[start + u1]]], XB[point[order[start + u2]]]], axis=1)  # (C, 2, d)
            side = None
            for _ in range(i_K):
                d0 = ((Xe - cent[c, 0]) ** 2).sum(1)
                d1 = ((Xe - cent[c, 1]) ** 2).sum(1)
                new_side = (d1 < d0).astype(np.intp)
                m = len(entries)
                ops = ops + distance_ops(2 * m, d) + OpCounts(comp=2 * m)
                if side is not None and np.array_equal(new_side, side):
                    break
                side = new_side
                key = 2 * c + side
                cnt = np.bincount(key, minlength=2 * C)
                sums = np.stack([np.bincount(key, weights=Xe[:, j], minlength=2 * C) for j in range(d)], 1)
                nonempty = cnt > 0
                flat = cent.reshape(2 * C, d)
                flat[nonempty] = sums[nonempty] / cnt[nonempty, None]
                cent = flat.reshape(C, 2, d)
                ops = ops + OpCounts(add=m * (d + 1), mul=2 * C * d)
            cnt = np.bincount(2 * c + side, minlength=2 * C).reshape(C, 2)
            ok = (cnt > 0).all(1)
            new_id = n_ids + np.arange(C)
            move = ok[c] & (side == 1)
            cid[entries[move]] = new_id[c[move]]
            final = np.concatenate([final, np.zeros(C, dtype=bool)])
            final[ids[~ok]] = True
            n_ids += C
        costs["tdc"] = ops
        return cid.reshape(R_T, n), levels

    # -- per-status work ------------------------------------------------------------------------
    def evaluate(self, discriminant) -> Proposal1Result:
        """Return Û⁽¹⁾(Λ) of one classifier status (Ha et al. 2021, eq 8-11).

        The status is called once on T (predicted classes, to draw the pairs and for eq 9) and
        once per dichotomy step on the (R_A, d) array of midpoints: i_max + 1 calls.

        Parameters
        ----------
        discriminant : Discriminant, fitted classifier or callable
            A :class:`~buviz.classifiers.Discriminant`, a fitted scikit-learn classifier or a
            callable X -> (n, J).

        Returns
        -------
        Proposal1Result
            Û⁽¹⁾(Λ) and everything computed on the way.

        Raises
        ------
        sklearn.exceptions.NotFittedError
            If ``fit`` was not called.
        ValueError
            If the status has another number of classes or returns NaN.
        """
        check_is_fitted(self, "tree_", msg="This %(name)s instance is not fitted yet: call fit(X, y) on the "
                                           "training set before evaluate.")
        disc = as_discriminant(discriminant, n_classes=self.n_classes_)
        if disc.n_classes != self.n_classes_:
            raise ValueError(f"discriminant has {disc.n_classes} classes, "
                             f"the training set has {self.n_classes_}")
        t0 = time.perf_counter()
        calls0, samples0 = disc.n_calls, disc.n_evaluated
        X, y, J = self.X_, self.y_, self.n_classes_
        N, d = X.shape
        rng = np.random.default_rng(self.random_state)
        costs: dict[str, OpCounts] = {}

        g_train = disc(X)
        t_cl = time.perf_counter() - t0
        if not np.all(np.isfinite(g_train)):
            raise ValueError("discriminant returned NaN or infinite values on T")
        pred = np.argmax(g_train, axis=1)
        costs["predict_T"] = OpCounts(comp=N * (J - 1), cl_calls=1, cl_samples=N)

        # Step 1: anchors by batched dichotomy, then their nearest training samples (§3.3, §3.4.1).
        pairs = self._draw_pairs(pred, self.R_A_, rng)
        R = len(pairs)
        if R:
            c1, s1 = disc.n_calls, disc.n_evaluated
            step1 = self._anchors(disc, g_train, pred, pairs, costs)
            costs["anchors"] = replace(costs["anchors"], cl_calls=disc.n_calls - c1,
                                       cl_samples=disc.n_evaluated - s1)
            t_cl += step1.pop("classifier_time")
            valid = step1["valid"]
            nn = np.full(R, -1, dtype=np.intp)
            if valid.any():
                nn[valid] = self.tree_.query(step1["anchors"][valid], k=1)[1]
            depth = math.ceil(math.log2(max(N, 2)))
            n_q = int(valid.sum()) * depth
            costs["nearest_neighbour"] = distance_ops(n_q, d) + OpCounts(comp=n_q)
        else:
            step1 = dict(anchors=np.empty((0, d)), valid=np.empty(0, bool), classes=np.empty((0, 2), np.intp),
                         bracket_a=np.empty((0, d)), bracket_b=np.empty((0, d)), f_bracket=np.empty((0, 2)))
            nn = np.empty(0, dtype=np.intp)
        near = np.unique(nn[nn >= 0])
        n_B = len(near)

        # Step 2: TDC runs, cluster entropies, eq 9-11.
        R_T = self.R_T
        if n_B > self.N_min:
            raw, levels = self._tdc(X[near], rng, costs)
        else:
            raw, levels = np.full((R_T, n_B), -1, dtype=np.intp), 0
            costs["tdc"] = OpCounts()
        labels = np.full((R_T, n_B), -1, dtype=np.intp)
        sizes, pairs_c, entropies, run_values = [], [], [], np.full(R_T, U_MIN)
        ops = OpCounts()
        pred_B, y_B = pred[near], y[near]
        class_count = np.maximum(np.bincount(y, minlength=J), 1).astype(float)
        for r in range(R_T):
            if n_B <= self.N_min:
                sizes.append(np.empty(0, np.intp))
                pairs_c.append(np.empty((0, 2), np.intp))
                entropies.append(np.empty(0))
                continue
            ids, inv, cnt = np.unique(raw[r], return_inverse=True, return_counts=True)
            keep = cnt > self.N_min
            new = np.full(len(ids), -1, dtype=np.intp)
            new[keep] = np.arange(keep.sum())
            lab = new[inv]
            labels[r] = lab
            K = int(keep.sum())
            members = lab >= 0
            pc = np.bincount(lab[members] * J + pred_B[members], minlength=K * J).reshape(K, J)
            yc = np.bincount(lab[members] * J + y_B[members], minlength=K * J).reshape(K, J)
            pair = np.column_stack(top2(pc, stable=True))
            n_i = yc[np.arange(K), pair[:, 0]]
            n_j = yc[np.arange(K), pair[:, 1]]
            if self.prior_correction:  # P̂(C_l | C) / P̂_l, renormalised over the pair (§4.4.4)
                n_i, n_j = n_i / class_count[pair[:, 0]], n_j / class_count[pair[:, 1]]
            tot = n_i + n_j
            share = np.where(tot > 0, n_i / np.where(tot > 0, tot, 1), 0.0)
            ent = np.where(tot > 0, binary_entropy(share), 0.0)  # eq 9
            size = cnt[keep]
            if K:
                run_values[r] = float(np.dot(ent, size) / size.sum())  # eq 10
            sizes.append(size)
            pairs_c.append(pair)
            entropies.append(ent)
            m = int(members.sum())
            ops = ops + OpCounts(add=2 * m + 4 * K + 1, mul=5 * K + 1, comp=K * (2 * J - 3) + n_B, log=2 * K)
        costs["entropy"] = ops + OpCounts(add=R_T, mul=1)
        value = float(np.clip(run_values.mean(), 0.0, 1.0))  # eq 11
        elapsed = time.perf_counter() - t0
        return Proposal1Result(
            value=value, run_values=run_values, anchors=step1["anchors"], anchor_valid=step1["valid"],
            anchor_pairs=pairs, anchor_classes=step1["classes"], bracket_a=step1["bracket_a"],
            bracket_b=step1["bracket_b"], f_bracket=step1["f_bracket"], anchor_neighbour=nn,
            near_boundary=near, cluster_labels=labels, cluster_sizes=sizes, cluster_pairs=pairs_c,
            cluster_entropies=entropies, tdc_levels=levels, predicted=pred, costs=costs,
            classifier_calls=disc.n_calls - calls0, classified_samples=disc.n_evaluated - samples0,
            evaluate_time=elapsed, classifier_time=t_cl,
            near_boundary_X=self.X_[near],
        )


@dataclass(frozen=True, eq=False)
class Proposal1Result:
    """Everything Proposal 1 computed for one classifier status (Ha et al. 2021, eq 8-11).

    Returned by :meth:`Proposal1.evaluate`. Step 1 arrays have one row per anchor (R_A rows).

    Parameters
    ----------
    value : float
        Û⁽¹⁾(Λ) ∈ [0, 1] (eq 11); 1 is best (U_max), same convention as Proposal 2.
    run_values : ndarray of shape (R_T,)
        Û⁽¹⁾(¶⁽ʳ⁾_Λ, Λ) of each TDC run (eq 10).
    anchors : ndarray of shape (R_A, d)
        Points on B(Λ).
    anchor_valid : ndarray of bool, shape (R_A,)
        Passed the top-2 re-check (always for J = 2).
    anchor_pairs : ndarray of shape (R_A, 2)
        Training indices of the segment ends.
    anchor_classes : ndarray of shape (R_A, 2)
        The classes (k, l) whose boundary the anchor lies on (k at ``bracket_a``).
    bracket_a, bracket_b : ndarray of shape (R_A, d)
        The final dichotomy bracket.
    f_bracket : ndarray of shape (R_A, 2)
        f_kl at the bracket's ends (≥ 0, ≤ 0).
    anchor_neighbour : ndarray of shape (R_A,)
        Index of the anchor's nearest training sample (−1 if invalid).
    near_boundary : ndarray of shape (n_B,)
        Training indices of N_B(Λ) (sorted, unique).
    cluster_labels : ndarray of shape (R_T, n_B)
        Cluster of each N_B member in each run, −1 for dropped clusters.
    cluster_sizes, cluster_pairs, cluster_entropies : tuple of ndarray
        Per run, over its retained clusters: ``|C|``, the predicted pair (î, ĵ) and Û(C; Λ) (eq 9,
        in [0, 1]).
    tdc_levels : int
        Number of TDC levels.
    predicted : ndarray of shape (N,)
        Predicted classes on T.
    costs : dict
        Step -> :class:`~buviz.uncertainty.opcounts.OpCounts` ("predict_T", "anchors",
        "nearest_neighbour", "tdc", "entropy"); :func:`~buviz.uncertainty.costs.proposal1_costs`
        sums them.
    classifier_calls, classified_samples : int
        From the discriminant's counters.
    evaluate_time, classifier_time : float
        Seconds in ``evaluate``, and of which in the classifier.
    near_boundary_X : ndarray of shape (n_B, d)
        The near-boundary samples N_B(Λ) themselves (read-only).

    Notes
    -----
    A result is a value: frozen, holding read-only arrays of its own (tuples for the per-run
    lists, a read-only mapping of costs), never a link to the estimator that made it, so refitting
    that estimator leaves the result unchanged.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """

    value: float
    run_values: np.ndarray
    anchors: np.ndarray
    anchor_valid: np.ndarray
    anchor_pairs: np.ndarray
    anchor_classes: np.ndarray
    bracket_a: np.ndarray
    bracket_b: np.ndarray
    f_bracket: np.ndarray
    anchor_neighbour: np.ndarray
    near_boundary: np.ndarray
    cluster_labels: np.ndarray
    cluster_sizes: list
    cluster_pairs: list
    cluster_entropies: list
    tdc_levels: int
    predicted: np.ndarray
    costs: dict
    classifier_calls: int
    classified_samples: int
    evaluate_time: float
    classifier_time: float
    near_boundary_X: np.ndarray = field(repr=False)

    def __post_init__(self):
        freeze_fields(self)  # read-only arrays, tuples for the per-run lists, a FrozenDict of costs

    def clusters(self, run: int = 0) -> list[np.ndarray]:
        """Return the training indices of each retained cluster of one TDC run (Fig 3, panel 1C).

        Parameters
        ----------
        run : int, default=0
            The TDC run, 0..R_T-1.

        Returns
        -------
        list of ndarray
            One array of training indices per retained cluster.

        Raises
        ------
        InvalidParameterError
            If ``run`` is out of range.
        """
        run = check_int(run, "run", low=0, high=len(self.run_values) - 1)
        lab = self.cluster_labels[run]
        return [self.near_boundary[lab == c] for c in range(len(self.cluster_sizes[run]))]

    def __repr__(self) -> str:
        return (f"Proposal1Result(value={self.value:.4f}, anchors={int(self.anchor_valid.sum())}, "
                f"near_boundary={len(self.near_boundary)})")
