"""Export and import through the HTTP API on real Postgres + moto S3/SQS: the export job and its
presigned download, the presigned import upload with the S3 ObjectCreated -> SQS -> import_worker
path, the round trip (export, purge, import, embed, recall the same), ids kept or mapped, idempotent
re-imports, refused lines that write nothing, scopes and tenant isolation."""

from __future__ import annotations

import json
import uuid
from typing import Any

import psycopg
import pytest

from engram_local.aws import s3_notification_record, sqs_record
from engram_local.lambda_runtime import invoke
from tests.support.document_bodies import make_body
from tests.support.export_files import HEADER, export_bytes, export_file, import_file, memory_line

NAMESPACES = ("port-notes", "port-chat", "port-docs")  # the Tier 1 document has one of its own
QUERIES = (
    "which database does the ledger use?",
    "apple pie recipe with cinnamon",
    "nightly backup disk quota",
    "what did the user ask about the flight to Lisbon?",
    "restart the ingest",
)


# What seed() writes, as an export counts it: its memories, versions, documents, links, conversation, messages.
SEEDED = {"memories": 7, "versions": 1, "documents": 2, "links": 2, "conversations": 1, "messages": 7}
# Nothing extracted here, and no task run.
DERIVED_NONE = {"evidence": 0, "extraction_settings": 0, "extraction_runs": 0, "tasks": 0, "checkpoints": 0}


def _ids_by_content(api, namespace: str) -> dict[str, str]:
    """The ids an import gave a namespace's memories (a hand-written file's ids are not kept)."""
    return {m["content"]: m["id"] for m in api.get(f"/v1/memories?namespace={namespace}&limit=200").body["items"]}


def seed(api) -> dict[str, str]:
    """Memories (one patched, one trashed), links, a conversation, an inline Tier 0 and a Tier 1 document."""
    ids: dict[str, str] = {}
    for name, body in {
        "pg": {"content": "Decision: the ledger runs on PostgreSQL 16.", "tags": ["decision"], "importance": 0.8},
        "sqlite": {"content": "Decision: the ledger moves to SQLite.", "kind": "episodic"},
        "pie": {"content": "Grandma's apple pie needs three Granny Smith apples and cinnamon.", "tags": ["recipes"]},
        "backup": {
            "content": "Ticket OPS-7781: the nightly backup fails when the disk quota is exceeded.",
            "metadata": {"ticket": {"id": 7781, "labels": ["ops"]}},
            "valid_from": "2026-01-01T00:00:00Z",
        },
        "trashed": {"content": "A thought that went to the trash."},
    }.items():
        r = api.post("/v1/memories", {"namespace": NAMESPACES[0], **body})
        assert r.status == 201, r.body
        ids[name] = r.body["memory"]["id"]
    assert (
        api.patch(
            f"/v1/memories/{ids['pie']}", {"content": "Grandma's apple pie: Granny Smith apples, cinnamon, butter."}
        ).status
        == 200
    )
    assert api.delete(f"/v1/memories/{ids['trashed']}").status == 200
    assert api.post("/v1/links", {"from_id": ids["sqlite"], "to_id": ids["pg"], "relation": "supersedes"}).status == 201
    assert (
        api.post(
            "/v1/links", {"from_id": ids["backup"], "to_id": ids["pg"], "relation": "relates_to", "strength": 0.4}
        ).status
        == 201
    )
    conv = api.post("/v1/conversations", {"namespace": NAMESPACES[1], "title": "Trip planning", "tags": ["travel"]})
    assert conv.status == 201
    ids["conversation"] = conv.body["id"]
    turns = [
        ("user", "I need a flight to Lisbon on the 14th, window seat please."),
        ("assistant", "There is a TAP flight at 09:40 with window seats left."),
        ("user", "Book it, and add a vegetarian meal."),
        ("assistant", "Booked: TAP 1234, seat 21A, vegetarian meal requested."),
        ("user", "Also find a hotel near Alfama for three nights."),
        ("tool", "hotel_search: 3 results", {"tool_call_id": "call_1", "tool_name": "hotel_search"}),
        ("assistant", "Memmo Alfama has a room for three nights from the 14th."),
    ]
    messages = [
        {"role": t[0], "content": t[1], **(t[2] if len(t) > 2 else {}), "metadata": {"turn": i}}
        for i, t in enumerate(turns)
    ]
    assert api.post(f"/v1/conversations/{ids['conversation']}/messages", {"messages": messages}).status == 201
    doc = api.post(
        "/v1/documents", {"content": "# Runbook\n\nRestart the ingest with `make dev`.", "namespace": NAMESPACES[0]}
    )
    assert doc.status == 201 and doc.body["document"]["tier"] == 0
    ids["tier0"] = doc.body["memory"]["id"]
    big = api.post(
        "/v1/documents",
        {"content": make_body(520 * 1024, "The vault code is HELIOTROPE-4471."), "namespace": NAMESPACES[2]},
    )
    assert big.status == 201 and big.body["document"]["tier"] == 1
    ids["tier1"] = big.body["memory"]["id"]
    return ids


