"""The claims ledger: every claim of the three papers that buviz judges, its verdict and how to redo it.

A claim is a sentence of a paper that buviz tests on data: "the minima of L_val and −Û_tr coincide"
(Ha et al. 2021, Fig 7), "naive Bayes has the worst |δ|" (Zheng et al. 2018, Table 1). Each figure
of the registry that states a claim (a ``claim`` attribute and a ``measured()`` verdict computed from
its shipped tables, :mod:`buviz.figures`) is one entry; so is each claim judged by a simulation of its
own (:data:`SIMULATED`). The verdict is computed where the evidence lives, never written twice:
``buviz claims`` prints the ledger, ``docs/claims.md`` is generated from it (``buviz claims
--markdown``; a test checks the page equals the ledger), and the figures' captions carry the same text.

:func:`check` redoes a claim's evidence from an empty cache within minutes where the claim allows: for
the real-data γ sweeps it recomputes the table cells where the verdict is decided (seed 0, the γ of
−Û_tr's minimum, the smallest datasets first) and says whether they equal the shipped rows, so that the
verdict read from those rows still holds; a simulated claim runs its simulation again. A claim whose
evidence takes hours (the 10 000-sample Letter sweep, the Omniglot replicates) says so and names the
command that redoes it in full.

References
----------
D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary Uncertainty-Based Estimation for
Classifier Evaluation", *Journal of Signal Processing Systems*, Springer, 2021,
https://doi.org/10.1007/s11265-021-01671-1.

C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating Expected Accuracies for Large Multi-Class
Problems", *Journal of Machine Learning Research* 19, 2018, https://arxiv.org/abs/1712.09713.
"""

from __future__ import annotations

import math
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from buviz._validation import InvalidParameterError

__all__ = ["Claim", "CheckResult", "claims", "get", "check", "markdown", "CHECK_RTOL", "SIMULATED"]

#: A recomputed value equals the shipped one when within this relative distance (and 1e-12 absolute):
#: the tables are the same on every machine to 1e-9 (``tests/test_reproduce.py``).
CHECK_RTOL = 1e-9

#: Columns of a γ-sweep cell compared with the shipped rows (the ``base`` variant: with T̃).
_COMPARED = ("L_tr", "L_val", "L_ho", "L_te", "U_tr", "U_te")


@dataclass(frozen=True)
class Claim:
    """One claim of a paper that buviz judges.

    Attributes
    ----------
    id : str
        The ledger's name (a registry figure's key, or a simulation's name).
    paper : str
        ``"uncertainty"``, ``"extrapolation"`` or ``"discrete"`` (:data:`buviz.figures.PAPERS`).
    place : str
        Where in the paper (``"Fig 7 (Letter Recognition)"``).
    claim : str
        The claim, in one sentence.
    data : str
        The data and settings of buviz's evidence.
    command : str
        The command that redoes the evidence in full.
    verdict : callable
        Returns the verdict, with seed counts under each reading where the evidence has them.
    quick_check : str
        What :func:`check` redoes (empty: no quick check; the command redoes it).
    """

    id: str
    paper: str
    place: str
    claim: str
    data: str
    command: str
    verdict: Callable[[], str] = field(repr=False, compare=False)
    quick_check: str = ""


@dataclass(frozen=True)
class CheckResult:
    """What :func:`check` found.

    Attributes
    ----------
    claim : str
        The claim's id.
    holds : bool or None
        Whether the recomputed evidence equals the shipped evidence (None: nothing could be
        recomputed here).
    verdict : str
        The verdict read from the evidence.
    details : list of str
        One line per recomputed piece of evidence.
    seconds : float
        Time taken.
    """

    claim: str
    holds: bool | None
    verdict: str
    details: list[str]
    seconds: float

    def __str__(self) -> str:
        state = {True: "the shipped verdict holds", False: "the evidence DIFFERS from the shipped tables",
                 None: "not checked here"}[self.holds]
        lines = [f"{self.claim}: {state} ({self.seconds:.0f} s)", *[f"  {d}" for d in self.details],
                 f"  verdict: {self.verdict}"]
        return "\n".join(lines)


def _sweep_datasets(key: str) -> tuple[str, ...]:
    from buviz import reproduce

    table, names = reproduce.FIGURE_TABLES[key]
    return tuple(n for n in names if reproduce.has_table(table, n))


