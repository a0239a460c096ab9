-- The HNSW graphs are built with ef_construction 128 since this version (engram.indexing.vectors,
-- hnsw_index_sql): with pgvector's 64, a 300k-chunk table of clustered vectors had clusters no search
-- could reach. A graph built before keeps its links; this records the new value on it (no rebuild, no
-- scan) so that `REINDEX INDEX CONCURRENTLY chunks_embedding_hnsw_<dimension>`, run when convenient,
-- rebuilds it with 128. Indexes are per embedding dimension, created at run time: found by catalog.
DO $$
DECLARE
  graph regclass;
BEGIN
  FOR graph IN
    SELECT i.indexrelid::regclass FROM pg_index i
    JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am am ON am.oid = c.relam
    WHERE i.indrelid = 'chunks'::regclass AND am.amname = 'hnsw'
  LOOP
    EXECUTE format('ALTER INDEX %s SET (ef_construction = 128)', graph);
  END LOOP;
END
$$;
