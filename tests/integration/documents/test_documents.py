"""Documents through the HTTP API on real Postgres + moto S3/SQS: tiers at each boundary, inline and
presigned uploads (with the S3 ObjectCreated -> SQS -> document_ingest path), query-document spans
and budget, the regex guard, tenant isolation, recall into a Tier-1 body, and the LLM answer
through a fake Messages API at the HTTP boundary.
"""

from __future__ import annotations

import hashlib
import json
import urllib.request
from typing import Any

import psycopg
import pytest
from psycopg import sql

from engram_local.json_stand_in import JsonStandIn, Reply, Request, message
from tests.support.document_bodies import make_body
from tests.support.owner_view import owner_connection

KIB, MIB = 1024, 1024 * 1024
T0_MAX, T1_MAX, HARD_MAX = 500 * KIB, 8 * MIB, 50 * MIB


@pytest.fixture(scope="module", autouse=True)
def _purge_embed_jobs(stack):
    """Big documents enqueue thousands of chunk jobs; do not leave them for other modules' drains."""
    yield
    sqs = stack.aws.sqs()  # discard them (PurgeQueue is limited to one a minute)
    while messages := sqs.receive_message(
        QueueUrl=stack.embed_queue_url, MaxNumberOfMessages=10, VisibilityTimeout=60
    ).get("Messages", []):
        sqs.delete_message_batch(
            QueueUrl=stack.embed_queue_url,
            Entries=[{"Id": str(i), "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(messages)],
        )


def _put(url: str, data: bytes, headers: dict[str, str]) -> int:
    req = urllib.request.Request(url, data=data, method="PUT", headers=headers)
    with urllib.request.urlopen(req, timeout=120) as resp:
        return resp.status


def upload(
    api,
    drain_uploads,
    body: bytes,
    *,
    declared: int | None = None,
    sha: str | None = None,
    put: bytes | None = None,
    **opts,
):
    ticket = api.post(
        "/v1/documents/uploads",
        {"size_bytes": declared or len(body), "sha256": sha or hashlib.sha256(body).hexdigest(), **opts},
    )
    assert ticket.status == 201, ticket.body
    headers = dict(ticket.body["headers"])
    if put is not None:  # a client ignoring the signed length (moto does not enforce it; S3 would)
        headers.pop("Content-Length")
    assert _put(ticket.body["url"], put if put is not None else body, headers) == 200
    drain_uploads()
    status = api.get(f"/v1/documents/uploads/{ticket.body['upload_id']}")
    assert status.status == 200
    return ticket.body, status.body


def _object_exists(stack, key: str) -> bool:
    listed = stack.aws.s3().list_objects_v2(Bucket=stack.uploads_bucket, Prefix=key)
    return listed.get("KeyCount", 0) > 0


def _chunk_texts(stack, memory_id: str) -> list[str]:
    with owner_connection(stack) as conn:
        return [
            r[0] for r in conn.execute("SELECT text FROM chunks WHERE memory_id = %s ORDER BY position", (memory_id,))
        ]


def _document_rows(stack, memory_id: str) -> list[tuple]:
    with owner_connection(stack) as conn:
        return conn.execute(
            "SELECT byte_size, content_type, length(body) FROM documents WHERE memory_id = %s", (memory_id,)
        ).fetchall()


# ---- tiers --------------------------------------------------------------------------------------


def test_small_document_is_one_chunk_and_tier0(api, stack):
    r = api.post(
        "/v1/documents",
        {
            "content": "# Note\n\nThe €uro sign is three bytes. 日本語も大丈夫。",
            "content_type": "text/markdown; charset=utf-8",
            "tags": ["doc"],
        },
    )
    assert r.status == 201, r.body
    assert r.body["document"] == {
        **r.body["document"],
        "tier": 0,
        "chunks": 1,
        "synopsis": False,
        "content_type": "text/markdown",
    }
    assert r.body["memory"]["document_tier"] == 0 and r.body["memory"]["tags"] == ["doc"]
    again = api.post("/v1/documents", {"content": "# Note\n\nThe €uro sign is three bytes. 日本語も大丈夫。"})
    assert again.status == 200 and again.body["deduplicated"] is True
    assert again.body["memory"]["id"] == r.body["memory"]["id"]


def test_500k_boundary_inline(api, stack):
    below = make_body(T0_MAX, marker="The vault code is HELIOTROPE-4471.", marker_at=0.9)
    r0 = api.post("/v1/documents", {"content": below, "namespace": "tiers"})
    assert r0.status == 201, r0.body
    assert r0.body["document"]["tier"] == 0 and r0.body["document"]["bytes"] == T0_MAX
    assert r0.body["memory"]["content"] == below
    assert r0.body["document"]["chunks"] > 200  # chunked in full, ~2,000 characters each
    assert not _document_rows(stack, r0.body["memory"]["id"])

    above = make_body(T0_MAX + 1, marker="The vault code is HELIOTROPE-9902.", marker_at=0.9)
    r1 = api.post("/v1/documents", {"content": above, "namespace": "tiers"})
    assert r1.status == 201, r1.body
    doc, memory = r1.body["document"], r1.body["memory"]
    assert doc["tier"] == 1 and doc["synopsis"] is True and memory["document_tier"] == 1
    head, _, outline = memory["content"].partition("\n\n--- Outline ---\n")
    assert head == above[: 8 * KIB] and outline.startswith("# Document ")
    assert len(outline.encode()) <= 2 * KIB and "## Section 1" in outline
    chunks = _chunk_texts(stack, memory["id"])
    assert len(chunks) == doc["chunks"] > 200  # from the full body, not the synopsis
    assert any("HELIOTROPE-9902" in c for c in chunks)
    assert all(len(c) <= 2000 for c in chunks)
    assert not _document_rows(stack, memory["id"])  # Tier 1 keeps no body


def test_inline_over_5mib_is_413_pointing_to_uploads_and_writes_nothing(api):
    body = make_body(5 * MIB + 1)
    r = api.post("/v1/documents", {"content": body, "namespace": "too-big"})
    assert r.status == 413, r.body
    assert "/v1/documents/uploads" in r.body["error"]["message"]
    assert r.body["error"]["details"]["limit"] == 5 * MIB
    assert api.get("/v1/memories?namespace=too-big").body["items"] == []


def test_other_content_types_are_415(api):
    r = api.post("/v1/documents", {"content": "<html></html>", "content_type": "text/html"})
    assert r.status == 415 and r.body["error"]["code"] == "unsupported_media_type"
    r = api.post("/v1/documents/uploads", {"size_bytes": 10, "sha256": "0" * 64, "content_type": "application/pdf"})
    assert r.status == 415


def test_8mib_boundary_through_uploads(api, stack, drain_uploads):
    below = make_body(T1_MAX, marker="Deep fact: the lighthouse keeper is named Ottoline Vance.", marker_at=0.85)
    ticket, status = upload(api, drain_uploads, below.encode(), namespace="big", tags=["manual"])
    assert status["status"] == "ready", status
    assert status["document_tier"] == 1
    memory = api.get(f"/v1/memories/{status['memory_id']}").body
    assert memory["tags"] == ["manual"] and memory["namespace"] == "big"
    chunks = _chunk_texts(stack, memory["id"])
    assert len(chunks) > 4000 and any("Ottoline Vance" in c for c in chunks)
    assert not _document_rows(stack, memory["id"])
    assert not _object_exists(stack, f"uploads/{ticket['upload_id']}")

    # recall finds the passage deep inside the Tier-1 body (keyword path: vectors are still pending)
    hit = api.post(
        "/v1/recall", {"query": "who is the lighthouse keeper Ottoline", "namespace": "big", "mode": "keyword"}
    )
    assert hit.status == 200, hit.body
    assert hit.body["results"][0]["memory_id"] == memory["id"]
    assert "Ottoline Vance" in json.dumps(hit.body["results"][0])

    # query-document on Tier 1 reads the chunks
    q = api.post(
        f"/v1/memories/{memory['id']}/query", {"question": "What is the lighthouse keeper named?", "token_budget": 200}
    )
    assert q.status == 200, q.body
    assert q.body["source"] == "chunks" and "Ottoline Vance" in q.body["spans"][0]["text"]
    assert q.body["used_bytes"] <= 800

    above = make_body(T1_MAX + 1, marker="Deep fact: the ferry leaves from pier Quillon at dawn.", marker_at=0.7)
    _, status2 = upload(api, drain_uploads, above.encode(), namespace="big")
    assert status2["status"] == "ready" and status2["document_tier"] == 2
    rows = _document_rows(stack, status2["memory_id"])
    assert rows == [(T1_MAX + 1, "text/markdown", T1_MAX + 1)]
    chunks2 = _chunk_texts(stack, status2["memory_id"])
    assert 1 <= len(chunks2) <= 8  # from the synopsis only
    assert not any("Quillon" in c for c in chunks2)
    q2 = api.post(
        f"/v1/memories/{status2['memory_id']}/query",
        {"question": "Which pier does the ferry leave from?", "token_budget": 100},
    )
    assert q2.body["source"] == "document" and "Quillon" in q2.body["spans"][0]["text"]
    assert q2.body["used_bytes"] <= 400


def test_50mib_boundary_and_oversize(api, stack, drain_uploads):
    exact = make_body(HARD_MAX, marker="Needle: the reactor coolant is argon-7.", marker_at=0.95).encode()
    _, status = upload(api, drain_uploads, exact, namespace="huge")
    assert status["status"] == "ready" and status["document_tier"] == 2, status
    assert _document_rows(stack, status["memory_id"])[0][0] == HARD_MAX
    q = api.post(
        f"/v1/memories/{status['memory_id']}/query",
        {"question": "what is the reactor coolant?", "filter": {"substrings": ["reactor coolant"]}, "token_budget": 64},
    )
    assert q.status == 200 and "argon-7" in q.body["spans"][0]["text"]
    assert q.body["used_bytes"] <= 256

    # declared above 50 MiB: 413, no upload row
    r = api.post("/v1/documents/uploads", {"size_bytes": HARD_MAX + 1, "sha256": "a" * 64, "namespace": "huge"})
    assert r.status == 413 and r.body["error"]["details"]["limit"] == HARD_MAX
    with owner_connection(stack) as conn:
        assert (
            conn.execute("SELECT count(*) FROM document_uploads WHERE declared_bytes > %s", (HARD_MAX,)).fetchone()[0]
            == 0
        )

    # uploaded anyway (a client ignoring the signed length): deleted, never ingested
    oversize = exact + b"!"
    ticket, failed = upload(api, drain_uploads, b"x" * 1000, put=oversize, namespace="huge")
    assert failed["status"] == "failed" and failed["memory_id"] is None
    assert "limited to 52428800" in failed["reason"]
    assert not _object_exists(stack, f"uploads/{stack_tenant(ticket)}")


def stack_tenant(ticket) -> str:
    return ticket["url"].split("/uploads/")[1].split("?")[0]  # <tenant>/<upload_id>


def test_wrong_hash_and_wrong_size_fail_and_are_deleted(api, stack, drain_uploads):
    body = make_body(20_000).encode()
    ticket, status = upload(api, drain_uploads, body, sha=hashlib.sha256(b"something else").hexdigest())
    assert status["status"] == "failed" and "sha256 mismatch" in status["reason"]
    assert not _object_exists(stack, f"uploads/{stack_tenant(ticket)}")
    _, short = upload(api, drain_uploads, body, put=body[:-1])
    assert short["status"] == "failed" and "declared" in short["reason"]
    bad = b"\xff\xfe not utf-8 " * 100
    _, not_text = upload(api, drain_uploads, bad)
    assert not_text["status"] == "failed" and "UTF-8" in not_text["reason"]


def test_duplicate_event_is_a_no_op(api, stack, drain_uploads):
    from engram_local.aws import s3_notification_record
    from engram_local.lambda_runtime import invoke

    body = make_body(30_000).encode()
    ticket, status = upload(api, drain_uploads, body)
    assert status["status"] == "ready"
    key = f"uploads/{stack_tenant(ticket)}"
    event = {"Records": [s3_notification_record(stack.uploads_bucket, key, len(body), "etag")]}
    assert invoke("document_ingest", event)["outcomes"] == ["duplicate"]
    assert api.get(f"/v1/documents/uploads/{ticket['upload_id']}").body["memory_id"] == status["memory_id"]


def _expire(stack, upload_id: str) -> None:
    """Move the upload's URL expiry (and the last notification) an hour into the past."""
    with psycopg.connect(stack.dsn) as owner:
        owner.execute(
            "UPDATE document_uploads SET expires_at = now() - interval '1 hour',"
            " updated_at = now() - interval '1 hour' WHERE id = %s",
            (upload_id,),
        )


def test_an_expired_upload_whose_object_arrived_is_ingested_not_failed(api, stack, drain_uploads):
    body = make_body(20_000).encode()
    ticket = api.post("/v1/documents/uploads", {"size_bytes": len(body), "sha256": hashlib.sha256(body).hexdigest()})
    assert _put(ticket.body["url"], body, ticket.body["headers"]) == 200
    # The notification is lost (a local S3 that died with its queue, a message gone): the object is there.
    sqs = stack.aws.sqs()
    lost = sqs.receive_message(QueueUrl=stack.uploads_queue_url, MaxNumberOfMessages=10).get("Messages", [])
    assert lost
    for m in lost:
        sqs.delete_message(QueueUrl=stack.uploads_queue_url, ReceiptHandle=m["ReceiptHandle"])
    upload_id = ticket.body["upload_id"]
    _expire(stack, upload_id)

    first = api.get(f"/v1/documents/uploads/{upload_id}").body
    assert first["status"] == "pending" and first["reason"] is None  # not "no object arrived"
    again = api.get(f"/v1/documents/uploads/{upload_id}").body  # the notification went once, not per GET
    assert again["status"] == "pending"
    assert drain_uploads() == 1
    ready = api.get(f"/v1/documents/uploads/{upload_id}").body
    assert ready["status"] == "ready" and ready["memory_id"]
    assert not _object_exists(stack, f"uploads/{stack_tenant(ticket.body)}")


def test_an_expired_upload_without_an_object_fails_as_expired(api, stack, drain_uploads):
    ticket = api.post("/v1/documents/uploads", {"size_bytes": 10, "sha256": "0" * 64}).body
    _expire(stack, ticket["upload_id"])
    failed = api.get(f"/v1/documents/uploads/{ticket['upload_id']}").body
    assert failed["status"] == "failed" and failed["reason"].startswith("expired: no object arrived")
    assert drain_uploads() == 0  # nothing was sent


def test_an_expired_upload_under_a_running_ingest_is_answered_and_left_to_it(api, stack):
    ticket = api.post("/v1/documents/uploads", {"size_bytes": 10, "sha256": "0" * 64}).body
    _expire(stack, ticket["upload_id"])
    with psycopg.connect(stack.dsn) as owner:
        owner.execute("SELECT 1 FROM document_uploads WHERE id = %s FOR UPDATE", (ticket["upload_id"],))  # an ingest
        running = api.get(f"/v1/documents/uploads/{ticket['upload_id']}")
        assert running.status == 200 and running.body["status"] == "pending"  # answered, not waiting
        owner.rollback()


# ---- query-document ----------------------------------------------------------------------------


def test_budget_cuts_inside_multibyte_characters(api):
    text = "前置き。" * 50 + "\n\n鍵となる事実、倉庫の暗証番号は七七三一です。" + "🙂🙃" * 400 + "\n\n終わり。"
    r = api.post("/v1/documents", {"content": text, "content_type": "text/plain"})
    mid = r.body["memory"]["id"]
    for budget in (16, 17, 19, 23):
        q = api.post(
            f"/v1/memories/{mid}/query",
            {
                "question": "暗証番号",
                "token_budget": budget,
                "filter": {"substrings": ["暗証番号", "🙂🙃"]},
                "window_chars": 200,
            },
        )
        assert q.status == 200, q.body
        spans = q.body["spans"]
        assert q.body["used_bytes"] <= budget * 4
        assert sum(len(s["text"].encode()) for s in spans) == q.body["used_bytes"]
        assert spans and spans[-1]["truncated"] is True and spans[-1]["text"]
        assert all(s["text"] for s in spans)
        assert budget * 4 - q.body["used_bytes"] < 4  # only the partial character is left unused
        last = spans[-1]
        assert text[last["start"] : last["end"]] == last["text"]


def test_catastrophic_regex_is_refused_or_timed_out(api):
    r = api.post("/v1/documents", {"content": "a" * 50 + "b c " + "a" * 4000 + "b"})
    mid = r.body["memory"]["id"]
    nested = api.post(f"/v1/memories/{mid}/query", {"question": "x", "filter": {"regex": "(a+)+$"}})
    assert nested.status == 422 and "nested quantifier" in nested.body["error"]["message"]
    slow = api.post(f"/v1/memories/{mid}/query", {"question": "x", "filter": {"regex": "(a|aa)*c"}})
    # "longer than" is the regex timeout's own message: the match was cut off, not run to the end.
    assert slow.status == 422 and "longer than" in slow.body["error"]["message"]
    huge = api.post(f"/v1/memories/{mid}/query", {"question": "x", "filter": {"regex": "a{99999999}"}})
    assert huge.status == 422 and huge.body["error"]["details"]["field"] == "filter.regex"
    bad = api.post(f"/v1/memories/{mid}/query", {"question": "x", "filter": {"regex": "(unclosed"}})
    assert bad.status == 422
    ok = api.post(f"/v1/memories/{mid}/query", {"question": "x", "filter": {"regex": r"b c"}})
    assert ok.status == 200 and ok.body["spans"]


def test_spans_are_ranked_by_relevance(api):
    parts = [
        "Intro text about nothing in particular. " * 30,
        "The boiler pressure must stay below 3 bar. " * 2 + "Filler words here. " * 60,
        "Boiler maintenance: the boiler pressure valve is checked monthly, and boiler pressure logs are"
        " kept. " + "More filler text. " * 60,
    ]
    mid = api.post("/v1/documents", {"content": "\n\n".join(parts)}).body["memory"]["id"]
    q = api.post(f"/v1/memories/{mid}/query", {"question": "boiler pressure valve", "window_chars": 300})
    spans = q.body["spans"]
    assert "valve" in spans[0]["text"] and spans[0]["score"] >= spans[-1]["score"]
    assert [s["n"] for s in spans] == list(range(1, len(spans) + 1))
    none = api.post(f"/v1/memories/{mid}/query", {"question": "x", "filter": {"substrings": ["zzz-not-there"]}})
    assert none.body["spans"] == [] and none.body["reason"].startswith("no_spans")


# ---- isolation -----------------------------------------------------------------------------------


def test_documents_and_uploads_are_isolated_between_tenants(api, make_tenant, api_for, stack, drain_uploads):
    other = api_for(make_tenant("tenant-b").key)
    body = make_body(T1_MAX + 10, marker="Secret: the launch phrase is OBSIDIAN HARE.")
    ticket, status = upload(api, drain_uploads, body.encode())
    assert status["status"] == "ready" and status["document_tier"] == 2
    assert other.get(f"/v1/documents/uploads/{ticket['upload_id']}").status == 404
    assert other.post(f"/v1/memories/{status['memory_id']}/query", {"question": "launch phrase"}).status == 404
    hits = other.post("/v1/recall", {"query": "launch phrase OBSIDIAN", "mode": "keyword"}).body["results"]
    assert all(h["memory_id"] != status["memory_id"] for h in hits)
    b_tenant = make_tenant("tenant-c")
    with psycopg.connect(stack.dsn) as conn:  # the database itself hides the rows
        conn.execute("SET ROLE engram_app")
        conn.execute("SELECT set_config('engram.tenant_id', %s, false)", (b_tenant.id,))
        for table in ("documents", "document_uploads", "llm_usage"):
            assert conn.execute(sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table))).fetchone()[0] == 0
    # the body goes with its memory
    with owner_connection(stack) as conn:
        conn.execute("DELETE FROM memories WHERE id = %s", (status["memory_id"],))
    assert _document_rows(stack, status["memory_id"]) == []