def recall_all(api) -> list[list[tuple[str, float | None, float | None]]]:
    """What each query finds, in rank order: each result as what it is (a memory's content, a
    conversation window's text) with its cosine and keyword scores (the fused score is rank-based, so
    it moves when two near-equal results trade places). No touch: recall must not change what it is
    compared by. Not over the Tier 1 document's namespace: its hundreds of near-identical chunks would
    make every rank a coin toss (best_chunk checks it alone). By score alone (no MMR), so the answer is
    the ranking itself."""
    answers = []
    for q in QUERIES:
        body = {
            "query": q,
            "namespaces": list(NAMESPACES[:2]),
            "format": "compact",
            "touch": False,
            "limit": 3,
            "diversify": False,
        }
        r = api.post("/v1/recall", {**body, "explain": True})
        assert r.status == 200 and r.body["degraded"] == [], r.body
        answers.append(
            [
                (
                    api.get(f"/v1/memories/{h['id']}").body["content"] if h["type"] == "memory" else h["text"],
                    h["explain"]["vector"],
                    h["explain"]["keyword"],
                )
                for h in r.body["results"]
            ]
        )
    return answers


def best_chunk(api, query: str) -> str:
    r = api.post(
        "/v1/recall",
        {
            "query": query,
            "namespace": NAMESPACES[2],
            "mode": "keyword",
            "format": "compact",
            "touch": False,
            "limit": 1,
        },
    )
    assert r.status == 200, r.body
    return r.body["results"][0]["text"]


def assert_same_answers(after: list[list[tuple]], before: list[list[tuple]]) -> None:
    """The same results for every query, in the same order, with the same keyword scores and cosines.
    Vectors are computed again after the import, in other batches than the first time: the local model
    quantizes each token's activations on their own, so a text's vector is the same in any batch and a
    cosine can differ only by float rounding (a batch-wide scale once moved it by up to 0.02)."""
    for got, want in zip(after, before, strict=True):
        assert [k for k, *_ in got] == [k for k, *_ in want], (got, want)
        for (key, vector, keyword), (_, vector_before, keyword_before) in zip(got, want, strict=True):
            assert keyword == keyword_before, key
            assert (vector is None) == (vector_before is None), key
            assert abs((vector or 0) - (vector_before or 0)) < 1e-5, (key, vector, vector_before)


