-- At most one applying (not dry) consolidation run open per namespace, enforced by the database:
-- POST /v1/consolidate and the scheduled dispatcher check for an open run under different locks,
-- so two could otherwise open at once. The later of any such pair left by that race is failed first.
UPDATE consolidation_runs r
   SET status = 'failed', error = 'another run of this namespace was open', finished_at = now(), updated_at = now()
 WHERE NOT r.dry_run AND r.status IN ('queued', 'running')
   AND EXISTS (SELECT 1 FROM consolidation_runs o
                WHERE o.tenant_id = r.tenant_id AND o.namespace = r.namespace AND NOT o.dry_run
                  AND o.status IN ('queued', 'running')
                  AND (o.created_at, o.id) < (r.created_at, r.id));

CREATE UNIQUE INDEX consolidation_runs_one_open ON consolidation_runs (tenant_id, namespace)
 WHERE NOT dry_run AND status IN ('queued', 'running');
