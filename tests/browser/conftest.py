"""The memory console in a real browser: headless Chromium (Debian's package, driven through its
chromedriver by selenium) against the local server with every queue drained as `make dev` does.

Chromium is part of the project's setup (`make browser`, run by `make test` and `make check`);
when it is missing these tests fail, they never skip. Screenshots of each view go to
ENGRAM_CONSOLE_SCREENSHOTS (default .local/console-screenshots); `make console-screenshots`
refreshes the ones in docs/console that the README shows.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import tempfile
import threading
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from engram_local.aws import SqsPoller, complete_s3_notification
from engram_local.browser import headless_chromium
from engram_local.postgres import free_port
from tests.integration.conftest import FakeMessages

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("ENGRAM_CONSOLE_SCREENSHOTS", ROOT / ".local" / "console-screenshots"))
WAIT_S = 30  # an upper bound for the page to catch up (a run, an ingest), never a measured time
LAPTOP = (1280, 900)
PHONE = (390, 844)


@pytest.fixture(scope="module")
def console_server(stack: Any) -> Iterator[str]:
    """The dev server with the embed, upload and consolidation queues drained in the background, per
    module: the pollers stop before other folders' tests drain those queues themselves."""
    from engram_local.serve import make_server

    srv = make_server("127.0.0.1", free_port())
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    pollers = [
        SqsPoller(stack.embed_queue_url, "embed_worker"),
        SqsPoller(stack.uploads_queue_url, "document_ingest", batch_size=1, shape_body=complete_s3_notification),
        SqsPoller(stack.consolidate_queue_url, "consolidation_worker", batch_size=1),
    ]
    threads = [p.start() for p in pollers]
    yield f"http://127.0.0.1:{srv.port}"
    srv.shutdown()
    for poller in pollers:
        poller.stop()
    for t in threads:
        t.join(timeout=30)  # later tests drain the queues themselves and must not race these threads


@pytest.fixture(scope="session")
def browser() -> Iterator[WebDriver]:
    profile = Path(tempfile.mkdtemp(prefix="engram-chromium-"))
    driver = headless_chromium(profile, LAPTOP, browser_log=True)  # fails (never skips) without Chromium
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


@pytest.fixture
def page(browser: WebDriver) -> Iterator[WebDriver]:
    """The browser at laptop size with an empty session (no key from an earlier test)."""
    browser.set_window_size(*LAPTOP)
    browser.get_log("browser")  # what earlier tests left in the log is theirs
    yield browser
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    browser.execute_script("sessionStorage.clear()")


def as_phone(driver: WebDriver) -> None:
    """A phone's viewport (headless windows have a minimum width, so the page is emulated instead)."""
    width, height = PHONE
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True}
    )


CONTRAST_SCRIPT = """
const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
const lum = ([r, g, b]) => {
  const f = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
};
const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
const behind = (el) => {
  for (let e = el; e; e = e.parentElement) {
    const c = rgb(getComputedStyle(e).backgroundColor);
    if (c.length === 3 || (c.length === 4 && c[3] > 0.5)) return c.slice(0, 3);
  }
  return [255, 255, 255];
};
const failures = [];
for (const el of document.querySelectorAll("body *")) {
  const text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join("").trim();
  const box = el.getBoundingClientRect();
  if (!text || !box.width || !box.height || getComputedStyle(el).visibility === "hidden") continue;
  const style = getComputedStyle(el);
  let fg, bg;
  if (el instanceof SVGElement) {
    const shape = el.parentElement && el.parentElement.querySelector("rect[fill]");
    if (!shape || !el.classList.contains("topic-name")) continue;  // labels on the page's own background
    fg = rgb(style.fill); bg = rgb(getComputedStyle(shape).fill);
  } else {
    fg = rgb(style.color); bg = behind(el);
  }
  const size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
  const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
  const r = ratio(fg, bg);
  if (r < need) failures.push(`${el.tagName}.${el.getAttribute("class") || ""} "${text.slice(0, 30)}" ${r.toFixed(2)}`);
}
return failures;
"""


class Console:
    """What a test does with the console, in the operator's terms."""

    def __init__(self, driver: WebDriver, base: str, key: str) -> None:
        self.driver, self.base, self.key = driver, base, key

    def wait(self, condition: Callable[[WebDriver], Any], message: str = "") -> Any:
        return WebDriverWait(self.driver, WAIT_S).until(condition, message)

    def find(self, css: str) -> WebElement:
        return self.wait(expected_conditions.visibility_of_element_located((By.CSS_SELECTOR, css)), css)

    def text_of(self, css: str, contains: str) -> WebElement:
        self.wait(
            expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, css), contains),
            f"{contains!r} in {css}",
        )
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def open(self, route: str = "") -> None:
        self.driver.get(f"{self.base}/console{route}")

    def sign_in(self) -> None:
        self.open()
        self.find("#api-key").send_keys(self.key)
        self.find("#use-key").click()
        self.find("#session")

    def go(self, route: str) -> None:
        self.driver.execute_script("location.hash = arguments[0]", route)
        view = route.split("/")[1]
        self.wait(
            lambda d: d.execute_script(
                "const v = document.querySelector('#main .view');"
                " return v && v.dataset.view === arguments[0] && v.getAttribute('aria-busy') === 'false'",
                view,
            ),
            f"view {route}",
        )

    def screenshot(self, name: str) -> Path:
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        path = SCREENSHOTS / f"{name}.png"
        # The whole page, not only the window (Chromium's DevTools protocol), cut at a readable length.
        # Captured beyond the viewport the page is laid out without a scrollbar: the window's inner width.
        size = self.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
        width = self.driver.execute_script("return window.innerWidth")
        clip = {"x": 0, "y": 0, "width": width, "height": min(size["height"], 2400), "scale": 1}
        shot = self.driver.execute_cdp_cmd("Page.captureScreenshot", {"captureBeyondViewport": True, "clip": clip})
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    def low_contrast_text(self) -> list[str]:
        """Visible text under WCAG's contrast minimum (4.5:1, 3:1 for large text) against the colour
        actually behind it; SVG labels against the shape they sit on."""
        return self.driver.execute_script(CONTRAST_SCRIPT)

    def severe_console_errors(self) -> list[str]:
        return [e["message"] for e in self.driver.get_log("browser") if e["level"] == "SEVERE"]


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch, stack: Any) -> Iterator[FakeMessages]:
    """Claude answers through a fake Messages API on a local port, for one test."""
    from engram_local.stack import LocalStack

    fake = FakeMessages(lambda _body: "The nightly backup starts at 02:00 UTC [1].", (321, 17))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("ENGRAM_ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("ENGRAM_LLM_LEVEL", "auto")
    LocalStack.refresh_settings()
    yield fake
    fake.close()
    monkeypatch.undo()
    LocalStack.refresh_settings()


@pytest.fixture
def console(page: WebDriver, console_server: str, tenant: Any) -> Console:
    return Console(page, console_server, tenant.key)


def call(base: str, key: str, method: str, path: str, body: Any = None) -> Any:
    """The public API over HTTP, as an agent would use it."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        base + path,
        data=data,
        method=method,
        headers={"Authorization": f"Bearer {key}", "Content-Type": "application/json"},
    )
    with urllib.request.urlopen(req, timeout=30) as resp:
        raw = resp.read()
    return json.loads(raw) if raw else None