def _state(api, ids: dict[str, str]) -> dict:
    """What the API shows of the seeded data (ids included: kept ids must come back)."""
    memories = [m for ns in NAMESPACES for m in api.get(f"/v1/memories?namespace={ns}&limit=200").body["items"]]
    trash = api.get("/v1/trash").body["items"]
    keep = (
        "id",
        "content",
        "kind",
        "layer",
        "importance",
        "tags",
        "source",
        "metadata",
        "created_at",
        "valid_from",
        "valid_to",
        "version",
        "document_tier",
    )
    history = api.get(f"/v1/memories/{ids['pie']}/history").body
    links = api.get(f"/v1/links?memory_id={ids['pg']}").body["items"]
    messages = api.get(f"/v1/conversations/{ids['conversation']}/messages").body["items"]
    return {
        "memories": sorted(({k: m[k] for k in keep} for m in memories), key=lambda m: m["id"]),
        "trash": sorted(m["id"] for m in trash),
        "versions": [(v["version"], v["content"]) for v in history["versions"]],
        "links": sorted(
            (x["id"], x["from_id"], x["to_id"], x["relation"], x["strength"], x["valid_from"]) for x in links
        ),
        "messages": [
            (m["seq"], m["role"], m["content"], m["tool_name"], m["metadata"], m["created_at"]) for m in messages
        ],
        "conversation": {
            k: v for k, v in api.get(f"/v1/conversations/{ids['conversation']}").body.items() if k != "updated_at"
        },
    }


def test_round_trip_export_purge_import_recalls_the_same(api, stack, drain, tenant):
    ids = seed(api)
    drain()
    before_recall, before = recall_all(api), _state(api, ids)
    assert "HELIOTROPE-4471" in best_chunk(api, "HELIOTROPE-4471")  # a Tier 1 chunk: from the body

    job, data = export_file(api, stack)
    assert job["counts"] == {**SEEDED, "topics": 0, **DERIVED_NONE}
    lines = [json.loads(x) for x in data.decode().splitlines()]
    assert lines[0]["type"] == "header" and lines[0]["format"] == "engram-export" and lines[0]["version"] == 1
    assert tenant.id not in data.decode()  # tenant-free
    assert not any("embedding" in json.dumps(x) for x in lines[1:])  # no vectors

    for ns in NAMESPACES:
        assert api.post(f"/v1/namespaces/{ns}/purge").status == 200
    assert api.get(f"/v1/memories?namespace={NAMESPACES[0]}").body["items"] == []

    done = import_file(api, stack, data)
    assert done["status"] == "done", done
    report = done["report"]
    assert report["imported"] == {**SEEDED, **DERIVED_NONE}
    assert report["mapped_ids"] == 0 and report["refused"] == [] and report["deduplicated"]["memories"] == 0
    drain()  # the embed pipeline computes the vectors again
    assert _state(api, ids) == before
    assert_same_answers(recall_all(api), before_recall)
    assert "HELIOTROPE-4471" in best_chunk(api, "HELIOTROPE-4471")  # the body is not kept: its chunks came along

    again = import_file(api, stack, data)  # the same file again: everything is there already
    assert again["status"] == "done", again
    assert again["report"]["imported"] == {k: 0 for k in again["report"]["imported"]}
    assert again["report"]["deduplicated"] == {**SEEDED, "versions": 0, "documents": 0, **DERIVED_NONE}
    assert _state(api, ids) == before


def test_import_into_another_tenant_maps_taken_ids_and_recalls_the_same(api, api_for, stack, drain, make_tenant):
    ids = seed(api)
    drain()
    source_recall = recall_all(api)
    _, data = export_file(api, stack)
    other = api_for(make_tenant("port-b").key)
    done = import_file(other, stack, data)  # the ids are taken (by the first tenant): all mapped
    assert done["status"] == "done", done
    assert done["report"]["mapped_ids"] == 7 + 2 + 1
    drain()
    assert_same_answers(recall_all(other), source_recall)
    assert other.get(f"/v1/memories/{ids['pg']}").status == 404  # another id here; the first tenant's stays its own
    (pg,) = [m for m in other.get(f"/v1/memories?namespace={NAMESPACES[0]}&tag=decision").body["items"]]
    (link,) = other.get(f"/v1/links?memory_id={pg['id']}&relation=relates_to").body["items"]
    assert link["to_id"] == pg["id"]  # links follow their mapped memories
    assert api.get(f"/v1/memories/{ids['pg']}").body["content"] == pg["content"]

    mapped = import_file(other, stack, data, id_policy="map", namespace="port-copy")
    assert mapped["status"] == "done" and mapped["report"]["imported"]["memories"] == 7
    assert len(other.get("/v1/memories?namespace=port-copy&limit=200").body["items"]) == 6  # + one in the trash


