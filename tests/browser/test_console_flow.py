"""An operator's path through the console: paste the key, find what an agent stored, open it, plan
and run consolidation, see the topic map, upload and ask a document. Screenshots of each view."""

from __future__ import annotations

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions

from tests.support.console_driver import PHONE, Console, as_phone, call

SUBJECTS = {
    "baking": [
        "Grandma's apple pie needs three Granny Smith apples, cinnamon and a buttery crust.",
        "Sourdough bread rises overnight in the fridge before baking at 240 degrees.",
        "The lemon tart uses a shortcrust pastry baked blind for fifteen minutes.",
        "Banana bread stays moist with brown sugar and very ripe bananas.",
        "Croissant dough is laminated with cold butter and folded three times.",
    ],
    "deploys": [
        "Ticket OPS-7781: the nightly backup fails when the disk quota is exceeded.",
        "Deploys to production are frozen on Fridays after 14:00 UTC.",
        "The staging cluster rolls back automatically when the health check fails twice.",
        "Database migrations run before the new Lambda code goes live on every deploy.",
        "The on-call engineer approves every production deploy in the release channel.",
    ],
}


def store(console: Console, content: str, **fields: object) -> str:
    body = {"content": content, "namespace": "default", **fields}
    return call(console.base, console.key, "POST", "/v1/memories", body)["memory"]["id"]


def wait_for_vectors(console: Console) -> None:
    def ready(_driver: object) -> bool:
        return call(console.base, console.key, "GET", "/v1/stats")["embeddings_pending"] == 0

    console.wait(ready, "every chunk embedded")


def test_paste_key_find_a_memory_and_open_its_page(console: Console) -> None:
    ids = [store(console, text, tags=[subject]) for subject, texts in SUBJECTS.items() for text in texts]
    pie = ids[0]
    newer = store(console, "Grandma's apple pie now uses four apples: three were not enough.", tags=["baking"])
    call(console.base, console.key, "POST", "/v1/links", {"from_id": newer, "to_id": pie, "relation": "relates_to"})
    call(console.base, console.key, "PATCH", f"/v1/memories/{pie}", {"importance": 0.9})  # version 2
    chat = call(console.base, console.key, "POST", "/v1/conversations", {"title": "kitchen"})["id"]
    turns = [
        {"role": "user", "content": "What oven temperature for the apple pie?"},
        {"role": "assistant", "content": "Bake the apple pie at 190 degrees for fifty minutes."},
        {"role": "user", "content": "Thanks, noted."},
    ]
    call(console.base, console.key, "POST", f"/v1/conversations/{chat}/messages", {"messages": turns})
    wait_for_vectors(console)

    console.sign_in()
    assert console.driver.execute_script("return sessionStorage.getItem('engram.console.key')") == console.key
    assert console.driver.execute_script("return localStorage.length") == 0  # the key is kept in this tab only
    console.go("#/overview")
    row = console.text_of("#main table", "default")
    assert "buffer 11" in row.text and "semantic 11" in row.text

    console.go("#/recall")
    console.find("#recall-query").send_keys("how many apples go into the pie?")
    console.find("#recall-submit").click()
    console.text_of("#recall-summary", "result")
    first = console.driver.find_elements(By.CSS_SELECTOR, "#recall-results > li")[0]
    found = first.get_attribute("data-memory-id")
    assert found in (pie, newer)
    assert first.find_elements(By.CSS_SELECTOR, "mark"), "the query's words are marked in the matched chunk"
    bars = first.find_elements(By.CSS_SELECTOR, "svg.score-bars rect.bar")
    assert len(bars) == 4 and float(bars[0].get_attribute("width")) > 0  # vector part drawn
    console.find("#recall-results .turns")  # a conversation result shows its original turns, word for word
    shown = [li.text for li in console.driver.find_elements(By.CSS_SELECTOR, "#recall-results .turns li")]
    assert shown and all(
        any(line == f"#{i + 1} {t['role']} {t['content']}" for i, t in enumerate(turns)) for line in shown
    )
    console.screenshot("recall")
    assert not console.low_contrast_text()
    # the trace says where an expected memory went: one returned, one that no word of it matches
    console.find("#recall-expected").send_keys(f"{pie}\nno such words anywhere")
    console.find("#recall-submit").click()
    table = console.text_of("#recall-trace", "not found")
    assert "returned #" in table.text
    console.find("#recall-expected").clear()
    first = console.driver.find_elements(By.CSS_SELECTOR, "#recall-results > li")[0]

    first.find_element(By.LINK_TEXT, "Open memory").click()
    console.text_of("#memory-content", "apple")
    graph = console.find("svg.link-graph")
    assert graph.find_elements(By.CSS_SELECTOR, "a.node:not(.root)"), "the linked memory is a node"
    console.screenshot("memory")
    assert not console.low_contrast_text()

    console.find("#trash-memory").click()
    console.find("dialog[open] #confirm-yes").click()
    console.find("#restore-memory").click()
    console.find("#trash-memory")
    assert call(console.base, console.key, "GET", f"/v1/memories/{found}")["status"] == "active"

    console.go(f"#/memory/{pie}")
    assert "version 1" in console.find(".versions").text  # the importance change kept the first version
    assert not console.severe_console_errors()

    trashed = ids[-1]  # last: the browser logs the 404 that GET answers for a memory in the trash
    call(console.base, console.key, "DELETE", f"/v1/memories/{trashed}")
    console.go(f"#/memory/{trashed}")
    console.find("#restore-memory").click()
    console.find("#trash-memory")


