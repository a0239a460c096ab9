"""Odd input never becomes a 500 or a row that breaks later reads (issue: hardening).

Each case came from a fuzzing run: it is refused with a 4xx naming the field (nothing written), or
stored in a form every read returns unchanged.
"""

from __future__ import annotations

import base64
import hashlib
import json
import threading
import time
import urllib.request
from typing import Any
from urllib.parse import quote

import psycopg
import pytest

from engram.core.models import METADATA_MAX_DEPTH


def raw_request(key: str, method: str, path: str, body: bytes = b"", headers: dict[str, str] | None = None):
    """Through the API Gateway stand-in with exactly these headers and bytes."""
    from engram_local import gateway

    sent = {"authorization": f"Bearer {key}", **(headers or {})}
    resp = gateway.handle(method, path, sent, body)
    return resp.status, (json.loads(resp.body) if resp.body else None)


def nested(depth: int) -> dict[str, Any]:
    value: dict[str, Any] = {"leaf": 1}
    for _ in range(depth):
        value = {"a": value}
    return value


def assert_field_error(reply, field: str, status: int = 422) -> None:
    assert reply.status == status, reply.body
    assert reply.body["error"]["details"]["field"] == field, reply.body


# ---- 1. rows that poison reads ------------------------------------------------------------------


def test_timestamps_beyond_year_9999_in_utc_are_refused_and_reads_keep_working(api):
    late = "9999-12-31T23:59:59-14:00"  # year 10000 in UTC
    batch = api.post(
        "/v1/memories/batch",
        {"items": [{"content": "poison", "namespace": "ts", "valid_to": late}, {"content": "fine", "namespace": "ts"}]},
    )
    assert batch.status == 200, batch.body
    assert [r["status"] for r in batch.body["results"]] == ["error", "created"]
    assert batch.body["results"][0]["error"]["details"]["field"] == "valid_to"
    assert_field_error(api.post("/v1/memories", {"content": "x", "valid_to": late}), "valid_to")
    assert_field_error(
        api.post("/v1/memories", {"content": "x", "valid_from": "0001-01-01T00:00:00+05:00"}), "valid_from"
    )
    listed = api.get("/v1/memories?namespace=ts")
    assert listed.status == 200 and [m["content"] for m in listed.body["items"]] == ["fine"]


def test_utc_offsets_beyond_14_hours_are_refused_everywhere(api):
    conv = api.post("/v1/conversations", {"title": "t"}).body["id"]
    bad = "2024-01-01T00:00:00+19:23"
    reply = api.post(
        f"/v1/conversations/{conv}/messages", {"messages": [{"role": "user", "content": "hi", "created_at": bad}]}
    )
    assert_field_error(reply, "messages.0.created_at")
    assert_field_error(api.post("/v1/recall", {"query": "x", "since": bad}), "since")
    assert_field_error(api.get(f"/v1/memories?until={quote(bad)}"), "until")
    assert_field_error(api.patch(f"/v1/memories/{_memory(api)}", {"valid_from": bad}), "valid_from")


def test_timestamps_are_stored_in_utc_and_read_back_exactly_as_written(api):
    written = api.post(
        "/v1/memories",
        {
            "content": "timed",
            "valid_from": "2024-03-01T12:00:00+14:00",
            "valid_to": "9999-12-31T23:59:59",
            "importance": 0.1234567,
            "metadata": {"n": [1, 2.5, {"deep": nested(5)}]},
        },
    )
    assert written.status == 201, written.body
    memory = written.body["memory"]
    assert memory["valid_from"] == "2024-02-29T22:00:00Z" and memory["valid_to"] == "9999-12-31T23:59:59Z"
    assert memory["importance"] == 0.123457
    read = api.get(f"/v1/memories/{memory['id']}").body
    assert read == {**memory, "evidence": []}  # a read adds the evidence turns of a derived memory