def test_bad_lines_are_refused_with_the_field_and_limit_and_nothing_is_written(api, stack):
    m1 = memory_line("fine", "port-bad")
    m2 = {**m1, "id": str(uuid.uuid4()), "content": "bad tag", "tags": ["x" * 70]}
    m3 = {**m1, "id": str(uuid.uuid4()), "content": "y" * 16_001}
    link = {
        "type": "link",
        "id": str(uuid.uuid4()),
        "from_id": m1["id"],
        "to_id": str(uuid.uuid4()),
        "relation": "relates_to",
        "valid_from": "2026-11-01T00:00:00Z",
    }
    msg = {"type": "message", "conversation_id": str(uuid.uuid4()), "seq": 1, "role": "user", "content": "hi"}
    data = (
        "\n".join(json.dumps(x) for x in (HEADER, m1, m2, m3, link, msg, {"type": "widget"})) + "\nnot json\n"
    ).encode()
    done = import_file(api, stack, data)
    assert done["status"] == "failed" and "nothing was imported" in done["error"]
    refused = {r["line"]: r["reason"] for r in done["report"]["refused"]}
    assert sorted(refused) == [3, 4, 5, 6, 7, 8] and done["report"]["refused_count"] == 6
    assert refused[3].startswith("memory.tags.0:") and "64" in refused[3]
    assert refused[4].startswith("memory.content is 16001 bytes; the limit is 16000")
    assert refused[5] == f"link.to_id: memory {link['to_id']} is not in the file"
    assert refused[6].startswith("message.conversation_id:")
    assert "widget" in refused[7] and refused[8]
    assert api.get("/v1/memories?namespace=port-bad").body["items"] == []  # not even the good line

    not_a_file = import_file(api, stack, b'{"type": "memory"}\n')
    assert not_a_file["status"] == "failed"
    assert not_a_file["report"]["refused"][0]["line"] == 1 and "header" in not_a_file["report"]["refused"][0]["reason"]


def test_a_repeated_event_imports_nothing_twice(api, stack, tenant):
    _, data = export_file(api, stack, namespace="port-empty")
    memory = memory_line("only once", "port-once")
    data += (json.dumps(memory) + "\n").encode()
    done = import_file(api, stack, data)
    assert done["status"] == "done" and done["report"]["imported"]["memories"] == 1
    key = f"imports/{tenant.id}/{done['id']}.jsonl"
    event = {
        "Records": [
            sqs_record(
                "m-1", json.dumps({"Records": [s3_notification_record(stack.uploads_bucket, key, len(data), "e")]})
            )
        ]
    }
    assert invoke("import_worker", event) == {"batchItemFailures": []}
    assert len(api.get("/v1/memories?namespace=port-once").body["items"]) == 1
    assert api.get(f"/v1/imports/{done['id']}").body["report"] == done["report"]


def test_scopes_limits_and_tenants(api, api_for, stack, make_tenant, tenant):
    reader = api_for(make_tenant("port-reader", scopes=["read"]).key)
    r = reader.post("/v1/imports", {"size_bytes": 10})
    assert r.status == 403 and r.body["error"]["details"]["required_scope"] == "write"
    job, _ = export_file(reader, stack)  # reading is enough to export
    stranger = api_for(make_tenant("port-stranger").key)
    assert stranger.get(f"/v1/exports/{job['id']}").status == 404
    too_big = api.post("/v1/imports", {"size_bytes": 10**12})
    assert too_big.status == 413 and too_big.body["error"]["details"]["field"] == "size_bytes"
    bad = api.post("/v1/imports", {"size_bytes": 10, "id_policy": "merge"})
    assert bad.status == 422 and bad.body["error"]["details"]["field"] == "id_policy"
    ticket = api.post("/v1/imports", {"size_bytes": 10}).body
    assert stranger.get(f"/v1/imports/{ticket['id']}").status == 404


