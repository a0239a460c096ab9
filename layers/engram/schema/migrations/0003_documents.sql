-- Documents (seed 000 tiers), presigned uploads, and the log of every LLM call.
-- Depends on 0001 only.

-- Tier-2 bodies (8 MiB .. 50 MiB). Tier 0 keeps the body in memories.content and Tier 1 keeps
-- only the synopsis there (its chunks come from the body, which is never persisted), so neither
-- has a row here. The row goes with its memory (purge / tenant deletion cascade).
CREATE TABLE documents (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id    uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  memory_id    uuid NOT NULL UNIQUE REFERENCES memories(id) ON DELETE CASCADE,
  body         text NOT NULL,
  byte_size    bigint NOT NULL CHECK (byte_size >= 0 AND byte_size <= 52428800),
  sha256       bytea NOT NULL,
  content_type text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now()
);
-- Out of line and uncompressed: writing 50 MiB skips pglz, and substring reads stay cheap.
ALTER TABLE documents ALTER COLUMN body SET STORAGE EXTERNAL;

-- A presigned S3 PUT and what became of it. The S3 key is uploads/<tenant_id>/<id>.
CREATE TABLE document_uploads (
  id             uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id      uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  namespace      text NOT NULL,
  declared_bytes bigint NOT NULL CHECK (declared_bytes > 0 AND declared_bytes <= 52428800),
  sha256         bytea NOT NULL,
  content_type   text NOT NULL,
  params         jsonb NOT NULL DEFAULT '{}',   -- kind, importance, tags, source, metadata, chunking
  s3_key         text NOT NULL,
  status         text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'ready', 'failed')),
  reason         text,
  memory_id      uuid REFERENCES memories(id) ON DELETE SET NULL,
  document_tier  smallint,
  deduplicated   boolean,
  expires_at     timestamptz NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX document_uploads_listing ON document_uploads (tenant_id, created_at DESC);

-- Every LLM call: what for, which model, tokens, latency, outcome.
CREATE TABLE llm_usage (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id     uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  purpose       text NOT NULL,
  provider      text NOT NULL,
  model         text NOT NULL,
  input_tokens  integer,
  output_tokens integer,
  latency_ms    integer NOT NULL,
  attempts      smallint NOT NULL DEFAULT 1,
  ok            boolean NOT NULL,
  error         text,
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX llm_usage_tenant ON llm_usage (tenant_id, created_at DESC);

ALTER TABLE documents ENABLE ROW LEVEL SECURITY;
ALTER TABLE document_uploads ENABLE ROW LEVEL SECURITY;
ALTER TABLE llm_usage ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON documents
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON document_uploads
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON llm_usage
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());

GRANT SELECT, INSERT, UPDATE, DELETE ON documents, document_uploads TO engram_app;
GRANT SELECT, INSERT ON llm_usage TO engram_app;
