-- Namespace confinement (0023) for the tables of feedback (0031) and task runs (0032): a token confined
-- to some namespaces sees and writes only their rows, as it does for memories and conversations.

-- A task run has its namespace; its checkpoints follow it.
CREATE POLICY namespace_confinement ON task_runs AS RESTRICTIVE TO engram_confined
  USING (engram_namespace_allowed(namespace)) WITH CHECK (engram_namespace_allowed(namespace));
CREATE POLICY namespace_confinement ON task_checkpoints AS RESTRICTIVE TO engram_confined
  USING (EXISTS (SELECT 1 FROM task_runs t WHERE t.id = task_id))
  WITH CHECK (EXISTS (SELECT 1 FROM task_runs t WHERE t.id = task_id));

-- A recall event is the confined caller's when every namespace it returned from is allowed (a confined
-- recall reads only those); its feedback follows it.
CREATE POLICY namespace_confinement ON recall_events AS RESTRICTIVE TO engram_confined
  USING (NOT EXISTS (SELECT 1 FROM unnest(namespaces) n WHERE NOT engram_namespace_allowed(n)))
  WITH CHECK (NOT EXISTS (SELECT 1 FROM unnest(namespaces) n WHERE NOT engram_namespace_allowed(n)));
CREATE POLICY namespace_confinement ON recall_feedback AS RESTRICTIVE TO engram_confined
  USING (EXISTS (SELECT 1 FROM recall_events e WHERE e.id = recall_id))
  WITH CHECK (EXISTS (SELECT 1 FROM recall_events e WHERE e.id = recall_id));

-- A weight belongs to a memory or a conversation window (a chunk), whose own policies apply inside.
CREATE POLICY namespace_confinement ON feedback_weights AS RESTRICTIVE TO engram_confined
  USING (EXISTS (SELECT 1 FROM memories m WHERE m.id = target_id) OR EXISTS (SELECT 1 FROM chunks c WHERE c.id = target_id))
  WITH CHECK (EXISTS (SELECT 1 FROM memories m WHERE m.id = target_id)
              OR EXISTS (SELECT 1 FROM chunks c WHERE c.id = target_id));
