#!/usr/bin/env bash
# Installs everything the test suite needs on a fresh Debian machine (Python extras and Debian's
# chromium for the browser tests), then runs ruff and the whole pytest suite.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q chromium
fi
python3 -m pip install -q -e ".[test]"
python3 -m ruff check buviz tests benchmarks apps
# tests/ and the teaching notebooks (executed top to bottom by nbmake), two workers; then the
# 20-browser load test on its own: its 20 Chromium pages need the machine's cores to themselves.
LOAD_TEST=tests/ui/test_load.py::test_concurrent_sessions
rc=0
python3 -m pytest -n 2 --dist loadgroup --nbmake tests notebooks --deselect "$LOAD_TEST" "$@" || rc=$?
python3 -m pytest "$LOAD_TEST" "$@" || { code=$?; [ "$code" -eq 5 ] || rc=$code; }  # 5: deselected by "$@"
exit $rc
