-- Memory that learns: facts, preferences, decisions and dated events derived from conversations (and
-- from any text an agent pushes), each traceable to the turns it came from; a rolling summary per
-- conversation. The verbatim ledger (messages) stays the truth; what is derived is a view on it.

-- The conversation's rolling summary, and how far extraction has read it. `extraction_queued_seq` is
-- the last turn an extraction job was queued for: the append path queues one job per batch of new
-- turns, not one per append.
ALTER TABLE conversations
  ADD COLUMN summary               text,
  ADD COLUMN summary_updated_at    timestamptz,
  ADD COLUMN extracted_seq         integer NOT NULL DEFAULT 0,
  ADD COLUMN extraction_queued_seq integer NOT NULL DEFAULT 0,
  ADD COLUMN extraction_queued_at  timestamptz;
-- The sweep's question: conversations with turns not yet read.
CREATE INDEX conversations_unextracted ON conversations (last_message_at)
  WHERE next_seq - 1 > extracted_seq;

-- The sweep (a scheduled function, no tenant): conversations with unread turns and no append for
-- p_quiet, whose turns were never queued or were queued longer ago than p_requeue (a lost message,
-- a worker that died, a job waiting for the budget). Only the triples; the request role's one
-- cross-tenant read here.
CREATE FUNCTION engram_conversations_to_extract(p_quiet interval, p_requeue interval, p_limit integer)
RETURNS TABLE (tenant_id uuid, conversation_id uuid, through_seq integer)
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT c.tenant_id, c.id, c.next_seq - 1 FROM conversations c
  WHERE c.next_seq - 1 > c.extracted_seq
    AND c.last_message_at < now() - p_quiet
    AND (c.extraction_queued_seq < c.next_seq - 1 OR c.extraction_queued_at < now() - p_requeue)
  ORDER BY c.last_message_at
  LIMIT p_limit
$$;
REVOKE ALL ON FUNCTION engram_conversations_to_extract(interval, interval, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_conversations_to_extract(interval, interval, integer) TO engram_app;

-- What to extract per namespace (no row: the defaults).
CREATE TABLE extraction_settings (
  tenant_id     uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  namespace     text NOT NULL,
  enabled       boolean NOT NULL DEFAULT true,
  kinds         text[] NOT NULL DEFAULT '{fact,preference,decision,event}',
  instructions  text,
  updated_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, namespace)
);

-- One extraction job: a window of a conversation's turns (or a pushed text), the model call, and the
-- actions it led to. A conversation's window is unique, so a job delivered twice finds its run.
CREATE TABLE extraction_runs (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id         uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  namespace         text NOT NULL,
  conversation_id   uuid REFERENCES conversations(id) ON DELETE CASCADE,
  seq_from          integer,
  seq_to            integer,
  input_text        text,            -- POST /v1/extract with text: the text itself (its evidence)
  trigger           text NOT NULL CHECK (trigger IN ('turns', 'quiet', 'api')),
  dry_run           boolean NOT NULL DEFAULT false,
  status            text NOT NULL DEFAULT 'queued'
                    CHECK (status IN ('queued', 'running', 'waiting', 'done', 'failed', 'undone')),
  reason            text,            -- why it waits, or why it failed
  attempts          integer NOT NULL DEFAULT 0,
  lease_until       timestamptz,     -- a running job's claim; a worker killed mid-job loses it
  llm_calls         integer NOT NULL DEFAULT 0,
  llm_input_tokens  bigint NOT NULL DEFAULT 0,
  llm_output_tokens bigint NOT NULL DEFAULT 0,
  summary_before    text,            -- what undo puts back
  summary_after     text,
  summary_memory_id          uuid,   -- the summary's recallable memory this run wrote
  previous_summary_memory_id uuid,   -- and the one it replaced (trashed; undo brings it back)
  created_at        timestamptz NOT NULL DEFAULT now(),
  started_at        timestamptz,
  finished_at       timestamptz,
  undone_at         timestamptz,
  CHECK ((conversation_id IS NULL) = (input_text IS NOT NULL))
);
CREATE UNIQUE INDEX extraction_runs_window ON extraction_runs (conversation_id, seq_from, seq_to)
  WHERE conversation_id IS NOT NULL AND NOT dry_run;
CREATE INDEX extraction_runs_listing ON extraction_runs (tenant_id, created_at DESC, id DESC);
CREATE INDEX extraction_runs_open ON extraction_runs (created_at) WHERE status IN ('queued', 'running', 'waiting');

-- A run's decisions, in order: add, update (the new memory supersedes the old), invalidate (the old
-- one's validity ends) or restate (the old one's repetition count grows).
CREATE TABLE extraction_actions (
  run_id        uuid NOT NULL REFERENCES extraction_runs(id) ON DELETE CASCADE,
  seq           integer NOT NULL,
  tenant_id     uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  action        text NOT NULL CHECK (action IN ('add', 'update', 'invalidate', 'restate')),
  kind          text NOT NULL CHECK (kind IN ('fact', 'preference', 'decision', 'event')),
  content       text NOT NULL,
  event_date    date,
  memory_id     uuid,                -- the memory written (add, update)
  target_id     uuid,                -- the stored memory it acts on (update, invalidate, restate)
  link_id       uuid,                -- update: the supersedes link
  target_valid_to timestamptz,       -- invalidate / update: the target's valid_to before, for undo
  evidence_seqs integer[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (run_id, seq)
);
CREATE INDEX extraction_actions_memory ON extraction_actions (tenant_id, memory_id);
CREATE INDEX extraction_actions_target ON extraction_actions (tenant_id, target_id);

-- Why do we believe this? A derived memory's evidence: the very turns it came from.
CREATE TABLE memory_evidence (
  tenant_id       uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  memory_id       uuid NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  message_id      uuid NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  run_id          uuid REFERENCES extraction_runs(id) ON DELETE SET NULL,
  PRIMARY KEY (memory_id, message_id)
);
CREATE INDEX memory_evidence_conversation ON memory_evidence (tenant_id, conversation_id);

ALTER TABLE extraction_settings ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON extraction_settings
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
ALTER TABLE extraction_runs ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON extraction_runs
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
ALTER TABLE extraction_actions ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON extraction_actions
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
ALTER TABLE memory_evidence ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON memory_evidence
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());

GRANT SELECT, INSERT, UPDATE, DELETE ON extraction_settings, extraction_runs, extraction_actions, memory_evidence
  TO engram_app;
