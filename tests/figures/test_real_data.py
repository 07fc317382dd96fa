"""The real-data figures of Ha et al. (2021): registered from the shipped tables, drawn from their values,
captions that say what the tables show."""

import io
import re
import zipfile
from pathlib import Path

import holoviews as hv
import numpy as np
import pandas as pd
import pytest

from buviz import figures, reproduce
from buviz.figures import real_data
from buviz.uncertainty import costs
from buviz.verdicts import READINGS, reading_column

REAL_KEYS = [k for k in reproduce.FIGURE_TABLES if k in figures.REGISTRY]
#: The paper's real-data figures and table (Ha et al. 2021, Figs 7-9, 11-13 and Table 3).
PAPER_FIGURES = ["uncertainty_fig7", "uncertainty_fig8", "uncertainty_fig9", "uncertainty_fig11",
                 "uncertainty_fig12", "uncertainty_fig13", "uncertainty_table3"]


def _curves(obj) -> dict[str, hv.Curve]:
    return {c.label: c for c in obj.traverse(lambda e: e, [hv.Curve])}


def test_figures_with_shipped_tables_are_registered_and_listed(capsys):
    from buviz.cli import main

    # every real-data figure of the paper is drawn from tables shipped in the package, read from the
    # folder itself (not through the rule that registers the figures)
    assert sorted(REAL_KEYS) == sorted(PAPER_FIGURES)
    tables = Path(reproduce.__file__).parent / "data" / "tables"
    on_disk = {p.stem for p in tables.glob("*.csv")}
    for key in PAPER_FIGURES:
        table, names = reproduce.FIGURE_TABLES[key]
        assert {f"{table}_{n}" for n in names} <= on_disk, (key, sorted({f"{table}_{n}" for n in names} - on_disk))
    assert main(["figure", "--list"]) == 0
    out = capsys.readouterr().out
    for key in REAL_KEYS:
        assert key in out
    # the quick substitutes keep names that say which data they draw
    for key in ("uncertainty_fig7_sklearn", "uncertainty_fig8_sklearn", "uncertainty_fig9_sklearn",
                "uncertainty_fig11_sklearn", "uncertainty_fig12_toy", "uncertainty_fig13_toy",
                "uncertainty_table3_formula"):
        assert key in figures.REGISTRY and key in out, key


def _seeds(table: str, name: str) -> list[int]:
    return sorted(int(s) for s in set(reproduce.load_table(table, name)["seed"]))


def _scan(name: str, seed: int, perturbation: float = reproduce.PERTURBATION, error: str = "L_val",
          u: str = "U_tr", reading: str | None = None) -> tuple[float, float]:
    """log₂ γ at the smallest ``error`` and at the largest ``u`` (the argmin of −Û) of one seed, by a direct
    scan of the shipped ``svm_gamma`` rows (ties to the smaller γ), independently of :func:`buviz.reproduce.minima`."""
    return _scan_ties(name, seed, perturbation, error, u, reading)[:2]


def _scan_ties(name, seed, perturbation=reproduce.PERTURBATION, error="L_val", u="U_tr", reading=None):
    """:func:`_scan`, then every log₂ γ whose ``error`` equals the smallest (to 1e-12) and the error at −Û's argmin."""
    t = reproduce.load_table("svm_gamma", name)
    col = u if reading is None else reading_column(t, reading, u)
    rows = sorted((r["log2_gamma"], r[error], r[col]) for _, r in t.iterrows()
                  if r["perturbation"] == perturbation and r["seed"] == seed)
    best_l = min(rows, key=lambda r: r[1])  # min keeps the first of equal values: the smaller γ
    best_u = max(rows, key=lambda r: (r[2], -r[0]))
    ties = [r[0] for r in rows if r[1] <= best_l[1] + 1e-12]
    return best_l[0], best_u[0], ties, best_u[1] <= best_l[1] + 1e-12


def _held(key: str) -> list[str]:
    """The readings of eq 39 every table of figure ``key`` holds."""
    table, names = reproduce.FIGURE_TABLES[key]
    tables = [reproduce.load_table(table, n) for n in names if reproduce.has_table(table, n)]
    return [r for r in READINGS if all(reading_column(t, r) is not None for t in tables)]


def _segment(key: str, reading: str) -> str:
    """The part of the caption of figure ``key`` that reads the tables under ``reading``."""
    text = figures.REGISTRY[key].description
    start = text.index(f"[{READINGS[reading]}] ")
    end = min((text.index(f"[{lab}]", start + 1) for lab in READINGS.values() if f"[{lab}]" in text[start + 1:]),
              default=len(text))
    return text[start:end]


