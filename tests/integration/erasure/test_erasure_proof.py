"""The proof of an erasure: a unique marker is stored and copied everywhere the product copies text
(a PATCH's version, an idempotent create's stored answer, a consolidation merge, a distillation and a
topic tree named by the LLM, a rebuild's before-image, an export file, a conversation turn, a Tier 2
document), the subject is erased, and then no text, json, jsonb or text[] column of any table, and no
object of the local S3 bucket, holds the marker; recall, history, topics, a new export and undo never
bring it back. The LLM is faked at the HTTP boundary."""

from __future__ import annotations

import json
import random
import re
import string
import uuid
from collections.abc import Callable
from typing import Any
from uuid import UUID

from tests.support.document_bodies import make_body
from tests.support.fake_distiller import GROUPS, OTHERS, PAYMENTS, FakeDistiller
from tests.support.marker_search import hits, s3_hits


def _run(api: Any, stack: Any, tenant_id: str, namespace: str, steps: list[str]) -> dict[str, Any]:
    from engram.consolidation import service

    reply = api.post("/v1/consolidate", {"namespace": namespace, "steps": steps})
    assert reply.status == 202, reply.body
    assert service.run_cycle(stack.dsn, UUID(tenant_id), UUID(reply.body["id"]), time_budget_s=600).status == "done"
    run = api.get(f"/v1/consolidation-runs/{reply.body['id']}?limit=200").body
    assert run["status"] == "done", run
    return dict(run)


def _write(api: Any, namespace: str, content: str, **extra: Any) -> str:
    reply = api.post("/v1/memories", {"namespace": namespace, "content": content, **extra})
    assert reply.status == 201, reply.body
    return str(reply.body["memory"]["id"])


STAGING = "The staging database is db-stage-01 in eu-west-1, ask {mark} first."
TWIN = "The staging database is db-stage-01 in eu-west-1 region."


def _marker_whose_memory_merges_with_its_twin() -> str:
    """A random marker, letters only (a token with a digit is a "specific", and two texts with different
    ones never merge), drawn until the embedder finds the memory holding it a near-duplicate of its twin.
    The marker's word pieces move the pair's cosine: about 1 draw in 75 fell below the dedupe threshold,
    and the merge this test erases never happened."""
    import numpy as np

    from engram.adapters.embeddings.local import LocalEmbedder
    from engram.consolidation.similarity import CALIBRATED

    embedder = LocalEmbedder()
    least = CALIBRATED[embedder.model_id]["dedupe_cosine"] + 0.02
    for _ in range(200):  # ~1 draw in 75 misses: 200 misses in a row means the embedder changed
        mark = "zq" + "".join(random.choice(string.ascii_lowercase) for _ in range(12))
        memory, twin = (np.array(v) for v in embedder.embed([STAGING.format(mark=mark), TWIN]))
        if float(memory @ twin / np.linalg.norm(memory) / np.linalg.norm(twin)) >= least:
            return mark
    raise AssertionError(f"no marker in 200 draws made the memory a near-duplicate of its twin (cosine >= {least})")


