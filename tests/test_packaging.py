"""What a fresh machine gets: the [test] extra installs every program and optional module the suite
starts or imports (a fresh clone once ended in an error because ``jupyter nbconvert`` came only with
the [notebooks] extra), and the wheel's metadata is what current setuptools accepts."""

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

#: The distribution that provides each program (``python -m X [Y]``) or optional module a test uses.
PROVIDERS = {
    "jupyter nbconvert": "nbconvert", "jupyter lab": "jupyterlab", "jupyterlab": "jupyterlab",
    "playwright": "playwright", "distributed": "dask", "panel": "panel", "panel serve": "panel",
    "buviz.cli": "buviz", "buviz.cli serve": "buviz", "rdata": "rdata", "psutil": "psutil",
}
#: Installed by scripts/test.sh itself, not by an extra: PyTorch's CPU-only wheel is not on PyPI (PyPI's
#: Linux wheel brings about 3 GB of CUDA libraries), so its tests skip where that index is unreachable.
INSTALLED_BY_TEST_SH = {"torch"}


def _name(requirement: str) -> str:
    return re.split(r"[\s\[<>=!~;]", requirement.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _extra(name: str, seen: set[str] | None = None) -> set[str]:
    """The distributions an extra installs, its self-references (``buviz[docs]``) followed."""
    seen = set() if seen is None else seen
    seen.add(name)
    out = set()
    for req in PYPROJECT["project"]["optional-dependencies"][name]:
        m = re.match(r"buviz\[([a-z,\s]+)\]", req.strip())
        if m:
            for inner in (e.strip() for e in m.group(1).split(",")):
                if inner not in seen:
                    out |= _extra(inner, seen)
        else:
            out.add(_name(req))
    return out


def _used_by_tests() -> set[str]:
    used = set()
    for path in (ROOT / "tests").rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        used |= set(re.findall(r'importorskip\("([\w.]+)"', text))
        used |= {" ".join(x for x in m if x) for m in re.findall(r'"-m", "([\w.]+)"(?:, "([a-z]+)")?', text)}
    return used


def test_the_test_extra_installs_everything_the_suite_starts_or_imports():
    used = _used_by_tests()
    assert {"jupyter nbconvert", "jupyter lab", "playwright"} <= used  # the search sees the tests' calls
    unknown = used - set(PROVIDERS) - INSTALLED_BY_TEST_SH
    assert not unknown, f"tests use {unknown}: name the distribution that provides each in PROVIDERS"
    installed = _extra("test") | {_name(r) for r in PYPROJECT["project"]["dependencies"]} | {"buviz"}
    missing = {u: PROVIDERS[u] for u in used - INSTALLED_BY_TEST_SH if PROVIDERS[u] not in installed}
    assert not missing, f"the [test] extra does not install {missing}"
    assert "torch" in (ROOT / "scripts" / "test.sh").read_text()


def test_license_is_an_spdx_expression_with_its_file():
    """``project.license`` as a table is deprecated by setuptools (PEP 639); 77 is the first release
    that reads the SPDX string and ``license-files``."""
    project = PYPROJECT["project"]
    assert project["license"] == "BSD-3-Clause"
    assert all((ROOT / f).is_file() for f in project["license-files"])
    assert any(r.replace(" ", "").startswith("setuptools>=77") for r in PYPROJECT["build-system"]["requires"])