def test_captions_name_every_reading_of_eq39_and_the_one_drawn():
    """Each real-data caption has a part per reading of eq 39 (numbers where the tables hold it, "not in the
    shipped tables" where not) and says which reading the curves draw."""
    for key in [k for k in REAL_KEYS if figures.REGISTRY[k].kind == "figure"]:
        text = figures.REGISTRY[key].description
        assert "−Û drawn: " in text, key
        held = _held(key)
        assert held, key
        for reading, label in READINGS.items():
            assert f"[{label}] " in text, (key, reading)
            assert ("not in the shipped tables" in _segment(key, reading)) == (reading not in held), (key, reading)


def _caption_groups(key: str, pattern: str) -> tuple[str, ...]:
    found = re.search(pattern, figures.REGISTRY[key].description)
    assert found, (pattern, figures.REGISTRY[key].description)
    return found.groups()


def _ints(text: str) -> list[int]:
    return [int(float(v.replace("−", "-"))) for v in text.split("/")]


@pytest.mark.parametrize("key", [k for k in REAL_KEYS if figures.REGISTRY[k].kind == "figure"])
def test_caption_states_the_claim_and_the_seeds_it_rests_on(key):
    """The caption is the claim plus numbers read from the tables, and it names as many seeds as the tables hold."""
    cls = figures.REGISTRY[key]
    assert f"Paper: {cls.claim}." in cls.description
    # what the docs gallery shows; reStructuredText reads a bare |x| as a substitution, hence the escape
    assert cls.__doc__.splitlines()[0] == cls.description.replace("|", "\\|")
    table, names = reproduce.FIGURE_TABLES[key]
    present = [n for n in names if reproduce.has_table(table, n)]
    n_seeds = len(set.intersection(*(set(_seeds(table, n)) for n in present)))  # seeds every shipped set has
    assert re.search(rf"buviz measures: {n_seeds} seeds? \(", cls.description), cls.description


PRESENT = [n for n in real_data.PAPER_ORDER if reproduce.has_table("svm_gamma", n)]
HAS_LETTER = reproduce.has_table("svm_gamma", "letter")


@pytest.mark.skipif(not HAS_LETTER, reason="Letter Recognition's sweep is not shipped")
@pytest.mark.parametrize("reading", list(READINGS))
def test_fig7_caption_argmins_are_the_letter_tables_seed_by_seed(reading):
    if reading not in _held("uncertainty_fig7"):
        pytest.skip(f"the shipped Letter table does not hold the {reading} reading")
    seeds = _seeds("svm_gamma", "letter")
    scans = [_scan_ties("letter", s, reading=reading) for s in seeds]
    seg = _segment("uncertainty_fig7", reading)
    l_val, u_tr, same, n = re.search(
        r"argmin log₂γ of L_val ([−\d/]+), of −Û_tr ([−\d/]+): on a minimum of L_val in (\d+)/(\d+) seeds",
        seg).groups()
    assert _ints(l_val) == [a[0] for a in scans] and _ints(u_tr) == [a[1] for a in scans]
    assert (int(same), int(n)) == (sum(a[3] for a in scans), len(seeds))
    te = [_scan("letter", s, error="L_te", u="U_te", reading=reading) for s in seeds]
    l_te, u_te = re.search(r"argmin of L_te ([−\d/]+), of −Û_te ([−\d/]+);", seg).groups()
    assert _ints(l_te) == [a for a, _ in te] and _ints(u_te) == [b for _, b in te]


