-- Recall's vector search picks its strategy per query from how many rows the filter leaves
-- (engram.recall.service): the shared HNSW graph when they are many, an exact distance scan when
-- they are few. A small tenant's rows are a sliver of the graph, so an approximate scan walks
-- everyone else's rows to find them (slow, and it misses some); this index finds them directly,
-- and counts them (index-only) before the choice is made.
-- Partial on `embedding IS NOT NULL`, a condition only the exact scan and its count state: the
-- HNSW query cannot match it, so the planner never swaps a big tenant's graph scan for this index
-- and a sort of all its rows on a low row estimate. The choice stays recall's, made on a count.
CREATE INDEX chunks_scope ON chunks (tenant_id, namespace) WHERE embedding IS NOT NULL;
