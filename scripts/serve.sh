#!/usr/bin/env bash
# Start the explorer on this machine only: http://127.0.0.1:5006/explorer
# Installs the package into the project environment (.venv, created on first use) if it is not there.
# Extra arguments go to `panel serve` (docs/deployment.md: serving a class).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
if ! $PY -c "import buviz, panel; assert buviz.__file__.startswith('$PWD/')" 2>/dev/null; then
    $PY -m pip install -q -e .
fi
exec $PY -m panel serve apps/explorer.py --address 127.0.0.1 "$@"
