#!/usr/bin/env bash
# `make test`: set up .venv as README.md's "Install" says (first time only), then run the whole test suite.
# Extra arguments go to pytest, e.g. `bash scripts/test.sh -k metrics -x`. The suite runs on two pytest-xdist
# workers, one test file per worker at a time (module fixtures built once); SURGE_TEST_WORKERS=0 runs it in one
# process, SURGE_TEST_WORKERS=4 on four (each worker holds its own models: about 3 GiB each).
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
. scripts/setup.sh
workers="${SURGE_TEST_WORKERS:-2}"
if [ "$workers" = "0" ]; then
  exec .venv/bin/python -m pytest -q "$@"
fi
exec .venv/bin/python -m pytest -q -n "$workers" --dist loadfile "$@"