def test_metadata_nested_too_deep_is_refused_and_nothing_is_written(api):
    for depth in (METADATA_MAX_DEPTH + 1, 300):
        reply = api.post("/v1/memories", {"content": f"deep {depth}", "namespace": "deep", "metadata": nested(depth)})
        assert_field_error(reply, "metadata")
        assert "nested deeper than" in reply.body["error"]["message"]
    too_deep_to_parse = api.post(
        "/v1/memories", raw=b'{"content": "x", "metadata": ' + b'{"a":' * 5000 + b"1" + b"}" * 5001
    )
    assert too_deep_to_parse.status == 400, too_deep_to_parse.body
    assert too_deep_to_parse.body["error"]["details"]["reason"].startswith("nested too deeply")
    batch = api.post(
        "/v1/memories/batch",
        {
            "items": [
                {"content": "d", "namespace": "deep", "metadata": nested(400)},
                {"content": "ok", "namespace": "deep"},
            ]
        },
    )
    assert [r["status"] for r in batch.body["results"]] == ["error", "created"]
    patched = api.patch(f"/v1/memories/{_memory(api)}", {"metadata": nested(600)})
    assert_field_error(patched, "metadata")
    listed = api.get("/v1/memories?namespace=deep")
    assert listed.status == 200 and [m["content"] for m in listed.body["items"]] == ["ok"]


def test_metadata_size_and_message_metadata_are_bounded(api):
    big = {f"k{i}": "x" * 2000 for i in range(40)}  # ~80 KiB
    assert_field_error(api.post("/v1/memories", {"content": "big", "metadata": big}), "metadata")
    conv = api.post("/v1/conversations", {"title": "t"}).body["id"]
    reply = api.post(
        f"/v1/conversations/{conv}/messages", {"messages": [{"role": "user", "content": "hi", "metadata": nested(100)}]}
    )
    assert_field_error(reply, "messages.0.metadata")


# ---- 2. input that reached the database unvalidated ---------------------------------------------


def test_importance_too_small_for_real_is_rounded_to_zero_and_does_not_sink_a_batch(api):
    one = api.post("/v1/memories", {"content": "tiny importance", "importance": 1e-320})
    assert one.status == 201 and one.body["memory"]["importance"] == 0.0
    batch = api.post(
        "/v1/memories/batch", {"items": [{"content": "a1", "importance": 0.7}, {"content": "a2", "importance": 5e-324}]}
    )
    assert [r["status"] for r in batch.body["results"]] == ["created", "created"], batch.body
    doc = api.post("/v1/documents", {"content": "# d\n\nbody", "importance": 2.2e-308})
    assert doc.status == 201 and doc.body["memory"]["importance"] == 0.0


def test_types_are_strict_where_coercion_surprises(api):
    assert_field_error(api.post("/v1/memories", {"content": "x", "importance": False}), "importance")
    assert_field_error(api.post("/v1/memories", {"content": "x", "importance": "0.5"}), "importance")
    assert_field_error(api.post("/v1/recall", {"query": "x", "limit": "10"}), "limit")
    assert_field_error(api.post("/v1/recall", {"query": "x", "limit": 10.5}), "limit")
    assert_field_error(api.post("/v1/recall", {"query": "x", "limit": True}), "limit")
    assert_field_error(api.post("/v1/recall", {"query": "x", "explain": 1}), "explain")
    assert_field_error(api.post("/v1/memories", {"content": "x", "valid_to": 0}), "valid_to")
    assert api.post("/v1/memories", {"content": "int importance", "importance": 1}).status == 201
    # JSON has one number type and JSON Schema's `integer` includes 10.0: an integer field takes it.
    assert api.post("/v1/recall", {"query": "int importance", "limit": 10.0}).status == 200
    assert api.post("/v1/prime", {"task": "int importance", "limit": 3.0, "budget_chars": 2000.0}).status == 200


def test_a_tag_starting_with_whitespace_or_holding_a_line_break_is_refused_as_the_schema_says(api):
    # U+0085 passed JSON Schema's `\\s` but not the server's; U+FEFF the other way round
    for tag in ("\x85x", "\ufeffx", "\u3000x", "\u2028x", "x\u2029y", "a\x85b", "a\x9fb"):
        assert_field_error(api.post("/v1/memories", {"content": "x", "tags": [tag]}), "tags.0")
    assert api.post("/v1/memories", {"content": "x", "tags": ["x y\u00a0z", "été"]}).status == 201


