"""Recall through the API on real Postgres + pgvector: meaning, keyword, filters, budget, degraded."""

from __future__ import annotations

import pytest

NOTES = [
    ("The production database runs PostgreSQL 16 on Aurora Serverless.", ["infra"], "semantic"),
    ("Maria prefers her coffee black with no sugar.", ["people"], "semantic"),
    ("We rotate the on-call pager every Monday at 09:00 UTC.", ["process"], "procedural"),
    ("The billing service crashed because of error code ZX-9931 in the invoice parser.", ["incident"], "episodic"),
    ("Our cat Biscuit is afraid of the vacuum cleaner.", ["people"], "semantic"),
    ("Deploys are frozen during the last week of December.", ["process"], "procedural"),
]


@pytest.fixture
def notes(api, drain):
    ids = []
    for text, tags, kind in NOTES:
        r = api.post("/v1/memories", {"content": text, "tags": tags, "kind": kind, "namespace": "kb"})
        assert r.status == 201
        ids.append(r.body["memory"]["id"])
    drain()
    return ids


def top(api, **body):
    r = api.post("/v1/recall", {"namespace": "kb", **body})
    assert r.status == 200, r.body
    return r.body


def test_finds_by_paraphrase(api, notes):
    body = top(api, query="how does Maria like her hot drink?", mode="vector")
    assert body["results"][0]["memory_id"] == notes[1]
    assert body["degraded"] == []
    hybrid = top(api, query="which pet is scared of cleaning machines?")
    assert hybrid["results"][0]["memory_id"] == notes[4]


def test_finds_by_exact_keyword(api, notes):
    body = top(api, query="ZX-9931", mode="keyword")
    assert body["results"][0]["memory_id"] == notes[3]
    hybrid = top(api, query="ZX-9931")
    assert hybrid["results"][0]["memory_id"] == notes[3]


def test_filters_by_tags_and_kinds(api, notes):
    # hybrid: every memory with a vector is a candidate, so a filter leaves exactly its matches
    body = top(api, query="weekly schedule", tags=["process"], limit=10)
    assert {h["memory_id"] for h in body["results"]} == {notes[2], notes[5]}
    body = top(api, query="database", kinds=["episodic"], limit=10)
    assert [h["memory_id"] for h in body["results"]] == [notes[3]]
    body = top(api, query="who likes what", tags=["people"], kinds=["semantic"], limit=10)
    assert {h["memory_id"] for h in body["results"]} == {notes[1], notes[4]}
    elsewhere = api.post("/v1/recall", {"query": "database", "namespaces": ["elsewhere", "nowhere"]})
    assert elsewhere.status == 200 and elsewhere.body["results"] == []


@pytest.mark.parametrize("read", ["exact scan", "shared indexes"])
def test_a_namespace_and_tag_filter_keeps_the_rows_in_a_named_namespace_holding_every_tag(
    api, drain, settings_env, read
):
    """Namespaces and tags together are found by their (namespace, tag) keys (migration 0060): a row
    holding one of two tags, a namespace not named, and a namespace and tag that spell the same
    characters split elsewhere ("ab" + "c" against "a" + "bc") are all left out. Both ways a recall
    reads: the scope's rows scored exactly, and the graph walk with the text index (the keys on the
    keyword side only). Each place holds two notes without the query's words, so a query word found
    in a place is in fewer of its rows than it holds and keeps its weight."""
    if read == "shared indexes":
        settings_env(ENGRAM_RECALL_EXACT_SCAN_MAX_ROWS="0", ENGRAM_RECALL_EXACT_SCAN_SPARSE_ROWS="0")
    placed = {
        ("a", ("x", "y")): "alpha holds both marks",
        ("b", ("x", "y", "z")): "beta holds both marks and one more",
        ("a", ("x",)): "alpha holds one mark",
        ("c", ("x", "y")): "gamma holds both marks elsewhere",
        ("ab", ("c",)): "the spelling ab then c",
        ("a", ("bc",)): "the spelling a then bc",
    }
    ids: dict[tuple[str, tuple[str, ...]], set[str]] = {}
    for (namespace, tags), text in placed.items():
        for content in (text, f"{namespace} {' '.join(tags)} filler one", f"{namespace} {' '.join(tags)} filler two"):
            r = api.post("/v1/memories", {"content": content, "tags": list(tags), "namespace": namespace})
            assert r.status == 201, r.body
            ids.setdefault((namespace, tags), set()).add(r.body["memory"]["id"])
    drain()

    def found(**filters: object) -> set[str]:
        r = api.post("/v1/recall", {"query": "marks spelling", "limit": 30, "touch": False, **filters})
        assert r.status == 200, r.body
        return {h["memory_id"] for h in r.body["results"]}

    both = ids["a", ("x", "y")] | ids["b", ("x", "y", "z")]
    assert found(namespaces=["a", "b"], tags=["x", "y"]) == both
    assert found(namespaces=["a", "b"], tags=["x"]) == both | ids["a", ("x",)]
    assert found(namespace="a", tags=["y", "x"]) == ids["a", ("x", "y")]
    assert found(namespace="a", tags=["bc"]) == ids["a", ("bc",)]
    assert found(namespace="ab", tags=["c"]) == ids["ab", ("c",)]
    assert found(namespace="a", tags=["x", "missing"]) == set()


