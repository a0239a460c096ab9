"""The console's answer to "why do we believe this?": a derived memory beside the turns it came from,
and a conversation's extraction runs with their actions and undo. The real extraction worker; the
model is the scripted Messages API at the HTTP boundary (tests/support/messages_api.py)."""

from __future__ import annotations

from typing import Any

from selenium.webdriver.common.by import By

from tests.support.atlas_conversation import TURNS, first_answer
from tests.support.console_driver import Console, call
from tests.support.messages_api import ScriptedModel


def test_a_derived_memory_shows_its_turns_and_a_run_can_be_undone(
    console: Console, model: ScriptedModel, stack: Any
) -> None:
    model.then(first_answer)
    conversation = call(console.base, console.key, "POST", "/v1/conversations", {"title": "Atlas planning"})["id"]
    turns = [{"role": r, "content": c, "created_at": t} for r, c, t in TURNS]
    call(console.base, console.key, "POST", f"/v1/conversations/{conversation}/messages", {"messages": turns})
    assert stack.extraction_poller.drain() == 1
    learned = call(console.base, console.key, "GET", "/v1/memories?namespace=default&tag=fact")["items"]
    (fact,) = [m for m in learned if m["source"] == "extraction"]

    console.sign_in()
    console.go(f"#/memory/{fact['id']}")
    evidence = console.text_of("#evidence", TURNS[1][1])
    assert "Why do we believe this?" in evidence.text and "turn 2" in evidence.text
    console.screenshot("memory-evidence")
    evidence.find_element(By.PARTIAL_LINK_TEXT, "conversation").click()

    console.text_of("#conversation-summary", "Planning Atlas")
    view = console.text_of("#main .extraction-run", "Atlas runs PostgreSQL 16 in production.")
    assert "add event on 2025-05-06" in view.text and TURNS[3][1] in view.text  # each action with its turns
    assert console.low_contrast_text() == []
    console.screenshot("extraction")

    console.find(".undo-extraction").click()
    console.find("#confirm-yes").click()
    console.text_of("#main .extraction-run .badge", "undone")
    assert not console.driver.find_elements(By.CSS_SELECTOR, ".undo-extraction")
    gone = call(console.base, console.key, "GET", "/v1/memories?namespace=default&tag=fact")["items"]
    assert fact["id"] not in {m["id"] for m in gone}  # in the trash

    console.go("#/extraction")  # the namespace's runs
    row = console.text_of("#main table", "undone")
    assert "conversation " + conversation[:8] in row.text and "3 add" in row.text
    assert console.severe_console_errors() == []
