"""Engram in Strands Agents: `EngramSessionManager` keeps an agent's conversation in Engram, and
`engram_tools()` gives it memory tools (remember, recall).

    from strands import Agent
    from engram_client.strands import EngramSessionManager, engram_tools

    agent = Agent(tools=engram_tools(namespace="user-42"), session_manager=EngramSessionManager("user-42-chat"))

Install with `pip install 'engram-client[strands]'`. Each agent of a session is one Engram conversation
(found again by the session id and the agent id), each message one conversation message, verbatim, so
recall finds what was said. The agent's messages come back when an agent with the same session and id
starts. Redacting the latest message hides it behind a marker and appends the redacted one: the
conversation keeps the original words (erase the conversation to remove them: `Engram.erase`). The
agent's `state` is not kept.
"""

from __future__ import annotations

from typing import Any

try:
    from strands import Agent, tool
    from strands.session.session_manager import SessionManager
except ImportError as missing:  # pragma: no cover - the message is the point
    raise ImportError("engram_client.strands needs Strands Agents: pip install 'engram-client[strands]'") from missing

from engram_client import endpoints, sessions
from engram_client.client import Engram
from engram_client.plans import run
from engram_client.tools import DEFAULT_BUDGET_CHARS, recall_text


def _message(message: Any) -> Any:
    blocks = message.get("content") or []
    text = "\n".join(b["text"] for b in blocks if isinstance(b, dict) and isinstance(b.get("text"), str))
    if not text:  # tool use and tool results: what they carry, as JSON
        text = sessions.text_of([{"text": str(b)} for b in blocks])
    return sessions.as_message(dict(message), str(message.get("role", "user")), text)


class EngramSessionManager(SessionManager):
    """A Strands `SessionManager` over Engram conversations. `EngramSessionManager("chat-42")` reads
    ENGRAM_API_URL and ENGRAM_API_KEY; `namespace` places the conversations; or pass an `Engram`."""

    def __init__(self, session_id: str, *, namespace: str | None = None, client: Engram | None = None) -> None:
        self.session_id = session_id
        self.namespace = namespace
        self.client = client or Engram()
        self._conversations: dict[str, str] = {}  # agent id -> conversation id

    def _key(self, agent: Agent) -> str:
        return f"{self.session_id}/{agent.agent_id}"

    def _conversation(self, agent: Agent) -> str:
        if agent.agent_id not in self._conversations:
            plan = sessions.open_conversation(self._key(agent), self.namespace, agent.agent_id)
            self._conversations[agent.agent_id] = run(self.client, plan).id
        return self._conversations[agent.agent_id]

    def initialize(self, agent: Agent, **kwargs: Any) -> None:
        """Restore the agent's messages from its conversation (or keep the ones it starts with)."""
        found = run(self.client, sessions.find_conversation(self._key(agent), self.namespace))
        if found is None:
            conversation = self._conversation(agent)
            if agent.messages:
                run(self.client, sessions.append(conversation, [_message(m) for m in agent.messages]))
            return
        self._conversations[agent.agent_id] = found.id
        agent.messages = [entry.item for entry in run(self.client, sessions.read_entries(found.id))]

    def append_message(self, message: Any, agent: Agent, **kwargs: Any) -> None:
        run(self.client, sessions.append(self._conversation(agent), [_message(message)]))

    def redact_latest_message(self, redact_message: Any, agent: Agent, **kwargs: Any) -> None:
        conversation = self._conversation(agent)
        run(self.client, sessions.remove_latest(conversation))
        run(self.client, sessions.append(conversation, [_message(redact_message)]))

    def sync_agent(self, agent: Agent, **kwargs: Any) -> None:
        """Nothing to do: each message is written when it is added (the agent's state is not kept)."""


def engram_tools(
    *, namespace: str | None = None, client: Engram | None = None, budget_chars: int = DEFAULT_BUDGET_CHARS
) -> list[Any]:
    """`remember` and `recall` as Strands tools, both in `namespace` (default: the tenant's default)."""
    engram = client or Engram()

    @tool
    def remember(content: str, tags: list[str] | None = None) -> str:
        """Store a fact, decision or preference in long-term memory so it can be recalled later.

        Args:
            content: The memory, written as a self-contained sentence.
            tags: Optional short labels to file it under.
        """
        written = engram._send(endpoints.store_memory(content, namespace=namespace, tags=tags))
        return f"{'already known' if written.deduplicated else 'stored'}: memory {written.memory.id}"

    @tool
    def recall(query: str) -> str:
        """Search long-term memory by meaning and keywords; returns the best matching memories.

        Args:
            query: What to look for, as a question or keywords.
        """
        answer = engram._send(endpoints.recall(query, namespace=namespace, budget_chars=budget_chars, format="compact"))
        return recall_text(answer)

    return [remember, recall]


__all__ = ["EngramSessionManager", "engram_tools"]
