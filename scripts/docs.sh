#!/usr/bin/env bash
# Build the documentation into docs/_build/html (warnings are errors).
#   1. the executed notebooks: build/notebooks/*.ipynb, written by the test step (pytest --nbmake with
#      scripts/pytest_docs.py); scripts/notebooks.py executes only those missing or out of date;
#   2. the gallery pages and thumbnails from the figure registry (scripts/gallery.py, thumbnails kept
#      in build/gallery/ until the package changes);
#   3. sphinx-build. Extra arguments go to sphinx-build.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
if ! $PY -c "import sphinx, myst_nb, numpydoc, pydata_sphinx_theme, sphinx_design, buviz" 2>/dev/null; then
    $PY -m pip install -q -e ".[docs]"
fi
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" MPLBACKEND=Agg
start=$(date +%s)
$PY scripts/notebooks.py
rm -rf docs/user_guide/notebooks && mkdir -p docs/user_guide/notebooks
for nb in notebooks/*.ipynb; do cp "build/notebooks/$(basename "$nb")" docs/user_guide/notebooks/; done
$PY scripts/gallery.py
$PY -m sphinx -b html -W --keep-going -q docs docs/_build/html "$@"
echo "docs: docs/_build/html/index.html ($(( $(date +%s) - start )) s)"
