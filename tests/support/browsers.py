"""Where the leaderboard's browser tests find chromium and chromedriver, and the skip reason that says which of the
two is missing and where it was looked for (``scripts/browser-deps.sh`` installs each one that is missing)."""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

#: The browser's names on PATH (Debian's package installs ``chromium``; Ubuntu's ``chromium-browser``).
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome")
#: The driver's name on PATH (Debian's ``chromium-driver`` package installs ``/usr/bin/chromedriver``).
DRIVER_NAMES = ("chromedriver",)


@dataclass(frozen=True)
class Browser:
    chromium: str | None
    driver: str | None
    skip_reason: str | None  # None: both found


def find_browser(path: str | None = None) -> Browser:
    """chromium and chromedriver on ``path`` (default: ``$PATH``), and why the browser tests skip without them."""
    searched = os.environ.get("PATH", "") if path is None else path
    chromium = next((p for p in (shutil.which(n, path=searched) for n in CHROMIUM_NAMES) if p), None)
    driver = next((p for p in (shutil.which(n, path=searched) for n in DRIVER_NAMES) if p), None)
    missing = [(what, package) for what, package, found in (
        (" or ".join(CHROMIUM_NAMES), "chromium", chromium), (" or ".join(DRIVER_NAMES), "chromium-driver", driver))
        if found is None]
    if not missing:
        return Browser(chromium, driver, None)
    found = [f"{label} at {where}" for label, where in (("chromium", chromium), ("chromedriver", driver)) if where]
    reason = (f"no {' and no '.join(what for what, _ in missing)} on PATH ({searched or 'empty'})"
              + (f"; found {', '.join(found)}" if found else "")
              + f": install with `apt-get install -y {' '.join(p for _, p in missing)}` (scripts/setup.sh does, as "
                "root or with password-less sudo)")
    return Browser(chromium, driver, reason)
