# Sourced by scripts/setup.sh (and runnable alone: bash scripts/browser-deps.sh). The leaderboard's browser tests
# (tests/test_leaderboard_browser.py) drive Debian's chromium headless through chromedriver and skip without either:
# each is checked on its own (chromium present does not mean its driver is) and what is missing is installed with
# apt-get, as root or with password-less sudo, never fatal. SURGE_SKIP_CHROMIUM=1 skips this step.
if [ -z "${SURGE_SKIP_CHROMIUM:-}" ]; then
  surge_browser_packages=""
  if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
    surge_browser_packages="chromium"
  fi
  if ! command -v chromedriver >/dev/null 2>&1; then
    surge_browser_packages="${surge_browser_packages:+$surge_browser_packages }chromium-driver"
  fi
  if [ -n "$surge_browser_packages" ]; then
    surge_sudo="none"
    if [ "$(id -u)" = 0 ]; then
      surge_sudo=""
    elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
      surge_sudo="sudo -n"
    fi
    if [ "$surge_sudo" != "none" ] && command -v apt-get >/dev/null 2>&1; then
      echo "== installing $surge_browser_packages (apt-get) for the leaderboard's browser tests" >&2
      # shellcheck disable=SC2086 # the package list is words
      surge_apt_install() { $surge_sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $surge_browser_packages >/dev/null 2>&1; }
      if ! surge_apt_install; then
        $surge_sudo apt-get update -qq >/dev/null 2>&1 || true
        surge_apt_install || echo "note: apt-get could not install $surge_browser_packages; the leaderboard's" \
                                  "browser tests will skip" >&2
      fi
    else
      echo "note: $surge_browser_packages missing, and no apt-get as root or password-less sudo to install it: the" \
           "leaderboard's browser tests will skip (Debian/Ubuntu: sudo apt-get install -y $surge_browser_packages)" >&2
    fi
  fi
fi
