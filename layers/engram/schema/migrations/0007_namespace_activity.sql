-- Which namespaces were used (writes, recalls, appends) since the consolidation dispatcher last
-- started a run there. Idle namespaces get no run, so their memories do not decay.
--
-- The request path upserts a row at most about once a minute per namespace (and once after each
-- dispatch): engram.core.activity.record_activity skips a fresh row without locking it.
CREATE TABLE namespace_activity (
  tenant_id        uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  namespace        text NOT NULL,
  last_activity_at timestamptz NOT NULL DEFAULT now(),
  dispatched_at    timestamptz,  -- when the dispatcher last started (or found) a run covering it
  PRIMARY KEY (tenant_id, namespace)
);

ALTER TABLE namespace_activity ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON namespace_activity
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON namespace_activity TO engram_app;

-- The dispatcher works across tenants before it knows one, like authentication: this definer
-- function is the only cross-tenant read the request role has, and it returns only the pairs.
CREATE FUNCTION engram_namespaces_to_consolidate(p_limit integer)
RETURNS TABLE (tenant_id uuid, namespace text)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT a.tenant_id, a.namespace FROM namespace_activity a
  WHERE a.dispatched_at IS NULL OR a.last_activity_at > a.dispatched_at
  ORDER BY a.last_activity_at
  LIMIT p_limit
$$;
REVOKE ALL ON FUNCTION engram_namespaces_to_consolidate(integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_namespaces_to_consolidate(integer) TO engram_app;

-- Scheduled runs still queued after p_older_than: their message was lost (a send that failed
-- after commit), so the dispatcher sends them again; the worker never applies a step twice.
-- Runs open longer than p_abandon_after (a worker that kept dying until its message went to the
-- dead-letter queue) are returned too, so the dispatcher can mark them failed and free the namespace.
CREATE FUNCTION engram_stale_consolidation_runs(p_older_than interval, p_abandon_after interval, p_limit integer)
RETURNS TABLE (tenant_id uuid, run_id uuid, abandoned boolean)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT r.tenant_id, r.id, r.updated_at < now() - p_abandon_after
  FROM consolidation_runs r
  WHERE r.status IN ('queued', 'running')
    AND ((r.status = 'queued' AND r.updated_at < now() - p_older_than) OR r.updated_at < now() - p_abandon_after)
  ORDER BY r.created_at
  LIMIT p_limit
$$;
REVOKE ALL ON FUNCTION engram_stale_consolidation_runs(interval, interval, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_stale_consolidation_runs(interval, interval, integer) TO engram_app;
