-- Export and import of a tenant's data as JSONL through S3 (issue 14). Depends on 0001-0005.

-- An export job: POST /v1/exports queues it, the export worker writes exports/<tenant>/<id>.jsonl
-- and marks it ready with its counts; GET presigns a download of that object.
CREATE TABLE exports (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id   uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  namespace   text,                    -- NULL: every namespace
  status      text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'running', 'ready', 'failed')),
  s3_key      text NOT NULL,
  counts      jsonb NOT NULL DEFAULT '{}',
  bytes       bigint,
  error       text,
  attempts    integer NOT NULL DEFAULT 0,
  created_at  timestamptz NOT NULL DEFAULT now(),
  started_at  timestamptz,
  finished_at timestamptz
);
CREATE INDEX exports_listing ON exports (tenant_id, created_at DESC);

-- An import job: POST /v1/imports presigns a PUT to imports/<tenant>/<id>.jsonl; the object's
-- ObjectCreated event runs the import, which settles the row in the transaction that writes the data.
CREATE TABLE imports (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id      uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  namespace      text,                 -- NULL: each record keeps its own namespace
  id_policy      text NOT NULL CHECK (id_policy IN ('keep', 'map')),
  declared_bytes bigint NOT NULL CHECK (declared_bytes > 0),
  sha256         bytea,
  s3_key         text NOT NULL,
  status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
  report         jsonb,
  error          text,
  expires_at     timestamptz NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX imports_listing ON imports (tenant_id, created_at DESC);

ALTER TABLE exports ENABLE ROW LEVEL SECURITY;
ALTER TABLE imports ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON exports
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON imports
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
GRANT SELECT, INSERT, UPDATE ON exports, imports TO engram_app;

-- Which of these ids are taken in any tenant. An import keeps a record's id only when it is free;
-- row-level security hides other tenants' rows, so without this an id taken elsewhere would fail the
-- whole import on the primary key. It answers only for ids the caller already holds (random UUIDs)
-- and returns nothing else about them.
CREATE FUNCTION engram_ids_taken(p_table text, p_ids uuid[]) RETURNS SETOF uuid
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF p_table = 'memories' THEN
    RETURN QUERY SELECT id FROM memories WHERE id = ANY(p_ids);
  ELSIF p_table = 'links' THEN
    RETURN QUERY SELECT id FROM links WHERE id = ANY(p_ids);
  ELSIF p_table = 'conversations' THEN
    RETURN QUERY SELECT id FROM conversations WHERE id = ANY(p_ids);
  ELSE
    RAISE EXCEPTION 'unknown table %', p_table;
  END IF;
END
$$;
REVOKE ALL ON FUNCTION engram_ids_taken(text, uuid[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_ids_taken(text, uuid[]) TO engram_app;
