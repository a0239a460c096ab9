-- A recall filtered by tags scores its scope exactly when the scope is small (engram.recall.service),
-- but the index finds the scope's rows by tenant and namespace only: the tags are checked on the heap
-- row, so a tag that 1 in 7 rows carry read seven rows for each one kept (10,000 heap rows for 1,430
-- in a 100k-chunk namespace), and that read was most of a filtered recall's time. With the chunk's id
-- beside the tags, the rows a tag filter keeps are found index-only, and only they are read
-- (candidate_store.scope_rows). Replaces 0016's chunks_scope (same key, predicate and tags).
DROP INDEX chunks_scope;
CREATE INDEX chunks_scope ON chunks (tenant_id, namespace) INCLUDE (tags, id) WHERE embedding IS NOT NULL;
