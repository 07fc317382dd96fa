"""The main formulas' tests can fail: every mutant of scripts/mutation_check.py is killed."""

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _script():
    spec = importlib.util.spec_from_file_location("_mutation_check", ROOT / "scripts" / "mutation_check.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def test_every_mutation_names_text_found_once_in_the_source_and_tests_that_exist():
    mc = _script()
    names = [m.name for m in mc.MUTATIONS]
    assert len(names) == len(set(names)) >= 15
    covered = {n.split("_")[0] for n in names}
    assert {"eq37", "eq38", "eq39", "eq40", "case13", "moments"} <= covered
    for m in mc.MUTATIONS:
        source = (ROOT / m.path).read_text(encoding="utf-8")
        assert source.count(m.old) == 1 and m.old != m.new, m.name
        for t in m.tests:
            path, _, name = t.partition("::")
            assert (ROOT / path).is_file(), t
            assert not name or f"def {name}(" in (ROOT / path).read_text(encoding="utf-8"), t


@pytest.mark.slow
def test_every_mutant_of_the_main_formulas_is_killed():
    mc = _script()
    # no baseline run: the suite runs the same tests unmutated, and a failing one fails there
    outcomes = mc.check(baseline=False, log=lambda line: None)
    assert [o.name for o in outcomes] == [m.name for m in mc.MUTATIONS]
    survivors = [(o.name, o.status, o.detail) for o in outcomes if o.status != "killed"]
    assert not survivors