def test_budget_chars_is_a_hard_limit_and_explain_gives_parts(api, notes):
    body = top(api, query="database coffee pager deploys cat billing", budget_chars=150, explain=True, limit=6)
    assert body["used_chars"] <= 150
    assert sum(len(h["chunk"]["text"]) for h in body["results"]) == body["used_chars"]
    parts = body["results"][0]["explain"]
    assert set(parts) == {"vector", "keyword", "recency", "importance", "fused", "rewrites", "rerank", "feedback"}


def test_recall_touches_access_count_unless_told_not_to(api, notes):
    top(api, query="Biscuit the cat", limit=1)
    assert api.get(f"/v1/memories/{notes[4]}").body["access_count"] == 1
    top(api, query="Biscuit the cat", limit=1, touch=False)
    assert api.get(f"/v1/memories/{notes[4]}").body["access_count"] == 1


def test_deleted_memories_are_not_recalled(api, notes):
    api.delete(f"/v1/memories/{notes[3]}")
    body = top(api, query="ZX-9931 invoice parser crash")
    assert notes[3] not in [h["memory_id"] for h in body["results"]]


def test_pending_vectors_still_answer_by_keyword_and_say_so(api):
    api.post("/v1/memories", {"content": "The quokka mascot is named Quentin.", "namespace": "fresh"})
    body = api.post("/v1/recall", {"query": "quokka mascot", "namespace": "fresh"}).body
    assert body["results"][0]["chunk"]["text"] == "The quokka mascot is named Quentin."
    assert any(d.startswith("vectors_pending") for d in body["degraded"])


@pytest.mark.parametrize("mode", ["keyword", "hybrid"])
def test_keyword_ranks_are_the_same_read_from_the_text_index_or_the_scope(api, notes, settings_env, mode):
    """A small scope's keyword side reads its rows by index and matches each; a big one's walks the
    table-wide text index. Same rows, same words: the same ranks, the pending row found both ways."""
    api.post("/v1/memories", {"content": "The billing pager rotates on Monday.", "namespace": "kb"})
    query = {"query": "billing pager coffee Monday error", "mode": mode, "explain": True, "touch": False}

    def ranked() -> list[tuple[str, float | None]]:
        body = top(api, **query)
        return [(h["chunk"]["text"], h["explain"]["keyword"]) for h in body["results"]]

    from_scope = ranked()
    settings_env(ENGRAM_RECALL_EXACT_SCAN_MAX_ROWS="0")  # always the shared indexes
    from_index = ranked()
    assert from_scope == from_index
    assert "The billing pager rotates on Monday." in [text for text, _ in from_scope]
    assert sum(kw is not None and kw > 0 for _, kw in from_scope) >= 4


def test_a_budget_without_a_limit_is_filled(api, drain):
    """budget_chars asks for that much context: without a limit, as many results as fit (up to 100),
    not the ten a bare recall gets; a limit given with it still holds."""
    for i in range(30):
        api.post(
            "/v1/memories", {"content": f"Harbour log {i}: the ferry to island {i} left on time.", "namespace": "log"}
        )
    drain()
    query = {"query": "ferry harbour log", "namespace": "log", "touch": False}
    assert len(api.post("/v1/recall", query).body["results"]) == 10
    budgeted = api.post("/v1/recall", {**query, "budget_chars": 4000}).body
    assert len(budgeted["results"]) == 30 and budgeted["used_chars"] <= 4000
    tight = api.post("/v1/recall", {**query, "budget_chars": 500}).body
    assert 5 <= len(tight["results"]) < 30 and tight["used_chars"] <= 500
    limited = api.post("/v1/recall", {**query, "budget_chars": 4000, "limit": 7}).body
    assert len(limited["results"]) == 7


def test_embedder_down_degrades_to_keyword(api, notes, monkeypatch):
    from engram.adapters.embeddings import factory

    class Broken:
        model_id, dimension = "all-minilm-l6-v2-int8", 384

        def embed(self, texts):
            raise ConnectionError("model service down")

    monkeypatch.setattr(factory, "embedder_from_env", lambda: Broken())
    from engram_http.routes import recall as recall_route

    monkeypatch.setattr(recall_route, "embedder_from_env", lambda: Broken())
    body = top(api, query="ZX-9931")
    assert body["results"][0]["memory_id"] == notes[3]
    assert any(d.startswith("vector_search_unavailable") for d in body["degraded"])


