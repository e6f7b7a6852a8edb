"""The leaderboard Space in a real browser: Debian's chromium, headless, driven by Selenium (chromium-driver).

The Space built by tests/test_leaderboard.py is started with ``surge leaderboard serve`` (which runs the
Space's own ``python app.py``, as a Space does) on a free port. Checked: the table shows every system and sorting a column reorders it; the
survey viewer colours citations and shows their evidence on hover and on click; a survey (and a system
name) carrying script payloads executes nothing: no dialog, no ``window.__pwned``, no request to any
other host. A screenshot of each page is saved under the test's tmp folder. Skipped, with the reason,
where chromium, chromium-driver or selenium is absent (``scripts/setup.sh`` installs them as root).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from urllib.parse import urlparse

import pytest

from .processes import free_port
from .support.browsers import find_browser
from .test_leaderboard import EVIL_NAME, leaderboard_inputs, space  # noqa: F401 - the fixtures, shared

BROWSER = find_browser()  # each of chromium and chromedriver on its own: the reason names what is missing, and where
CHROMIUM, DRIVER = BROWSER.chromium, BROWSER.driver
pytestmark = pytest.mark.skipif(BROWSER.skip_reason is not None, reason=BROWSER.skip_reason or "")
WAIT = 60


def _serving(folder):
    """``surge leaderboard serve SPACE --port N`` (which runs the Space's own ``python app.py``), until the end."""
    port = free_port()
    log = open(folder.parent / "app.log", "w")  # noqa: SIM115 - closed below
    serve = "from surge_dataset.cli.leaderboard import leaderboard_app; leaderboard_app()"
    process = subprocess.Popen([sys.executable, "-c", serve, "serve", str(folder), "--port", str(port)],
                               stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + 180
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                if response.status == 200:
                    break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            os.killpg(process.pid, signal.SIGKILL)
            log.close()
            pytest.fail("the Space's app.py did not start:\n" + (folder.parent / "app.log").read_text()[-3000:])
        time.sleep(0.5)
    yield url
    os.killpg(process.pid, signal.SIGTERM)  # the session started above: serve and the app.py it runs
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
    log.close()


@pytest.fixture(scope="module")
def server(space):  # noqa: F811 - the fixture imported above
    yield from _serving(space)


#: Citations added to the big survey: a details file of a few MB, more rows than the Space keeps for one survey.
BIG_EXTRA = 6_000
PAYLOAD = 'claimed <img src=x onerror="window.__pwned=\'refused\';alert(1)"> http://2130706433/x'


@pytest.fixture(scope="module")
def big_space(leaderboard_inputs, tmp_path_factory):  # noqa: F811
    """One system whose survey 0 cites BIG_EXTRA more times than the GT, built without --data (no GT outline, no
    abstracts), with the fields of the new builder: a badge and refused submissions that carry payloads."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from .test_leaderboard_viewer_limits import _big_space

    root = tmp_path_factory.mktemp("big")
    out = _big_space(leaderboard_inputs, root, BIG_EXTRA)
    systems = pq.read_table(out / "data" / "systems.parquet").to_pandas()
    systems["status"], systems["ranked"] = "precision", True
    systems["badge"] = '≈ precision <img src=x onerror="window.__pwned=\'badge\'">'
    pq.write_table(pa.Table.from_pandas(systems, preserve_index=False), out / "data" / "systems.parquet")
    meta = json.loads((out / "data" / "leaderboard.json").read_text(encoding="utf-8"))
    meta["refused"] = [{"file": "x/results.json", "system": PAYLOAD, "reason": f"score out of range {PAYLOAD}"}]
    meta["duplicates"] = [{"file": "y/results.json", "system": "copy", "duplicate_of": "big", "differs": False}]
    (out / "data" / "leaderboard.json").write_text(json.dumps(meta), encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def big_server(big_space):
    yield from _serving(big_space)


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the [dev] extra has it)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1500,1300",
                     "--disable-gpu"):
        options.add_argument(argument)
    options.binary_location = CHROMIUM
    options.set_capability("goog:loggingPrefs", {"performance": "ALL"})
    options.set_capability("unhandledPromptBehavior", "ignore")  # a dialog stays open, so the test sees it
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_page_load_timeout(WAIT)
    yield driver
    driver.quit()


def _by():
    from selenium.webdriver.common.by import By

    return By


def _wait(driver, condition, timeout: float = WAIT):
    """Until ``condition`` holds; an element the app re-rendered meanwhile (stale) is asked for again."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.2,
                         ignored_exceptions=(StaleElementReferenceException,)).until(condition)


def _open(driver, url: str) -> None:
    driver.get(url)
    _wait(driver, lambda d: d.find_elements(_by().CSS_SELECTOR, "#leaderboard-table [data-testid='cell-0-0']"))


def _tab(driver, name: str) -> None:
    By = _by()
    tab = next(t for t in driver.find_elements(By.CSS_SELECTOR, "button[role=tab]")
               if t.text.strip() == name or t.text.strip().startswith(name + " ("))  # "Refused (2)"
    tab.click()
    _wait(driver, lambda d: tab.get_attribute("aria-selected") == "true")


def _choose(driver, elem_id: str, value: str) -> None:
    """Pick ``value`` in a gradio dropdown (click it, then its option)."""
    By = _by()
    driver.find_element(By.CSS_SELECTOR, f"#{elem_id} input").click()
    option = _wait(driver, lambda d: next((o for o in d.find_elements(By.CSS_SELECTOR, "[role=listbox] [role=option]")
                                           if o.get_attribute("aria-label") == value), None))
    option.click()


def _column(driver, elem_id: str, index: int = 0) -> list[str]:
    """A table's column in display order (``aria-rowindex``; ``data-row`` keeps the unsorted index)."""
    cells = driver.find_elements(_by().CSS_SELECTOR, f"#{elem_id} [data-testid^='cell-'][data-col='{index}']")
    return [c.text.strip() for c in sorted(cells, key=lambda c: int(c.get_attribute("aria-rowindex")))]


def _dialog(driver) -> str | None:
    from selenium.common.exceptions import NoAlertPresentException

    try:
        return driver.switch_to.alert.text
    except NoAlertPresentException:
        return None


def _other_hosts(driver, url: str) -> set[str]:
    """Hosts, other than the app's, of every request the page made since the last call."""
    ours = urlparse(url).netloc
    hosts = set()
    for entry in driver.get_log("performance"):
        message = json.loads(entry["message"])["message"]
        if message["method"] == "Network.requestWillBeSent":
            requested = urlparse(message["params"]["request"]["url"])
            if requested.scheme not in ("data", "blob", "about") and requested.netloc != ours:
                hosts.add(requested.netloc or requested.scheme)
    return hosts


def test_the_table_shows_every_system_and_sorts_by_a_column(server, browser, space, tmp_path):  # noqa: F811
    from selenium.webdriver.support.ui import WebDriverWait  # noqa: F401 - selenium present (fixture skipped else)

    from surge_dataset.leaderboard.space import app

    board = app.lbdata.Board(space / "data")
    frame, _ = board.table({})
    By = _by()
    started = time.monotonic()
    _open(browser, server)
    loaded = time.monotonic() - started
    shown = _column(browser, "leaderboard-table")
    assert shown == list(frame["System"])  # every ranked system; the mismatch below, its payload name as text
    assert _column(browser, "mismatch-table") == [EVIL_NAME]
    # sort by a numeric column whose best (or worst) value is not in the first row: the rows must reorder
    numeric = [c for c in frame.columns[1:] if frame[c].dtype.kind == "f" and frame[c].notna().all()]
    column, descending = next((c, d) for c in numeric for d in (True, False)
                              if (frame[c].idxmax() if d else frame[c].idxmin()) != 0)
    top = frame.loc[frame[column].idxmax() if descending else frame[column].idxmin(), "System"]
    index = list(frame.columns).index(column)
    menu = browser.find_element(By.CSS_SELECTOR, f"#leaderboard-table th[data-heading='{index}'] button.cell-menu-button")
    browser.execute_script("arguments[0].click()", menu)
    word = "descending" if descending else "ascending"
    _wait(browser, lambda d: [i for i in d.find_elements(By.CSS_SELECTOR, "[role=menuitem]")
                              if i.text.lower().strip().endswith(word) or word in i.text.lower()
                              and not (word == "ascending" and "descending" in i.text.lower())])[0].click()
    _wait(browser, lambda d: _column(d, "leaderboard-table")[0] == top)
    values = [float(v.rstrip(" ‡")) for v in _column(browser, "leaderboard-table", index)]  # ‡: self-reported
    assert values == sorted(values, reverse=descending) and _column(browser, "leaderboard-table") != shown
    assert sorted(_column(browser, "leaderboard-table")) == sorted(shown)
    browser.save_screenshot(str(tmp_path / "table.png"))
    assert (tmp_path / "table.png").stat().st_size > 10_000 and loaded < WAIT
    assert _dialog(browser) is None and not _other_hosts(browser, server)


def test_the_system_and_plots_pages_render(server, browser, tmp_path):
    By = _by()
    _open(browser, server)
    _tab(browser, "System")
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#system-heatmap td[title]"))
    assert _column(browser, "system-scores")[:3] == ["0", "1", "2"]
    browser.save_screenshot(str(tmp_path / "system.png"))
    _tab(browser, "Plots")
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#plot-bars canvas, #plot-bars svg"))
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#plot-recall canvas, #plot-recall svg"))
    browser.save_screenshot(str(tmp_path / "plots.png"))
    assert _dialog(browser) is None and not _other_hosts(browser, server)


def test_the_survey_viewer_colours_citations_and_shows_their_evidence(server, browser, space, tmp_path):  # noqa: F811
    from selenium.webdriver.common.action_chains import ActionChains

    By = _by()
    _open(browser, server)
    _tab(browser, "Survey viewer")
    cites = _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#viewer-survey-body .sg-cite"))
    classes = {c.get_attribute("class") for c in cites}
    assert {"sg-cite sg-supported", "sg-cite sg-not-supported", "sg-cite sg-missing"} <= classes, classes
    colours = {c.value_of_css_property("background-color") for c in cites}
    assert len(colours) >= 3  # the verdicts are told apart by colour
    supported = next(c for c in cites if "sg-supported" in c.get_attribute("class"))
    evidence = supported.find_element(By.CSS_SELECTOR, ".sg-ev")
    assert not evidence.is_displayed()
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", supported)
    ActionChains(browser).move_to_element(supported).perform()
    _wait(browser, lambda d: evidence.is_displayed())
    text = evidence.text
    assert "supported" in text and "NLI entailment probability" in text and "Rule: official protocol" in text
    import pyarrow.parquet as pq

    titles = set(pq.read_table(space / "data" / "papers.parquet").column("title").to_pylist())
    assert any(t in text for t in titles)  # the cited paper's title (and abstract) from the corpus
    browser.save_screenshot(str(tmp_path / "viewer-hover.png"))
    ActionChains(browser).move_by_offset(0, 400).perform()
    other = next(c for c in cites if "sg-not-supported" in c.get_attribute("class"))
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus()", other)
    _wait(browser, lambda d: other.find_element(By.CSS_SELECTOR, ".sg-ev").is_displayed())  # click = focus
    assert browser.find_elements(By.CSS_SELECTOR, "#viewer-evidence [data-testid^='cell-']")
    assert "Ground-truth outline" in browser.find_element(By.ID, "viewer-outline").text
    browser.save_screenshot(str(tmp_path / "viewer.png"))
    assert _dialog(browser) is None


def test_a_survey_with_script_payloads_executes_nothing(server, browser, tmp_path):
    By = _by()
    _open(browser, server)
    _other_hosts(browser, server)  # drop what loading the page asked for (checked by the table test)
    _tab(browser, "Survey viewer")
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#viewer-survey-body .sg-cite"))  # the first survey
    _choose(browser, "viewer-system", EVIL_NAME)
    _wait(browser, lambda d: "evil" in d.find_element(By.ID, "viewer-header").text)
    body = browser.find_element(By.ID, "viewer-survey-body")
    _wait(browser, lambda d: "details" in body.text and "click me" in body.text)
    for cite in body.find_elements(By.CSS_SELECTOR, ".sg-cite")[:5]:  # hover and focus run no handler either
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus()", cite)
    time.sleep(1.5)  # give a payload the time to fire
    browser.save_screenshot(str(tmp_path / "viewer-payloads.png"))
    assert _dialog(browser) is None
    assert browser.execute_script("return window.__pwned === undefined")
    tags = " ".join(re.findall(r"<[^>]*>", body.get_attribute("innerHTML").lower()))  # not the escaped text
    for tag in ("<script", "<img", "<iframe", "<svg", "<object", "<embed", "<form", "<input", "<video", "<audio",
                "<link", "onerror", "onload", "onfocus", "javascript:", "evil.example"):
        assert tag not in tags, tag
    assert not _other_hosts(browser, server)
    # the payload system's name is shown as text on every page, never as markup
    _tab(browser, "Table")
    assert EVIL_NAME in _column(browser, "mismatch-table")
    assert _dialog(browser) is None and browser.execute_script("return window.__pwned === undefined")


def test_the_first_screen_at_1366_px_shows_system_badge_and_main_metrics(server, browser, space, tmp_path):  # noqa: F811
    """At a 1366x768 window, without scrolling sideways: System, its badge, its group and the main metrics' headers
    are inside the viewport; every score of a column has the same decimals (‡ marks a self-reported one); the
    status filter keeps the rows it names, a mismatch only ever in its own table."""
    from surge_dataset.leaderboard.space import app

    board = app.lbdata.Board(space / "data")
    frame, _ = board.table({})
    By = _by()
    browser.set_window_size(1366, 768)
    try:
        _open(browser, server)
        headers = sorted(browser.find_elements(By.CSS_SELECTOR, "#leaderboard-table th[data-heading]"),
                         key=lambda h: int(h.get_attribute("data-heading")))
        shown = [h.text.strip().splitlines()[0] for h in headers]
        main = ["System", "Status", "Group", "Recall", "Doc-Acc", "Sec-Acc", "Sent-Acc"]
        assert shown[:7] == main
        width, height = browser.execute_script("return [window.innerWidth, window.innerHeight]")
        assert width <= 1366
        for header in headers[:7]:
            box = header.rect
            assert 0 <= box["x"] and box["x"] + box["width"] <= width, (header.text, box, width)
            assert 0 <= box["y"] and box["y"] + box["height"] <= height, (header.text, box, height)
        assert browser.execute_script(
            "const s = document.querySelector('#leaderboard-table .table-wrap, #leaderboard-table table')"
            ".closest('div'); return s.scrollLeft") == 0
        browser.save_screenshot(str(tmp_path / "table-1366.png"))
        status = dict(zip(_column(browser, "leaderboard-table"), _column(browser, "leaderboard-table", 1), strict=True))
        assert status == {"paper": "✓ verified", "gt": "unverified", "degraded": "unverified"}
        for index, column in enumerate(frame.columns):
            if column in ("Recall", "Doc-Acc", "Sec-Acc", "Sent-Acc"):
                cells = _column(browser, "leaderboard-table", index)
                assert all(re.fullmatch(r"\d+\.\d{4}( ‡)?|–", c) for c in cells), (column, cells)
        mismatch = _column(browser, "mismatch-table", 2)
        assert len(mismatch) == 1 and mismatch[0].startswith("Recall, survey 0: ")
        grey = browser.find_element(By.CSS_SELECTOR, "#mismatch-table [data-testid^='cell-'][data-col='4']")
        assert grey.value_of_css_property("color") in ("rgba(138, 138, 138, 1)", "rgb(138, 138, 138)")
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})",
                               browser.find_element(By.ID, "mismatch-table"))
        browser.save_screenshot(str(tmp_path / "mismatch-1366.png"))
        _choose(browser, "filter-verification", "verified")
        _wait(browser, lambda d: _column(d, "leaderboard-table") == ["paper"])
        _choose(browser, "filter-verification", "mismatch")
        _wait(browser, lambda d: _column(d, "leaderboard-table") == [] and
              _column(d, "mismatch-table") == [EVIL_NAME])
        browser.save_screenshot(str(tmp_path / "table-verification.png"))
        assert _dialog(browser) is None
    finally:
        browser.set_window_size(1500, 1300)


