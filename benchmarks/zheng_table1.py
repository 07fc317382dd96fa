"""Table 1 of Zheng, Achanta & Benjamini (2017) on the authors' own outputs (a script, not a test).

    python benchmarks/zheng_table1.py [--data-dir DIR] [--out buviz/data/tables]

Reads the authors' 20-class score matrices and 400-class error tables with
:func:`buviz.datasets.fetch_telugu_scores` (downloaded from github.com/snarles/fmri at a pinned commit,
checked and cached; ``--data-dir`` or ``$BUVIZ_DATA_DIR`` may point at a folder whose ``zheng/`` holds
the converted files) and writes the two result tables the ``extrapolation_table1`` figure, notebook 04
and docs/extrapolation.md read:

- ``zheng_table1_telugu.csv``: :func:`buviz.extrapolation.telugu_table1` -- per Table 1 row, the
  paper's numbers, the paper's procedure redone, buviz's four estimators and the true 400-class accuracy;
- ``zheng_table1_moment_knots.csv``: :func:`buviz.extrapolation.moment_knot_study` -- the moment
  method's prediction for m = 100, 1000, 10 000 splines and the range of predictions that fit the
  20-class data equally well.

Takes about 20 s. ``tests/extrapolation/test_telugu_table1.py`` recomputes both when the data are
present and compares them with the shipped files.

References
----------
C. Zheng, R. Achanta and Y. Benjamini, "Extrapolating expected accuracies for multi-class
classification", manuscript, April 21, 2017, section 5.2 and Table 1; arXiv:1606.05228.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from buviz import extrapolation as ex
from buviz.datasets import fetch_telugu_scores

ROOT = Path(__file__).resolve().parents[1]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", default=None, help="data folder (default $BUVIZ_DATA_DIR or ~/.cache/buviz/data)")
    parser.add_argument("--out", default=str(ROOT / "buviz" / "data" / "tables"), help="where the CSVs go")
    args = parser.parse_args(argv)
    scores = fetch_telugu_scores(data_dir=args.data_dir)
    out = Path(args.out)
    table = ex.telugu_table1(scores)
    knots = ex.moment_knot_study(scores)
    table.to_csv(out / ex.SHIPPED_TABLES["table1"], index=False, float_format="%.6f")
    knots.to_csv(out / ex.SHIPPED_TABLES["knots"], index=False, float_format="%.6f")
    print(table.drop(columns="matrix").round(3).to_string(index=False))
    print(knots.round(4).to_string(index=False))


if __name__ == "__main__":
    main()