def test_a_line_the_database_refuses_fails_the_whole_import(api, stack):
    """Two links of the file that overlap pass line by line, but not together: the import names the
    line and keeps nothing, not even the memories written before the links."""
    a, b = (memory_line(text, "port-clash") for text in ("clash one", "clash two"))
    link = {
        "type": "link",
        "from_id": a["id"],
        "to_id": b["id"],
        "relation": "caused_by",
        "valid_from": "2026-11-01T00:00:00Z",
    }
    first, second = (
        {**link, "id": str(uuid.uuid4())},
        {**link, "id": str(uuid.uuid4()), "valid_from": "2026-11-02T00:00:00Z"},
    )
    data = export_bytes(a, b, first, second)
    done = import_file(api, stack, data)
    assert done["status"] == "failed" and done["error"] == "line 5 refused: nothing was imported", done
    (refusal,) = done["report"]["refused"]
    assert refusal["line"] == 5 and "already holds" in refusal["reason"]
    assert api.get("/v1/memories?namespace=port-clash").body["items"] == []


def test_counters_imported_at_the_integer_edge_saturate_and_reads_and_writes_keep_working(api, stack, drain):
    """A recall touch, a restatement and a merge add to a memory's counters: imported at PostgreSQL's
    integer maximum, they stay there instead of failing every recall that returns the memory."""
    top = 2**31 - 1
    memory = memory_line("the saturated counter memory", "port-edge", access_count=top, repetition_count=top)
    done = import_file(api, stack, export_bytes(memory))
    assert done["status"] == "done", done
    drain()
    memory_id = _ids_by_content(api, "port-edge")[memory["content"]]
    for mode in ("keyword", "hybrid"):
        recalled = api.post("/v1/recall", {"query": "saturated counter", "namespace": "port-edge", "mode": mode})
        assert recalled.status == 200 and recalled.body["results"][0]["memory_id"] == memory_id, recalled.body
    again = api.post("/v1/memories", {"content": memory["content"], "namespace": "port-edge"})
    assert again.status == 200 and again.body["deduplicated"], again.body
    stored = api.get(f"/v1/memories/{memory_id}").body
    assert (stored["access_count"], stored["repetition_count"]) == (top, top)

    patched_to_overflow = {**memory, "id": str(uuid.uuid4()), "content": "versioned to the edge", "version": top}
    refused = import_file(api, stack, export_bytes(patched_to_overflow))
    assert refused["status"] == "failed", refused
    assert refused["report"]["refused"][0]["reason"].startswith("memory.version: Input should be less than or equal")


def test_export_messages_delivered_again_change_nothing_and_a_dying_worker_gives_up(api, stack, tenant):
    api.post("/v1/memories", {"content": "exported once", "namespace": "port-redeliver"})
    job, data = export_file(api, stack, namespace="port-redeliver")
    message = json.dumps({"tenant_id": tenant.id, "export_id": job["id"]})
    assert invoke("export_worker", {"Records": [sqs_record("m-2", message)]}) == {"batchItemFailures": []}
    again = api.get(f"/v1/exports/{job['id']}").body
    assert again["status"] == "ready" and again["finished_at"] == job["finished_at"] and again["bytes"] == len(data)

    queued = api.post("/v1/exports", {"namespace": "port-redeliver"}).body
    with psycopg.connect(stack.dsn, autocommit=True) as owner:  # three deliveries that died mid-export
        owner.execute("UPDATE exports SET status = 'running', attempts = 3 WHERE id = %s", (queued["id"],))
    stack.export_poller.drain()
    failed = api.get(f"/v1/exports/{queued['id']}").body
    assert failed["status"] == "failed" and "did not finish in 3 attempts" in failed["error"]
    assert failed["download_url"] is None


