#!/usr/bin/env bash
# Installs everything the test suite needs (the [test] extra into the project environment .venv,
# created on first use; Debian's chromium for the browser tests), then runs ruff, the whole pytest
# suite with the teaching notebooks, the 20-browser load test and the documentation build.
# Extra arguments go to pytest. CI (.ci/run) runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
    # Debian names the package chromium; where it cannot be installed (no apt, no root and no
    # password-less sudo, Ubuntu's snap wrapper) the browser tests skip with a message rather than the
    # whole run stopping here
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo -n"
    if command -v apt-get >/dev/null && { [ -z "$SUDO" ] || sudo -n true 2>/dev/null; }; then
        { $SUDO apt-get update -q && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; } \
            || echo "test.sh: could not install Debian's chromium: the browser tests will be skipped" >&2
    else
        echo "test.sh: no apt-get as root here: install chromium yourself, or the browser tests will be skipped" >&2
    fi
fi
source scripts/env.sh
$PY -m pip install -q -e ".[test]"
# PyTorch for the torch backend's tests, CPU-only. PyPI's Linux wheel pulls about 3 GB of CUDA libraries
# (torch 2.14.1: a 555 MB wheel and 2.4 GB of nvidia-*/triton wheels), so torch is not in the [test]
# extra: a CPU build is installed from the wheels pip is configured to find without an index (find-links;
# this project's CI machines carry torch 2.13.0+cpu, 192 MB), or from TORCH_INDEX_URL when set. With neither,
# the torch tests skip with a message.
if ! $PY -c "import torch" 2>/dev/null; then
    if [ -n "${TORCH_INDEX_URL:-}" ]; then
        $PY -m pip install -q torch --index-url "$TORCH_INDEX_URL" || echo "test.sh: torch from TORCH_INDEX_URL failed" >&2
    else
        # the CPU build among the wheels found without an index; its dependencies come from PyPI
        wheels=$(mktemp -d)
        $PY -m pip download -q --no-index --no-deps torch -d "$wheels" 2>/dev/null || true
        version=$(ls "$wheels" 2>/dev/null | sed -n 's/^torch-\([^-]*+cpu\)-.*\.whl$/\1/p' | head -n 1)
        if [ -n "$version" ]; then
            $PY -m pip install -q "torch==$version" || echo "test.sh: installing torch $version failed" >&2
        else
            echo "test.sh: no local CPU torch wheel (set TORCH_INDEX_URL to a CPU wheel index): the torch tests skip" >&2
        fi
        rm -rf "$wheels"
    fi
fi
$PY -m ruff check buviz tests benchmarks apps scripts docs/conf.py
# tests/ and the teaching notebooks (executed top to bottom by nbmake), two workers; then, one after
# the other on their own, the two tests that load the whole machine: the 20-browser load test (its 20
# Chromium pages need the cores to themselves) and the offline test under CPU load (its spinning
# processes would starve the other worker's tests: 84-206 s in the parallel run, 76 s alone); then
# the docs. scripts/pytest_docs.py keeps what the docs show and the tests compute anyway (each executed
# notebook in build/notebooks/, each figure's drawing in build/gallery/), so nothing runs twice.
LOAD_TEST=tests/ui/test_load.py::test_concurrent_sessions
OFFLINE_TEST=tests/ui/test_offline_load.py::test_every_tab_under_cpu_load_requests_nothing_outside_the_server
rc=0
$PY -m pytest -n 2 --dist loadgroup --durations=25 --nbmake tests notebooks \
    -p scripts.pytest_docs --nb-store build/notebooks --figure-store build/gallery \
    --deselect "$LOAD_TEST" --deselect "$OFFLINE_TEST" "$@" || rc=$?
$PY -m pytest "$LOAD_TEST" "$OFFLINE_TEST" "$@" || { code=$?; [ "$code" -eq 5 ] || rc=$code; }  # 5: deselected by "$@"
bash scripts/docs.sh || rc=$?
exit $rc
