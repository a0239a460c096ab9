"""The memory console in a real browser: headless Chromium (Debian's package, driven through its
chromedriver by selenium) against the local server with every queue drained as `make dev` does.

Chromium is part of the project's setup (`make browser`, run by `make test` and `make check`);
when it is missing these tests fail, they never skip. Screenshots of each view go to
ENGRAM_CONSOLE_SCREENSHOTS (default .local/console-screenshots); `make console-screenshots`
refreshes the ones in docs/console that the README shows.
"""

from __future__ import annotations

import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from selenium.webdriver.remote.webdriver import WebDriver

from engram_local.aws import SqsPoller, complete_s3_notification
from engram_local.browser import headless_chromium
from engram_local.postgres import free_port
from tests.support.console_driver import LAPTOP, Console
from tests.support.messages_api import FakeMessages


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
