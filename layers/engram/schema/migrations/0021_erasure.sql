-- Erasure (issue 23): hard deletes that reach every copy of a memory, a subject or a tenant, and the
-- audit trail that outlives them. Depends on 0001-0018.

-- One row per erasure: who asked (the key), when, what (the selector) and what was erased (counts
-- per kind and ids, never content). No foreign key to tenants: the record of a tenant's erasure
-- stays after the tenant is gone.
CREATE TABLE erasures (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id    uuid NOT NULL,
  scope        text NOT NULL CHECK (scope IN ('memory', 'subject', 'trash', 'tenant')),
  actor        text NOT NULL CHECK (actor IN ('api', 'mcp', 'schedule', 'cli')),
  key_id       uuid,                 -- the API key that asked (NULL: the schedule, the CLI, MCP)
  selector     jsonb NOT NULL,
  dry_run      boolean NOT NULL DEFAULT false,
  cascade_mode text NOT NULL CHECK (cascade_mode IN ('erase', 'none')),
  status       text NOT NULL DEFAULT 'done' CHECK (status IN ('queued', 'running', 'done', 'failed')),
  counts       jsonb NOT NULL DEFAULT '{}',
  erased_ids   jsonb NOT NULL DEFAULT '{}',
  error        text,
  created_at   timestamptz NOT NULL DEFAULT now(),
  finished_at  timestamptz
);
CREATE INDEX erasures_listing ON erasures (tenant_id, created_at DESC);
CREATE INDEX erasures_memory ON erasures (tenant_id, (selector->>'memory_id')) WHERE scope = 'memory';

ALTER TABLE erasures ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON erasures
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
-- No DELETE: the audit trail is append-only for the request role.
GRANT SELECT, INSERT, UPDATE ON erasures TO engram_app;

-- The memories of a consolidation run erased since it ran: its undo restores the rest and names these.
ALTER TABLE consolidation_runs ADD COLUMN erased_memories uuid[] NOT NULL DEFAULT '{}';

-- Erasing a memory deletes its upload record (its params hold the metadata): found by memory.
CREATE INDEX document_uploads_memory ON document_uploads (memory_id) WHERE memory_id IS NOT NULL;

-- The trash is emptied after ENGRAM_TRASH_RETENTION_DAYS by the scheduled work, across tenants before
-- it knows one (like the consolidation dispatcher): this definer function returns only the pairs.
CREATE INDEX memories_trash ON memories (deleted_at) WHERE status = 'deleted';
CREATE FUNCTION engram_expired_trash(p_retention interval, p_limit integer)
RETURNS TABLE (tenant_id uuid, memory_id uuid)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT m.tenant_id, m.id FROM memories m
  WHERE m.status = 'deleted' AND m.deleted_at < now() - p_retention
  ORDER BY m.deleted_at
  LIMIT p_limit
$$;
REVOKE ALL ON FUNCTION engram_expired_trash(interval, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_expired_trash(interval, integer) TO engram_app;

-- A tenant's admin erases the tenant itself (every row goes with it, ON DELETE CASCADE). The request
-- role cannot delete tenants: this definer function deletes only the transaction's own tenant.
CREATE FUNCTION engram_erase_tenant(p_tenant uuid) RETURNS void
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF p_tenant IS NULL OR p_tenant IS DISTINCT FROM engram_current_tenant() THEN
    RAISE EXCEPTION 'a tenant can erase only itself' USING ERRCODE = 'insufficient_privilege';
  END IF;
  DELETE FROM tenants WHERE id = p_tenant;
END
$$;
REVOKE ALL ON FUNCTION engram_erase_tenant(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_erase_tenant(uuid) TO engram_app;
