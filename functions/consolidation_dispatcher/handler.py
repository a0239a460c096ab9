"""EventBridge Scheduler -> one consolidation run per active namespace, each sent to
consolidate-jobs; the work is engram.consolidation.dispatch.dispatch."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger

from engram.consolidation.dispatch import dispatch

logger = Logger()


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    return dispatch().counts()