def test_two_namespaces_imported_into_one_collapse_duplicates_and_their_links(api, stack):
    a, b = (memory_line("same words", ns) for ns in ("port-x", "port-y"))
    link = {
        "type": "link",
        "id": str(uuid.uuid4()),
        "from_id": a["id"],
        "to_id": b["id"],
        "relation": "relates_to",
        "valid_from": "2026-11-01T00:00:00Z",
    }
    data = export_bytes(a, b, link)
    done = import_file(api, stack, data, namespace="port-merged")
    assert done["status"] == "done", done
    report = done["report"]
    assert (report["imported"]["memories"], report["deduplicated"]["memories"]) == (1, 1)
    assert (report["imported"]["links"], report["deduplicated"]["links"]) == (0, 1)  # it would link a memory to itself
    assert [m["content"] for m in api.get("/v1/memories?namespace=port-merged").body["items"]] == ["same words"]


@pytest.fixture
def small_tiers(settings_env):
    """Tier 2 from 2 KiB up, so a Tier 2 document (its body kept in `documents`, read by
    query-document through its pages) is cheap to make."""
    settings_env(ENGRAM_DOCUMENT_TIER0_MAX_BYTES="1024", ENGRAM_DOCUMENT_TIER1_MAX_BYTES="2048")


def test_a_tier2_body_comes_back_whole_and_query_document_reads_it(api, stack, small_tiers):
    body = make_body(6 * 1024, "The harbour pilot's call sign is KESTREL-NINE.")
    doc = api.post("/v1/documents", {"content": body, "namespace": "port-tier2", "tags": ["manual"]})
    assert doc.status == 201 and doc.body["document"]["tier"] == 2, doc.body
    memory_id = doc.body["memory"]["id"]
    question = {"question": "call sign", "filter": {"substrings": ["call sign"]}, "answer": False, "token_budget": 64}
    before = api.post(f"/v1/memories/{memory_id}/query", question).body
    assert before["source"] == "document" and "KESTREL-NINE" in before["spans"][0]["text"]

    _, data = export_file(api, stack, namespace="port-tier2")
    (record,) = [json.loads(x) for x in data.decode().splitlines()[1:]]
    assert record["document"]["body"] == body and record["document"]["content_type"] == "text/markdown"
    assert api.post("/v1/namespaces/port-tier2/purge").status == 200

    done = import_file(api, stack, data)
    assert done["status"] == "done" and done["report"]["imported"]["documents"] == 1, done
    assert api.get(f"/v1/memories/{memory_id}").body["document_tier"] == 2
    after = api.post(f"/v1/memories/{memory_id}/query", question).body
    assert after["spans"] == before["spans"]
    again = import_file(api, stack, data)  # the same body: deduplicated on its SHA-256, nothing written
    assert again["report"]["deduplicated"]["memories"] == 1 and again["report"]["imported"]["documents"] == 0


def test_an_import_left_pending_expires_but_never_under_a_running_worker(api, stack):
    ticket = api.post("/v1/imports", {"size_bytes": 10}).body
    with psycopg.connect(stack.dsn) as owner:
        owner.execute("UPDATE imports SET expires_at = now() - interval '1 hour' WHERE id = %s", (ticket["id"],))
        owner.commit()
        owner.execute("SELECT 1 FROM imports WHERE id = %s FOR UPDATE", (ticket["id"],))  # a worker at it
        running = api.get(f"/v1/imports/{ticket['id']}")
        assert running.status == 200 and running.body["status"] == "pending"  # answered, not waiting
        owner.rollback()
    expired = api.get(f"/v1/imports/{ticket['id']}").body
    assert expired["status"] == "failed" and expired["error"].startswith("expired: no file arrived")


def _supersedes(newer: dict[str, Any], older: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "type": "link",
        "id": str(uuid.uuid4()),
        "from_id": newer["id"],
        "to_id": older["id"],
        "relation": "supersedes",
        "valid_from": "2026-11-01T00:00:00Z",
        **fields,
    }