# ---- the LLM answer through a fake Messages API ---------------------------------------------------


def fake_anthropic(fail_first: int) -> JsonStandIn:
    """The Messages API, overloaded (529) for the first `fail_first` requests, then answering with citations."""

    def respond(request: Request) -> Reply | dict[str, Any]:
        if len(stand_in.requests) <= fail_first:
            return Reply(529, {"type": "error", "error": {"type": "overloaded_error", "message": "busy"}})
        return message(request.body, "The keeper is Ottoline Vance [1], see also [2][9].", (321, 17))

    stand_in = JsonStandIn(respond)
    return stand_in


@pytest.fixture
def fake_llm(monkeypatch, stack):
    from engram_local.stack import LocalStack

    fake = fake_anthropic(fail_first=1)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.setenv("ENGRAM_ANTHROPIC_BASE_URL", fake.url)
    monkeypatch.setenv("ENGRAM_LLM_BACKOFF_S", "0.01")
    monkeypatch.setenv("ENGRAM_LLM_LEVEL", "auto")
    LocalStack.refresh_settings()
    yield fake
    fake.close()
    monkeypatch.undo()
    LocalStack.refresh_settings()


def test_answer_cites_spans_and_is_logged(api, tenant, stack, fake_llm, monkeypatch):
    body = (
        "Preface. " * 200
        + "\n\nThe lighthouse keeper is named Ottoline Vance. She keeps the lamp.\n\n"
        + "Middle. " * 300
        + "\n\nA second keeper, Bram, relieved Ottoline in winter.\n\n"
        + "End. " * 100
    )
    mid = api.post("/v1/documents", {"content": body}).body["memory"]["id"]
    q = api.post(f"/v1/memories/{mid}/query", {"question": "Who is the lighthouse keeper?", "window_chars": 200})
    assert q.status == 200, q.body
    assert q.body["answer"].startswith("The keeper is Ottoline Vance")
    spans = {s["n"]: s for s in q.body["spans"]}
    assert [c["n"] for c in q.body["citations"]] == [n for n in (1, 2) if n in spans]  # [9] is not a span
    for c in q.body["citations"]:
        assert (c["start"], c["end"]) == (spans[c["n"]]["start"], spans[c["n"]]["end"])
    assert q.body["llm"]["input_tokens"] == 321 and q.body["reason"] is None
    sent = fake_llm.requests[-1]
    auth = {k.lower(): v for k, v in sent.headers.items()}
    assert auth.get("authorization") == "Bearer sk-test" or auth.get("x-api-key") == "sk-test"
    assert sent.path == "/v1/messages" and len(fake_llm.requests) == 2  # 1 retry
    prompt = sent.body["messages"][0]["content"]
    assert "[1]" in prompt and spans[1]["text"] in prompt and "Who is the lighthouse keeper?" in prompt
    with owner_connection(stack) as conn:
        row = conn.execute(
            "SELECT purpose, input_tokens, output_tokens, attempts, ok, latency_ms FROM llm_usage"
            " WHERE tenant_id = %s ORDER BY id DESC LIMIT 1",
            (tenant.id,),
        ).fetchone()
    assert row[:5] == ("query_document", 321, 17, 2, True) and row[5] >= 0

    from engram_local.stack import LocalStack

    monkeypatch.setenv("ENGRAM_LLM_LEVEL", "off")
    LocalStack.refresh_settings()
    off = api.post(f"/v1/memories/{mid}/query", {"question": "Who is the lighthouse keeper?"})
    assert off.body["answer"] is None and off.body["reason"].startswith("llm_disabled")
    assert off.body["spans"] and len(fake_llm.requests) == 2