@pytest.mark.parametrize("reading", list(READINGS))
def test_fig8_and_fig11_caption_counts_are_the_tables_seed_by_seed(reading):
    """Counts with tied minima of L_val: −Û_tr's pick is on the minimum when its L_val equals the least."""
    if reading not in _held("uncertainty_fig8"):
        pytest.skip(f"the shipped tables do not hold the {reading} reading")
    seeds = sorted(set.intersection(*(set(_seeds("svm_gamma", n)) for n in PRESENT)))
    scans = {s: {n: _scan_ties(n, s, reading=reading) for n in PRESENT} for s in seeds}
    same = [sum(v[3] for v in scans[s].values()) for s in seeds]
    # one grid step (Δlog₂γ = 1) from the nearest of the tied minima
    near = [sum(min(abs(x - v[1]) for x in v[2]) <= 1 for v in scans[s].values()) for s in seeds]
    got = re.search(rf"on ([\d/]+) of {len(PRESENT)} sets, within one step \(Δlog₂γ = 1\) on ([\d/]+);",
                    _segment("uncertainty_fig8", reading)).groups()
    assert (_ints(got[0]), _ints(got[1])) == (same, near)
    scans0 = {s: {n: _scan_ties(n, s, 0.0, reading=reading) for n in PRESENT} for s in seeds}
    above0 = [sum(v[1] > max(v[2]) for v in scans0[s].values()) for s in seeds]
    above = [sum(v[1] > max(v[2]) for v in scans[s].values()) for s in seeds]
    got = re.search(rf"above L_val's γ on ([\d/]+) of {len(PRESENT)} sets without T̃ \(([\d/]+) with",
                    _segment("uncertainty_fig11", reading)).groups()
    assert (_ints(got[0]), _ints(got[1])) == (above0, above)


def _markdown_table(text: str, first_header: str) -> list[list[str]]:
    """The body rows of the markdown table whose header row starts with ``first_header``."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {first_header} |"))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


def _real_data_doc() -> str:
    doc = Path(__file__).resolve().parents[2] / "docs" / "real_data.md"
    if not doc.is_file():
        pytest.skip("docs/ not in this checkout")
    return doc.read_text(encoding="utf-8")


def test_real_data_doc_argmin_table_is_the_tables():
    """docs/real_data.md's per-dataset table is :func:`real_data.argmin_table`, whose cells (a value per seed,
    under each reading of eq 39 the tables hold) are checked against direct scans of the tables."""
    assert "\n".join(_real_data_doc_table()) == real_data.argmin_table()
    rows = _markdown_table(real_data.argmin_table(), "dataset")
    assert [r[0] for r in rows] == [real_data.TITLES[n] for n in PRESENT]
    for row, name in zip(rows, PRESENT, strict=True):
        seeds = _seeds("svm_gamma", name)
        t = reproduce.load_table("svm_gamma", name)
        assert float(row[1]) == float(t["C"].iloc[0]), name
        assert _ints(row[2]) == [_scan(name, s)[0] for s in seeds], name
        for i, reading in enumerate(READINGS):
            cells = row[3 + 4 * i: 7 + 4 * i]
            if reading_column(t, reading) is None:
                assert cells == ["—"] * 4, (name, reading)
                continue
            scans = [_scan(name, s, reading=reading) for s in seeds]
            assert _ints(cells[0]) == [b for _, b in scans], (name, reading)
            assert _ints(cells[1]) == [_scan(name, s, 0.0, reading=reading)[1] for s in seeds], (name, reading)
            col = reading_column(t, reading)
            for c, s, (_, xu) in zip(cells[2].split("/"), seeds, scans, strict=True):
                ts = t[(t["seed"] == s) & (t["perturbation"] == reproduce.PERTURBATION)]
                expected = float(ts.loc[ts["log2_gamma"] == xu, "L_val"].iloc[0] - ts["L_val"].min())
                assert float(c) == pytest.approx(expected, abs=5e-4), (name, reading, col)


@pytest.mark.parametrize("reading", list(READINGS))
def test_verdict_summary_counts_are_the_tables(reading):
    """The generated verdicts (docs/real_data.md quotes them) against direct scans: Fig 8's (set, seed)
    counts with tied minima, and Goal (a)'s gaps on Letter."""
    lines = real_data.verdict_summary().splitlines()
    assert len(lines) == len(real_data.VERDICTS)
    fig8 = next(line for line in lines if "(Fig 8)" in line)
    seg = fig8[fig8.index(READINGS[reading]):]
    if reading not in _held("uncertainty_fig8"):
        assert seg.startswith(f"{READINGS[reading]}: not in the shipped tables")
        return
    scans = [_scan_ties(n, s, reading=reading) for n in PRESENT for s in _seeds("svm_gamma", n)]
    on, n, near = re.search(r"on a minimum of L_val in (\d+)/(\d+) \(set, seed\) pairs .*?within one step in (\d+)/",
                            seg).groups()
    assert (int(on), int(n)) == (sum(v[3] for v in scans), len(scans))
    assert int(near) == sum(min(abs(x - v[1]) for x in v[2]) <= 1 for v in scans)
    if HAS_LETTER and reading in _held("uncertainty_fig7"):
        t = reproduce.load_table("svm_gamma", "letter")
        t = t[t["perturbation"] == reproduce.PERTURBATION]
        gaps = [float((g[reading_column(t, reading)] - g[reading_column(t, reading, "U_te")]).abs().max())
                for _, g in t.groupby("seed")]
        goal_a = next(line for line in lines if line.startswith("- **Goal (a)"))
        got = re.search(r"SVC (\d+)/(\d+) seeds", goal_a[goal_a.index(READINGS[reading]):]).groups()
        assert (int(got[0]), int(got[1])) == (sum(g <= 0.05 for g in gaps), len(gaps))