def test_dry_run_then_run_and_see_the_topic_map(console: Console) -> None:
    for subject, texts in SUBJECTS.items():
        for text in texts:
            store(console, text, tags=[subject])
    store(
        console, "Grandma's apple pie needs three Granny Smith apples, cinnamon and a buttery crust!", tags=["baking"]
    )
    wait_for_vectors(console)
    console.sign_in()

    console.go("#/runs")
    console.find("#dry-run").click()
    console.text_of("#run-status", "done")
    console.text_of("#main", "Consolidation plan")
    merge = console.find("section.step[data-step='dedupe'] .side-by-side")
    assert "Granny Smith" in merge.text
    console.screenshot("consolidation-plan")
    assert not console.low_contrast_text()

    console.go("#/runs")
    console.find("#run-now").click()
    console.find("dialog[open] #confirm-yes").click()
    console.text_of("#run-status", "done")
    console.find("#undo-run")
    console.screenshot("consolidation-run")

    console.go("#/topics")
    names = [
        t.get_attribute("aria-label") for t in console.driver.find_elements(By.CSS_SELECTOR, "svg.treemap g.topic")
    ]
    assert len(names) >= 2 and all(n and "memories" in n for n in names)
    assert console.driver.find_elements(By.CSS_SELECTOR, "svg.treemap text.topic-name"), "topics are named on the map"
    console.driver.find_element(By.CSS_SELECTOR, "svg.treemap g.topic").send_keys(Keys.ENTER)  # by keyboard
    assert console.find("#topic-members").find_elements(By.CSS_SELECTOR, "li a")
    console.screenshot("topics")
    assert not console.low_contrast_text()

    console.go("#/runs")
    console.wait(  # the runs' list may arrive after the view is drawn
        expected_conditions.element_to_be_clickable((By.PARTIAL_LINK_TEXT, "run ")), "a run's link"
    ).click()
    console.find("#undo-run").click()
    console.find("dialog[open] #confirm-yes").click()
    console.text_of("#run-status", "done")
    console.text_of(".run-head", "undone")

    console.go("#/overview")
    runs = console.text_of("section[aria-labelledby='runs-title'] table", "plan")
    assert "run" in runs.text.split() and "done" in runs.text
    console.screenshot("overview")
    assert not console.low_contrast_text()
    assert not console.severe_console_errors()


def test_drop_a_document_see_the_upload_progress_and_ask_it(console: Console, tmp_path) -> None:
    doc = tmp_path / "runbook.md"
    doc.write_text(
        "# Runbook\n\n## Backups\n\nThe nightly backup starts at 02:00 UTC and keeps 14 copies.\n\n"
        "## Restores\n\nA restore needs the on-call engineer and the backup's checksum.\n" + "Filler line.\n" * 200
    )
    console.sign_in()
    console.go("#/documents")
    # Dropped on the zone as a file dragged from the desktop arrives (WebDriver cannot drag from outside).
    console.driver.execute_script(
        "const data = new DataTransfer();"
        " data.items.add(new File([arguments[0]], 'runbook.md', {type: 'text/markdown'}));"
        " const drop = new DragEvent('drop', {dataTransfer: data, bubbles: true});"
        " document.getElementById('drop-zone').dispatchEvent(drop);",
        doc.read_text(),
    )
    console.text_of("#upload-status", "Ready")
    assert console.driver.execute_script("return document.getElementById('upload-progress').value") == 1
    console.find("#query-question").send_keys("When does the nightly backup start?")
    console.driver.find_element(By.CSS_SELECTOR, "#query-form button").click()
    spans = console.text_of("#query-spans", "02:00 UTC")
    assert "characters" in spans.text
    console.screenshot("documents")
    assert not console.low_contrast_text()
    assert not console.severe_console_errors()


def test_an_answer_cites_its_spans_and_the_call_shows_in_the_usage(console: Console, llm) -> None:
    body = "# Runbook\n\nThe nightly backup starts at 02:00 UTC and keeps 14 copies.\n\n" + "Filler line.\n" * 50
    document = call(console.base, console.key, "POST", "/v1/documents", {"content": body})["memory"]["id"]
    console.sign_in()
    console.go(f"#/documents/{document}")  # a document's memory page links here with its id filled in
    console.find("#query-question").send_keys("When does the nightly backup start?")
    console.driver.find_element(By.CSS_SELECTOR, "#query-form button").click()
    answer = console.text_of(".answer", "02:00 UTC")
    answer.find_element(By.CSS_SELECTOR, "button.citation").click()
    assert console.driver.execute_script("return document.activeElement.id") == "span-1"
    assert "02:00 UTC" in console.find("#span-1").text and len(llm.requests) == 1
    console.screenshot("documents-answer")
    assert not console.low_contrast_text()

    console.go("#/overview")
    usage = console.text_of("section[aria-labelledby='usage-title']", "query_document")
    assert "1 call, 321 input and 17 output tokens" in usage.text
    assert not console.severe_console_errors()


def test_phone_width_has_no_sideways_scroll(console: Console) -> None:
    as_phone(console.driver)
    console.sign_in()
    assert console.driver.execute_script("return document.documentElement.clientWidth") == PHONE[0]
    for route in ("#/overview", "#/recall", "#/runs", "#/documents", "#/topics"):
        console.go(route)
        # Elements reaching past the right edge (tables scroll inside their own box on purpose).
        wide = console.driver.execute_script(
            "const w = document.documentElement.clientWidth;"
            " return [...document.querySelectorAll('body *')]"
            ".filter((e) => !e.closest('.table-wrap') && e.getBoundingClientRect().right > w + 1)"
            ".map((e) => e.tagName + '#' + e.id + '.' + e.className)"
        )
        assert not wide, (route, wide)
    console.go("#/recall")
    console.screenshot("recall-phone")
