-- A consolidation run cut off by a dead process (kill -9 of `make dev`, a Lambda that timed out or
-- ran out of memory) must resume within minutes, not wait 12 hours for the abandon rule.
--
-- A worker holds a session advisory lock (1701734258, hashtext(run id)) while it works on a run, and
-- sets worker_started_at for that time. PostgreSQL releases the lock when the worker's connection
-- ends (the worker sets client_connection_check_interval, so even a statement in flight ends within
-- seconds of its process's death). worker_started_at still set while nobody holds the lock: the
-- worker died mid-run. The next worker counts it in `interruptions` and fails the run at the limit
-- (a run that kills its worker every time); the dispatcher sends such a run again at once.
ALTER TABLE consolidation_runs
  ADD COLUMN worker_started_at timestamptz,
  ADD COLUMN interruptions integer NOT NULL DEFAULT 0;

-- True when a live worker holds the run (its session advisory lock is granted).
CREATE FUNCTION engram_consolidation_run_held(p_run_id uuid) RETURNS boolean
LANGUAGE sql VOLATILE SET search_path = public, pg_temp AS $$
  SELECT EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
                   AND l.classid = (1701734258)::oid AND l.objid = hashtext(p_run_id::text)::oid)
$$;
GRANT EXECUTE ON FUNCTION engram_consolidation_run_held(uuid) TO engram_app;

-- As in 0007, plus runs whose worker died mid-run (worker_started_at set, lock free): sent again now.
CREATE OR REPLACE FUNCTION engram_stale_consolidation_runs(p_older_than interval, p_abandon_after interval, p_limit integer)
RETURNS TABLE (tenant_id uuid, run_id uuid, abandoned boolean)
LANGUAGE sql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT r.tenant_id, r.id, r.updated_at < now() - p_abandon_after
  FROM consolidation_runs r
  WHERE r.status IN ('queued', 'running')
    AND ((r.status = 'queued' AND r.updated_at < now() - p_older_than) OR r.updated_at < now() - p_abandon_after
         OR (r.worker_started_at IS NOT NULL AND NOT engram_consolidation_run_held(r.id)))
  ORDER BY r.created_at
  LIMIT p_limit
$$;