def _figure_claim(cls) -> Claim:
    from buviz import reproduce

    key = cls.key
    if key in reproduce.FIGURE_TABLES:
        table, _ = reproduce.FIGURE_TABLES[key]
        names = _sweep_datasets(key)
        spec = reproduce.TABLES[table]
        model = {"mlp_epoch": f"MLP {'-'.join(map(str, reproduce.MLP_HIDDEN))} read off by epoch",
                 "table3": "operations counted for one RBF SVC status"}.get(
            table, f"RBF SVC, log2 gamma {reproduce.LOG2_GAMMAS[0]:g} to {reproduce.LOG2_GAMMAS[-1]:g}")
        fewer = {n: reproduce.seeds_of(reproduce.load_table(table, n)) for n in names if "uvar" in spec.kinds}
        fewer = "; ".join(f"{n}: {'/'.join(map(str, s))}" for n, s in fewer.items() if s != list(reproduce.SEEDS))
        data = (f"shipped tables {table}_* ({spec.doc}) on {', '.join(names)}; {model}, M = {reproduce.M}, "
                f"seeds {'/'.join(map(str, reproduce.SEEDS))}" + (f" ({fewer} only)" if fewer else ""))
        command = f"buviz reproduce --table {table} --recompute"
        quick = ("cells of seed 0 at −Û_tr's minimum recomputed, smallest datasets first"
                 if table == "svm_gamma" else "")
    else:
        data = getattr(cls, "data_text", "") or "shipped result tables (see the figure's caption)"
        command = getattr(cls, "redo_command", "") or f"buviz figure {key} --out {key}.png"
        quick = getattr(cls, "quick_check_text", "the simulation again with another seed") \
            if hasattr(cls, "check_claim") else ""
        if hasattr(cls, "check_claim"):
            _SIMULATIONS.setdefault(key, cls.check_claim)
    return Claim(id=key, paper=cls.paper, place=cls.number, claim=cls.claim, data=data, command=command,
                 verdict=cls.measured, quick_check=quick)


#: Claims judged by a simulation of their own: id -> (paper, place, claim, data, command, verdict).
#: Filled by the modules that hold the simulations (they register here, see :func:`register`).
SIMULATED: dict[str, Claim] = {}


def register(claim: Claim, simulate: Callable[[], tuple[bool, str]] | None = None) -> Claim:
    """Add a claim judged by a simulation; ``simulate()`` redoes it and returns (holds, details).

    Parameters
    ----------
    claim : Claim
        The claim; its ``verdict`` computes the verdict.
    simulate : callable, optional
        Redoes the simulation for :func:`check`.

    Returns
    -------
    Claim
    """
    SIMULATED[claim.id] = claim
    if simulate is not None:
        _SIMULATIONS[claim.id] = simulate
    return claim


_SIMULATIONS: dict[str, Callable[[], tuple[bool, str]]] = {}


def claims() -> list[Claim]:
    """Every claim buviz judges, in the registry's order of papers and figures.

    Returns
    -------
    list of Claim
    """
    import buviz.figures as figures

    out = [_figure_claim(cls) for key, cls in sorted(figures.REGISTRY.items()) if getattr(cls, "claim", "")]
    out += list(SIMULATED.values())
    order = {p: i for i, p in enumerate(("uncertainty", "extrapolation", "discrete"))}
    return sorted(out, key=lambda c: (order.get(c.paper, 9), c.id))


def get(claim_id: str) -> Claim:
    """The claim named ``claim_id``.

    Raises
    ------
    InvalidParameterError
        If no claim has that id.
    """
    found = {c.id: c for c in claims()}
    if claim_id not in found:
        raise InvalidParameterError(f"claim must be one of {sorted(found)}, got {claim_id!r}")
    return found[claim_id]


