"""The memory console as a test drives it in headless Chromium: the operator's actions (Console), the
viewport sizes, a WCAG contrast check run in the page, and the public API over HTTP beside it."""

from __future__ import annotations

import base64
import json
import os
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOTS = Path(os.environ.get("ENGRAM_CONSOLE_SCREENSHOTS", ROOT / ".local" / "console-screenshots"))
WAIT_S = 30  # an upper bound for the page to catch up (a run, an ingest), never a measured time
LAPTOP = (1280, 900)
PHONE = (390, 844)


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
        found: WebElement = self.wait(expected_conditions.visibility_of_element_located((By.CSS_SELECTOR, css)), css)
        return found

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
        return list(self.driver.execute_script(CONTRAST_SCRIPT))

    def severe_console_errors(self) -> list[str]:
        log = self.driver.get_log("browser")  # type: ignore[attr-defined]  # Chromium's driver has it
        return [e["message"] for e in log if e["level"] == "SEVERE"]


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
