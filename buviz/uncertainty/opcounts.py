"""Counts of elementary operations (Ha et al. 2021, §5), tallied by Proposal 1 as it runs.

A leaf module: :mod:`buviz.uncertainty.proposal1` counts with it and :mod:`buviz.uncertainty.costs`
(which reads the estimators) re-exports it, so neither imports the other in a cycle.

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation
for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
https://doi.org/10.1007/s11265-021-01671-1
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields

__all__ = ["OpCounts", "OPS", "distance_ops"]

#: Elementary costs compared by Table 3 (plus c_exp, which has no gain: Proposal 1 has none).
OPS = ("add", "mul", "comp", "exp", "CL")


@dataclass(frozen=True)
class OpCounts:
    """Counts of elementary operations (Ha et al. 2021, §5).

    Counts add with ``+`` and scale with ``*``; c_CL is charged per classified sample.

    Parameters
    ----------
    add : float, default=0.0
        Additions (subtractions included).
    mul : float, default=0.0
        Multiplications.
    comp : float, default=0.0
        Comparisons.
    exp : float, default=0.0
        Exponentials.
    log : float, default=0.0
        Logarithms (left out of the gains).
    cl_calls : float, default=0.0
        Classifier calls.
    cl_samples : float, default=0.0
        Classified samples.

    References
    ----------
    D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based
    Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021.
    https://doi.org/10.1007/s11265-021-01671-1
    """

    add: float = 0.0
    mul: float = 0.0
    comp: float = 0.0
    exp: float = 0.0
    log: float = 0.0
    cl_calls: float = 0.0
    cl_samples: float = 0.0

    def __add__(self, other: OpCounts) -> OpCounts:
        return OpCounts(**{f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)})

    def __mul__(self, k: float) -> OpCounts:
        return OpCounts(**{f.name: getattr(self, f.name) * k for f in fields(self)})

    __rmul__ = __mul__

    def as_dict(self) -> dict[str, float]:
        """Return the counts as a dict.

        Returns
        -------
        dict of str to float
            Field name -> count.
        """
        return asdict(self)

    def get(self, op: str) -> float:
        """Return the count of one operation.

        Parameters
        ----------
        op : str
            A field name or an entry of :data:`OPS` (``"CL"`` is the number of classified samples).

        Returns
        -------
        float
            The count.
        """
        return self.cl_samples if op == "CL" else getattr(self, op)

    @staticmethod
    def total(parts) -> OpCounts:
        """Return the sum of several counts.

        Parameters
        ----------
        parts : iterable of OpCounts
            The counts to add.

        Returns
        -------
        OpCounts
            Their sum (zero for no parts).
        """
        out = OpCounts()
        for p in parts:
            out = out + p
        return out


def distance_ops(n_distances: float, d: int) -> OpCounts:
    """Return the cost of squared Euclidean distances: (2d − 1) additions and d multiplications each.

    Parameters
    ----------
    n_distances : float
        Number of distances.
    d : int
        Dimension.

    Returns
    -------
    OpCounts
        Their additions and multiplications.
    """
    return OpCounts(add=n_distances * (2 * d - 1), mul=n_distances * d)