def _check_sweep(claim: Claim, datasets: list[str] | None, max_cells: int, log) -> tuple[bool | None, list[str]]:
    """Recompute γ-sweep cells where the verdict is decided and compare them with the shipped rows."""
    from buviz import reproduce
    from buviz.verdicts import reading_column

    cheapest = reproduce.TABLES["svm_gamma"].datasets  # cheapest first
    names = list(datasets) if datasets else sorted(_sweep_datasets(claim.id), key=cheapest.index)
    unknown = [n for n in names if n not in _sweep_datasets(claim.id)]
    if unknown:
        raise InvalidParameterError(f"datasets must be among {_sweep_datasets(claim.id)} for {claim.id}, got {unknown}")
    details, holds = [], True
    for name in names[:max_cells]:
        shipped = reproduce.load_table("svm_gamma", name)
        rows = shipped[(shipped["seed"] == 0) & (shipped["variant"] == "base")].set_index("log2_gamma")
        lg = float(rows[reading_column(shipped, "literal") or "U_tr"].idxmax())  # −Û_tr's minimum
        log(f"{claim.id}: recomputing {name}, seed 0, log2 gamma {lg:g} ...")
        t0 = time.perf_counter()
        cell = reproduce.sweep_cell(name, 0, lg, float(rows["C"].iloc[0]), reproduce._fit_variants(name, 0))
        got = {**cell["common"], **cell["variants"]["base"]}
        worst = 0.0
        for col in _COMPARED:
            a, b = float(got[col]), float(rows.at[lg, col])
            if math.isnan(a) and math.isnan(b):
                continue
            worst = max(worst, abs(a - b) / max(abs(b), 1e-300) if abs(a - b) > 1e-12 else 0.0)
        ok = worst <= CHECK_RTOL
        holds &= ok
        details.append(f"{name}, seed 0, log2 gamma {lg:g}: {len(_COMPARED)} values "
                       f"{'equal' if ok else 'differ'} (largest relative difference {worst:.1e}; "
                       f"{time.perf_counter() - t0:.0f} s)")
    left = len(names) - min(len(names), max_cells)
    if left:
        details.append(f"{left} more dataset(s) not recomputed here (--max-cells); the full evidence: "
                       f"{claim.command}")
    return holds, details


def check(claim_id: str, *, datasets: list[str] | None = None, max_cells: int = 2,
          log: Callable[[str], None] = lambda s: None) -> CheckResult:
    """Redo a claim's evidence from an empty cache and say whether the shipped verdict still holds.

    Parameters
    ----------
    claim_id : str
        A claim of :func:`claims`.
    datasets : list of str, optional
        For a real-data γ-sweep claim, the datasets to recompute (default: the smallest first).
    max_cells : int, default=2
        For a real-data γ-sweep claim, the number of cells recomputed (each is a 10-fold CV, a
        hold-out split and two Û evaluations: seconds on the small sets, minutes on Letter).
    log : callable, optional
        Receives progress lines.

    Returns
    -------
    CheckResult
    """
    if not isinstance(max_cells, int) or isinstance(max_cells, bool) or max_cells < 1:
        raise InvalidParameterError(f"max_cells must be a positive integer, got {max_cells!r}")
    claim = get(claim_id)
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="buviz-claims-") as empty:
        previous = os.environ.get("BUVIZ_CACHE_DIR")
        os.environ["BUVIZ_CACHE_DIR"] = empty  # from an empty cache: nothing read from earlier runs
        try:
            if claim.quick_check and claim.id in _sweep_claim_ids():
                holds, details = _check_sweep(claim, datasets, max_cells, log)
            elif claim.id in _SIMULATIONS:
                holds, text = _SIMULATIONS[claim.id]()
                details = [text]
            else:
                holds, details = None, [f"no quick check: its evidence is redone by `{claim.command}`"]
        finally:
            if previous is None:
                os.environ.pop("BUVIZ_CACHE_DIR", None)
            else:
                os.environ["BUVIZ_CACHE_DIR"] = previous
    return CheckResult(claim.id, holds, claim.verdict(), details, time.perf_counter() - t0)


def _sweep_claim_ids() -> set[str]:
    from buviz import reproduce

    return {k for k, (table, _) in reproduce.FIGURE_TABLES.items() if table == "svm_gamma"}


def markdown() -> str:
    """The ledger as the Markdown page ``docs/claims.md`` (generated: ``buviz claims --markdown``).

    Returns
    -------
    str
    """
    from buviz.figures import PAPERS

    lines = ["# Claims ledger", "",
             "Every claim of the three papers that buviz judges on data, with its verdict. This page is",
             "generated by `buviz claims --markdown > docs/claims.md` from the same code that writes the",
             "figures' captions, so a verdict is written in one place. `buviz claims --check ID` redoes a",
             "claim's evidence from an empty cache and says whether the verdict still holds.", ""]
    for paper in ("uncertainty", "extrapolation", "discrete"):
        entries = [c for c in claims() if c.paper == paper]
        if not entries:
            continue
        lines += [f"## {PAPERS[paper]}", ""]
        for c in entries:
            lines += [f"### `{c.id}`: {c.place}", "",
                      f"- **Claim.** {c.claim}.",
                      f"- **Verdict.** {c.verdict()}",
                      f"- **Data.** {c.data}.",
                      f"- **Redo.** `{c.command}`"
                      + (f"; quick check: `buviz claims --check {c.id}` ({c.quick_check})." if c.quick_check
                         else "."),
                      ""]
    return "\n".join(lines).rstrip() + "\n"
