"""engram_client.langgraph.EngramStore, LangGraph's BaseStore backed by Engram, against the local server:
the same operations give what LangGraph's own InMemoryStore gives, search by meaning is Engram's
recall, the async and batch forms work, and an agent and a graph take the store in their store slot."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langgraph.config import get_store
from langgraph.graph import START, StateGraph
from langgraph.prebuilt import create_react_agent
from langgraph.store.base import BaseStore, GetOp, InvalidNamespaceError, PutOp, SearchOp
from langgraph.store.memory import InMemoryStore
from typing_extensions import TypedDict

from engram_client import AsyncEngram, Engram
from engram_client.langgraph import EngramStore, engram_namespace, key_tag, langgraph_namespace


@pytest.fixture
def engram_store(server: str, make_tenant: Any) -> Iterator[EngramStore]:
    key = make_tenant("langgraph").key
    store = EngramStore(client=Engram(server, key), async_client=AsyncEngram(server, key))
    yield store
    store.close()  # the async client is closed by the test that used it, in its own event loop


def test_namespaces_map_to_engram_namespaces_and_back() -> None:
    for namespace in [("memories", "user-42"), ("users", "ada@example.com", "prefs"), ("a_b", "é/ü", "x:y")]:
        assert langgraph_namespace(engram_namespace(namespace)) == namespace
    assert engram_namespace(("memories", "ada@example.com")) == "memories/ada_40example_2Ecom"
    assert engram_namespace(("default",)) == "default"
    with pytest.raises(InvalidNamespaceError, match="starting with a letter or digit"):
        engram_namespace(("_private",))
    with pytest.raises(InvalidNamespaceError, match="1-128 characters"):
        engram_namespace(("x" * 129,))
    assert key_tag("a, b c" * 30).startswith("lgkey:") and len(key_tag("k")) <= 64


def scenario(store: BaseStore) -> dict[str, Any]:
    """The same operations on any BaseStore; what they return, in comparable form."""
    users, prefs = ("users", "ada"), ("users", "ada", "prefs")
    store.put(users, "diet", {"content": "Ada is vegetarian.", "kind": "fact", "rank": 3})
    store.put(users, "city", {"content": "Ada lives in Lyon.", "kind": "fact", "rank": 1})
    store.put(users, "city", {"content": "Ada moved to Porto.", "kind": "fact", "rank": 2})  # an update
    store.put(prefs, "theme", {"content": "Ada prefers the dark theme.", "kind": "pref", "tags": ["ui"], "rank": 0})
    store.put(("users", "bob"), "diet", {"content": "Bob eats everything.", "kind": "fact", "rank": 5})
    store.put(("teams", "core"), "lead", {"content": "Ada leads the core team.", "kind": "fact"})
    store.put(users, "tmp", {"content": "to be deleted"})
    store.delete(users, "tmp")
    store.put(users, "gone", {"content": "also deleted"})
    store.put(users, "gone", None)  # a None value deletes too

    def keys(items: list[Any]) -> list[tuple[tuple[str, ...], str]]:
        return sorted((tuple(i.namespace), i.key) for i in items)

    city = store.get(users, "city")
    return {
        "city": (city.value, city.key, tuple(city.namespace)) if city else None,
        "missing": store.get(users, "tmp"),
        "ada": keys(store.search(users, limit=10)),  # a prefix: ("users", "ada", "prefs") too
        "facts": keys(store.search(("users",), filter={"kind": "fact"}, limit=10)),
        "ranked": keys(store.search(("users",), filter={"rank": {"$gte": 2}}, limit=10)),
        "not_pref": keys(store.search(("users",), filter={"kind": {"$ne": "pref"}}, limit=10)),
        "nested": keys(store.search((), filter={"tags": ["ui"]}, limit=10)),
        "paged": len(store.search(("users",), limit=2, offset=3)),
        "namespaces": store.list_namespaces(),
        "prefixed": store.list_namespaces(prefix=("users",)),
        "suffixed": store.list_namespaces(suffix=("prefs",)),
        "wildcard": store.list_namespaces(prefix=("users", "*", "prefs")),
        "shallow": store.list_namespaces(max_depth=1),
        "limited": store.list_namespaces(limit=1, offset=1),
        # last: InMemoryStore lists a namespace once a get has looked into it
        "other": store.get(("users", "nobody"), "city"),
    }


def test_the_same_operations_give_what_the_in_memory_store_gives(engram_store: EngramStore) -> None:
    assert scenario(engram_store) == scenario(InMemoryStore())


def test_search_by_meaning_is_recall_with_scores(engram_store: EngramStore) -> None:
    notes = ("notes", "kitchen")
    engram_store.put(notes, "pie", {"content": "Grandma's apple pie needs three Granny Smith apples and cinnamon."})
    engram_store.put(notes, "backup", {"content": "The nightly backup fails when the disk is full."})
    engram_store.put(("notes", "other"), "pie2", {"content": "Cherry pie is best with sour cherries."})
    deadline = time.monotonic() + 60
    while engram_store.client.stats()["embeddings_pending"]:
        assert time.monotonic() < deadline, "embeddings never became ready"
        time.sleep(0.2)

    found = engram_store.search(notes, query="how do I bake a fruit dessert?", limit=1)
    assert [(i.key, i.namespace) for i in found] == [("pie", notes)]
    assert found[0].score is not None and found[0].score > 0
    everywhere = engram_store.search(("notes",), query="pie", limit=5)
    assert {i.key for i in everywhere} >= {"pie", "pie2"}
    assert engram_store.search(("notes",), query="pie", filter={"content": {"$ne": "x"}}, limit=5, offset=5) == []


def test_memories_stored_by_other_means_are_items_keyed_by_id(engram_store: EngramStore) -> None:
    memory = engram_store.client.store_memory("The deploy freeze starts on Friday.", namespace="ops/team").memory
    item = engram_store.get(("ops", "team"), memory.id)
    assert item is not None and item.value == {"content": "The deploy freeze starts on Friday."}
    assert [i.key for i in engram_store.search(("ops",))] == [memory.id]
    assert engram_store.get(("ops", "elsewhere"), memory.id) is None
    assert engram_store.get(("ops", "team"), str(uuid.uuid4())) is None  # an id-like key of no memory


def test_two_keys_with_the_same_text_stay_two_items(engram_store: EngramStore) -> None:
    engram_store.put(("dupes",), "a", {"content": "same words"})
    engram_store.put(("dupes",), "b", {"content": "same words"})
    a, b = engram_store.get(("dupes",), "a"), engram_store.get(("dupes",), "b")
    assert a is not None and b is not None and (a.key, b.key) == ("a", "b")
    assert a.value == b.value == {"content": "same words"}


def test_async_and_batch(engram_store: EngramStore) -> None:
    async def scenario_async() -> None:
        ns = ("async", uuid.uuid4().hex[:8])
        await engram_store.aput(ns, "k", {"content": "async value", "n": 1})
        item = await engram_store.aget(ns, "k")
        assert item is not None and item.value == {"content": "async value", "n": 1}
        results = await engram_store.abatch(
            [PutOp(ns, "k2", {"content": "second"}), GetOp(ns, "k2"), SearchOp(ns, filter={"n": 1})]
        )
        assert results[0] is None and results[1] is not None and results[1].value == {"content": "second"}
        assert [i.key for i in results[2]] == ["k"]
        assert ns in await engram_store.alist_namespaces(prefix=("async",))
        await engram_store.adelete(ns, "k")
        assert await engram_store.aget(ns, "k") is None
        await engram_store.aclose()

    asyncio.run(scenario_async())
    assert engram_store.batch([GetOp(("nowhere",), "k")]) == [None]


def test_put_with_index_fields_makes_those_fields_searchable(engram_store: EngramStore) -> None:
    engram_store.put(("indexed",), "k", {"title": "Quarterly OKR-4411 review", "body": {"n": 1}}, index=["title"])
    memory = engram_store.client.list_memories(namespace="indexed").items[0]
    assert memory.content == "Quarterly OKR-4411 review"
    assert [i.key for i in engram_store.search(("indexed",), query="OKR-4411")] == ["k"]


class State(TypedDict):
    note: str


def test_a_graph_and_a_react_agent_take_the_store_in_their_slot(engram_store: EngramStore) -> None:
    def remember(state: State) -> State:
        get_store().put(("graph", "user-1"), "note", {"content": state["note"]})
        return state

    graph = StateGraph(State).add_node("remember", remember).add_edge(START, "remember").compile(store=engram_store)
    graph.invoke({"note": "The user likes short answers."})
    item = engram_store.get(("graph", "user-1"), "note")
    assert item is not None and item.value == {"content": "The user likes short answers."}

    def save_preference(preference: str) -> str:
        """Save a preference of the user to long-term memory."""
        get_store().put(("agent", "user-1"), "preference", {"content": preference})
        return "saved"

    class ToolCallingFake(GenericFakeChatModel):
        def bind_tools(self, tools: Any, **kwargs: Any) -> Any:  # the scripted replies already hold the calls
            return self

    call = {"name": "save_preference", "args": {"preference": "Answers in French."}, "id": "call-1"}
    model = ToolCallingFake(messages=iter([AIMessage(content="", tool_calls=[call]), AIMessage(content="Noted.")]))
    agent = create_react_agent(model, [save_preference], store=engram_store)
    result = agent.invoke({"messages": [("user", "Please answer in French from now on.")]})
    assert result["messages"][-1].content == "Noted."
    saved = engram_store.get(("agent", "user-1"), "preference")
    assert saved is not None and saved.value == {"content": "Answers in French."}


def test_langmem_memory_tools_work_unchanged(engram_store: EngramStore) -> None:
    from langmem import create_manage_memory_tool, create_search_memory_tool

    namespace = ("memories", "{langgraph_user_id}")
    manage = create_manage_memory_tool(namespace=namespace, store=engram_store)
    search = create_search_memory_tool(namespace=namespace, store=engram_store)
    config = {"configurable": {"langgraph_user_id": "user-7"}}
    created = manage.invoke({"action": "create", "content": "The user's dog is called Biscuit."}, config=config)
    memory_id = created.removeprefix("created memory ")
    assert created.startswith("created memory ") and engram_store.get(("memories", "user-7"), memory_id)

    found = search.invoke({"query": "Biscuit"}, config=config)
    assert "The user's dog is called Biscuit." in str(found)
    manage.invoke({"action": "update", "id": memory_id, "content": "The dog is now called Crumble."}, config=config)
    item = engram_store.get(("memories", "user-7"), memory_id)
    assert item is not None and item.value["content"] == "The dog is now called Crumble."
    manage.invoke({"action": "delete", "id": memory_id}, config=config)
    assert engram_store.get(("memories", "user-7"), memory_id) is None
