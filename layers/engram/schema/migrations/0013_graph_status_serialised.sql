-- Trashing and restoring memories keeps the graph right under concurrency, and a supersedes link's
-- effect lives exactly as long as the link.
--
-- 1. Status changes of one tenant's memories serialise on a transaction advisory lock, taken before
--    the links are read: the later transaction's next statement sees what the earlier one
--    committed. Without it, restoring both ends of a link at once revived it in neither (each saw
--    the other end still in the trash), and trashing one end while restoring the other could
--    revive a link to a trashed memory.
-- 2. A link ended because a memory went to the trash gives up its supersedes effect: the older
--    memory (to_id) gets back the valid_to it had before the link (unless it was changed since),
--    so the older memory is current again while the newer one is in the trash. Reviving the link
--    (restore) closes the older memory's validity again, unless it was changed since.
CREATE OR REPLACE FUNCTION engram_memory_links_follow_status() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('engram.memory_status:' || NEW.tenant_id, 0));
  IF OLD.status = 'active' AND NEW.status = 'deleted' THEN
    WITH ended AS (
      UPDATE links SET ended_at = now(), ended_reason = 'memory_deleted', valid_to_before_end = valid_to,
                       valid_to = GREATEST(valid_from, LEAST(COALESCE(valid_to, 'infinity'), now()))
      WHERE tenant_id = NEW.tenant_id AND (from_id = NEW.id OR to_id = NEW.id) AND ended_at IS NULL
      RETURNING relation, supersede_applied, to_id, superseded_valid_to_before, superseded_valid_to_set)
    UPDATE memories m SET valid_to = e.superseded_valid_to_before, updated_at = now()
    FROM ended e
    WHERE e.relation = 'supersedes' AND e.supersede_applied AND m.id = e.to_id
      AND m.valid_to IS NOT DISTINCT FROM e.superseded_valid_to_set;
  ELSIF OLD.status = 'deleted' AND NEW.status = 'active' THEN
    WITH revived AS (
      UPDATE links l SET valid_to = l.valid_to_before_end, ended_at = NULL, ended_reason = NULL,
                         valid_to_before_end = NULL
      WHERE l.tenant_id = NEW.tenant_id AND (l.from_id = NEW.id OR l.to_id = NEW.id)
        AND l.ended_reason = 'memory_deleted'
        AND NOT EXISTS (SELECT 1 FROM memories o
                        WHERE o.id = CASE WHEN l.from_id = NEW.id THEN l.to_id ELSE l.from_id END
                          AND o.status <> 'active')
      RETURNING l.relation, l.supersede_applied, l.to_id, l.superseded_valid_to_before, l.superseded_valid_to_set)
    UPDATE memories m SET valid_to = r.superseded_valid_to_set, updated_at = now()
    FROM revived r
    WHERE r.relation = 'supersedes' AND r.supersede_applied AND m.id = r.to_id
      AND m.valid_to IS NOT DISTINCT FROM r.superseded_valid_to_before;
  END IF;
  RETURN NULL;
END
$$;