def test_a_number_in_a_timestamp_string_is_refused_not_read_as_unix_seconds(api):
    # lax parsing took "0" as 1970-01-01 and "0.5" as half a second after it, in a query string too
    for number in ("0", "0.5", "-4384", "1e10"):
        assert_field_error(api.post("/v1/memories", {"content": "x", "valid_from": number}), "valid_from")
        assert_field_error(api.post("/v1/recall", {"query": "x", "as_of": number}), "as_of")
        assert_field_error(api.get(f"/v1/memories?until={number}"), "until")
        assert_field_error(api.get(f"/v1/usage?since={number}"), "since")
        assert_field_error(api.get(f"/v1/memories/{_memory(api)}/links?as_of={number}"), "as_of")
    assert api.get("/v1/memories?until=2024-01-01").status == 200  # a date alone is still its midnight, UTC
    assert api.get("/v1/memories?since=0001-01-01T00:00:00Z").status == 200


def test_nul_in_query_parameters_and_headers_is_refused_naming_it(api, tenant):
    assert_field_error(api.get("/v1/memories?namespace=%00"), "namespace")
    assert_field_error(api.get("/v1/memories?tag=a%00b"), "tag.0")
    assert_field_error(api.get("/v1/conversations?agent_id=a%00"), "agent_id")
    assert_field_error(api.get("/v1/trash?cursor=%00"), "cursor")
    conv = api.post("/v1/conversations", {"title": "t"}).body["id"]
    status, body = raw_request(
        tenant.key,
        "POST",
        f"/v1/conversations/{conv}/messages",
        json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode(),
        {"content-type": "application/json", "idempotency-key": "k\x00"},
    )
    assert status == 422 and body["error"]["details"]["field"] == "idempotency-key", body
    assert api.get(f"/v1/conversations/{conv}/messages").body["items"] == []


MCP_HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}


def _rpc(key: str, message: Any) -> tuple[int, Any]:
    raw = message if isinstance(message, bytes) else json.dumps(message).encode()
    return raw_request(key, "POST", "/mcp", raw, MCP_HEADERS)


def test_mcp_tool_errors_name_the_argument_over_the_endpoint(tenant):
    call = {"jsonrpc": "2.0", "id": 7, "method": "tools/call"}
    for name, arguments, field in (
        ("recall", {"query": "a\x00b"}, "query"),
        ("recall", {"query": "x", "limit": 0}, "limit"),
        ("store_memory", {"content": "x", "tags": ["a\x00"]}, "tags.0"),
        ("update_memory", {"memory_id": "00000000-0000-0000-0000-000000000001"}, "arguments"),
        ("get_memory", {"memory_id": "not-a-uuid"}, "memory_id"),
    ):
        status, body = _rpc(tenant.key, {**call, "params": {"name": name, "arguments": arguments}})
        assert status == 200 and body["id"] == 7 and body["result"]["isError"], body
        error = body["result"]["structuredContent"]["error"]
        assert error["code"] == "invalid_field" and error["details"]["field"] == field, (name, error)
        assert error["message"].startswith(f"{field}: "), error


@pytest.mark.parametrize(
    "message",
    [
        b"{",
        b"[]",
        b'[{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}]',
        b'{"jsonrpc": "2.0", "id": 1}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "no/such/method"}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "recall", "arguments": []}}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "recall", "arguments": {"query": '
        b'"\\ud800"}}}',
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "no_such_tool", "arguments": {}}}',
        b"[" * 10_000 + b"]" * 10_000,
    ],
)
def test_malformed_json_rpc_is_answered_with_a_json_rpc_error_never_a_500(tenant, message):
    status, body = _rpc(tenant.key, message)
    assert status < 500, body
    assert body["jsonrpc"] == "2.0" and ("error" in body or body["result"]["isError"]), body


