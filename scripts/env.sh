# Sourced by serve.sh, test.sh and docs.sh: use the active virtual (or conda) environment, or else the
# project environment .venv, created on first use. pip never installs into the system Python, so this
# works where that Python refuses (PEP 668: Debian 12, Ubuntu 24.04).
#
# .venv is created with --system-site-packages: packages the interpreter already has (the CI image's,
# Debian's python3-* packages) are reused rather than downloaded again; pip installs what is missing
# or too old into .venv. BUVIZ_VENV=path names another location.

_as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

if [ -z "${VIRTUAL_ENV:-}" ] && [ -z "${CONDA_PREFIX:-}" ]; then
    BUVIZ_VENV="${BUVIZ_VENV:-$PWD/.venv}"
    if [ ! -x "$BUVIZ_VENV/bin/python" ]; then
        if ! python3 -c "import ensurepip, venv" 2>/dev/null; then  # Debian/Ubuntu ship venv separately
            echo "env.sh: installing python3-venv (apt)" >&2
            _as_root apt-get update -q
            _as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-venv
        fi
        echo "env.sh: creating $BUVIZ_VENV" >&2
        python3 -m venv --system-site-packages "$BUVIZ_VENV"
    fi
    export VIRTUAL_ENV="$BUVIZ_VENV"
    export PATH="$BUVIZ_VENV/bin:$PATH"  # "python", "jupyter" and the notebooks' kernel are the environment's
fi
PY=python
