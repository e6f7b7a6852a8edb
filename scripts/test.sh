#!/usr/bin/env bash
# `make test`: set up .venv as README.md's "Install" says (first time only), then run the whole test suite.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -k metrics -x`.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
. scripts/setup.sh
exec .venv/bin/python -m pytest -q "$@"
