"""Tables as shown on screen and in the export: no index column, the decimals that matter, empty cells
marked and explained."""

import re

import numpy as np
import pandas as pd
import pytest
from matplotlib.text import Text

from buviz.plots import _matplotlib
from buviz.plots.tables import MISSING, column_decimals, missing_note, shown_table, table_html


@pytest.mark.parametrize(("values", "want"), [
    ([43.0, 210.0, 670.0], 0),  # counts held as floats
    ([238.522023, 1979.858232], 0),  # three digits and more before the point
    ([4.2, 0.83, 8.2], 2),  # as the column holds them
    ([0.811841, 0.687137, np.nan], 3),  # accuracies to 0.001, never six decimals
    ([0.5, 0.25], 2),
    ([np.nan, np.nan], 0),
])
def test_column_decimals(values, want):
    assert column_decimals(values) == want


def _table():
    df = pd.DataFrame({"classifier": ["a", "b"], "acc": [0.811841, np.nan], "n": [10, 20], "g": [43.0, 210.0]},
                      index=[7, 9])
    df.attrs["missing"] = "classifier b was not run"
    return df


def test_shown_table_has_no_index_and_marks_empty_cells():
    shown = shown_table(_table())
    assert list(shown.columns) == ["classifier", "acc", "n", "g"]
    assert shown.to_numpy().tolist() == [["a", "0.812", "10", "43"], ["b", MISSING, "20", "210"]]
    note = missing_note(_table())
    assert note.startswith(MISSING) and "acc" in note and "classifier b was not run" in note
    assert missing_note(_table().dropna()) == ""


def test_table_html_columns_are_the_frames_and_no_nan_is_written():
    html = table_html(_table())
    assert html.count("<th>") == 4 and "<th></th>" not in html  # no index header
    assert re.findall(r"<td[^>]*>([^<]*)</td>", html)[:4] == ["a", "0.812", "10", "43"]
    assert "nan" not in html.lower().replace("buviz-table", "") and "classifier b was not run" in html


def test_export_draws_the_shown_table_its_note_and_a_wrapped_caption():
    caption = "Table 9. Paper: a claim. buviz measures: " + "a verdict, " * 30
    fig = _matplotlib.draw(_table(), "table", 8.0, 3.0, 100, title=caption)
    texts = " ".join(t.get_text().replace("\n", " ") for t in fig.findobj(Text))
    cells = fig.axes[0].tables[0].get_celld()
    assert {cells[0, c].get_text().get_text() for c in range(4)} == {"classifier", "acc", "n", "g"}
    assert (0, -1) not in cells  # no row labels: no index column
    assert cells[1, 1].get_text().get_text() == "0.812" and cells[2, 1].get_text().get_text() == MISSING
    assert "classifier b was not run" in texts
    title = next(t.get_text() for t in fig.texts if t.get_text().startswith("Table 9."))
    assert "\n" in title and max(map(len, title.splitlines())) < len(caption)
