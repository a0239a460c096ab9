"""Feedback on recall (seed 000): which results of a recall helped, which did not, and why it missed.

- ``record_recall(conn, tenant_id, namespaces, memory_ids, chunk_ids)``: recall keeps what it returned (not
  the query) as a recall event and answers its id; None when feedback_retention_days is 0. The id is made
  here, so the insert need not be waited for: recall sends it with its commit.
- ``weighs_ranking()`` and ``stored_ranking_factor(weight, updated_at, now)``: recall reads each candidate's
  stored weight with the candidate (engram.recall.store) and multiplies its fused score by 1 + the weight
  as decayed to now.
- ``give_feedback(tenant_id, req)``: POST /v1/feedback, once per recall: the useful results' weights rise,
  the others' fall, bounded and decaying back (engram.feedback.weights).
- ``forget(conn, memory_ids, conversation_ids)`` and ``forget_namespace(conn, namespace)``: erasure and
  purge take the weights and events naming what they delete; ``expire()`` drops what is past retention.

Weights are per tenant (row-level security on every table): one agent's feedback moves only its own
tenant's ranking.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from uuid import UUID, uuid4

from engram.core.db import Conn, anonymous_transaction, tenant_transaction
from engram.core.errors import Conflict, InvalidField, NotFound
from engram.core.idempotency import IdempotencyKey, remember, replay
from engram.feedback import store
from engram.feedback.models import Feedback, FeedbackCreate, FeedbackStats, FeedbackWeight
from engram.feedback.settings import feedback_settings
from engram.feedback.weights import decayed, moved, ranking_factor

__all__ = [
    "expire",
    "feedback_stats",
    "forget",
    "forget_namespace",
    "give_feedback",
    "record_recall",
    "stored_ranking_factor",
    "weighs_ranking",
]


def record_recall(
    conn: Conn, tenant_id: UUID, namespaces: Sequence[str], memory_ids: Sequence[UUID], chunk_ids: Sequence[UUID]
) -> UUID | None:
    if feedback_settings().feedback_retention_days == 0:
        return None
    event_id = uuid4()
    store.insert_event(conn, event_id, tenant_id, sorted(set(namespaces)), memory_ids, chunk_ids)
    return event_id


def _current(conn: Conn, ids: Sequence[UUID], now: datetime) -> dict[UUID, float]:
    half_life = feedback_settings().feedback_half_life_days
    return {w.target_id: decayed(w.weight, w.updated_at, now, half_life) for w in store.read_weights(conn, ids)}


def weighs_ranking() -> bool:
    """Whether stored weights move recall's ranking (at retention 0 feedback is off)."""
    return feedback_settings().feedback_retention_days != 0


def stored_ranking_factor(weight: float, updated_at: datetime, now: datetime) -> float:
    """What recall multiplies a candidate's fused score by: 1 + its stored weight as decayed to now."""
    return ranking_factor(decayed(weight, updated_at, now, feedback_settings().feedback_half_life_days))


def _targets(conn: Conn, recall_id: UUID, field: str, ids: list[UUID]) -> list[UUID]:
    """The ranking targets of the ids given in `field`, each one checked against what the recall returned."""
    found = store.ranking_targets(conn, recall_id, ids)
    for i, given in enumerate(ids):
        if given not in found:
            raise InvalidField(f"{field}.{i}", f"{given} is not a result of recall {recall_id}")
    return list(dict.fromkeys(found[g] for g in ids))


def give_feedback(tenant_id: UUID, req: FeedbackCreate, idempotency: IdempotencyKey | None = None) -> Feedback:
    days = feedback_settings().feedback_retention_days
    if days == 0:
        raise Conflict("feedback is off here (ENGRAM_FEEDBACK_RETENTION_DAYS=0): recalls are not kept")
    with tenant_transaction(tenant_id) as conn:
        if (first := replay(conn, idempotency, Feedback)) is not None:
            return first
        if not store.event_exists(conn, req.recall_id, days):
            raise NotFound(f"recall {req.recall_id} not found (recalls are kept {days} days)", {"field": "recall_id"})
        if store.feedback_given(conn, req.recall_id):
            raise Conflict(f"recall {req.recall_id} already has its feedback: give it once per recall")
        useful = _targets(conn, req.recall_id, "useful", req.useful)
        not_useful = [t for t in _targets(conn, req.recall_id, "not_useful", req.not_useful) if t not in useful]
        now = datetime.now(UTC)
        current = _current(conn, useful + not_useful, now)
        weights = {t: moved(current.get(t, 0.0), True) for t in useful}
        weights |= {t: moved(current.get(t, 0.0), False) for t in not_useful}
        if weights:
            store.write_weights(conn, tenant_id, weights)
        saved = store.insert_feedback(conn, tenant_id, req.recall_id, useful, not_useful, req.failure_class, req.note)
        result = saved.model_copy(
            update={
                "weights": [
                    FeedbackWeight(id=t, weight=w, ranking_factor=ranking_factor(w)) for t, w in weights.items()
                ]
            }
        )
        remember(conn, idempotency, result)
    return result


def feedback_stats(conn: Conn) -> FeedbackStats:
    counts = store.feedback_counts(conn)
    return FeedbackStats(
        retention_days=feedback_settings().feedback_retention_days,
        recall_events=counts.recall_events,
        feedback=counts.feedback,
        useful=counts.useful,
        not_useful=counts.not_useful,
        by_failure_class=counts.by_failure_class,
        weighted_results=counts.weighted_results,
    )


def forget(conn: Conn, memory_ids: Sequence[UUID], conversation_ids: Sequence[UUID]) -> int:
    """In an erasure's transaction, before the rows go: the weights and recall events (with their feedback)
    naming these memories or conversations. The recall events erased."""
    if not memory_ids and not conversation_ids:
        return 0
    return store.delete_for(conn, memory_ids, conversation_ids)


def forget_namespace(conn: Conn, namespace: str) -> None:
    """In a namespace purge's transaction, before the rows go."""
    store.delete_namespace(conn, namespace)


def expire() -> dict[str, int]:
    """The scheduled work: recall events (with their feedback) and weights past feedback_retention_days."""
    with anonymous_transaction() as conn:  # at 0 nothing is recorded, and what an earlier setting kept goes now
        events, weights = store.expire(conn, feedback_settings().feedback_retention_days)
    return {"recall_events": events, "weights": weights}
