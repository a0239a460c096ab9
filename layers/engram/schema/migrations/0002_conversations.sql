-- Verbatim conversations (seed 004): conversations, messages, idempotent appends, and
-- conversation chunk windows in the shared `chunks` table.

CREATE TABLE conversations (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id       uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  namespace       text NOT NULL DEFAULT 'default',
  title           text,
  agent_id        text,
  tags            text[] NOT NULL DEFAULT '{}',
  metadata        jsonb NOT NULL DEFAULT '{}',
  -- The next sequence number to hand out. Appends lock this row (SELECT ... FOR UPDATE), so
  -- concurrent appends serialise: numbers are never duplicated and never skipped.
  next_seq        integer NOT NULL DEFAULT 1,
  message_count   integer NOT NULL DEFAULT 0,
  last_message_at timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX conversations_listing ON conversations (tenant_id, namespace, created_at DESC, id DESC);
CREATE INDEX conversations_tags ON conversations USING gin (tags);

CREATE TABLE messages (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id       uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,  -- denormalised (seed 004)
  conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  seq             integer NOT NULL CHECK (seq >= 1),
  role            text NOT NULL CHECK (role IN ('user', 'assistant', 'system', 'tool')),
  content         text NOT NULL,
  tool_call_id    text,
  tool_name       text,
  -- `json`, not `jsonb`: the text is kept as given (key order, duplicate keys, number spelling).
  metadata        json NOT NULL DEFAULT '{}',
  created_at      timestamptz NOT NULL DEFAULT now(),
  inserted_at     timestamptz NOT NULL DEFAULT now(),
  UNIQUE (conversation_id, seq)
);
CREATE INDEX messages_time ON messages (tenant_id, created_at);

-- One row per accepted append that carried an idempotency key: a retry finds it (under the
-- conversation row lock) and gets the same answer without writing anything.
CREATE TABLE conversation_appends (
  tenant_id       uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  conversation_id uuid NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  idempotency_key text NOT NULL,
  request_hash    bytea NOT NULL,
  seq_from        integer NOT NULL,
  seq_to          integer NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (conversation_id, idempotency_key)
);

-- Conversation windows live in `chunks` next to memory chunks, so one recall query ranks both.
-- kind = 'conversation' for these rows; memory_id stays NULL.
ALTER TABLE chunks
  ADD COLUMN conversation_id uuid REFERENCES conversations(id) ON DELETE CASCADE,
  ADD COLUMN seq_from integer,
  ADD COLUMN seq_to integer,
  ADD CONSTRAINT chunks_one_owner CHECK (num_nonnulls(memory_id, conversation_id) = 1),
  ADD CONSTRAINT chunks_window CHECK (
    conversation_id IS NULL OR (seq_from IS NOT NULL AND seq_to IS NOT NULL AND seq_from <= seq_to));
CREATE UNIQUE INDEX chunks_conversation_window ON chunks (conversation_id, seq_from)
  WHERE conversation_id IS NOT NULL;

ALTER TABLE conversations ENABLE ROW LEVEL SECURITY;
ALTER TABLE messages ENABLE ROW LEVEL SECURITY;
ALTER TABLE conversation_appends ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON conversations
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON messages
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON conversation_appends
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());

GRANT SELECT, INSERT, UPDATE, DELETE ON conversations, messages, conversation_appends TO engram_app;