@pytest.mark.parametrize("length", [2, 3])
def test_a_supersedes_cycle_is_refused_naming_it_as_post_links_does(api, stack, length):
    """x supersedes y supersedes x (or x -> y -> z -> x) would end each memory by another: POST
    /v1/links answers 409 naming the cycle; the import refuses its line the same way, keeping nothing."""
    ns = f"port-cycle-{length}"
    memories = [memory_line(f"cycle member {i} of {length}", ns) for i in range(length)]
    links = [_supersedes(memories[i], memories[(i + 1) % length]) for i in range(length)]
    done = import_file(api, stack, export_bytes(*memories, *links))
    assert done["status"] == "failed", done
    (refusal,) = done["report"]["refused"]
    assert refusal["line"] == 2 + length  # the first link: the whole cycle is in the file before it is checked
    named = refusal["reason"].removeprefix("link: supersedes links would form a cycle: ").split(" supersedes ")
    assert named == [m["id"] for m in memories] + [memories[0]["id"]], refusal
    assert api.get(f"/v1/memories?namespace={ns}").body["items"] == []
    # The API's answer to the same links, for comparison.
    written = [api.post("/v1/memories", {"content": m["content"], "namespace": ns}).body["memory"] for m in memories]

    def link(i: int) -> Any:
        ends = {"from_id": written[i]["id"], "to_id": written[(i + 1) % length]["id"]}
        return api.post("/v1/links", {**ends, "relation": "supersedes"})

    assert all(link(i).status == 201 for i in range(length - 1))
    closing = link(length - 1)
    assert closing.status == 409 and "cycle" in closing.body["error"]["message"]


def test_an_imported_supersedes_link_ends_the_older_memory_as_post_links_does(api, stack):
    older, newer = memory_line("the ferry leaves at 9", "port-sup"), memory_line("the ferry leaves at 10", "port-sup")
    newer["valid_from"] = "2026-11-05T00:00:00Z"
    done = import_file(api, stack, export_bytes(older, newer, _supersedes(newer, older)))
    assert done["status"] == "done", done
    ids = _ids_by_content(api, "port-sup")
    got = api.get(f"/v1/memories/{ids[older['content']]}").body
    assert got["valid_to"].startswith("2026-11-05T00:00:00"), got  # ends when the newer one starts
    assert api.get(f"/v1/memories/{ids[newer['content']]}").body["valid_to"] is None
    hits = api.post("/v1/recall", {"query": "when does the ferry leave", "namespaces": ["port-sup"]}).body
    assert [h["memory_id"] for h in hits["results"]] == [ids[newer["content"]]]  # the older one is not current
    # The same through the API: the older memory's valid_to is the newer one's valid_from.
    a = api.post("/v1/memories", {"content": "the bus leaves at 9", "namespace": "port-sup-api"}).body["memory"]["id"]
    b = api.post(
        "/v1/memories",
        {"content": "the bus leaves at 10", "namespace": "port-sup-api", "valid_from": "2026-11-05T00:00:00Z"},
    ).body["memory"]["id"]
    assert api.post("/v1/links", {"from_id": b, "to_id": a, "relation": "supersedes"}).status == 201
    assert api.get(f"/v1/memories/{a}").body["valid_to"] == got["valid_to"]
    # Deleting the imported link gives the older memory its validity back, as for an API link.
    (link,) = api.get(f"/v1/links?memory_id={ids[older['content']]}&relation=supersedes").body["items"]
    assert api.delete(f"/v1/links/{link['id']}").status in (200, 204)
    assert api.get(f"/v1/memories/{ids[older['content']]}").body["valid_to"] is None


