-- Core schema: tenants, API keys, memories, chunks, embedding spaces; row-level security.
CREATE EXTENSION IF NOT EXISTS vector;

-- The role every request runs as. It owns nothing, so row-level security applies to it;
-- the migrating (owner) role bypasses RLS for migrations, the tenant CLI and backfills.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'engram_app') THEN
    CREATE ROLE engram_app NOLOGIN;
  END IF;
END
$$;
GRANT engram_app TO CURRENT_USER;
GRANT USAGE ON SCHEMA public TO engram_app;

-- The tenant of the current transaction, set with set_config('engram.tenant_id', ..., true).
-- No setting means no tenant: the policies then match no row at all.
CREATE FUNCTION engram_current_tenant() RETURNS uuid
LANGUAGE sql STABLE AS $$
  SELECT NULLIF(current_setting('engram.tenant_id', true), '')::uuid
$$;

CREATE TABLE tenants (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  name       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id    uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  name         text NOT NULL DEFAULT '',
  prefix       text NOT NULL,             -- shown in listings so a key can be recognised
  key_hash     bytea NOT NULL UNIQUE,     -- sha256 of the whole key; the key itself is never stored
  scopes       text[] NOT NULL CHECK (scopes <@ ARRAY['read', 'write', 'admin']::text[]),
  created_at   timestamptz NOT NULL DEFAULT now(),
  revoked_at   timestamptz
);

-- Authentication happens before a tenant is known: this definer function is the only
-- way the request role can look a key up, and it returns nothing but the match.
CREATE FUNCTION engram_authenticate(p_key_hash bytea)
RETURNS TABLE (key_id uuid, tenant_id uuid, scopes text[])
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT k.id, k.tenant_id, k.scopes FROM api_keys k
  WHERE k.key_hash = p_key_hash AND k.revoked_at IS NULL
$$;
REVOKE ALL ON FUNCTION engram_authenticate(bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_authenticate(bytea) TO engram_app;

CREATE TABLE memories (
  id               uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id        uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  namespace        text NOT NULL DEFAULT 'default',
  kind             text NOT NULL DEFAULT 'semantic' CHECK (kind IN ('semantic', 'episodic', 'procedural')),
  layer            text NOT NULL DEFAULT 'buffer' CHECK (layer IN ('buffer', 'working', 'core')),
  content          text NOT NULL,
  content_hash     bytea NOT NULL,
  importance       real NOT NULL DEFAULT 0.5 CHECK (importance >= 0 AND importance <= 1),
  tags             text[] NOT NULL DEFAULT '{}',
  source           text,
  metadata         jsonb NOT NULL DEFAULT '{}',
  access_count     integer NOT NULL DEFAULT 0,
  repetition_count integer NOT NULL DEFAULT 0,
  last_accessed    timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz NOT NULL DEFAULT now(),
  valid_from       timestamptz,
  valid_to         timestamptz,
  status           text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'deleted')),
  deleted_at       timestamptz,
  document_tier    smallint,
  version          integer NOT NULL DEFAULT 1
);
-- One active row per content in a namespace: exact duplicates bump repetition_count instead.
CREATE UNIQUE INDEX memories_dedupe ON memories (tenant_id, namespace, content_hash) WHERE status = 'active';
CREATE INDEX memories_listing ON memories (tenant_id, status, namespace, created_at DESC, id DESC);
CREATE INDEX memories_tags ON memories USING gin (tags);

-- The retrieval unit. Filter fields are copied from the owner (memory, later conversation)
-- so vector and keyword scans filter in the index scan itself and never need a join first.
CREATE TABLE chunks (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id     uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  memory_id     uuid REFERENCES memories(id) ON DELETE CASCADE,
  namespace     text NOT NULL,
  kind          text NOT NULL,
  tags          text[] NOT NULL DEFAULT '{}',
  source        text,
  occurred_at   timestamptz NOT NULL,
  active        boolean NOT NULL DEFAULT true,
  position      integer NOT NULL,
  char_start    integer NOT NULL DEFAULT 0,
  text          text NOT NULL,
  embedding     vector,
  embedding_dim smallint,
  model_id      text,
  embedded_at   timestamptz,
  created_at    timestamptz NOT NULL DEFAULT now(),
  tsv           tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED
);
CREATE INDEX chunks_owner ON chunks (memory_id, position);
CREATE INDEX chunks_tsv ON chunks USING gin (tsv);
CREATE INDEX chunks_pending ON chunks (tenant_id, created_at) WHERE embedding IS NULL;

-- The embedding model in use, and its dimension. A different model is refused until it is
-- registered on purpose (engram embedding-space --activate), so vectors are never mixed.
-- HNSW indexes are created per dimension by the code (halfvec expression, partial on dim).
CREATE TABLE embedding_spaces (
  model_id   text PRIMARY KEY,
  dimension  smallint NOT NULL CHECK (dimension > 0 AND dimension <= 4000),
  active     boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX embedding_spaces_one_active ON embedding_spaces (active) WHERE active;

ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
ALTER TABLE api_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE memories ENABLE ROW LEVEL SECURITY;
ALTER TABLE chunks ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON tenants USING (id = engram_current_tenant());
CREATE POLICY tenant_isolation ON api_keys
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON memories
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON chunks
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());

GRANT SELECT ON tenants TO engram_app;
GRANT SELECT, INSERT, UPDATE ON api_keys TO engram_app;
GRANT SELECT, INSERT, UPDATE, DELETE ON memories, chunks TO engram_app;
GRANT SELECT ON embedding_spaces TO engram_app;