def test_an_erased_subject_leaves_no_copy_anywhere(
    make_tenant, api_for, stack, drain, settings_env, fake_messages: Callable[..., Any]
):
    tenant = make_tenant("proof")
    api = api_for(tenant.key)
    mark = _marker_whose_memory_merges_with_its_twin()
    subject = {"user_id": f"u-{uuid.uuid4().hex[:8]}"}

    # The distillation's facts: one of them holds the marker and belongs to the subject.
    marked_db = f"The payments service database is pay-db-03 running PostgreSQL 16 in eu-west-1, ask {mark}."
    payments = [(f, marked_db if t == PAYMENTS[2][1] else t) for f, t in PAYMENTS]
    distiller = FakeDistiller(fake_messages, {t: (f, GROUPS[f]) for f, t in payments})
    merged = f"The staging database is db-stage-01 in eu-west-1; ask {mark} before changing it."

    def answer(body: dict[str, Any]) -> str:
        system, prompt = body.get("system") or "", body["messages"][0]["content"]
        if system.startswith("You condense"):
            return distiller.answer(body)
        if "near-duplicate" in system:
            return json.dumps({"merge": True, "content": merged})
        if system.startswith("You name topic"):  # a name that repeats the marker when a sample says it
            blocks = re.split(r"(?m)^(?=\[t\d+\])", prompt)
            ids = [(m[1], mark in b) for b in blocks if (m := re.match(r"\[(t\d+)\]", b))]
            return json.dumps({t: f"About {mark} {t}" if marked else f"Topic {t}" for t, marked in ids})
        if "same topic" in system:
            return json.dumps({"decision": "keep_both"})
        return '{"decision": "reject"}'

    llm = fake_messages(answer, (100, 20))
    settings_env(
        ANTHROPIC_API_KEY="sk-test",
        ENGRAM_ANTHROPIC_BASE_URL=llm.url,
        ENGRAM_LLM_LEVEL="full",  # topic names from the LLM too
        ENGRAM_LLM_BACKOFF_S="0.01",
        ENGRAM_DOCUMENT_TIER0_MAX_BYTES=str(16 * 1024),
        ENGRAM_DOCUMENT_TIER1_MAX_BYTES=str(64 * 1024),
    )

    # An idempotent create (its answer is stored) of the memory, then a PATCH (a version keeps the old text).
    created = api.post(
        "/v1/memories",
        {
            "namespace": "ops",
            "content": f"The staging database is db-stage-01 in eu-west-1, ask {mark}.",
            "importance": 0.7,
            "metadata": subject,
        },
        headers={"idempotency-key": f"create-{mark}"},
    )
    assert created.status == 201, created.body
    memory_id = created.body["memory"]["id"]
    patched = STAGING.format(mark=mark)
    assert api.patch(f"/v1/memories/{memory_id}", {"content": patched}).status == 200
    twin = _write(api, "ops", TWIN, importance=0.4)
    for _fact, text in payments:
        _write(api, "kb", text, tags=["ops"], metadata=subject if text == marked_db else {})
    for text in OTHERS:
        _write(api, "kb", text, tags=["ops"])
    doc = api.post("/v1/documents", {"content": make_body(150_000, mark), "namespace": "docs", "metadata": subject})
    assert doc.status == 201 and doc.body["document"]["tier"] == 2, doc.body
    conversation = api.post("/v1/conversations", {"namespace": "chat", "metadata": subject}).body["id"]
    turns = [{"role": "user", "content": f"remember {mark} for me"}, {"role": "assistant", "content": "I will."}]
    assert api.post(f"/v1/conversations/{conversation}/messages", {"messages": turns}).status in (200, 201)
    drain()

    dedupe = _run(api, stack, tenant.id, "ops", ["dedupe"])  # the LLM merges the twin and the memory
    assert [a for a in dedupe["actions"]["items"] if a["action"] == "merge" and a["applied"]], dedupe
    # The merged memory is the namespace's one live memory: a leaf the LLM names from it, the marker in
    # the name; the second rebuild keeps that tree as its before-image.
    drain()  # the merged text's chunks get their vectors
    ops_trees = [_run(api, stack, tenant.id, "ops", ["topics"]) for _ in range(2)]
    first_tree = _run(api, stack, tenant.id, "kb", ["topics"])
    distill = _run(api, stack, tenant.id, "kb", ["distill"])
    assert [a for a in distill["actions"]["items"] if a["action"] == "distill"]
    drain()
    # This rebuild's before-image keeps the first tree, whose leaf the LLM named from samples that may
    # hold the marker, as the distillation's reason and links quote it.
    second_tree = _run(api, stack, tenant.id, "kb", ["topics"])
    drain()
    export = api.post("/v1/exports", {})
    stack.export_poller.drain()
    assert api.get(f"/v1/exports/{export.body['id']}").body["status"] == "ready"

    before = hits(stack, mark)
    for copy in (
        "memories.content",
        "memory_versions.content",
        "chunks.text",
        "idempotency_keys.answer",
        "consolidation_actions.before_image",
        "topics.name",
        "messages.content",
        "documents.body",
        "document_pages.text",
    ):
        assert copy in before, (copy, before)
    assert s3_hits(stack, mark)  # the export file
    seen = api.post("/v1/recall", {"query": mark, "namespace": "ops", "touch": False})
    assert mark in json.dumps(seen.body)  # recall finds it before

    reply = api.post("/v1/erasures", {"selector": {"metadata": subject}})
    assert reply.status == 202, reply.body
    erasure = reply.body
    assert erasure["counts"]["derived"] >= 1  # the distilled memory (and the merged twin, if it survived)
    assert hits(stack, mark) == [] and s3_hits(stack, mark) == []
    assert mark not in json.dumps(erasure)

    # Nothing reads it back: recall, history, topics, a new export, undo.
    for namespace in ("ops", "kb", "docs", "chat"):
        found = api.post("/v1/recall", {"query": mark, "namespace": namespace, "touch": False})
        assert found.status == 200 and mark not in json.dumps(found.body)
        assert mark not in json.dumps(api.get(f"/v1/topics?namespace={namespace}").body)
    assert api.get(f"/v1/memories/{memory_id}/history").status == 404
    assert api.get(f"/v1/memories/{twin}/history").status in (200, 404)
    assert mark not in json.dumps(api.get(f"/v1/memories/{twin}/history").body)
    fresh = api.post("/v1/exports", {})
    stack.export_poller.drain()
    assert api.get(f"/v1/exports/{fresh.body['id']}").body["status"] == "ready"
    assert s3_hits(stack, mark) == []
    for run in (second_tree, distill, first_tree, *reversed(ops_trees), dedupe):  # the latest first
        undone = api.post(f"/v1/consolidation-runs/{run['id']}/undo")
        assert undone.status == 200, undone.body
        assert mark not in json.dumps(undone.body)
    assert api.get(f"/v1/consolidation-runs/{distill['id']}").body["erased_memories"]
    assert hits(stack, mark) == []
