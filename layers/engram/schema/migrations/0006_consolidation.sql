-- Consolidation (seed 001 lifecycle, seed 003 lineage): runs with a resumable checkpoint, every
-- action with the before-image of what it touched (undo restores it), the epoch clock per
-- namespace, per-memory lifecycle state, per-embedding-space thresholds, LLM usage per run.

-- Decay and cooldowns count active epochs, not wall time: a namespace's epoch advances once per
-- applied run, and idle namespaces get no run, so memories survive downtime intact.
CREATE TABLE consolidation_namespaces (
  tenant_id   uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  namespace   text NOT NULL,
  epoch       integer NOT NULL DEFAULT 0,
  last_run_id uuid,
  last_run_at timestamptz,
  PRIMARY KEY (tenant_id, namespace)
);

CREATE TABLE consolidation_runs (
  id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id         uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  namespace         text NOT NULL,
  status            text NOT NULL DEFAULT 'queued'
                    CHECK (status IN ('queued', 'running', 'done', 'failed', 'undone')),
  dry_run           boolean NOT NULL,
  trigger           text NOT NULL CHECK (trigger IN ('api', 'schedule', 'cli')),
  steps             text[] NOT NULL,
  -- The checkpoint: the step to run next and where inside it (NULL: from its start). Each batch
  -- moves it in the same transaction as the batch's actions, under this row's lock.
  step_index        integer NOT NULL DEFAULT 0,
  step_cursor       jsonb,
  step_counts       jsonb NOT NULL DEFAULT '{}',
  next_action_seq   integer NOT NULL DEFAULT 1,
  epoch             integer,
  llm_calls         integer NOT NULL DEFAULT 0,
  llm_input_tokens  bigint NOT NULL DEFAULT 0,
  llm_output_tokens bigint NOT NULL DEFAULT 0,
  llm_capped        text,
  error             text,
  cycles            integer NOT NULL DEFAULT 0,  -- run_cycle calls that found work (continuations + 1)
  created_at        timestamptz NOT NULL DEFAULT now(),
  started_at        timestamptz,
  finished_at       timestamptz,
  updated_at        timestamptz NOT NULL DEFAULT now(),
  undone_at         timestamptz
);
CREATE INDEX consolidation_runs_listing ON consolidation_runs (tenant_id, namespace, created_at DESC, id DESC);
CREATE INDEX consolidation_runs_tenant ON consolidation_runs (tenant_id, created_at DESC, id DESC);
CREATE INDEX consolidation_runs_open ON consolidation_runs (created_at) WHERE status IN ('queued', 'running');

-- Every change a run makes (applied) or would make (a dry run's plan, LLM candidates not decided).
-- before_image holds what the change overwrote: {"memories": [full rows as JSON]} for row changes,
-- {"importance": {"ids": [...], "values": [...]}} for decay, {"chunks": [...]} when content changed.
CREATE TABLE consolidation_actions (
  run_id        uuid NOT NULL REFERENCES consolidation_runs(id) ON DELETE CASCADE,
  seq           integer NOT NULL,
  tenant_id     uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  step          text NOT NULL,
  action        text NOT NULL,
  memory_ids    uuid[] NOT NULL DEFAULT '{}',
  reason        text NOT NULL,
  details       jsonb NOT NULL DEFAULT '{}',
  applied       boolean NOT NULL,
  before_image  jsonb,
  links_created uuid[] NOT NULL DEFAULT '{}',
  created_at    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, seq)
);
CREATE INDEX consolidation_actions_memories ON consolidation_actions USING gin (memory_ids);

-- LLM verdicts on a pair (reconcile keep_both, merge refused), so a pair is not asked again
-- until one side changes (its updated_at passes decided_at).
CREATE TABLE consolidation_verdicts (
  tenant_id  uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  memory_a   uuid NOT NULL,
  memory_b   uuid NOT NULL,
  question   text NOT NULL,
  verdict    text NOT NULL,
  run_id     uuid REFERENCES consolidation_runs(id) ON DELETE CASCADE,
  decided_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, memory_a, memory_b, question)
);

-- Lifecycle state of a memory: the epoch it entered its layer (NULL: not yet seen by a run),
-- and the gate's escalating rejections (retry after the epoch given; 3 rejections: never).
ALTER TABLE memories
  ADD COLUMN layer_epoch integer,
  ADD COLUMN gate_rejections smallint NOT NULL DEFAULT 0,
  ADD COLUMN gate_retry_epoch integer;

-- Cosine thresholds mean different things per embedding model: calibrated values per space
-- (keys as engram.core.config.Settings' consolidation_* thresholds; missing keys use the defaults).
ALTER TABLE embedding_spaces ADD COLUMN consolidation_thresholds jsonb NOT NULL DEFAULT '{}';

ALTER TABLE llm_usage ADD COLUMN run_id uuid;
CREATE INDEX llm_usage_run ON llm_usage (run_id) WHERE run_id IS NOT NULL;

ALTER TABLE consolidation_namespaces ENABLE ROW LEVEL SECURITY;
ALTER TABLE consolidation_runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE consolidation_actions ENABLE ROW LEVEL SECURITY;
ALTER TABLE consolidation_verdicts ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON consolidation_namespaces
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON consolidation_runs
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON consolidation_actions
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON consolidation_verdicts
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());

GRANT SELECT, INSERT, UPDATE, DELETE ON consolidation_namespaces, consolidation_runs, consolidation_actions,
  consolidation_verdicts TO engram_app;
