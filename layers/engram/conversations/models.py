"""Pydantic models for conversations and messages: what callers send and what they get back."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal
from uuid import UUID

from pydantic import BaseModel, Field, model_validator

from engram.core.models import Metadata, Namespace, Strict, Tags, Timestamp

# `agent`: what an agent notes itself (a plan, a step taken), in a task's ledger or any conversation.
Role = Literal["user", "assistant", "system", "tool", "agent"]


class ConversationCreate(Strict):
    title: str | None = Field(default=None, max_length=500)
    namespace: Namespace = "default"
    agent_id: str | None = Field(default=None, max_length=200)
    tags: Tags = Field(default_factory=list)
    metadata: Metadata = Field(default_factory=dict)


class Conversation(BaseModel):
    id: UUID
    namespace: str
    title: str | None
    agent_id: str | None
    tags: list[str]
    metadata: dict[str, Any]
    message_count: int
    last_message_at: datetime | None
    created_at: datetime
    updated_at: datetime
    summary: str | None = Field(
        default=None, description="The rolling summary extraction keeps (null until a first extraction job ran)"
    )
    summary_updated_at: datetime | None = None
    extracted_seq: int = Field(default=0, description="Turns up to this sequence number have been read by extraction")
    extraction: str | None = Field(
        default=None,
        description="GET only: 'on', or 'off: <why>' (no LLM configured, turned off) when nothing is derived from it",
    )


class ConversationPage(BaseModel):
    items: list[Conversation]
    next_cursor: str | None


class MessageCreate(Strict):
    role: Role
    content: str = Field(description="Verbatim text, stored and returned exactly as sent (empty allowed)")
    tool_call_id: str | None = Field(default=None, max_length=200, description="Only for tool and assistant messages")
    tool_name: str | None = Field(default=None, max_length=200, description="Only for tool and assistant messages")
    created_at: Timestamp | None = Field(default=None, description="When it was said; may lie in the past")
    metadata: Metadata = Field(default_factory=dict, description="A JSON object, returned as given")

    @model_validator(mode="after")
    def _tool_fields(self) -> MessageCreate:
        if self.role not in ("tool", "assistant"):
            for field in ("tool_call_id", "tool_name"):
                if getattr(self, field) is not None:
                    raise ValueError(f"{field} is only for 'tool' and 'assistant' messages")
        return self


class MessagesAppend(Strict):
    messages: list[MessageCreate] = Field(min_length=1, description="Up to 200 messages, appended in order")
    idempotency_key: str | None = Field(
        default=None,
        min_length=1,
        max_length=200,
        description="A retry with the same key returns the first answer and writes nothing "
        "(the Idempotency-Key header does the same; when both are given they must be equal)",
    )


class Message(BaseModel):
    id: UUID
    conversation_id: UUID
    seq: int
    role: Role
    content: str
    tool_call_id: str | None
    tool_name: str | None
    metadata: Any
    created_at: datetime
    redacted_at: datetime | None = Field(
        default=None, description="Set when its content was redacted: it keeps its place, its content is gone"
    )


class AppendResult(BaseModel):
    conversation_id: UUID
    seq_from: int
    seq_to: int
    count: int
    replayed: bool = Field(description="True when this idempotency key was seen before; nothing was written")
    messages: list[Message]


@dataclass(frozen=True, slots=True)
class WindowMessage:
    """A turn as the readers of a window take it (recall's attached turns, a task's events): a plain
    row, not a validated model, since a recall reads a hundred of them."""

    id: UUID
    conversation_id: UUID
    seq: int
    role: str
    content: str
    tool_call_id: str | None
    tool_name: str | None
    metadata: Any
    created_at: datetime
    redacted_at: datetime | None


class MessagePage(BaseModel):
    items: list[Message]
    next_from_seq: int | None = Field(description="Pass as from_seq for the next page; null at the end")


class DeletedConversation(BaseModel):
    id: UUID
    deleted: Literal[True] = True
    messages: int
    chunks: int
