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
# tests/ and the teaching notebooks (executed top to bottom by nbmake)
python3 -m pytest -n 2 --dist loadgroup --nbmake tests notebooks "$@"
