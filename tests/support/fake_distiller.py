"""Topic distillation's script: six facts about a payments service, each stated twice in other words,
texts on other subjects, and a fake model that distils each group of facts as a careful model would."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

# Six facts about one service, each stated twice in other words (token Jaccard 0.5-0.8 per pair),
# grouped by the fake LLM two facts to a distilled memory: 12 memories -> 3.
PAYMENTS: list[tuple[str, str]] = [
    ("pay-deploy", "The payments service deploys from the release-2025 branch every Tuesday at 14:00 UTC."),
    ("pay-deploy", "Every Tuesday at 14:00 UTC the payments service is deployed from the release-2025 branch."),
    ("pay-db", "The payments service database is pay-db-03 running PostgreSQL 16 in eu-west-1."),
    ("pay-db", "The payments service database pay-db-03 runs PostgreSQL 16 in the eu-west-1 region."),
    ("pay-owner", "The payments service on-call is owned by Maria Lopez until 30 November 2026."),
    ("pay-owner", "Maria Lopez owns the payments service on-call until 30 November 2026."),
    ("pay-port", "The payments service API listens on port 8443 behind the load balancer lb-pay-1."),
    ("pay-port", "Behind the load balancer lb-pay-1 the payments service API listens on port 8443."),
    ("pay-undo", "Roll back the payments service with kubectl rollout undo in the cluster prod-eu."),
    ("pay-undo", "To roll back the payments service use kubectl rollout undo in the cluster prod-eu."),
    ("pay-retry", "The payments service retries failed card charges 3 times with a 30 second backoff."),
    ("pay-retry", "Failed card charges are retried 3 times by the payments service with a 30 second backoff."),
]
GROUPS = {"pay-deploy": 0, "pay-db": 0, "pay-owner": 1, "pay-port": 1, "pay-undo": 2, "pay-retry": 2}
OTHERS = [
    "Feed the sourdough starter with equal parts flour and water every morning.",
    "Sourdough bread needs a long cold proof in the fridge overnight for a sour crumb.",
    "Bake the sourdough loaf in a preheated dutch oven with the lid on.",
    "The robin sings at dawn from the top of the garden hedge.",
    "Blue tits nest in the wooden bird box on the oak tree every spring.",
    "Goldfinches come to the nyjer seed feeder in winter.",
]


class FakeDistiller:
    """The Messages API answering distillation prompts as a careful model would: the numbered
    memories of each group become one memory made of the first statement of each of its facts.
    `drop` removes a string from every answer (a model that loses a detail)."""

    def __init__(self, fake_messages: Callable[..., Any], groups: dict[str, tuple[str, int]]) -> None:
        self.groups = groups  # text -> (fact, group)
        self.drop: str | None = None
        messages = fake_messages(self.answer, (300, 120))
        self.requests: list[dict[str, Any]] = messages.requests
        self.url: str = messages.url

    def answer(self, body: dict[str, Any]) -> str:
        assert body["system"].startswith("You condense"), body["system"]
        numbered = re.findall(r"^\[(\d+)\] \([^)]*\) (.*)$", body["messages"][0]["content"], re.M)
        by_group: dict[int, list[tuple[int, str]]] = {}
        for number, text in numbered:
            if text not in self.groups:
                continue  # a memory that overlaps none: left out
            _fact, group = self.groups[text]
            by_group.setdefault(group, []).append((int(number), text))
        out = []
        for members in by_group.values():
            firsts: dict[str, str] = {}
            for _n, text in members:
                firsts.setdefault(self.groups[text][0], text)
            content = " ".join(firsts.values())
            if self.drop:
                content = content.replace(self.drop, "")
            out.append({"sources": [n for n, _t in members], "content": content})
        return json.dumps({"distilled": out})
