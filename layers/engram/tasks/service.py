"""Task runs (seed 002's task state): start a run, append its events, redact one, checkpoint it, end it,
and build the bounded context an agent resumes it with.

One ledger, not two: a task's events are the messages of a conversation created with the task, appended,
ordered, made idempotent and searched by engram.conversations exactly as conversation turns are (roles
user, assistant, tool, agent, system). Deleting or erasing that conversation takes the task and its
checkpoints with it (ON DELETE CASCADE), so erasure and namespace purge reach them through it.

``task_context``: the latest checkpoint (earlier ones as room allows), the events since it (the newest
kept when the budget is short), the critical facts and the memories relevant to the query (recall), and
those memories' graph neighbours, each section within its share of a hard budget.
"""

from __future__ import annotations

from uuid import UUID

from engram.conversations import service as conversations
from engram.conversations.models import AppendResult, ConversationCreate, MessageCreate, MessagePage, MessagesAppend
from engram.core.db import tenant_transaction
from engram.core.errors import Conflict, InvalidField
from engram.core.idempotency import IdempotencyKey, remember, replay
from engram.tasks import store
from engram.tasks.context_builder import task_context
from engram.tasks.models import Checkpoint, CheckpointCreate, Task, TaskCreate, TaskEnd, TaskPage

__all__ = [
    "append_events",
    "create_checkpoint",
    "end_task",
    "get_task",
    "list_checkpoints",
    "list_tasks",
    "start_task",
    "task_context",
]


def start_task(tenant_id: UUID, req: TaskCreate, idempotency: IdempotencyKey | None = None) -> Task:
    """The run and its ledger (a conversation in the task's namespace, titled by the goal) in one transaction."""
    with tenant_transaction(tenant_id) as conn:
        if (first := replay(conn, idempotency, Task)) is not None:
            return first
        ledger = conversations.create_ledger(
            conn,
            tenant_id,
            ConversationCreate(
                title=f"task: {req.goal[:480]}", namespace=req.namespace, agent_id=req.agent_id, tags=["task"]
            ),
        )
        task = store.read_task(conn, store.insert_task(conn, tenant_id, ledger, req))
        remember(conn, idempotency, task)
    return task


def get_task(tenant_id: UUID, task_id: UUID) -> Task:
    with tenant_transaction(tenant_id) as conn:
        return store.read_task(conn, task_id)


def list_tasks(
    tenant_id: UUID,
    *,
    namespace: str | None = None,
    status: str | None = None,
    cursor: str | None = None,
    limit: int = 50,
) -> TaskPage:
    with tenant_transaction(tenant_id) as conn:
        items, next_cursor = store.task_page(conn, namespace=namespace, status=status, cursor=cursor, limit=limit)
    return TaskPage(items=items, next_cursor=next_cursor)


def _running(tenant_id: UUID, task_id: UUID) -> Task:
    task = get_task(tenant_id, task_id)
    if task.status != "running":
        raise Conflict(f"task {task_id} has ended ({task.status}): its ledger takes no more events")
    return task


def append_events(
    tenant_id: UUID, task_id: UUID, req: MessagesAppend, idempotency_key: str | None = None
) -> AppendResult:
    """Up to 200 events, in order, all or none, through the conversation append (Idempotency-Key included)."""
    task = _running(tenant_id, task_id)
    return conversations.append_messages(tenant_id, task.conversation_id, req, idempotency_key)


def list_events(
    tenant_id: UUID, task_id: UUID, *, from_seq: int | None = None, to_seq: int | None = None, limit: int = 100
) -> MessagePage:
    task = get_task(tenant_id, task_id)
    return conversations.list_messages(tenant_id, task.conversation_id, from_seq=from_seq, to_seq=to_seq, limit=limit)


def create_checkpoint(
    tenant_id: UUID, task_id: UUID, req: CheckpointCreate, idempotency: IdempotencyKey | None = None
) -> Checkpoint:
    with tenant_transaction(tenant_id) as conn:
        if (first := replay(conn, idempotency, Checkpoint)) is not None:
            return first
        task = store.read_task(conn, task_id, lock=True)
        seq_to = task.event_count if req.seq_to is None else req.seq_to
        if seq_to > task.event_count:
            raise InvalidField("seq_to", f"the ledger has {task.event_count} events", limit=task.event_count)
        checkpoint = store.insert_checkpoint(conn, tenant_id, task_id, seq_to, req)
        store.touch_task(conn, task_id)
        remember(conn, idempotency, checkpoint)
    return checkpoint


def list_checkpoints(tenant_id: UUID, task_id: UUID, limit: int = 20) -> list[Checkpoint]:
    if not 1 <= limit <= 100:
        raise InvalidField("limit", "must be between 1 and 100", limit=100)
    with tenant_transaction(tenant_id) as conn:
        store.read_task(conn, task_id)
        return store.checkpoints(conn, task_id, limit)


def _closing_event(task: Task, req: TaskEnd, latest: Checkpoint | None) -> MessagesAppend:
    """The ledger's last event: how the task ended and its latest checkpoint, as a turn, so whatever learns
    from conversations (engram.extraction, once the ledger goes quiet) reads the task's outcome too."""
    lines = [f"Task {req.status}: {task.goal}" + (f". Outcome: {req.outcome}" if req.outcome else "")]
    if latest is not None:
        lines.append(f"Where it stood: {latest.summary}")
        for name, items in (("Done", latest.completed), ("Pending", latest.pending), ("Decided", latest.decisions)):
            if items:
                lines.append(f"{name}: " + "; ".join(items))
    event = MessageCreate(role="agent", content="\n".join(lines)[:8000], metadata={"task_end": req.status})
    return MessagesAppend(messages=[event], idempotency_key=f"task-end:{task.id}")


def end_task(tenant_id: UUID, task_id: UUID, req: TaskEnd) -> Task:
    """The run ends; its closing event (how it ended, its latest checkpoint) is appended to the ledger first."""
    task = _running(tenant_id, task_id)
    with tenant_transaction(tenant_id) as conn:
        latest = next(iter(store.checkpoints(conn, task_id, 1)), None)
    conversations.append_messages(tenant_id, task.conversation_id, _closing_event(task, req, latest))
    with tenant_transaction(tenant_id) as conn:
        task = store.read_task(conn, task_id, lock=True)
        if task.status != "running":  # another end got here first
            raise Conflict(f"task {task_id} has already ended ({task.status})")
        store.end_task(conn, task_id, req.status, req.outcome)
        return store.read_task(conn, task_id)
