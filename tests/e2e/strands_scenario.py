"""Run by tests/e2e/test_adapter_strands.py with .venv-strands' Python (Strands cannot share .venv):
engram_client.strands against the server named by ENGRAM_API_URL, with the key ENGRAM_API_KEY. No model
is called: the tools are called directly (agent.tool.<name>), which Strands records as messages."""

from __future__ import annotations

import os
import uuid

from strands import Agent

from engram_client import Engram
from engram_client.strands import EngramSessionManager, engram_tools


def main() -> None:
    engram = Engram(os.environ["ENGRAM_API_URL"], os.environ["ENGRAM_API_KEY"])
    session_id = f"strands-{uuid.uuid4()}"

    def agent() -> Agent:
        manager = EngramSessionManager(session_id, namespace="strands", client=engram)
        return Agent(
            agent_id="helper",
            tools=engram_tools(namespace="user-42", client=engram),
            session_manager=manager,
            callback_handler=None,
        )

    first = agent()
    assert first.messages == [], first.messages
    stored = first.tool.remember(content="The spare keys are in the blue drawer.", tags=["home"])
    assert stored["status"] == "success" and "stored: memory" in stored["content"][0]["text"], stored
    found = first.tool.recall(query="spare keys")
    assert "The spare keys are in the blue drawer." in found["content"][0]["text"], found
    recorded = list(first.messages)
    assert len(recorded) >= 4, recorded  # each direct call: a user turn, the tool use, its result, an ack

    restored = agent()  # the same session and agent id, as a new process would start it
    assert restored.messages == recorded, (restored.messages, recorded)

    redacted = {"role": "user", "content": [{"text": "[redacted]"}]}
    restored._session_manager.redact_latest_message(redacted, restored)
    assert agent().messages == [*recorded[:-1], redacted]

    conversations = engram.list_conversations(namespace="strands").items
    assert [c.agent_id for c in conversations] == ["helper"], conversations
    memories = [m.content for m in engram.iter_memories(namespace="user-42")]
    assert memories == ["The spare keys are in the blue drawer."], memories
    print("strands scenario passed")


if __name__ == "__main__":
    main()
