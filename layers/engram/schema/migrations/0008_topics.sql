-- The topic tree of a namespace (seed 001 "Topiary"): leaves group memories by meaning, internal
-- nodes group leaves. Rebuilt by consolidation and published in one transaction (the previous
-- tree stays until the new one is complete and named); new memories join the nearest leaf when
-- their vectors land. Topic ids ("t12") are per tenant, never reused, and kept by a leaf that
-- keeps most of its members across rebuilds.

-- The next topic number of a tenant: ids are never reused, so a saved "t12" cannot come to mean
-- another topic after t12 is gone.
CREATE TABLE topic_counters (
  tenant_id uuid PRIMARY KEY REFERENCES tenants(id) ON DELETE CASCADE,
  next_no   bigint NOT NULL DEFAULT 1
);

-- One row per namespace that has a tree: when and from what it was built.
CREATE TABLE topic_trees (
  tenant_id  uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  namespace  text NOT NULL,
  version    integer NOT NULL DEFAULT 1,
  model_id   text NOT NULL,
  dimension  smallint NOT NULL,
  memories   integer NOT NULL,
  leaves     integer NOT NULL,
  run_id     uuid,                 -- the consolidation run that built it (NULL: built directly)
  built_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, namespace)
);

CREATE TABLE topics (
  tenant_id    uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  id           text NOT NULL,
  namespace    text NOT NULL,
  parent_id    text,
  depth        smallint NOT NULL,      -- 0: a top-level topic
  is_leaf      boolean NOT NULL,
  name         text NOT NULL,
  keywords     text[] NOT NULL DEFAULT '{}',
  named_by     text NOT NULL CHECK (named_by IN ('keywords', 'llm')),
  member_count integer NOT NULL,       -- memories under it (a leaf: its own; a node: its leaves')
  centroid     halfvec,                -- unit mean of its memories' vectors (the tree's space)
  created_at   timestamptz NOT NULL DEFAULT now(),  -- when the id was first given
  updated_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, id)
);
CREATE INDEX topics_namespace ON topics (tenant_id, namespace, depth, member_count DESC);

-- Leaf membership: a memory belongs to at most one leaf of its namespace's tree.
CREATE TABLE topic_members (
  tenant_id  uuid NOT NULL,
  topic_id   text NOT NULL,
  memory_id  uuid NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  similarity real,                     -- cosine to the leaf's centroid when assigned
  PRIMARY KEY (tenant_id, topic_id, memory_id),
  FOREIGN KEY (tenant_id, topic_id) REFERENCES topics(tenant_id, id) ON DELETE CASCADE
);
CREATE UNIQUE INDEX topic_members_memory ON topic_members (memory_id);

ALTER TABLE topic_counters ENABLE ROW LEVEL SECURITY;
ALTER TABLE topic_trees ENABLE ROW LEVEL SECURITY;
ALTER TABLE topics ENABLE ROW LEVEL SECURITY;
ALTER TABLE topic_members ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON topic_counters
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON topic_trees
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON topics
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON topic_members
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());

GRANT SELECT, INSERT, UPDATE, DELETE ON topic_counters, topic_trees, topics, topic_members TO engram_app;
