"""Engram in the OpenAI Agents SDK: `EngramSession`, a `Session` over an Engram conversation, and
`engram_tools()`, memory tools (remember, recall) as function tools.

    from agents import Agent, Runner
    from engram_client.openai_agents import EngramSession, engram_tools

    agent = Agent(name="assistant", tools=engram_tools(namespace="user-42"))
    await Runner.run(agent, "Where do I keep the spare keys?", session=EngramSession("user-42-chat"))

Install with `pip install 'engram-client[openai-agents]'`. The session's items are the conversation's
messages, verbatim (so recall finds what was said, with the turns around it); `pop_item` hides the
latest item behind a marker (the conversation keeps the words), `clear_session` deletes the
conversation (engram_client.sessions).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

try:
    from agents import FunctionTool, function_tool
    from agents.memory import SessionABC
    from agents.memory.session_settings import SessionSettings
except ImportError as missing:  # pragma: no cover - the message is the point
    raise ImportError(
        "engram_client.openai_agents needs the OpenAI Agents SDK: pip install 'engram-client[openai-agents]'"
    ) from missing

from engram_client import endpoints, sessions
from engram_client.client import AsyncEngram
from engram_client.errors import NotFound
from engram_client.plans import Plan, arun
from engram_client.tools import DEFAULT_BUDGET_CHARS, recall_text

T = TypeVar("T")


def _message(item: Any) -> Any:
    role = item.get("role") if isinstance(item, dict) else None
    role = "system" if role == "developer" else role
    if isinstance(item, dict) and role in sessions.ROLES:
        return sessions.as_message(item, role, sessions.text_of(item.get("content")))
    # function calls, their outputs, reasoning: a tool message whose text is what the item says
    text = item.get("output") or item.get("arguments") if isinstance(item, dict) else None
    return sessions.as_message(item, "tool", sessions.text_of(text if text is not None else item))


class EngramSession(SessionABC):
    """The Agents SDK's conversation history in an Engram conversation. `EngramSession("chat-42")`
    reads ENGRAM_API_URL and ENGRAM_API_KEY; `namespace` places the conversation (and what recall
    finds from it), `agent_id` labels it; or pass an `AsyncEngram` as `client`."""

    def __init__(
        self,
        session_id: str,
        *,
        namespace: str | None = None,
        agent_id: str | None = None,
        client: AsyncEngram | None = None,
        session_settings: SessionSettings | None = None,
    ) -> None:
        self.session_id = session_id
        self.session_settings = session_settings
        self.namespace = namespace
        self.agent_id = agent_id
        self.client = client or AsyncEngram()
        self._conversation_id: str | None = None

    async def _in_conversation(self, step: Callable[[str], Plan[T]], empty: T, create: bool = False) -> T:
        """Run `step` on the session's conversation; `empty` when there is none yet (a read) unless
        `create`. Once more after a NotFound: another instance of the session cleared it meanwhile."""
        for attempt in (1, 2):
            if self._conversation_id is None:
                if create:
                    plan = sessions.open_conversation(self.session_id, self.namespace, self.agent_id)
                    self._conversation_id = (await arun(self.client, plan)).id
                else:
                    found = await arun(self.client, sessions.find_conversation(self.session_id, self.namespace))
                    if found is None:
                        return empty
                    self._conversation_id = found.id
            try:
                return await arun(self.client, step(self._conversation_id))
            except NotFound:
                self._conversation_id = None
                if attempt == 2:
                    raise
        return empty

    async def get_items(self, limit: int | None = None) -> list[Any]:
        if limit is None and self.session_settings is not None:
            limit = self.session_settings.limit
        entries: list[sessions.Entry] = await self._in_conversation(sessions.read_entries, [])
        items = [e.item for e in entries]
        return items[-limit:] if limit else items

    async def add_items(self, items: list[Any]) -> None:
        if items:
            messages = [_message(item) for item in items]
            await self._in_conversation(lambda conversation: sessions.append(conversation, messages), None, create=True)

    async def pop_item(self) -> Any | None:
        latest = await self._in_conversation(sessions.remove_latest, None)
        return latest.item if latest else None

    async def clear_session(self) -> None:
        await arun(self.client, sessions.delete(self.session_id, self.namespace))
        self._conversation_id = None


def engram_tools(
    *, namespace: str | None = None, client: AsyncEngram | None = None, budget_chars: int = DEFAULT_BUDGET_CHARS
) -> list[FunctionTool]:
    """`remember` and `recall` as function tools for an Agent, both in `namespace` (default: the
    tenant's default namespace)."""
    engram = client or AsyncEngram()

    async def remember(content: str, tags: list[str] | None = None) -> str:
        """Store a fact, decision or preference in long-term memory so it can be recalled later.

        Args:
            content: The memory, written as a self-contained sentence.
            tags: Optional short labels to file it under.
        """
        written = await engram._send(endpoints.store_memory(content, namespace=namespace, tags=tags))
        state = "already known" if written.deduplicated else "stored"
        return f"{state}: memory {written.memory.id}"

    async def recall(query: str) -> str:
        """Search long-term memory by meaning and keywords; returns the best matching memories.

        Args:
            query: What to look for, as a question or keywords.
        """
        answer = await engram._send(
            endpoints.recall(query, namespace=namespace, budget_chars=budget_chars, format="compact")
        )
        return recall_text(answer)

    return [function_tool(remember), function_tool(recall)]


__all__ = ["EngramSession", "engram_tools"]