@pytest.mark.parametrize("request_id", [{"n": 1}, [1], None, 1.5, True])
def test_a_json_rpc_request_whose_id_is_not_a_string_or_integer_is_invalid_and_does_nothing(api, tenant, request_id):
    # the SDK took it for a notification: 202, no answer, and the call ran
    store = {"name": "store_memory", "arguments": {"content": "sent with a bad id", "namespace": "rpc-id"}}
    message = {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": store}
    status, body = _rpc(tenant.key, message)
    assert status == 400 and body["error"]["code"] == -32600 and body["id"] is None, body
    assert "id must be a string or an integer" in body["error"]["message"]
    assert api.get("/v1/memories?namespace=rpc-id").body["items"] == []
    status, body = _rpc(tenant.key, {**message, "id": "ok"})
    assert status == 200 and body["id"] == "ok" and not body["result"]["isError"], body


def test_a_message_that_is_not_json_rpc_is_an_invalid_request(tenant):
    for message, reason in (
        ([{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}], "one JSON object"),
        ({"jsonrpc": "1.0", "id": 1, "method": "tools/list"}, "jsonrpc"),
        ({"id": 1, "method": "tools/list"}, "jsonrpc"),
    ):
        status, body = _rpc(tenant.key, message)
        assert status == 400 and body["error"]["code"] == -32600 and reason in body["error"]["message"], body


def test_a_key_that_is_not_ascii_is_401_not_500(tenant):
    # the authorizer hashed the key's UTF-8: a lone surrogate in the header's text could not be encoded
    for key in ("egk_\ud800", "egk_é", tenant.key + "\udfff"):
        status, body = raw_request(key, "GET", "/v1/memories")
        assert status == 401 and body["error"]["code"] == "unauthorized", (key, body)


def test_patch_content_null_is_422_naming_content(api):
    memory_id = _memory(api)
    assert_field_error(api.patch(f"/v1/memories/{memory_id}", {}), "body")  # nothing to change
    for field in ("content", "kind", "importance", "tags", "metadata"):
        assert_field_error(api.patch(f"/v1/memories/{memory_id}", {field: None}), field)
    cleared = api.patch(f"/v1/memories/{memory_id}", {"source": None, "valid_to": None})
    assert cleared.status == 200 and cleared.body["source"] is None


# ---- 3. protocol errors -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content_type", "body", "status"),
    [
        ("application/json", b"\xff\xfe{}", 400),
        ("application/json", b'{"content": "\xe0m"}', 400),
        ("application/json", b'{"content": "x", "importance": NaN}', 400),
        ("application/json", b'{"content": "x", "importance": 1e999}', 400),
        ("text/plain", b'{"content": "x"}', 415),
        ("multipart/form-data", b'{"content": "x"}', 415),
        ("application/x-www-form-urlencoded", b'{"content": "x"}', 415),
        ("application/json; charset", b'{"content": "x"}', 415),
        ("application/json; charset=latin-1", b'{"content": "x"}', 415),
        ("application json", b'{"content": "x"}', 415),
    ],
)
def test_bodies_that_are_not_utf8_json_are_4xx(tenant, content_type, body, status):
    got, reply = raw_request(tenant.key, "POST", "/v1/memories", body, {"content-type": content_type})
    assert got == status, reply
    assert reply["error"]["code"] in ("malformed_json", "malformed_body", "unsupported_media_type")


def test_json_with_charset_and_without_content_type_is_accepted(tenant):
    for headers in ({"content-type": "Application/JSON; charset=UTF-8"}, {}):
        got, reply = raw_request(
            tenant.key, "POST", "/v1/memories", json.dumps({"content": f"ct {headers}"}).encode(), headers
        )
        assert got == 201, reply


def test_non_utf8_body_arriving_base64_encoded_is_400():
    from engram_http.protocol import BodyRefused, check_request

    event = {
        "body": base64.b64encode(b"\x99u\x0cz").decode(),
        "isBase64Encoded": True,
        "headers": {"content-type": "application/json"},
    }
    with pytest.raises(BodyRefused) as refused:
        check_request(event)
    assert refused.value.status == 400 and refused.value.details == {"byte_offset": 0}


# ---- 4. PATCH racing DELETE ---------------------------------------------------------------------


