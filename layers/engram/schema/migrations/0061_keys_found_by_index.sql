-- Every foreign key a delete follows is found by an index, and a message or a piece of evidence is
-- found by its own key, never by its tenant.
--
-- 1. Deleting a row scans each table that references it, once per row, unless an index leads with the
--    referencing columns. memory_evidence had none on message_id: deleting a 2,000-turn conversation in
--    a tenant with 20,000 evidence rows took 2,004.5 ms p50 (a scan of the evidence per turn), and 16.7
--    ms with the index; 13,714.0 and 20.2 ms at 100,000 (bench/perf/conversation_delete.py). The same held for a conversation's evidence, an
--    extraction run's, a consolidation run's verdicts, a conversation's extraction runs (dry runs were
--    left out of their index) and an OAuth client's or key's requests, grants and codes.
--    Tenant erasure is one statement per tenant table, so the tenant keys need no index of their own.
-- 2. messages and memory_evidence belonged to their tenant by a key of their own, found by
--    messages_time (tenant_id, created_at) and memory_evidence_conversation (tenant_id, conversation_id).
--    With the statistics behind a bulk import, a new tenant's row-level security condition looked
--    like a row or two, and the planner read its every message through that index (then filtered) to
--    find a window or a memory's evidence turn. Now they belong to their tenant through their
--    conversation: (conversation_id, tenant_id) references the conversation's (id, tenant_id), which
--    also holds a message's tenant to its conversation's, and no index of theirs leads with the tenant.
--    No query read messages by tenant and time.
-- Depends on 0002 (conversations, messages), 0006 (consolidation_verdicts), 0023 (OAuth tables),
-- 0026 (extraction_runs, memory_evidence).

CREATE INDEX memory_evidence_message ON memory_evidence (message_id);
CREATE INDEX memory_evidence_run ON memory_evidence (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX consolidation_verdicts_run ON consolidation_verdicts (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX oauth_requests_client ON oauth_requests (client_id);
CREATE INDEX oauth_grants_client ON oauth_grants (client_id);
CREATE INDEX oauth_codes_grant ON oauth_codes (grant_id);
-- A key's grants, revoked ones included, go with it (the partial index held only the live ones).
DROP INDEX oauth_grants_key;
CREATE INDEX oauth_grants_key ON oauth_grants (key_id);
-- Dry runs too (extraction_runs_window holds the others).
CREATE INDEX extraction_runs_conversation ON extraction_runs (conversation_id) WHERE conversation_id IS NOT NULL;

ALTER TABLE conversations ADD CONSTRAINT conversations_id_tenant UNIQUE (id, tenant_id);

-- The new keys first: checking the existing rows (one pass of each table) lets reads go on. Dropping
-- the old keys and indexes then locks the two tables out for a moment, till the commit.
ALTER TABLE messages ADD CONSTRAINT messages_conversation_fkey FOREIGN KEY (conversation_id, tenant_id)
  REFERENCES conversations (id, tenant_id) ON DELETE CASCADE;
ALTER TABLE memory_evidence ADD CONSTRAINT memory_evidence_conversation_fkey FOREIGN KEY (conversation_id, tenant_id)
  REFERENCES conversations (id, tenant_id) ON DELETE CASCADE;
CREATE INDEX memory_evidence_by_conversation ON memory_evidence (conversation_id);

ALTER TABLE messages DROP CONSTRAINT messages_conversation_id_fkey, DROP CONSTRAINT messages_tenant_id_fkey;
DROP INDEX messages_time;
ALTER TABLE memory_evidence
  DROP CONSTRAINT memory_evidence_conversation_id_fkey, DROP CONSTRAINT memory_evidence_tenant_id_fkey;
DROP INDEX memory_evidence_conversation;
ALTER INDEX memory_evidence_by_conversation RENAME TO memory_evidence_conversation;
