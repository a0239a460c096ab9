-- Temporal graph (seeds 002, 003): typed, directed, time-bounded links between two memories of
-- one tenant, and every previous version of a memory (history).

CREATE TABLE links (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id    uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  -- Hard deletes (purge) take the memory's links with it; soft deletes end them (trigger below).
  from_id      uuid NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  to_id        uuid NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  relation     text NOT NULL CHECK (relation IN ('supersedes', 'caused_by', 'relates_to', 'implements',
                                                 'reverts', 'contradicts', 'derived_from', 'part_of')),
  strength     real NOT NULL DEFAULT 1 CHECK (strength >= 0 AND strength <= 1),
  -- When the relation holds: valid_from <= t < valid_to (NULL valid_to: still holds).
  valid_from   timestamptz NOT NULL DEFAULT now(),
  valid_to     timestamptz,
  metadata     jsonb NOT NULL DEFAULT '{}',
  created_by   text NOT NULL DEFAULT 'api' CHECK (created_by IN ('api', 'consolidation')),
  run_id       uuid,
  created_at   timestamptz NOT NULL DEFAULT now(),
  -- Why and when the link stopped holding early, and the valid_to it had before: restoring a
  -- deleted memory revives exactly the links its deletion ended ('memory_deleted'), not those
  -- ended for another reason.
  ended_at     timestamptz,
  ended_reason text CHECK (ended_reason IN ('link_deleted', 'memory_deleted')),
  valid_to_before_end timestamptz,
  -- supersedes: the older memory's valid_to before this link shortened it, and the value it set,
  -- so removing the link (an undone consolidation run) can put it back if nobody changed it since.
  supersede_applied          boolean NOT NULL DEFAULT false,
  superseded_valid_to_before timestamptz,
  superseded_valid_to_set    timestamptz,
  CONSTRAINT links_not_self CHECK (from_id <> to_id),
  CONSTRAINT links_validity CHECK (valid_to IS NULL OR valid_to >= valid_from),
  CONSTRAINT links_creator CHECK ((created_by = 'consolidation') = (run_id IS NOT NULL)),
  CONSTRAINT links_ended CHECK ((ended_at IS NULL) = (ended_reason IS NULL))
);
-- Traversal walks both ways: out-edges by (tenant, from), in-edges by (tenant, to).
CREATE INDEX links_from ON links (tenant_id, from_id, relation);
CREATE INDEX links_to ON links (tenant_id, to_id, relation);
CREATE INDEX links_run ON links (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX links_listing ON links (tenant_id, created_at DESC, id DESC);
-- Two open-ended links of the same triple always overlap: the common case of a duplicate is a
-- plain unique violation, race-free.
CREATE UNIQUE INDEX links_one_open ON links (tenant_id, from_id, to_id, relation) WHERE valid_to IS NULL;

-- No two links of the same (from, to, relation) with overlapping validity. An exclusion
-- constraint would say this directly, but it needs btree_gist, which Aurora PostgreSQL 16 offers
-- and the embedded PostgreSQL used locally does not ship. Instead: writers of the same triple
-- serialise on a transaction advisory lock, and the check then runs with a fresh snapshot (a
-- volatile function's statements see what committed before the lock was granted).
-- It also checks that both memories belong to the link's tenant (the foreign keys cannot).
CREATE FUNCTION engram_links_check() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.from_id <> OLD.from_id OR NEW.to_id <> OLD.to_id THEN
    IF (SELECT count(*) FROM memories m
        WHERE m.id IN (NEW.from_id, NEW.to_id) AND m.tenant_id = NEW.tenant_id) <> 2 THEN
      RAISE EXCEPTION 'link endpoints must be memories of the same tenant'
        USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'links_same_tenant';
    END IF;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended(
    'engram.links:' || NEW.tenant_id || NEW.from_id || NEW.to_id || NEW.relation, 0));
  IF EXISTS (SELECT 1 FROM links l
             WHERE l.tenant_id = NEW.tenant_id AND l.from_id = NEW.from_id AND l.to_id = NEW.to_id
               AND l.relation = NEW.relation AND l.id <> NEW.id
               AND tstzrange(l.valid_from, l.valid_to) && tstzrange(NEW.valid_from, NEW.valid_to)) THEN
    RAISE EXCEPTION 'a % link between these memories already holds during this validity', NEW.relation
      USING ERRCODE = 'exclusion_violation', CONSTRAINT = 'links_no_overlap';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER links_check BEFORE INSERT OR UPDATE OF from_id, to_id, relation, valid_from, valid_to
  ON links FOR EACH ROW EXECUTE FUNCTION engram_links_check();

-- Soft-deleting a memory ends its live links (kept as history: valid_to becomes now); restoring
-- it revives the links that deletion ended, once both ends are active again. In the database so
-- every path that trashes or restores a memory (API, purge, consolidation) keeps the graph right.
CREATE FUNCTION engram_memory_links_follow_status() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status = 'active' AND NEW.status = 'deleted' THEN
    UPDATE links SET ended_at = now(), ended_reason = 'memory_deleted', valid_to_before_end = valid_to,
                     valid_to = GREATEST(valid_from, LEAST(COALESCE(valid_to, 'infinity'), now()))
    WHERE tenant_id = NEW.tenant_id AND (from_id = NEW.id OR to_id = NEW.id) AND ended_at IS NULL;
  ELSIF OLD.status = 'deleted' AND NEW.status = 'active' THEN
    UPDATE links l SET valid_to = l.valid_to_before_end, ended_at = NULL, ended_reason = NULL,
                       valid_to_before_end = NULL
    WHERE l.tenant_id = NEW.tenant_id AND (l.from_id = NEW.id OR l.to_id = NEW.id)
      AND l.ended_reason = 'memory_deleted'
      AND NOT EXISTS (SELECT 1 FROM memories o
                      WHERE o.id = CASE WHEN l.from_id = NEW.id THEN l.to_id ELSE l.from_id END
                        AND o.status <> 'active');
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER memories_links_follow_status AFTER UPDATE OF status ON memories
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status)
  EXECUTE FUNCTION engram_memory_links_follow_status();