def test_recall_validation(api):
    assert api.post("/v1/recall", {"query": ""}).status == 422
    blank = api.post("/v1/recall", {"query": " \n\t "})
    assert blank.status == 422 and blank.body["error"]["details"]["fields"][0]["field"] == "query"
    r = api.post("/v1/recall", {"query": "x", "limit": 1000})
    assert r.status == 422 and r.body["error"]["details"]["fields"][0]["field"] == "limit"
    assert api.post("/v1/recall", {"query": "x", "mode": "psychic"}).status == 422


def test_min_score_drops_the_filler(api, notes):
    everything = top(api, query="ZX-9931 invoice parser", limit=6)["results"]
    assert len(everything) == 6  # without a floor, unrelated notes fill the list
    best = everything[0]["score"]
    floored = top(api, query="ZX-9931 invoice parser", limit=6, min_score=best * 0.9)["results"]
    assert [h["memory_id"] for h in floored] == [notes[3]]


def test_memories_past_their_validity_are_history(api, drain):
    old = api.post(
        "/v1/memories",
        {"content": "The VPN gateway address is 10.0.0.1.", "namespace": "valid", "valid_to": "2025-01-01T00:00:00Z"},
    ).body["memory"]["id"]
    new = api.post("/v1/memories", {"content": "The VPN gateway address is 10.9.9.9.", "namespace": "valid"}).body[
        "memory"
    ]["id"]
    drain()
    current = api.post("/v1/recall", {"query": "VPN gateway address", "namespace": "valid"}).body
    assert [h["memory_id"] for h in current["results"]] == [new]
    history = api.post(
        "/v1/recall", {"query": "VPN gateway address", "namespace": "valid", "include_expired": True}
    ).body
    assert {h["memory_id"] for h in history["results"]} == {old, new}


def test_the_layers_filter_finds_matches_below_the_candidate_cut(api, stack):
    import psycopg

    # more buffer memories matching both words than recall takes candidates (40 at limit 1), and one
    # core memory matching one word: the core one ranks below every buffer one
    for i in range(45):
        r = api.post("/v1/memories", {"content": f"quartz lantern quartz lantern note {i}", "namespace": "layers"})
        assert r.status == 201, r.body
    core = api.post("/v1/memories", {"content": "a single quartz for the core layer", "namespace": "layers"})
    core_id = core.body["memory"]["id"]
    with psycopg.connect(stack.dsn, autocommit=True) as conn:
        conn.execute("UPDATE memories SET layer = 'core' WHERE id = %s", (core_id,))
    body = top(api, namespace="layers", query="quartz lantern", mode="keyword", layers=["core"], limit=1)
    assert [h["memory_id"] for h in body["results"]] == [core_id]
    body = top(api, namespace="layers", query="quartz lantern", mode="keyword", layers=["buffer"], limit=50)
    assert len(body["results"]) == 45 and core_id not in {h["memory_id"] for h in body["results"]}


def test_a_memory_not_valid_yet_is_left_out_unless_as_of_reaches_it(api):
    from datetime import UTC, datetime, timedelta

    later = (datetime.now(UTC) + timedelta(days=5)).isoformat()
    future = api.post(
        "/v1/memories",
        {"content": "From next week the standup moves to 10:30.", "namespace": "future", "valid_from": later},
    ).body["memory"]
    body = top(api, namespace="future", query="standup moves", mode="keyword")
    assert body["results"] == []
    at = (datetime.now(UTC) + timedelta(days=6)).isoformat()
    body = top(api, namespace="future", query="standup moves", mode="keyword", as_of=at)
    assert [h["memory_id"] for h in body["results"]] == [future["id"]]
    # include_expired lets in what has ended, never what has not begun
    body = top(api, namespace="future", query="standup moves", mode="keyword", include_expired=True)
    assert body["results"] == []


def test_importance_reads_back_as_written_after_the_recall_boost(api):
    memory = api.post(
        "/v1/memories", {"content": "The kiln fires at 1240 degrees.", "namespace": "kiln", "importance": 0.53}
    )
    memory_id = memory.body["memory"]["id"]
    top(api, namespace="kiln", query="kiln fires", mode="keyword")  # touch: +0.03 in the database (`real`)
    assert api.get(f"/v1/memories/{memory_id}").body["importance"] == 0.56
    hit = top(api, namespace="kiln", query="kiln fires", mode="keyword", touch=False)["results"][0]
    assert hit["importance"] == 0.56
    listed = api.get("/v1/memories?namespace=kiln").body["items"]
    assert [m["importance"] for m in listed] == [0.56]
