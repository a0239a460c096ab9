"""engram_client.openai_agents against the local server: EngramSession keeps the Agents SDK's items in
an Engram conversation (exactly as given, across processes, with pop and clear), a Runner run reads
and writes it, and the memory tools store and recall."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

from agents import Agent, ModelResponse, RunConfig, Runner, Usage
from agents.models.interface import Model
from agents.tool_context import ToolContext
from openai.types.responses import ResponseOutputMessage, ResponseOutputText

from engram_client import AsyncEngram, Engram
from engram_client.openai_agents import EngramSession, engram_tools

USER = {"role": "user", "content": "Where are the spare keys?"}
ANSWER = {
    "id": "msg_1",
    "type": "message",
    "role": "assistant",
    "status": "completed",
    "content": [{"type": "output_text", "text": "In the blue drawer.", "annotations": []}],
}
CALL = {"type": "function_call", "call_id": "call_1", "name": "recall", "arguments": '{"query": "keys"}'}
OUTPUT = {"type": "function_call_output", "call_id": "call_1", "output": "- The keys are in the blue drawer."}


class ScriptedModel(Model):
    """A model that answers one fixed sentence: the run's session handling is what is under test."""

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        text = ResponseOutputText(type="output_text", text="Noted: Friday.", annotations=[])
        message = ResponseOutputMessage(
            id="msg_run", type="message", role="assistant", status="completed", content=[text]
        )
        return ModelResponse(output=[message], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError


def test_session_keeps_items_exactly_with_pop_and_clear(server: str, make_tenant: Any) -> None:
    key = make_tenant("agents-session").key
    session_id = f"chat-{uuid.uuid4()}"

    async def scenario() -> None:
        async with AsyncEngram(server, key) as engram:
            session = EngramSession(session_id, namespace="assistant", agent_id="helper", client=engram)
            assert await session.get_items() == []
            await session.add_items([USER, ANSWER])
            await session.add_items([CALL, OUTPUT])
            assert await session.get_items() == [USER, ANSWER, CALL, OUTPUT]
            assert await session.get_items(limit=2) == [CALL, OUTPUT]
            assert await session.pop_item() == OUTPUT
            assert await session.get_items() == [USER, ANSWER, CALL]

            again = EngramSession(session_id, namespace="assistant", client=engram)  # another process, say
            assert await again.get_items() == [USER, ANSWER, CALL]
            assert await EngramSession(session_id, namespace="elsewhere", client=engram).get_items() == []

            conversations = (await engram.list_conversations(namespace="assistant")).items
            assert len(conversations) == 1 and conversations[0].agent_id == "helper"
            messages = (await engram.list_messages(conversations[0].id)).items
            assert [(m.role, m.content) for m in messages[:3]] == [
                ("user", "Where are the spare keys?"),
                ("assistant", "In the blue drawer."),
                ("tool", '{"query": "keys"}'),
            ]
            found = await engram.recall("spare keys", namespace="assistant", mode="keyword", format="compact")
            assert found.results and found.results[0].type == "conversation"

            await again.clear_session()
            assert await session.get_items() == [] and await again.get_items() == []
            assert (await engram.list_conversations(namespace="assistant")).items == []
            assert await session.pop_item() is None

    asyncio.run(scenario())


def test_a_runner_run_reads_and_writes_the_session(server: str, make_tenant: Any) -> None:
    key = make_tenant("agents-run").key

    async def scenario() -> None:
        async with AsyncEngram(server, key) as engram:
            session = EngramSession("run-1", client=engram)
            await session.add_items([{"role": "user", "content": "The release is on Friday."}])
            agent = Agent(name="assistant", instructions="Be brief.", model=ScriptedModel())
            result = await Runner.run(
                agent, "When is the release?", session=session, run_config=RunConfig(tracing_disabled=True)
            )
            assert result.final_output == "Noted: Friday."
            items = await session.get_items()
            assert [i.get("role") for i in items] == ["user", "user", "assistant"]
            assert items[1]["content"] == "When is the release?"

    asyncio.run(scenario())


def test_memory_tools_store_and_recall(server: str, make_tenant: Any) -> None:
    key = make_tenant("agents-tools").key

    async def scenario() -> None:
        async with AsyncEngram(server, key) as engram:
            remember, recall = engram_tools(namespace="user-42", client=engram)
            assert (remember.name, recall.name) == ("remember", "recall")
            assert remember.params_json_schema["required"] == ["content", "tags"]  # strict schema: all listed
            context = ToolContext(context=None, tool_name="remember", tool_call_id="c1", tool_arguments="{}")
            args = {"content": "The spare keys are in the blue drawer.", "tags": ["home"]}
            said = await remember.on_invoke_tool(context, json.dumps(args))
            assert said.startswith("stored: memory ")
            again = await remember.on_invoke_tool(context, json.dumps(args))
            assert again.startswith("already known: memory ")
            found = await recall.on_invoke_tool(context, json.dumps({"query": "spare keys"}))
            assert "The spare keys are in the blue drawer." in found
            _, elsewhere = engram_tools(namespace="nobody", client=engram)
            assert await elsewhere.on_invoke_tool(context, json.dumps({"query": "spare keys"})) == "No memories found."

    asyncio.run(scenario())
    with Engram(server, key) as engram:
        assert [m.tags for m in engram.iter_memories(namespace="user-42")] == [["home"]]
