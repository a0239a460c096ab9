"""EventBridge Scheduler -> one consolidation run per active namespace, each sent to
consolidate-jobs (engram.consolidation.dispatch.dispatch); then the trash past its retention is
erased (engram.erasure.service.erase_expired_trash), quiet conversations with unread turns go to
extract-jobs (engram.extraction.service.sweep), and recall events, feedback and feedback weights past
their retention are dropped (engram.feedback.service.expire): one schedule, so a paused database wakes once."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger

from engram.consolidation.dispatch import dispatch
from engram.erasure.service import erase_expired_trash
from engram.extraction.service import sweep
from engram.feedback.service import expire as expire_feedback

logger = Logger()


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    counts: dict[str, Any] = dispatch().counts()
    try:
        counts["trash_erased"] = erase_expired_trash()["memories"]
    except Exception:  # the dispatch went out; the next schedule tries the trash again
        logger.exception("trash expiry failed")
    try:
        counts["extraction_queued"] = sweep()
    except Exception:  # the next schedule sweeps again
        logger.exception("extraction sweep failed")
    try:
        counts["feedback_expired"] = expire_feedback()
    except Exception:  # as the trash: the next schedule tries again
        logger.exception("feedback expiry failed")
    return counts