def test_real_data_doc_quotes_the_verdict_summary():
    doc = _real_data_doc()
    for line in real_data.verdict_summary().splitlines():
        assert line in doc, line


def _real_data_doc_table() -> list[str]:
    lines = _real_data_doc().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| dataset |"))
    end = next(i for i in range(start, len(lines) + 1) if i == len(lines) or not lines[i].startswith("|"))
    return lines[start:end]


def test_real_data_doc_quotes_the_current_captions():
    """The captions docs/real_data.md lists are those the figures build from the shipped tables today."""
    listed = dict(re.findall(r"^- \*\*(\w+)\*\*: (.*)$", _real_data_doc(), re.M))
    keys = [k for k in REAL_KEYS if figures.REGISTRY[k].kind == "figure"]
    assert set(keys) <= set(listed)
    for key in keys:
        assert listed[key] == figures.REGISTRY[key].description, key


def test_load_table_reads_from_a_zipped_install(tmp_path, monkeypatch):
    """A zipped install gives :func:`buviz.reproduce.tables_dir` a zip Traversable (no ``stat``)."""
    name = "svm_gamma_banknote.csv"
    shipped = reproduce.load_table("svm_gamma", "banknote")
    archive = tmp_path / "buviz.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr(f"buviz/data/tables/{name}", (reproduce.tables_dir() / name).read_text(encoding="utf-8"))
    monkeypatch.setattr(reproduce, "tables_dir", lambda: zipfile.Path(archive, "buviz/data/tables/"))
    assert reproduce.has_table("svm_gamma", "banknote")
    pd.testing.assert_frame_equal(reproduce.load_table("svm_gamma", "banknote"), shipped)


def _mean(t: pd.DataFrame, column: str) -> np.ndarray:
    return t.groupby("log2_gamma")[column].mean().sort_index().to_numpy()


def test_fig8_shows_the_ten_sets_with_proposal1_drawn_from_the_tables():
    assert len(figures.render("uncertainty_fig8")) == len([n for n in real_data.DEFAULT_SETS if n in PRESENT])
    obj = figures.render("uncertainty_fig8", datasets=list(real_data.PAPER_ORDER))
    assert len(obj) == len(PRESENT)
    titles = [p.opts.get().kwargs.get("title") for p in obj]
    assert titles == [real_data.TITLES[n] for n in PRESENT]
    last = PRESENT[-1]  # Letter Recognition, or the last one shipped
    spam = reproduce.load_table("svm_gamma", last)
    spam = spam[spam["perturbation"] == reproduce.PERTURBATION]
    panel = obj[titles.index(real_data.TITLES[last])]
    curves = _curves(panel)
    np.testing.assert_allclose(curves["−Û_tr"].dimension_values(1), -_mean(spam, "U_tr"), rtol=1e-12)
    np.testing.assert_allclose(curves["L_val (CV)"].dimension_values(1), _mean(spam, "L_val"), rtol=1e-12)
    # the seeds' spread: one unlabelled −Û_tr curve per seed, each the seed's own values
    per_seed = [c.dimension_values(1) for c in panel.traverse(lambda e: e, [hv.Curve])
                if not c.label and c.vdims[0].name == "neg_U"]
    drawn = ["U_tr", "U1_tr"] if last in reproduce.P1_DATASETS and spam["U1_tr"].notna().any() else ["U_tr"]
    expected = [-g.sort_values("log2_gamma")[col].to_numpy() for col in drawn for _, g in spam.groupby("seed")]
    assert len(per_seed) == len(expected) == len(drawn) * spam["seed"].nunique()
    for got, want in zip(per_seed, expected, strict=True):
        np.testing.assert_array_equal(got, want)
    for n, p in zip(PRESENT, obj, strict=True):  # Proposal 1 on the paper's four sets only
        has_p1 = reproduce.load_table("svm_gamma", n)["U1_tr"].notna().any()
        assert ("−Û1_tr (Proposal 1)" in _curves(p)) == (n in reproduce.P1_DATASETS and has_p1), n