def test_patch_racing_delete_is_404_not_500(api, stack):
    """The PATCH reads the memory, then its UPDATE waits on a row lock while the memory is deleted."""
    memory_id = _memory(api)
    replies: list[Any] = []
    with psycopg.connect(stack.dsn) as locker:
        locker.execute("SELECT 1 FROM memories WHERE id = %s FOR UPDATE", (memory_id,))
        patcher = threading.Thread(
            target=lambda: replies.append(api.patch(f"/v1/memories/{memory_id}", {"content": "changed while deleted"}))
        )
        patcher.start()
        with psycopg.connect(stack.dsn, autocommit=True) as watcher:  # wait until the UPDATE is blocked
            deadline = time.monotonic() + 30
            while not watcher.execute(
                "SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE memories%%'"
            ).fetchone():
                assert time.monotonic() < deadline, "the PATCH never reached its UPDATE"
                time.sleep(0.02)
        locker.execute("UPDATE memories SET status = 'deleted', deleted_at = now() WHERE id = %s", (memory_id,))
        locker.commit()
        patcher.join(30)
    assert replies and replies[0].status == 404, replies and replies[0].body


# ---- uploads: bad data ends the upload, it is never retried forever -----------------------------


def _upload_ticket(api, body: bytes, **opts):
    ticket = api.post(
        "/v1/documents/uploads", {"size_bytes": len(body), "sha256": hashlib.sha256(body).hexdigest(), **opts}
    )
    assert ticket.status == 201, ticket.body
    return ticket.body


def _put(ticket, body: bytes) -> None:
    req = urllib.request.Request(ticket["url"], data=body, method="PUT", headers=ticket["headers"])
    with urllib.request.urlopen(req, timeout=60) as resp:
        assert resp.status == 200


def test_upload_with_importance_too_small_for_real_is_ingested(api, drain_uploads):
    body = b"# tiny\n\nan uploaded note"
    ticket = _upload_ticket(api, body, importance=1e-320)
    _put(ticket, body)
    drain_uploads()
    status = api.get(f"/v1/documents/uploads/{ticket['upload_id']}").body
    assert status["status"] == "ready", status
    assert api.get(f"/v1/memories/{status['memory_id']}").body["importance"] == 0.0


def test_upload_with_a_nul_character_fails_naming_it(api, drain_uploads):
    # valid UTF-8 that PostgreSQL text cannot hold: it failed in the database ("could not be stored: None")
    body = b"# nul\n\nbefore\x00after"
    ticket = _upload_ticket(api, body)
    _put(ticket, body)
    drain_uploads()
    status = api.get(f"/v1/documents/uploads/{ticket['upload_id']}").body
    assert status["status"] == "failed", status
    assert status["reason"] == "the object must not contain NUL (\\u0000) characters (byte 13)", status
    assert api.get("/v1/memories").body["items"] == []


def test_upload_whose_stored_options_no_longer_validate_fails_with_a_reason_and_is_deleted(api, stack, drain_uploads):
    body = b"# old\n\noptions written by an earlier version"
    ticket = _upload_ticket(api, body)
    with psycopg.connect(stack.dsn, autocommit=True) as owner:  # as an earlier, laxer version stored them
        owner.execute(
            "UPDATE document_uploads SET params = params || %s::jsonb WHERE id = %s",
            (json.dumps({"metadata": nested(METADATA_MAX_DEPTH + 5)}), ticket["upload_id"]),
        )
    _put(ticket, body)
    drain_uploads()
    status = api.get(f"/v1/documents/uploads/{ticket['upload_id']}").body
    assert status["status"] == "failed" and "metadata" in status["reason"], status
    prefix = ticket["url"].split("?")[0].split(f"/{stack.uploads_bucket}/")[-1]
    listed = stack.aws.s3().list_objects_v2(Bucket=stack.uploads_bucket, Prefix=prefix)
    assert listed.get("KeyCount", 0) == 0


def _memory(api) -> str:
    created = api.post("/v1/memories", {"content": f"a memory {time.monotonic_ns()}"})
    assert created.status == 201, created.body
    return created.body["memory"]["id"]


def test_a_forged_cursor_with_an_odd_timestamp_is_422(api):
    for created in ("2024-01-01T00:00:00+19:23", "0001-01-01T00:00:00+05:00"):
        cursor = base64.urlsafe_b64encode(f"{created}|{'0' * 8}-0000-0000-0000-{'0' * 12}".encode()).decode()
        assert_field_error(api.get(f"/v1/memories?cursor={cursor}"), "cursor")
