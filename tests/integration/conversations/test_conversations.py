"""Conversations through the API on real Postgres + pgvector: ordering, idempotency, verbatim
round trips, windows, recall with original messages, time scoping, deletion, purge, isolation."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta

import pytest


def new_conversation(api, **body) -> str:
    r = api.post("/v1/conversations", {"title": "chat", "namespace": "chats", **body})
    assert r.status == 201, r.body
    return r.body["id"]


def append(api, cid, messages, key=None, **kw):
    headers_key = {} if key is None else {"idempotency_key": key}
    return api.post(f"/v1/conversations/{cid}/messages", {"messages": messages, **headers_key}, **kw)


def turns(n, start=0, role_cycle=("user", "assistant")):
    return [{"role": role_cycle[i % len(role_cycle)], "content": f"turn number {start + i}"} for i in range(n)]


def all_messages(api, cid):
    r = api.get(f"/v1/conversations/{cid}/messages?limit=500")
    assert r.status == 200, r.body
    return r.body["items"]


def windows_of(stack, cid):
    import psycopg
    from psycopg.rows import dict_row

    with psycopg.connect(stack.dsn, row_factory=dict_row) as conn:
        return conn.execute(
            "SELECT id, seq_from, seq_to, kind, text, context FROM chunks WHERE conversation_id = %s ORDER BY seq_from",
            (cid,),
        ).fetchall()


def test_append_numbers_in_order_and_reads_back_by_range(api):
    cid = new_conversation(api)
    r = append(api, cid, turns(4))
    assert r.status == 201, r.body
    assert (r.body["seq_from"], r.body["seq_to"], r.body["count"]) == (1, 4, 4)
    r = append(api, cid, turns(3, start=4))
    assert (r.body["seq_from"], r.body["seq_to"]) == (5, 7)
    assert [m["seq"] for m in all_messages(api, cid)] == list(range(1, 8))
    page = api.get(f"/v1/conversations/{cid}/messages?from_seq=3&to_seq=5").body
    assert [m["content"] for m in page["items"]] == ["turn number 2", "turn number 3", "turn number 4"]
    page = api.get(f"/v1/conversations/{cid}/messages?from_seq=2&limit=2").body
    assert [m["seq"] for m in page["items"]] == [2, 3] and page["next_from_seq"] == 4
    conv = api.get(f"/v1/conversations/{cid}").body
    assert conv["message_count"] == 7


def test_concurrent_appends_never_duplicate_or_skip(api):
    cid = new_conversation(api)
    errors: list[object] = []

    def worker(w: int) -> None:
        for b in range(3):
            r = append(api, cid, [{"role": "user", "content": f"w{w} b{b} m{i}"} for i in range(4)])
            if r.status != 201:
                errors.append(r.body)

    threads = [threading.Thread(target=worker, args=(w,)) for w in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    msgs = all_messages(api, cid)
    assert [m["seq"] for m in msgs] == list(range(1, 6 * 3 * 4 + 1))
    # each append's four messages stay together and in order
    for i in range(0, len(msgs), 4):
        group = [m["content"] for m in msgs[i : i + 4]]
        prefix = group[0].rsplit(" ", 1)[0]
        assert group == [f"{prefix} m{j}" for j in range(4)]


def test_idempotent_retry_writes_nothing_and_returns_the_first_answer(api):
    cid = new_conversation(api)
    first = append(api, cid, turns(3), key="req-1")
    assert first.status == 201
    again = append(api, cid, turns(3), key="req-1")
    assert again.status == 200 and again.body["replayed"] is True
    assert again.body["messages"] == first.body["messages"]
    # the header works the same way
    from engram_local import gateway

    def with_header(key):
        import json

        resp = gateway.handle(
            "POST",
            f"/v1/conversations/{cid}/messages",
            {"authorization": f"Bearer {api.key}", "Idempotency-Key": key},
            json.dumps({"messages": turns(2, start=10)}).encode(),
        )
        return resp.status, json.loads(resp.body)

    s1, b1 = with_header("hdr-1")
    s2, b2 = with_header("hdr-1")
    assert (s1, s2) == (201, 200) and b1["seq_from"] == b2["seq_from"] == 4
    assert len(all_messages(api, cid)) == 5
    # same key, different messages: a conflict, nothing written
    clash = append(api, cid, turns(1, start=99), key="req-1")
    assert clash.status == 409
    assert len(all_messages(api, cid)) == 5


def test_concurrent_retries_with_one_key_write_once(api):
    cid = new_conversation(api)
    statuses: list[int] = []

    def worker() -> None:
        statuses.append(append(api, cid, turns(5), key="same").status)

    threads = [threading.Thread(target=worker) for _ in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200, 200, 200, 200, 201]
    assert len(all_messages(api, cid)) == 5


def test_verbatim_round_trip_with_unicode_tools_metadata_and_past_dates(api):
    cid = new_conversation(api, agent_id="agent-7", tags=["support"], metadata={"ticket": 42})
    past = "2023-01-15T08:30:00+00:00"
    sent = [
        {"role": "system", "content": "  You are terse.\n\n\ttabs & trailing spaces   "},
        {
            "role": "user",
            "content": 'Ça marche? 日本語 🙂 — "quotes" \\ backslash',
            "created_at": past,
            "metadata": {"z": 1, "a": [1.5, None, True], "nested": {"ключ": "значение"}},
        },
        {"role": "assistant", "content": "", "tool_call_id": "call_1", "tool_name": "lookup"},
        {"role": "tool", "content": '{"result": [1, 2, 3]}', "tool_call_id": "call_1", "tool_name": "lookup"},
    ]
    r = append(api, cid, sent)
    assert r.status == 201, r.body
    got = all_messages(api, cid)
    for s, g in zip(sent, got, strict=True):
        assert g["role"] == s["role"] and g["content"] == s["content"]
        assert g["metadata"] == s.get("metadata", {})
        assert g.get("tool_call_id") == s.get("tool_call_id")
        assert g.get("tool_name") == s.get("tool_name")
    assert list(got[1]["metadata"]) == ["z", "a", "nested"]  # key order kept
    assert datetime.fromisoformat(got[1]["created_at"]) == datetime.fromisoformat(past)


@pytest.mark.parametrize(
    "messages,status,field",
    [
        ([{"role": "robot", "content": "x"}], 422, "messages.0.role"),
        ([{"role": "user", "content": "x", "colour": "red"}], 422, "messages.0.colour"),
        ([{"role": "user", "content": "x", "tool_name": "t"}], 422, "messages.0"),
        ([{"role": "user", "content": "ok"}, {"role": "user", "content": "x" * 40_000}], 413, "messages.1.content"),
        ([{"role": "user", "content": "nul \u0000 byte"}], 422, "messages.0.content"),
        ([{"role": "user", "content": "x"}] * 201, 422, "messages"),
        ([], 422, "messages"),
    ],
)
def test_bad_appends_are_refused_whole(api, messages, status, field):
    cid = new_conversation(api)
    r = append(api, cid, messages)
    assert r.status == status, r.body
    assert field in r.body["error"]["message"]
    if messages and len(messages) > 200:
        assert "200" in r.body["error"]["message"]
    assert all_messages(api, cid) == []


@pytest.fixture
def seed_windows(settings_env):
    """Overlapping windows (5 messages, stride 3) instead of the benchmarked single-turn default."""
    settings_env(ENGRAM_CONVERSATION_WINDOW_SIZE="5", ENGRAM_CONVERSATION_WINDOW_STRIDE="3")


def test_windows_form_and_appending_extends_without_rebuild(api, stack, seed_windows):
    cid = new_conversation(api)
    append(api, cid, turns(6))
    before = windows_of(stack, cid)
    assert [(w["seq_from"], w["seq_to"]) for w in before] == [(1, 5), (4, 6)]
    assert before[0]["kind"] == "conversation"
    assert "[user]: turn number 0\n[assistant]: turn number 1" in before[0]["text"]
    append(api, cid, turns(4, start=6))
    after = windows_of(stack, cid)
    assert [(w["seq_from"], w["seq_to"]) for w in after] == [(1, 5), (4, 8), (7, 10)]
    assert after[0]["id"] == before[0]["id"]  # the full window was kept, not rebuilt
    assert after[1]["id"] != before[1]["id"]  # the partial tail was replaced


def test_a_turns_keyword_context_holds_its_neighbours_of_the_same_day(api, stack, drain):
    """The turn before and after (same day) are in a turn's keyword index, not in its text: a question
    whose words only the neighbour says finds the turn, and an append completes the last turn's context."""
    day, later = "2023-05-08T13:56:00+00:00", "2023-05-20T10:00:00+00:00"
    cid = new_conversation(api, namespace="ctx")
    said = [
        ("user", "Caroline: I spent the afternoon researching adoption agencies.", day),
        ("assistant", "Melanie: That is a big step!", day),
    ]
    append(api, cid, [{"role": r, "content": c, "created_at": t} for r, c, t in said])
    first = windows_of(stack, cid)
    assert [w["text"] for w in first] == [f"(08 May 2023)\n{said[0][1]}", f"(08 May 2023)\n{said[1][1]}"]
    assert first[0]["context"] == said[1][1] and first[1]["context"] == said[0][1]
    append(
        api,
        cid,
        [
            {"role": "user", "content": "Caroline: Thanks, the kids' room is painted.", "created_at": day},
            {"role": "assistant", "content": "Melanie: Back from camping!", "created_at": later},
        ],
    )
    after = windows_of(stack, cid)
    assert after[1]["id"] == first[1]["id"]  # kept: only its context grew
    assert after[1]["context"] == f"{said[0][1]}\nCaroline: Thanks, the kids' room is painted."
    assert after[2]["context"] == said[1][1]  # the next turn is another day's
    assert after[3]["context"] is None
    drain()
    found = api.post("/v1/recall", {"query": "adoption agencies", "namespace": "ctx", "mode": "keyword"})
    assert found.status == 200, found.body
    texts = [h["chunk"]["text"] for h in found.body["results"]]
    assert texts[0].endswith(said[0][1])  # its own words rank first, then the reply found by them
    assert texts[1].endswith(said[1][1])
    assert not any("adoption" in t for t in texts[1:])  # the neighbour's words are never returned


