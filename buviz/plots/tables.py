"""How a table of the registry is shown, on screen (the explorer's Figures tab) and in the export: the
values as text, without the ``pandas`` index, each number column at the fewest decimals (at most
:data:`DECIMALS`) that show all its values, an empty cell as :data:`MISSING` with a note that says why.

A figure says why cells are empty in its DataFrame's ``attrs["missing"]`` (one sentence); without it the
note says only that the cell holds no value.
"""

from __future__ import annotations

import html
import math

import numpy as np
import pandas as pd

__all__ = ["DECIMALS", "MISSING", "column_decimals", "shown_table", "missing_note", "table_html"]

#: Most decimals a number is shown with: accuracies, errors and gains to 0.001.
DECIMALS = 3
#: What an empty (NaN) cell shows.
MISSING = "—"


def column_decimals(values, most: int = DECIMALS) -> int:
    """The decimals of a number column: the most any of its finite values has once rounded to ``most``
    decimals, none for values of 100 and more (three digits already): 0 for counts and gains in the
    hundreds, 2 for 0.83 and 4.2 together, 3 for accuracies such as 0.811841."""
    v = np.asarray(values, dtype=float)
    v = np.round(v[np.isfinite(v)], most)
    need = 0
    for x in v[np.abs(v) < 100]:
        need = max(need, next(d for d in range(most + 1) if abs(round(x, d) - x) < 0.5 * 10.0 ** -(most + 1)))
    return need


def _number(v, decimals: int) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NA:
        return MISSING
    v = float(v)
    if v != 0 and abs(v) < 0.5 * 10.0 ** -decimals:  # would read 0.000: three significant digits instead
        return f"{v:.2e}".replace("-", "−")
    return f"{v:.{decimals}f}".replace("-", "−")


def shown_table(df: pd.DataFrame, most: int = DECIMALS) -> pd.DataFrame:
    """``df`` as the text shown: a fresh ``RangeIndex`` (never shown), float columns at
    :func:`column_decimals`, booleans as yes/no, empty cells as :data:`MISSING`."""
    out = pd.DataFrame(index=range(len(df)))
    for c in df.columns:
        col = df[c].reset_index(drop=True)
        if pd.api.types.is_bool_dtype(col):
            out[c] = col.map({True: "yes", False: "no"}).fillna(MISSING)
        elif pd.api.types.is_float_dtype(col):
            d = column_decimals(col, most)
            out[c] = [_number(v, d) for v in col]
        elif pd.api.types.is_integer_dtype(col):
            out[c] = [MISSING if pd.isna(v) else str(int(v)).replace("-", "−") for v in col]
        else:
            out[c] = [MISSING if (not isinstance(v, str) and pd.isna(v)) else str(v) for v in col]
    return out


def missing_note(df: pd.DataFrame) -> str:
    """The note under a table with empty cells: which columns, and why (``df.attrs["missing"]``);
    "" when no cell is empty."""
    empty = [str(c) for c in df.columns if df[c].isna().any()]
    if not empty:
        return ""
    why = str(df.attrs.get("missing", "")).strip()
    return (f"{MISSING} no value (in {', '.join(empty)}): "
            + (why.rstrip(".") + "." if why else "the source table holds none for this row."))


def table_html(df: pd.DataFrame, most: int = DECIMALS) -> str:
    """``df`` as an HTML table for the screen: no index column, numbers (class ``num``) at
    :func:`column_decimals`, and :func:`missing_note` below."""
    shown = shown_table(df, most)
    numeric = [pd.api.types.is_numeric_dtype(df[c]) and not pd.api.types.is_bool_dtype(df[c]) for c in df.columns]
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in shown.columns)
    rows = "".join("<tr>" + "".join(f"<td class=\"{'num' if n else 'txt'}\">{html.escape(v)}</td>"
                                    for v, n in zip(row, numeric, strict=True)) + "</tr>"
                   for row in shown.itertuples(index=False))
    note = missing_note(df)
    foot = f"<p class=\"buviz-table-note\">{html.escape(note)}</p>" if note else ""
    return (f"<table class=\"buviz-table\"><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>{foot}")