def test_fig11_is_fig8_without_tilde():
    obj = figures.render("uncertainty_fig11", datasets=[PRESENT[0]])
    assert len(obj) == 1
    t = reproduce.load_table("svm_gamma", PRESENT[0])
    t0 = t[t["perturbation"] == 0.0]
    curves = _curves(obj[0]) if isinstance(obj, hv.Layout) else _curves(obj)
    np.testing.assert_allclose(curves["−Û_tr"].dimension_values(1), -_mean(t0, "U_tr"), rtol=1e-12)
    assert not np.array_equal(_mean(t0, "U_tr"), _mean(t[t["perturbation"] > 0], "U_tr"))


@pytest.mark.skipif(not HAS_LETTER, reason="Letter Recognition's sweep is not shipped")
def test_fig7_is_letter_at_the_papers_size():
    obj = figures.render("uncertainty_fig7")
    assert len(obj) == 4
    t = reproduce.load_table("svm_gamma", "letter")
    t0 = t[t["perturbation"] == 0.0]
    np.testing.assert_allclose(_curves(obj[3])["−Û_tr"].dimension_values(1), -_mean(t0, "U_tr"), rtol=1e-12)
    assert set(t["n_train"]) == {10000} and set(t["n_test"]) == {10000}
    assert sorted(set(t["log2_gamma"])) == list(map(float, reproduce.LOG2_GAMMAS))


T3 = [n for n in reproduce.TABLE3_DATASETS if reproduce.has_table("table3", n)]


@pytest.mark.skipif(not T3, reason="Table 3 tables not shipped")
def test_table3_next_to_the_formulas_and_the_printed_values():
    t = figures.render("uncertainty_table3")
    assert isinstance(t, pd.DataFrame) and len(t) == len(T3)
    assert list(t["dataset"]) == [real_data.TITLES[n] for n in T3]
    for (_, row), paper in zip(t.iterrows(), [reproduce.TABLE3_DATASETS[n] for n in T3], strict=True):
        printed = costs.TABLE3_PRINTED[paper]
        assert tuple(row[[f"G_{op} printed" for op in ("add", "mul", "comp", "CL")]]) == printed
        assert row["N"] == costs.TABLE2[paper][0]  # the whole set, the paper's N
        # Proposal 2 is the cheaper one in additions, multiplications and classified samples
        assert (row[["G_add counted", "G_mul counted", "G_CL counted"]].astype(float) > 1).all()


@pytest.mark.parametrize("key", REAL_KEYS)
def test_renders_from_tables_without_computing(key, monkeypatch):
    from buviz import sweep

    def refuse(*a, **k):
        raise AssertionError("a shipped figure must not run a sweep")

    monkeypatch.setattr(sweep, "svm_gamma_sweep", refuse)
    monkeypatch.setattr(sweep, "mlp_epoch_sweep", refuse)
    monkeypatch.setattr(reproduce, "sweep_cell", refuse)
    obj = figures.render(key)
    assert obj is not None


def test_real_data_doc_lists_what_is_shipped_as_the_tables_hold_it():
    """docs/real_data.md's "What is shipped" table is :func:`real_data.shipped_table`; each (set, seed) it
    lists has rows in that set's CSV, and each γ sweep seed listed has all 31 γ of the grid."""
    lines = _real_data_doc().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| table | holds |"))
    end = next(i for i in range(start, len(lines) + 1) if i == len(lines) or not lines[i].startswith("|"))
    assert "\n".join(lines[start:end]) == real_data.shipped_table()
    titles = {v: k for k, v in real_data.TITLES.items()}
    for row in _markdown_table(real_data.shipped_table(), "table"):
        table = row[0].strip("`")
        for entry in row[2].split("; "):
            title, seeds = re.fullmatch(r"(.+) \(seeds ([\d, ]+)\)", entry).groups()
            name = titles[title]
            path = reproduce.tables_dir() / f"{table}_{name}.csv"
            t = pd.read_csv(io.StringIO(path.read_text(encoding="utf-8")))
            listed = [int(s) for s in seeds.split(", ")]
            assert set(listed) <= set(t["seed"].astype(int)), (table, name)
            if table == "svm_gamma":
                for s in listed:
                    assert t.loc[t.seed == s, "log2_gamma"].nunique() == len(reproduce.LOG2_GAMMAS), (name, s)