@pytest.fixture
def chat(api, drain):
    base = datetime(2024, 5, 1, 12, tzinfo=UTC)
    cid = new_conversation(api, tags=["personal"])
    msgs = []
    filler = [
        "How was your day?",
        "Pretty normal, thanks.",
        "Anything new?",
        "Not really.",
        "Let's talk later.",
        "Sure, bye.",
    ]
    for day in range(6):
        for i, text in enumerate(filler):
            msgs.append(
                {
                    "role": "user" if i % 2 == 0 else "assistant",
                    "content": text,
                    "created_at": (base + timedelta(days=7 * day, minutes=i)).isoformat(),
                }
            )
    # the evidence: one turn in week 3
    msgs[15] = {
        "role": "user",
        "content": "I finally adopted a greyhound and named her Pixel.",
        "created_at": msgs[15]["created_at"],
        "metadata": {"mood": "happy"},
    }
    assert append(api, cid, msgs).status == 201
    drain()
    return cid, msgs


def test_default_windows_are_single_turns(api, stack):
    cid = new_conversation(api)
    append(api, cid, turns(3))
    assert [(w["seq_from"], w["seq_to"]) for w in windows_of(stack, cid)] == [(1, 1), (2, 2), (3, 3)]


def test_recall_returns_the_original_messages(api, chat):
    cid, msgs = chat
    body = api.post("/v1/recall", {"query": "what is my dog called?", "namespace": "chats"}).body
    top = body["results"][0]
    assert top["type"] == "conversation" and top["conversation_id"] == cid and top["memory_id"] is None
    evidence = [m for m in top["messages"] if m["seq"] == 16]
    assert evidence and evidence[0]["content"] == msgs[15]["content"]
    assert evidence[0]["metadata"] == {"mood": "happy"}
    assert [m["seq"] for m in top["messages"]] == list(range(top["chunk"]["seq_from"], top["chunk"]["seq_to"] + 1))
    # neighbouring context by sequence
    around = api.get(f"/v1/conversations/{cid}/messages?from_seq=14&to_seq=18").body["items"]
    assert [m["seq"] for m in around] == [14, 15, 16, 17, 18]


