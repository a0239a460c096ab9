-- Recall chooses its strategy from how many rows its filter leaves (engram.recall.service). A tag
-- filter is part of that: one namespace of 8,000 rows and a tag leaving 1,143 of them is a narrow
-- filter, which the shared HNSW graph serves worst (it walks ~70 rows per row that passes) and an
-- exact scan serves best. Counting those rows needs the tags beside the scope's key: with them in
-- the index, the count stays index-only. Replaces 0009's chunks_scope (same key and predicate).
DROP INDEX chunks_scope;
CREATE INDEX chunks_scope ON chunks (tenant_id, namespace) INCLUDE (tags) WHERE embedding IS NOT NULL;
