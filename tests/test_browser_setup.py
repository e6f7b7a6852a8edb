"""scripts/setup.sh's browser step (scripts/browser-deps.sh) installs each of chromium and chromedriver that is
missing, and the browser tests' skip reason names exactly what is missing and where it looked."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from .conftest import REPO_ROOT
from .support.browsers import find_browser

BASH = shutil.which("bash")


def _executable(path: Path, text: str) -> None:
    path.write_text(text)
    path.chmod(0o755)


def _run_browser_step(tmp_path: Path, present: tuple[str, ...]) -> list[str]:
    """The browser step of setup.sh as root, with only ``present`` on PATH and apt-get a recorder: the apt-get
    command lines it ran."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    record = tmp_path / "apt-get.log"
    for name in present:
        _executable(bin_dir / name, "#!/bin/sh\nexit 0\n")
    _executable(bin_dir / "apt-get", f'#!/bin/sh\necho "$*" >> "{record}"\nexit 0\n')
    _executable(bin_dir / "id", "#!/bin/sh\necho 0\n")  # as root: no sudo asked
    os.symlink(shutil.which("env"), bin_dir / "env")
    done = subprocess.run([BASH, "-c", ". scripts/browser-deps.sh"], cwd=REPO_ROOT, env={"PATH": str(bin_dir), "HOME": str(tmp_path)},
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return record.read_text().splitlines() if record.exists() else []


@pytest.mark.skipif(BASH is None or shutil.which("env") is None, reason="no bash or env on this machine")
@pytest.mark.parametrize(("present", "installed"), [
    (("chromium",), "chromium-driver"),  # the browser without its driver: the driver alone
    (("chromedriver",), "chromium"),
    ((), "chromium chromium-driver"),
    (("chromium-browser", "chromedriver"), None),
])
def test_setup_installs_what_is_missing_of_chromium_and_its_driver(tmp_path: Path, present, installed) -> None:
    assert "\n. scripts/browser-deps.sh\n" in (REPO_ROOT / "scripts" / "setup.sh").read_text()
    calls = _run_browser_step(tmp_path, present)
    assert calls == ([] if installed is None else [f"install -y -qq {installed}"])


def test_the_skip_reason_names_exactly_what_is_missing(tmp_path: Path) -> None:
    empty, only_browser, both = (tmp_path / name for name in ("empty", "browser", "both"))
    for folder, names in ((empty, ()), (only_browser, ("chromium",)), (both, ("chromium", "chromedriver"))):
        folder.mkdir()
        for name in names:
            _executable(folder / name, "#!/bin/sh\nexit 0\n")
    reason = find_browser(str(only_browser)).skip_reason
    assert reason.startswith(f"no chromedriver on PATH ({only_browser}); found chromium at {only_browser / 'chromium'}")
    assert "apt-get install -y chromium-driver`" in reason and "chromium chromium-driver" not in reason
    reason = find_browser(str(empty)).skip_reason
    assert reason.startswith(f"no chromium or chromium-browser or google-chrome and no chromedriver on PATH ({empty}):")
    assert "apt-get install -y chromium chromium-driver`" in reason
    found = find_browser(str(both))
    assert found.skip_reason is None and found.driver == str(both / "chromedriver")
