-- A recall filtered by namespace and tag finds its rows through one index. Before, chunks_scope gave
-- the namespace's rows and chunks_tags the tag's rows in the whole table, and a bitmap AND kept the
-- pairs: at 100k chunks (ten namespaces, seven tags) that built bitmaps of 10,000 and 14,286 rows to
-- keep 1,429; at 1M each query word's rows met the tag's 142,857. Here each chunk is indexed by its
-- (tenant, namespace, tag) keys, so a namespace and tag read the rows they name
-- (engram.recall.plan_store._NAMESPACE_TAGS). The count that chooses recall's scan stays on
-- chunks_scope, index-only: cheaper for a count than reading the rows.
-- A key is the tenant's id (36 characters), the namespace's length, the namespace and the tag: no two
-- pairs can make the same key, so the index condition needs no recheck against namespace and tags.
-- Depends on 0001 (chunks), 0015 (chunks_tags, kept for a tag filter without a namespace).
CREATE FUNCTION engram_scope_tag_keys(tenant uuid, namespaces text[], tags text[]) RETURNS text[]
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN ARRAY(SELECT tenant::text || length(n) || ':' || n || t FROM unnest(namespaces) n, unnest(tags) t);

CREATE INDEX chunks_namespace_tags ON chunks USING gin (engram_scope_tag_keys(tenant_id, ARRAY[namespace], tags));
