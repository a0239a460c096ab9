-- Task runs (seed 002's task state): a long-running task, its event ledger, its checkpoints.
--
-- One ledger, not two: a task's events are the messages of a conversation created with it, so they are
-- appended, ordered, made idempotent and searched (windows in `chunks`) exactly as conversation turns
-- are. Tasks add the `agent` role (what an agent itself notes: a plan, a step taken) and redaction: a
-- redacted event keeps its place (seq, role, time) and loses its content from every copy.

ALTER TABLE messages DROP CONSTRAINT messages_role_check;
ALTER TABLE messages ADD CONSTRAINT messages_role_check
  CHECK (role IN ('user', 'assistant', 'system', 'tool', 'agent'));
ALTER TABLE messages ADD COLUMN redacted_at timestamptz;

CREATE TABLE task_runs (
  id              uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id       uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  -- The ledger. Deleting or erasing the conversation takes the task and its checkpoints with it.
  conversation_id uuid NOT NULL UNIQUE REFERENCES conversations(id) ON DELETE CASCADE,
  namespace       text NOT NULL,
  goal            text NOT NULL CHECK (length(goal) BETWEEN 1 AND 4000),
  agent_id        text,
  status          text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'done', 'failed', 'cancelled')),
  outcome         text,
  metadata        jsonb NOT NULL DEFAULT '{}',
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  ended_at        timestamptz
);
CREATE INDEX task_runs_listing ON task_runs (tenant_id, namespace, created_at DESC, id DESC);

-- What a task has done so far, compactly: resuming it reads the latest checkpoint and the events since
-- (seq > seq_to), not the whole ledger.
CREATE TABLE task_checkpoints (
  id         uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id  uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  task_id    uuid NOT NULL REFERENCES task_runs(id) ON DELETE CASCADE,
  seq_to     integer NOT NULL CHECK (seq_to >= 0),   -- the last event it covers (0: none yet)
  summary    text NOT NULL,
  completed  text[] NOT NULL DEFAULT '{}',
  pending    text[] NOT NULL DEFAULT '{}',
  decisions  text[] NOT NULL DEFAULT '{}',
  blockers   text[] NOT NULL DEFAULT '{}',
  artifacts  jsonb NOT NULL DEFAULT '[]',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX task_checkpoints_task ON task_checkpoints (task_id, created_at DESC, id DESC);

ALTER TABLE task_runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE task_checkpoints ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON task_runs
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON task_checkpoints
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON task_runs, task_checkpoints TO engram_app;
