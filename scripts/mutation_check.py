"""Mutation check of the main formulas: break a formula, and a test must go red.

Each mutation replaces one exact piece of source text (it must occur exactly once, so a mutation
whose target was edited away is reported as ``stale`` instead of silently passing) in a temporary
copy of the source tree, runs the tests aimed at that formula there (``pytest -x``, a fresh
``BUVIZ_CACHE_DIR``), and records whether the mutant was *killed* (a test failed) or *survived*.
The unmutated copy is run first on the union of the targeted tests (the ``baseline``): a mutant
counts as killed only when its tests pass without it.

The formulas: Proposal 2 of D. Ha, S. Katagiri, H. Watanabe and M. Ohsaki, "An Improved Boundary
Uncertainty-Based Estimation for Classifier Evaluation", *Journal of Signal Processing Systems*,
Springer, 2021 (eq 29, 33-34, 37-40 and the Case 1/3 rule of §4.5), and the exact moments of
V. M. Nedelko, "Optimizing the estimate of the misclassification probability in the discrete case",
KDS 2009.

Usage::

    python scripts/mutation_check.py            # every mutation; exit status 1 if one survived
    python scripts/mutation_check.py --list     # the mutations and their tests
    python scripts/mutation_check.py eq40_pair_probability_weights case13_swap

``tests/test_mutation_check.py`` runs it over every mutation and asserts each one is killed.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

P2 = "buviz/uncertainty/proposal2.py"
DISCRETE = "buviz/discrete.py"
_SEP = "tests/uncertainty/test_separability_rule.py"
_P2T = "tests/uncertainty/test_proposal2.py"
#: Eq 37-40 written out pair by pair (graded rule), then the sample-by-sample references (threshold rule).
EQ37_40 = (f"{_SEP}::test_estimator_graded_rule_matches_eq_37_to_40_written_out",
           f"{_P2T}::test_three_class_equals_sample_by_sample_reference",
           f"{_P2T}::test_vectorised_equals_sample_by_sample_reference")
#: The Case 1/3 rule: closed forms of pair_uncertainty first (no fit), then the estimator's cases.
CASE13 = (_SEP, f"{_P2T}::test_separability_cases_of_fig5",
          f"{_P2T}::test_zero_error_svc_in_the_empty_band_is_case1_at_any_size") + EQ37_40
MOMENTS = ("tests/discrete/test_error_estimates.py::test_moments_match_simulation",
           "tests/discrete/test_error_estimates.py::test_large_N_log_space_is_finite",
           "tests/discrete/test_error_estimates.py::test_simulated_rms_deviation_agrees_with_the_exact_S")


@dataclass(frozen=True)
class Mutation:
    """One textual mutation: ``old`` (exactly once in ``path``) becomes ``new``; ``tests`` must catch it."""

    name: str
    path: str
    old: str
    new: str
    tests: tuple[str, ...]


MUTATIONS: tuple[Mutation, ...] = (
    # -- Proposal 2, eq 37-40 ------------------------------------------------------------------------
    Mutation("eq37_local_uncertainty_squared", P2, "return 1.0 - np.abs(2.0 * posterior - 1.0)",
             "return 1.0 - np.abs(2.0 * posterior - 1.0) ** 2", EQ37_40),
    Mutation("eq38_posterior_denominator", P2, "posterior = np.where(k > 0, k_i / k, 0.0)  # eq 38",
             "posterior = np.where(k > 0, k_i / (k + k_j), 0.0)  # eq 38", EQ37_40),
    Mutation("eq29_pair_weight", P2, "w = np.bincount(pair_index, weights=k, minlength=n_pairs)  # eq 29",
             "w = np.bincount(pair_index, weights=np.sqrt(k), minlength=n_pairs)  # eq 29", EQ37_40),
    Mutation("eq30_pair_match_dropped", P2, "weights=sample_weights * local * pair_match,",
             "weights=sample_weights * local,", EQ37_40),
    Mutation("eq39_case13_weight", P2, "values = weighted_mean_part + (1.0 - blend) * u0  # eq 39",
             "values = weighted_mean_part + blend * u0  # eq 39", EQ37_40),
    Mutation("eq34_pair_probabilities_uniform", P2, "p_pair = size / N",
             "p_pair = np.full(P, 1.0 / P)", EQ37_40),
    Mutation("eq40_unweighted_mean", P2, "value = float(np.dot(p_pair, u_pair))  # eq 40",
             "value = float(np.mean(u_pair))  # eq 40", EQ37_40),
    # -- the Case 1/3 rule (§4.5) -----------------------------------------------------------------------
    Mutation("case13_swap", P2, "u0 = np.where(error_tilde == 0, U_MAX, U_MIN)  # Cases 1 and 3",
             "u0 = np.where(error_tilde == 0, U_MIN, U_MAX)  # Cases 1 and 3", CASE13),
    Mutation("case13_error_threshold", P2, "u0 = np.where(error_tilde == 0, U_MAX, U_MIN)  # Cases 1 and 3",
             "u0 = np.where(error_tilde < 0.5, U_MAX, U_MIN)  # Cases 1 and 3", CASE13),
    Mutation("case13_threshold_tau", P2, "blend = ((omega >= weight_tol) & positive).astype(float)",
             "blend = ((omega >= 10 * weight_tol) & positive).astype(float)", CASE13),
    Mutation("case13_shrinkage_n0", P2, "blend = n_kl / (n_kl + n0)", "blend = n_kl / (n_kl + 2 * n0)", CASE13),
    Mutation("case13_evidence_max", P2, "n_kl = np.minimum(n_eff, w / _PHI0)", "n_kl = np.maximum(n_eff, w / _PHI0)",
             CASE13),
    Mutation("case13_graded_slope", P2, "np.minimum(1.0, error_tilde / np.where(e3 > 0, e3, 1.0))",
             "np.minimum(1.0, 2 * error_tilde / np.where(e3 > 0, e3, 1.0))", CASE13),
    Mutation("case13_minority_share", P2,
             "return np.where(size > 0, 1.0 - counts.max(axis=1) / np.maximum(size, 1), 0.0)",
             "return np.where(size > 0, 0.5 * (1.0 - counts.max(axis=1) / np.maximum(size, 1)), 0.0)", CASE13),
    # -- the discrete moments (Nedelko 2009) ------------------------------------------------------------
    Mutation("moments_true_risk_sides", DISCRETE, "pg = a * (q * pgt + P * plt + 0.5 * peq)",
             "pg = a * (P * pgt + q * plt + 0.5 * peq)", MOMENTS),
    Mutation("moments_true_risk_tie", DISCRETE, "pgg = a * a * (q * q * pgt + P * P * plt + 0.25 * peq)",
             "pgg = a * a * (q * q * pgt + P * P * plt + 0.5 * peq)", MOMENTS),
    Mutation("moments_delta_cross_term", DISCRETE, "phh = pff - 2 * pfg + pgg", "phh = pff - pfg + pgg", MOMENTS),
    Mutation("moments_pair_count", DISCRETE, "return k * (k - 1) * np.einsum(", "return k * k * np.einsum(",
             MOMENTS),
)


@dataclass(frozen=True)
class Outcome:
    """What became of one mutation: ``killed``, ``survived`` or ``stale`` (its text is not in the source)."""

    name: str
    status: str
    seconds: float
    detail: str = ""


def _copy_tree(dest: Path) -> None:
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache")
    for part in ("buviz", "tests"):
        shutil.copytree(ROOT / part, dest / part, ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", dest / "pyproject.toml")


def _pytest(tree: Path, tests, timeout: float) -> tuple[int, str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "BUVIZ_CACHE_DIR": str(tree / ".buviz-cache"),
           "PYTHONDONTWRITEBYTECODE": "1"}
    # nbmake's plugin is left out: its import (the Jupyter client) is 2 of a mutant's 5 s, and no mutant's
    # tests are notebooks
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p", "no:nbmake", "-m", "", *tests]
    try:
        proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, "timed out"
    lines = (proc.stdout + proc.stderr).strip().splitlines()
    return proc.returncode, lines[-1] if lines else ""


def _print(line: str) -> None:
    print(line, flush=True)


def _run_mutant(tree: Path, m: Mutation, timeout: float) -> Outcome:
    target = tree / m.path
    source = target.read_text(encoding="utf-8")
    if source.count(m.old) != 1:
        return Outcome(m.name, "stale", 0.0, f"{m.old!r} occurs {source.count(m.old)} times in {m.path}")
    t0 = time.perf_counter()
    target.write_text(source.replace(m.old, m.new), encoding="utf-8")
    try:
        rc, last = _pytest(tree, m.tests, timeout)
    finally:
        target.write_text(source, encoding="utf-8")
    return Outcome(m.name, "survived" if rc == 0 else "killed", time.perf_counter() - t0, last)


def check(mutations=MUTATIONS, *, timeout: float = 600.0, baseline: bool = True, jobs: int = 2,
          log=_print) -> list[Outcome]:
    """Apply each mutation to a temporary copy of the tree and run its tests there.

    Parameters
    ----------
    mutations : sequence of Mutation, default=MUTATIONS
        The mutations to try.
    timeout : float, default=600.0
        Seconds allowed for one pytest run (a mutant that hangs its tests counts as killed).
    baseline : bool, default=True
        First run the union of the targeted tests on the unmutated copy; raise if they fail.
    jobs : int, default=2
        Mutants tested at once, each in its own copy of the tree.
    log : callable, default=print (flushed)
        Called with one line per mutation.

    Returns
    -------
    list of Outcome
        One per mutation, in the order given.

    Raises
    ------
    RuntimeError
        If the baseline run fails (a mutant could not be told from a broken test).
    """
    from concurrent.futures import ThreadPoolExecutor
    from queue import Queue

    jobs = max(1, min(int(jobs), len(mutations) or 1))
    with tempfile.TemporaryDirectory(prefix="buviz-mutants-") as tmp:
        trees: Queue = Queue()
        for n in range(jobs):
            _copy_tree(Path(tmp) / str(n))
            trees.put(Path(tmp) / str(n))
        if baseline:
            union = list(dict.fromkeys(t for m in mutations for t in m.tests))
            t0 = time.perf_counter()
            rc, last = _pytest(Path(tmp) / "0", union, timeout)
            log(f"baseline: {'passed' if rc == 0 else 'FAILED'} in {time.perf_counter() - t0:.1f} s ({last})")
            if rc != 0:
                raise RuntimeError(f"the targeted tests fail without any mutation: {last}")

        def one(m: Mutation) -> Outcome:
            tree = trees.get()
            try:
                out = _run_mutant(tree, m, timeout)
            finally:
                trees.put(tree)
            log(f"{out.name:34s} {out.status:8s} {out.seconds:6.1f} s  {out.detail}")
            return out

        with ThreadPoolExecutor(jobs) as pool:
            return list(pool.map(one, mutations))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="mutations to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the mutations and exit")
    parser.add_argument("--no-baseline", action="store_true", help="skip the unmutated run")
    parser.add_argument("--jobs", type=int, default=2, help="mutants tested at once (default 2)")
    args = parser.parse_args(argv)
    by_name = {m.name: m for m in MUTATIONS}
    if args.list:
        for m in MUTATIONS:
            print(f"{m.name:34s} {m.path}: {m.old!r} -> {m.new!r}")
        return 0
    unknown = [n for n in args.names if n not in by_name]
    if unknown:
        parser.error(f"unknown mutations {unknown}; see --list")
    chosen = [by_name[n] for n in args.names] if args.names else list(MUTATIONS)
    outcomes = check(chosen, baseline=not args.no_baseline, jobs=args.jobs)
    bad = [o.name for o in outcomes if o.status != "killed"]
    print(f"{len(outcomes) - len(bad)} of {len(outcomes)} mutants killed" + (f"; not killed: {bad}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