def said_and_learned(api, stack, tenant) -> tuple[str, str]:
    """A three-turn conversation and a memory learned from its second turn: (conversation id, memory id)."""
    import psycopg

    cid = new_conversation(api, namespace="long")
    said = append(api, cid, turns(3)).body["messages"]
    learned = api.post("/v1/memories", {"content": "Turn two was said.", "namespace": "long"}).body["memory"]["id"]
    with psycopg.connect(stack.dsn, autocommit=True) as conn:  # as extraction records the turn a memory came from
        conn.execute(
            "INSERT INTO memory_evidence (tenant_id, memory_id, conversation_id, message_id) VALUES (%s, %s, %s, %s)",
            (tenant.id, learned, cid, said[1]["id"]),
        )
    return cid, learned


def test_a_recall_reads_only_the_messages_it_shows_whatever_the_statistics(api, stack, tenant):
    """The windows' original messages and a derived memory's evidence turns are read one key probe
    each, whatever the planner believes. The statistics are taken before 5,000 more turns go in, as a
    bulk import leaves them. When the planner read the tenant's id into its estimates, the tenant
    looked like three rows and an index leading with it was read for its every message (a bitmap AND
    of 5,003 entries per window; migrations 0061 and 0062 took both away). A plain join of the windows
    and the messages was hashed over all of them (bench/perf/window_messages.py: 118-497 ms at 200k),
    which keeping the planner off nested loops brings about here."""
    from uuid import UUID

    import psycopg

    from engram.conversations.service import messages_for_windows
    from engram.conversations.store import WINDOW_MESSAGES
    from engram.core.db import tenant_transaction
    from engram.memories.service import evidence_turns
    from engram.memories.store import EVIDENCE_TURNS
    from tests.support.plan_reads import rows_read

    cid, learned = said_and_learned(api, stack, tenant)
    with psycopg.connect(stack.dsn, autocommit=True) as conn:
        conn.execute("ANALYZE messages")
        conn.execute(
            "INSERT INTO messages (tenant_id, conversation_id, seq, role, content)"
            " SELECT %s, %s, g, 'user', 'filler ' || g FROM generate_series(4, 5003) g",
            (tenant.id, cid),
        )
    windows = [(UUID(cid), 1, 1), (UUID(cid), 2, 3)]
    with tenant_transaction(UUID(tenant.id)) as conn:
        conn.execute("SET LOCAL enable_nestloop = off")
        found = messages_for_windows(conn, windows)
        evidence = evidence_turns(conn, [UUID(learned)])
        spans = ([w[0] for w in windows], [w[1] for w in windows], [w[2] for w in windows])
        read = rows_read(conn, "messages", WINDOW_MESSAGES, spans) + rows_read(
            conn, "messages", EVIDENCE_TURNS, ([UUID(learned)],)
        )
    assert sorted(seq for _, seq in found) == [1, 2, 3]
    assert [t.seq for t in evidence[UUID(learned)]] == [2]
    # The 4 rows shown (a plan gives a loop's rows as their mean, rounded), not the conversation's 5,003.
    assert read <= 8, read


