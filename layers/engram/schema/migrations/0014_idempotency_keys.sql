-- Idempotency-Key on the create and write POSTs (memories, batches, links, conversations,
-- documents, uploads, consolidation, exports, imports). Depends on 0001.
--
-- One row per key a tenant used, written in the transaction of the write it answers for: the
-- INSERT claims the key (a concurrent request with the same key waits on it, then finds the
-- answer), and the answer is stored before that transaction commits, so a write and its answer
-- exist together or not at all. A failed request rolls its claim back: the key stays free.
-- Rows older than the retention window (ENGRAM_IDEMPOTENCY_RETENTION_HOURS) are taken over by a
-- new request with the same key, and deleted by the tenant's later keyed writes.
CREATE TABLE idempotency_keys (
  tenant_id       uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  idempotency_key text NOT NULL,
  operation       text NOT NULL,         -- "POST /v1/memories": a key is for one route
  request_hash    bytea NOT NULL,        -- SHA-256 of the operation and the request body
  answer          json,                  -- the first answer's body; NULL only inside its transaction
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, idempotency_key)
);
CREATE INDEX idempotency_keys_age ON idempotency_keys (tenant_id, created_at);

ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON idempotency_keys
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON idempotency_keys TO engram_app;
