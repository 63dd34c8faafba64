"""The HTML page tested as a person sees it, in headless Chromium.

Needs the Debian packages ``chromium`` and ``chromium-driver`` and the Python
package ``selenium``. Selenium is pointed at /usr/bin/chromedriver so that it
never tries to download a browser or a driver.
"""

from __future__ import annotations

import io
import shutil
import tempfile
from pathlib import Path

import pytest

from cbalgebra.poset import Poset
from cbalgebra.poset.html import to_html
from cbalgebra.poset.queries import covered
from cbalgebra.values import Constraint, Filter

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--window-size=1280,860",
)


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip("Debian packages chromium and chromium-driver are not installed")
    profile = tempfile.mkdtemp(prefix="cbalgebra-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def flights() -> Poset:
    """Three roots, chains and a diamond: enough structure to click around."""
    p = Poset()
    subs = [
        ("[string airline any]", "a"),
        ('[string airline >* "U"]', "b"),
        ('[string airline = "UA"]', "c"),
        ('[string airline = "UA", string dest = "ARN"]', "d"),
        ('[string airline = "UA", string dest = "ARN", int price < 300]', "e"),
        ('[string airline = "AZ"]', "f"),
        ("[int price < 500]", "g"),
        ("[int price < 300]", "h"),
        ('[int price < 300, string airline = "AZ"]', "i"),
        ("[int price < 100]", "j"),
        ("[string dest any]", "k"),
        ('[string dest = "ARN"]', "l"),
        ('[string dest = "ARN", int stops = 0]', "m"),
    ]
    for text, who in subs:
        p.insert(text, who)
    p.insert('[string airline = "UA"]', "zoe")
    return p


def open_page(driver, poset: Poset, tmp_path: Path, **options) -> None:
    page = tmp_path / "poset.html"
    page.write_text(to_html(poset, **options), encoding="utf-8")
    driver.get(page.as_uri())


def ids_by_text(driver) -> dict[str, str]:
    return driver.execute_script(
        "var d = JSON.parse(document.getElementById('poset-data').textContent).nodes;"
        "var out = {}; Object.keys(d).forEach(function (k) { out[d[k].text] = k; }); return out;"
    )


def test_page_as_a_person_sees_it(browser, tmp_path):
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    poset = flights()
    open_page(browser, poset, tmp_path)

    # Every element of the poset is a node on the page.
    nodes = browser.find_elements(By.CSS_SELECTOR, "svg g.node")
    assert len(nodes) == len(poset) == 13
    assert browser.find_element(By.ID, "summary").text.startswith("13 elements, 3 roots")

    # Click a root: exactly what it covers lights up.
    ids = ids_by_text(browser)
    root = poset.roots()[0]
    assert str(root) == "[string airline any]"
    node = browser.find_element(By.CSS_SELECTOR, f'g.node[data-id="{ids[str(root)]}"] rect')
    ActionChains(browser).move_to_element(node).click().perform()
    highlighted = {e.get_attribute("data-id") for e in browser.find_elements(By.CSS_SELECTOR, "g.node.covered")}
    assert highlighted == {ids[str(v)] for v in covered(poset, root)}
    assert len(highlighted) == 6
    selected = browser.find_elements(By.CSS_SELECTOR, "g.node.selected")
    assert [e.get_attribute("data-id") for e in selected] == [ids[str(root)]]
    # Highlighted and dimmed nodes look different.
    some_covered = browser.find_element(By.CSS_SELECTOR, "g.node.covered rect")
    some_faded = browser.find_element(By.CSS_SELECTOR, "g.node.faded")
    assert some_covered.value_of_css_property("fill") != "rgb(255, 255, 255)"
    assert float(some_faded.value_of_css_property("opacity")) < 0.5
    info = browser.find_element(By.ID, "info")
    assert info.is_displayed() and "Covers 6 elements" in info.text and "a" in info.text

    # A screenshot, with the selection showing, is not blank.
    shot = tmp_path / "poset.png"
    assert browser.save_screenshot(str(shot))
    check_not_blank(shot.read_bytes())

    # Clicking the background clears the selection.
    browser.find_element(By.ID, "clear").click()
    assert not browser.find_elements(By.CSS_SELECTOR, "g.node.covered, g.node.selected")

    # Search by filter text and by subscriber.
    box = browser.find_element(By.ID, "search")
    box.send_keys("price < 300")
    matched = {e.get_attribute("data-id") for e in browser.find_elements(By.CSS_SELECTOR, "g.node.match")}
    assert matched == {ids[t] for t in ids if "price < 300" in t}
    assert browser.find_element(By.ID, "matches").text == "3 matches"
    box.send_keys(Keys.ENTER)
    assert browser.find_element(By.ID, "matches").text == "1 of 3"
    box.clear()
    box.send_keys("Zoe")  # a subscriber of [airline = "UA"]; search ignores case
    matched = [e.get_attribute("data-id") for e in browser.find_elements(By.CSS_SELECTOR, "g.node.match")]
    assert matched == [ids['[string airline = "UA"]']]
    box.send_keys(Keys.ESCAPE)

    # Pan and zoom move the scene.
    before = browser.execute_script("return window.posetView.transform()")
    browser.find_element(By.ID, "zoom-in").click()
    after = browser.execute_script("return window.posetView.transform()")
    assert after["s"] == pytest.approx(before["s"] * 1.25)
    viewport = browser.find_element(By.ID, "viewport")
    ActionChains(browser).move_to_element_with_offset(viewport, 5, 5).click_and_hold().move_by_offset(
        120, 60).release().perform()
    moved = browser.execute_script("return window.posetView.transform()")
    assert moved["x"] == pytest.approx(after["x"] + 120, abs=2)
    assert moved["y"] == pytest.approx(after["y"] + 60, abs=2)
    browser.execute_script(
        "document.querySelector('#viewport svg').dispatchEvent(new WheelEvent('wheel', "
        "{deltaY: -300, clientX: 400, clientY: 300, bubbles: true, cancelable: true}))"
    )
    assert browser.execute_script("return window.posetView.transform()")["s"] > moved["s"]

    # Nothing was fetched, and the script raised no error.
    assert browser.execute_script("return performance.getEntriesByType('resource').length") == 0
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def test_large_poset_page_shows_the_note_and_the_drawn_part(browser, tmp_path):
    from selenium.webdriver.common.by import By

    p = Poset()
    for i in range(30):
        for j in range(12):
            p.insert(Filter([Constraint("int", f"x{j}", ">", i)]), f"s{i}-{j}")
    open_page(browser, p, tmp_path, max_nodes=100)
    assert len(browser.find_elements(By.CSS_SELECTOR, "svg g.node")) == 100
    note = browser.find_element(By.ID, "notes")
    assert note.is_displayed() and "100 of 360 elements" in note.text
    ids = ids_by_text(browser)
    root = "[int x0 > 0]"
    browser.execute_script("window.posetView.select(arguments[0])", ids[root])
    highlighted = browser.execute_script("return window.posetView.highlighted()")
    drawn_below = [t for t in ids if t.startswith("[int x0 >") and t != root]
    assert sorted(highlighted) == sorted(ids[t] for t in drawn_below)
    assert "Covers 29 elements" in browser.find_element(By.ID, "info").text
    check_not_blank(browser.get_screenshot_as_png())


def check_not_blank(png: bytes) -> None:
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGB")
    assert img.width >= 800 and img.height >= 500
    colors = img.getcolors(maxcolors=1 << 20)
    assert colors is not None and len(colors) > 20
    background = max(colors)[1]
    differing = sum(n for n, c in colors if c != background)
    assert differing / (img.width * img.height) > 0.02