def test_the_message_probes_are_planned_for_their_values_and_never_prepared(api, stack, tenant):
    """A generic plan lasts as long as the connection, and one made while messages was a page or two
    scans the whole table for every window once it has grown: with the table vacuumed at 3 rows and
    5,000 added, 2 windows read 10,006 rows (bench/perf/window_messages.py: 557 ms for 40 windows at
    200k, against 1.8 ms). The window and evidence probes are planned for their values every time."""
    from uuid import UUID

    from engram.conversations.service import messages_for_windows
    from engram.core.db import tenant_transaction
    from engram.memories.service import evidence_turns

    cid, learned = said_and_learned(api, stack, tenant)
    with tenant_transaction(UUID(tenant.id)) as conn:
        for _ in range(12):  # psycopg prepares a statement on its fifth run on a connection
            assert len(messages_for_windows(conn, [(UUID(cid), 1, 2)] * 30)) == 2
            assert [t.seq for t in evidence_turns(conn, [UUID(learned)])[UUID(learned)]] == [2]
        prepared = [r["statement"] for r in conn.execute("SELECT statement FROM pg_prepared_statements")]
    assert not [s for s in prepared if "CROSS JOIN LATERAL (SELECT * FROM messages m" in s], prepared


def test_recall_filters_by_kind_conversation_and_tags(api, chat):
    cid, _ = chat
    api.post("/v1/memories", {"content": "Pixel is also the name of my phone.", "namespace": "chats"})
    mem_only = api.post("/v1/recall", {"query": "Pixel", "namespace": "chats", "kinds": ["semantic"]}).body
    assert mem_only["results"] and all(h["type"] == "memory" for h in mem_only["results"])
    conv_only = api.post("/v1/recall", {"query": "Pixel", "kinds": ["conversation"]}).body
    assert conv_only["results"] and all(h["type"] == "conversation" for h in conv_only["results"])
    both = api.post("/v1/recall", {"query": "Pixel", "namespace": "chats"}).body
    assert {h["type"] for h in both["results"]} == {"memory", "conversation"}
    other = new_conversation(api)
    append(api, other, [{"role": "user", "content": "Pixel art is fun."}])
    scoped = api.post("/v1/recall", {"query": "Pixel", "conversation_id": other}).body
    assert {h["conversation_id"] for h in scoped["results"]} == {other}
    tagged = api.post("/v1/recall", {"query": "Pixel", "tags": ["personal"], "kinds": ["conversation"]}).body
    assert {h["conversation_id"] for h in tagged["results"]} == {cid}