def test_an_import_never_tells_whether_another_tenant_holds_an_id(api, api_for, stack, make_tenant):
    """A file naming tenant B's memory id and one naming a random id read the same to tenant A: both
    get a new id, counted alike; only ids A's own export proved are kept (the round trip keeps them)."""
    b = api_for(make_tenant("port-holder").key)
    held = b.post("/v1/memories", {"content": "tenant b's secret memory", "namespace": "port-probe"}).body["memory"]
    _, b_file = export_file(b, stack, namespace="port-probe")  # B's proofs: bound to B, not to A
    reports = []
    for memory_id in (held["id"], str(uuid.uuid4())):
        line = memory_line(f"probe for {memory_id}", "port-probe", id=memory_id)
        done = import_file(api, stack, export_bytes(line))
        assert done["status"] == "done", done
        reports.append(done["report"])
        assert api.get(f"/v1/memories/{memory_id}").status == 404  # kept under another id either way
    assert reports[0] == reports[1] and reports[0]["mapped_ids"] == 1
    proved = [json.loads(x) for x in b_file.splitlines()[1:]]
    assert proved[0]["id"] == held["id"] and proved[0]["id_proof"]
    forged = {**proved[0], "id": str(uuid.uuid4()), "content": "forged"}  # B's proof under another id: nothing
    again = import_file(b, stack, export_bytes(forged))
    assert again["status"] == "done" and again["report"]["mapped_ids"] == 1
    into_a = import_file(api, stack, b_file)  # B's own file into A: B's proofs do not bind to A
    assert into_a["status"] == "done" and into_a["report"]["mapped_ids"] == 1


def test_tasks_and_their_checkpoints_travel_with_their_ledger(api, api_for, stack, make_tenant):
    task = api.post("/v1/tasks", {"goal": "Rotate the TLS certificates", "namespace": "ops-port"}).body
    events = [
        {"role": "user", "content": "Rotate the certificates today."},
        {"role": "agent", "content": "The old key is kept in vault path secret/old."},
        {"role": "tool", "tool_name": "certbot", "content": "renewed 3 of 3"},
    ]
    assert api.post(f"/v1/tasks/{task['id']}/events", {"messages": events}).status == 201
    assert api.post(f"/v1/tasks/{task['id']}/events/2/redact").status == 200
    checkpoint = {"summary": "Renewed", "completed": ["renew"], "pending": ["deploy"], "artifacts": [{"name": "certs"}]}
    assert api.post(f"/v1/tasks/{task['id']}/checkpoints", checkpoint).status == 201
    assert api.post(f"/v1/tasks/{task['id']}/end", {"status": "done", "outcome": "rotated"}).status == 200
    job, data = export_file(api, stack, namespace="ops-port")
    assert job["counts"]["tasks"] == 1 and job["counts"]["checkpoints"] == 1
    assert b"secret/old" not in data  # the redacted event stays redacted in the file
    other = api_for(make_tenant("port-tasks").key)
    done = import_file(other, stack, data)
    assert done["status"] == "done", done
    assert done["report"]["imported"]["tasks"] == 1 and done["report"]["imported"]["checkpoints"] == 1
    (copy,) = other.get("/v1/tasks?namespace=ops-port").body["items"]
    assert (copy["goal"], copy["status"], copy["outcome"], copy["event_count"]) == (task["goal"], "done", "rotated", 4)
    listed = other.get(f"/v1/tasks/{copy['id']}/events").body["items"]
    assert [(m["role"], m["redacted_at"] is not None) for m in listed] == [
        ("user", False),
        ("agent", True),
        ("tool", False),
        ("agent", False),  # the closing event end appended
    ]
    (cp,) = other.get(f"/v1/tasks/{copy['id']}/checkpoints").body
    assert (cp["summary"], cp["pending"], cp["seq_to"]) == ("Renewed", ["deploy"], 3)
    # a checkpoint whose task the file lacks is refused by line
    orphan = {
        "type": "checkpoint",
        "task_id": str(uuid.uuid4()),
        "seq_to": 0,
        "summary": "x",
        "created_at": "2026-01-01T00:00:00Z",
    }
    refused = import_file(other, stack, export_bytes(orphan))
    assert "checkpoint.task_id" in json.dumps(refused["report"]["refused"])
