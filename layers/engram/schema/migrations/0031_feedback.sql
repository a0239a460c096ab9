-- Feedback that moves ranking (seed 000's memory_feedback). A recall (not a read-only one) is kept as a
-- recall event: the ids it returned, never the query's text. POST /v1/feedback names the event and which
-- of its results were useful or not; each result's ranking weight moves, bounded, and decays back with
-- time (engram.feedback.weights). Events, feedback and weights are kept ENGRAM_FEEDBACK_RETENTION_DAYS and
-- erased with the memories or conversations they name.

CREATE TABLE recall_events (
  id          uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id   uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  namespaces  text[] NOT NULL DEFAULT '{}',   -- of the results: a namespace purge finds its events
  memory_ids  uuid[] NOT NULL DEFAULT '{}',   -- memory results
  chunk_ids   uuid[] NOT NULL DEFAULT '{}',   -- every result's chunk (a conversation window is its chunk)
  created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX recall_events_age ON recall_events (created_at);
CREATE INDEX recall_events_memories ON recall_events USING gin (memory_ids);
CREATE INDEX recall_events_chunks ON recall_events USING gin (chunk_ids);

CREATE TABLE recall_feedback (
  id            uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id     uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  recall_id     uuid NOT NULL UNIQUE REFERENCES recall_events(id) ON DELETE CASCADE,  -- once per recall
  useful        uuid[] NOT NULL DEFAULT '{}',  -- the ranking targets: memory ids, conversation window chunk ids
  not_useful    uuid[] NOT NULL DEFAULT '{}',
  failure_class text CHECK (failure_class IN ('vocabulary_mismatch', 'aggregation_failure', 'stale_ranking',
                                              'missing_content', 'scope_mismatch')),
  note          text CHECK (note IS NULL OR length(note) <= 2000),
  created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX recall_feedback_age ON recall_feedback (tenant_id, created_at);

-- One weight per result a tenant gave feedback on: -1..1 as last written, decayed when read.
CREATE TABLE feedback_weights (
  tenant_id  uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  target_id  uuid NOT NULL,   -- a memory id, or a conversation window's chunk id
  weight     real NOT NULL CHECK (weight >= -1 AND weight <= 1),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, target_id)
);
CREATE INDEX feedback_weights_age ON feedback_weights (updated_at);

ALTER TABLE recall_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE recall_feedback ENABLE ROW LEVEL SECURITY;
ALTER TABLE feedback_weights ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON recall_events
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON recall_feedback
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON feedback_weights
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
GRANT SELECT, INSERT, UPDATE, DELETE ON recall_events, recall_feedback, feedback_weights TO engram_app;

-- The scheduled work drops what is past its retention across tenants before it knows one (as the trash's
-- expiry): this definer function deletes only those rows and says how many.
CREATE FUNCTION engram_expire_feedback(p_retention interval)
RETURNS TABLE (events bigint, weights bigint)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
DECLARE
  n_events bigint;
  n_weights bigint;
BEGIN
  DELETE FROM recall_events WHERE created_at < now() - p_retention;
  GET DIAGNOSTICS n_events = ROW_COUNT;
  DELETE FROM feedback_weights WHERE updated_at < now() - p_retention;
  GET DIAGNOSTICS n_weights = ROW_COUNT;
  RETURN QUERY SELECT n_events, n_weights;
END
$$;
REVOKE ALL ON FUNCTION engram_expire_feedback(interval) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_expire_feedback(interval) TO engram_app;
