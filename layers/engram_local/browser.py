"""Headless Chromium for the console's browser tests and benchmark: Debian's chromium driven
through its chromedriver by selenium (a dev dependency; `make browser` installs the two packages)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

CHROMIUM = Path("/usr/bin/chromium")
CHROMEDRIVER = Path("/usr/bin/chromedriver")
# A closed network refuses Chromium's own background connections: these switch them off.
CHROMIUM_FLAGS = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


def headless_chromium(profile_dir: Path, size: tuple[int, int] = (1280, 900), browser_log: bool = False) -> WebDriver:
    """A new headless Chromium with an empty profile in `profile_dir`."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    if not (CHROMIUM.is_file() and CHROMEDRIVER.is_file()):
        raise FileNotFoundError(
            f"Chromium ({CHROMIUM}) and chromedriver ({CHROMEDRIVER}) are needed: `make browser` installs "
            "Debian's chromium and chromium-driver (as root)"
        )
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile_dir}", f"--window-size={size[0]},{size[1]}"):
        options.add_argument(flag)
    if browser_log:
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(str(CHROMEDRIVER)), options=options)