def test_a_name_holding_a_url_is_never_a_link(server, browser):
    """GFM autolinks: the payload system's name holds http://2130706433/x; wherever a page writes the name in
    Markdown (the significance note, the survey viewer's header) it stays text."""
    By = _by()
    _open(browser, server)
    _choose(browser, "compare-system", EVIL_NAME)
    _wait(browser, lambda d: "2130706433" in d.find_element(By.ID, "significance-note").text)
    _tab(browser, "Survey viewer")
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#viewer-survey-body .sg-cite"))
    _choose(browser, "viewer-system", EVIL_NAME)
    _wait(browser, lambda d: "2130706433" in d.find_element(By.ID, "viewer-header").text)
    links = browser.find_elements(By.CSS_SELECTOR, "#significance-note a, #viewer-header a, #table-note a")
    assert [a.get_attribute("href") for a in links] == []
    assert _dialog(browser) is None and browser.execute_script("return window.__pwned === undefined")


def test_a_big_survey_shows_one_bounded_page_of_citations(big_server, browser, tmp_path):
    """BIG_EXTRA citations in one survey (a details file of a few MB; the Space keeps 5,000 rows of it): the viewer
    shows 250 at a time and its HTML stays bounded whatever the details hold (the time to first paint of the largest
    details a submission may carry is measured by ``python -m benchmarks.viewer_first_paint``, not here); built
    without --data, it says what is missing (no GT outline, no paper for the cited doc ids) instead of failing; the
    next page colours the next."""
    By = _by()
    _open(browser, big_server)
    assert _column(browser, "leaderboard-table", 1) == ['≈ precision <img src=x onerror="window.__pwned=\'badge\'">']
    _tab(browser, "Survey viewer")
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#viewer-survey-body .sg-cite"))
    browser.execute_async_script("const done = arguments[0]; requestAnimationFrame(() => requestAnimationFrame(done))")
    browser.save_screenshot(str(tmp_path / "viewer-big.png"))
    size = browser.execute_script("return document.documentElement.outerHTML.length")
    body = browser.execute_script("return document.querySelector('#viewer-survey-body').innerHTML.length")
    header = browser.find_element(By.ID, "viewer-header").text
    assert "Showing citations 1–250 of 5,000" in header and "keeps the first 5,000 of the survey's" in header
    assert "have no paper in this Space" in header and "No ground-truth outline" in header
    assert "No GT outline" in browser.find_element(By.ID, "viewer-outline").text
    cites = browser.find_elements(By.CSS_SELECTOR, "#viewer-survey-body .sg-cite")
    assert 0 < len(cites) <= 250
    assert "no title or abstract in this Space" in cites[0].get_attribute("textContent")
    assert body < 1_500_000 and size < 3_000_000, (body, size)
    _choose(browser, "viewer-page", "citations 251–500 of 5000")
    _wait(browser, lambda d: "Showing citations 251–500" in d.find_element(By.ID, "viewer-header").text)
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "#viewer-survey-body .sg-cite"))
    assert _column(browser, "viewer-evidence")[0] == "250"
    assert _dialog(browser) is None and browser.execute_script("return window.__pwned === undefined")


def test_the_refused_page_shows_submitters_text_as_text(big_server, browser, tmp_path):
    By = _by()
    _open(browser, big_server)
    _tab(browser, "Refused")
    page = _wait(browser, lambda d: d.find_element(By.ID, "refused"))
    _wait(browser, lambda d: "score out of range" in page.text)
    assert PAYLOAD in page.text and "copy" in page.text and "big" in page.text
    assert not page.find_elements(By.CSS_SELECTOR, "img, a, script")
    browser.save_screenshot(str(tmp_path / "refused.png"))
    assert _dialog(browser) is None and browser.execute_script("return window.__pwned === undefined")
