"""Nedel'ko's Tables 1-2 in the registry: their verdicts against the print, and their empty cells."""

from __future__ import annotations

import numpy as np
import pytest

from buviz import claims, discrete
from buviz.figures import discrete as fdiscrete
from buviz.figures import get, render


@pytest.mark.slow
@pytest.mark.parametrize("key", ["discrete_table1", "discrete_table2"])
def test_the_caption_s_agreement_with_the_print_is_recomputed(key):
    result = claims.check(key)  # the table at N = 50, k = 10 recomputed and compared with the print
    assert result.holds, result.details
    assert claims.get(key).verdict() in get(key).description


def test_printed_agreement_counts_a_cell_off_by_a_printed_unit():
    printed = discrete.PAPER_TABLE2
    exact = np.full((9, 6), np.nan)
    for i, row in enumerate(printed):
        exact[i, :len(row)] = row
    assert fdiscrete.printed_agreement(exact, printed)[:2] == (39, 39)
    exact[3, 1] += 0.01  # one unit of the last printed digit
    within, cells, most, _ = fdiscrete.printed_agreement(exact, printed)
    assert (within, cells) == (38, 39) and most == pytest.approx(0.01)


@pytest.mark.parametrize("key", ["discrete_table1", "discrete_table2"])
def test_empty_cells_are_where_m_exceeds_n_and_say_why(key):
    df = render(key, N=20, n_rows=5, m_cols=5) if key == "discrete_table2" else render(key, N=20, k=4, n_rows=5,
                                                                                        m_cols=5)
    values = df.drop(columns="n").to_numpy(float)
    n, m = np.indices(values.shape)
    assert np.array_equal(np.isnan(values), m > n)
    assert "m > n" in df.attrs["missing"]