def test_since_until_scope_by_message_time(api, chat):
    _, msgs = chat
    week3 = datetime(2024, 5, 15, tzinfo=UTC)
    inside = api.post(
        "/v1/recall",
        {"query": "adopted greyhound", "since": week3.isoformat(), "until": (week3 + timedelta(days=7)).isoformat()},
    ).body
    assert any(m["content"] == msgs[15]["content"] for h in inside["results"] for m in h["messages"])
    later = api.post(
        "/v1/recall", {"query": "adopted greyhound", "since": (week3 + timedelta(days=14)).isoformat()}
    ).body
    assert not any("greyhound" in m["content"] for h in later["results"] for m in h["messages"])


def test_budget_bounds_text_and_attached_messages(api, chat):
    body = api.post("/v1/recall", {"query": "how was your day greyhound", "budget_chars": 300, "limit": 10}).body
    assert body["used_chars"] <= 300
    for h in body["results"]:
        for m in h["messages"]:
            assert m["content"][:40] in h["chunk"]["text"]


def test_delete_conversation_removes_messages_and_chunks(api, chat, stack):
    cid, _ = chat
    r = api.delete(f"/v1/conversations/{cid}")
    assert r.status == 200 and r.body["messages"] == 36 and r.body["chunks"] > 0
    assert api.get(f"/v1/conversations/{cid}").status == 404
    assert api.get(f"/v1/conversations/{cid}/messages").status == 404
    assert windows_of(stack, cid) == []
    body = api.post("/v1/recall", {"query": "greyhound Pixel"}).body
    assert all(h["conversation_id"] != cid for h in body["results"])
    assert api.delete(f"/v1/conversations/{cid}").status == 404


def test_purge_namespace_removes_everything_in_it_only(api, chat, make_tenant, api_for):
    cid, _ = chat
    api.post("/v1/memories", {"content": "to be purged", "namespace": "chats"})
    keep = api.post("/v1/memories", {"content": "kept elsewhere", "namespace": "other"}).body["memory"]["id"]
    reader = make_tenant("reader", ["read", "write"])
    assert api_for(reader.key).post("/v1/namespaces/chats/purge").status == 403
    r = api.post("/v1/namespaces/chats/purge")
    assert r.status == 200, r.body
    assert (r.body["memories"], r.body["conversations"], r.body["messages"]) == (1, 1, 36)
    assert r.body["chunks"] >= 2
    assert api.get(f"/v1/conversations/{cid}").status == 404
    assert api.get(f"/v1/memories/{keep}").status == 200
    assert api.get("/v1/conversations?namespace=chats").body["items"] == []


def test_tenant_isolation_by_id_and_by_recall(api, chat, make_tenant, api_for):
    cid, _ = chat
    intruder = api_for(make_tenant("intruder").key)
    assert intruder.get(f"/v1/conversations/{cid}").status == 404
    assert intruder.get(f"/v1/conversations/{cid}/messages").status == 404
    assert append(intruder, cid, turns(1)).status == 404
    assert intruder.delete(f"/v1/conversations/{cid}").status == 404
    assert intruder.get("/v1/conversations").body["items"] == []
    body = intruder.post("/v1/recall", {"query": "greyhound Pixel", "conversation_id": cid}).body
    assert body["results"] == []
    body = intruder.post("/v1/recall", {"query": "greyhound Pixel"}).body
    assert body["results"] == []
    assert intruder.post("/v1/namespaces/chats/purge").body["conversations"] == 0
    assert len(all_messages(api, cid)) == 36


def test_list_conversations_with_cursor_and_filters(api):
    ids = [new_conversation(api, agent_id="a1" if i % 2 else "a2", tags=["t"] if i < 2 else []) for i in range(5)]
    page1 = api.get("/v1/conversations?limit=2").body
    page2 = api.get(f"/v1/conversations?limit=2&cursor={page1['next_cursor']}").body
    page3 = api.get(f"/v1/conversations?limit=2&cursor={page2['next_cursor']}").body
    seen = [c["id"] for c in page1["items"] + page2["items"] + page3["items"]]
    assert sorted(seen) == sorted(ids) and page3["next_cursor"] is None
    assert {c["id"] for c in api.get("/v1/conversations?agent_id=a1").body["items"]} == {ids[1], ids[3]}
    assert {c["id"] for c in api.get("/v1/conversations?tag=t").body["items"]} == {ids[0], ids[1]}
    assert api.post("/v1/conversations", {"title": "x", "bogus": 1}).status == 422
