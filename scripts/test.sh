#!/usr/bin/env bash
# Installs everything the test suite needs (the [test] extra into the project environment .venv,
# created on first use; Debian's chromium for the browser tests), then runs ruff, the whole pytest
# suite with the teaching notebooks, the 20-browser load test and the documentation build.
# Extra arguments go to pytest. CI (.ci/run) runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -q
    # Debian names the package chromium; where it is missing (Ubuntu ships a snap wrapper instead) the
    # browser tests skip with a message rather than the whole run stopping here
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium \
        || echo "test.sh: could not install Debian's chromium: the browser tests will be skipped" >&2
fi
source scripts/env.sh
$PY -m pip install -q -e ".[test]"
# PyTorch for the torch backend's tests, CPU-only: PyPI's Linux wheel pulls about 3 GB of CUDA libraries
# (torch 2.14.1: a 555 MB wheel and 2.4 GB of nvidia-*/triton wheels); the CPU wheel on PyTorch's own
# index is about 190 MB. Installed only if the resolver picks a "+cpu" build; else those tests skip.
TORCH_CPU_INDEX="${TORCH_CPU_INDEX:-https://download.pytorch.org/whl/cpu}"
if ! $PY -c "import torch" 2>/dev/null; then
    pick=$($PY -m pip install --dry-run -q --retries 1 --timeout 15 --report - torch --index-url "$TORCH_CPU_INDEX" 2>/dev/null \
           | $PY -c "import json, sys; print(next((i['metadata']['version'] for i in json.load(sys.stdin)['install']
                                                   if i['metadata']['name'] == 'torch'), ''))" 2>/dev/null || true)
    if [[ "$pick" == *+cpu ]]; then
        $PY -m pip install -q --retries 1 --timeout 15 "torch==$pick" --index-url "$TORCH_CPU_INDEX"
    else
        echo "test.sh: no CPU-only torch wheel at $TORCH_CPU_INDEX: the torch backend's tests will skip" >&2
    fi
fi
$PY -m ruff check buviz tests benchmarks apps scripts docs/conf.py
# tests/ and the teaching notebooks (executed top to bottom by nbmake), two workers; then the
# 20-browser load test on its own: its 20 Chromium pages need the machine's cores to themselves; then
# the docs. scripts/pytest_docs.py keeps what the docs show and the tests compute anyway (each executed
# notebook in build/notebooks/, each figure's drawing in build/gallery/), so nothing runs twice.
LOAD_TEST=tests/ui/test_load.py::test_concurrent_sessions
rc=0
$PY -m pytest -n 2 --dist loadgroup --durations=25 --nbmake tests notebooks \
    -p scripts.pytest_docs --nb-store build/notebooks --figure-store build/gallery \
    --deselect "$LOAD_TEST" "$@" || rc=$?
$PY -m pytest "$LOAD_TEST" "$@" || { code=$?; [ "$code" -eq 5 ] || rc=$code; }  # 5: deselected by "$@"
bash scripts/docs.sh || rc=$?
exit $rc
