"""docs/datasets.md's table of the shipped real datasets is the metadata (buviz/data/real/datasets.json).

On a mismatch the assertion prints the expected table: paste it into the page.
"""

from pathlib import Path

from buviz import datasets

ROOT = Path(__file__).resolve().parents[2]
BEGIN, END = "<!-- table: generated from datasets.json, checked by tests/datasets/test_docs_table.py -->", \
    "<!-- end of table -->"


def _cell(text) -> str:
    return str(text).replace("|", "\\|").replace("*", "\\*")


def expected_table() -> str:
    meta = datasets.uci_metadata()
    lines = ["| name | dataset | N | d | J | class counts | split | paper (Table 2) N, d, J | source | choices "
             "| licence |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name in datasets.UCI_NAMES:
        m = meta["datasets"][name]
        counts = " / ".join(f"{k}: {v}" for k, v in m["class_counts"].items())
        s = m["split"]
        split = (f"the paper's: rows 1–{s['n_train']} / the other {s['n_test']}" if s["kind"] == "fixed"
                 else f"stratified, {s['test_size']:.0%} held out")
        p = m["paper_table2"]
        choices = " ".join(m["choices"]) or "—"
        lines.append(f"| `{name}` | [{_cell(m['title'])}]({m['uci']}) | {m['rows']} | {m['features']} "
                     f"| {m['classes']} | {_cell(counts)} | {split} | {p['N']}, {p['d']}, {p['J']} "
                     f"| {_cell(m['source'])}; creators: {_cell(m['creators'])} | {_cell(choices)} | CC BY 4.0 |")
    return "\n".join(lines)


def test_docs_table_is_the_metadata():
    page = (ROOT / "docs" / "datasets.md").read_text(encoding="utf-8")
    assert BEGIN in page and END in page
    shown = page.split(BEGIN, 1)[1].split(END, 1)[0].strip()
    assert shown == expected_table(), "docs/datasets.md's table is stale; expected:\n" + expected_table()


def test_docs_page_is_in_the_index_toctree():
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    toctree = index.split("```{toctree}", 1)[1].split("```", 1)[0]
    assert "datasets" in toctree.split()
