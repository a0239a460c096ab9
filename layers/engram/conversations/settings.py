"""Conversations' settings: the shape of a conversation's chunks, the messages one append takes, and
whether and when an append queues extraction of its new turns. A message's size limit is shared
(portability checks imported messages against it): engram.core.config.Settings."""

from __future__ import annotations

from pydantic import Field

from engram.core.config import SettingsGroup, settings_accessor


class ConversationSettings(SettingsGroup):
    # Window shape chosen with bench/conversation_recall.py (see bench/RESULTS-conversations.md): single
    # turns beat 5/3 at every context budget, on the training and the held-out set. 5/3 stays one setting away.
    conversation_window_size: int = Field(default=1, ge=1, le=50, description="Messages per conversation chunk")
    conversation_window_stride: int = Field(
        default=1, ge=1, le=50, description="Messages between the starts of two conversation chunks"
    )
    max_append_messages: int = Field(default=200, ge=1, le=1000, description="Messages per append")
    extraction_enabled: bool = Field(
        default=True,
        description="Derive memories from conversations in the background (also needs an LLM: ENGRAM_LLM_LEVEL "
        "and a provider); per namespace, PUT /v1/extraction/settings turns it off or narrows it",
    )
    extraction_min_turns: int = Field(
        default=20, ge=1, le=200, description="New turns that queue an extraction job at once (from the append)"
    )


@settings_accessor
def conversation_settings() -> ConversationSettings:
    return ConversationSettings()