-- Every previous version of a memory. A change that raises `version` (PATCH) stores the row as it
-- was, in the same transaction, whichever code path made the change.
CREATE TABLE memory_versions (
  tenant_id   uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  memory_id   uuid NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  version     integer NOT NULL,
  content     text NOT NULL,
  kind        text NOT NULL,
  importance  real NOT NULL,
  tags        text[] NOT NULL,
  source      text,
  metadata    jsonb NOT NULL,
  valid_from  timestamptz,
  valid_to    timestamptz,
  changed_at  timestamptz NOT NULL DEFAULT now(),  -- when this version was replaced
  PRIMARY KEY (memory_id, version)
);

CREATE FUNCTION engram_memory_keep_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO memory_versions (tenant_id, memory_id, version, content, kind, importance, tags, source,
                               metadata, valid_from, valid_to)
  VALUES (OLD.tenant_id, OLD.id, OLD.version, OLD.content, OLD.kind, OLD.importance, OLD.tags, OLD.source,
          OLD.metadata, OLD.valid_from, OLD.valid_to)
  ON CONFLICT (memory_id, version) DO NOTHING;
  RETURN NEW;
END
$$;
CREATE TRIGGER memories_keep_version BEFORE UPDATE ON memories
  FOR EACH ROW WHEN (NEW.version > OLD.version)
  EXECUTE FUNCTION engram_memory_keep_version();

ALTER TABLE links ENABLE ROW LEVEL SECURITY;
ALTER TABLE memory_versions ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON links
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON memory_versions
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());

GRANT SELECT, INSERT, UPDATE, DELETE ON links TO engram_app;
GRANT SELECT, INSERT ON memory_versions TO engram_app;
