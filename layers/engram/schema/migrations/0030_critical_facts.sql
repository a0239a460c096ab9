-- Critical facts and conflict keys (seed 002's memory policy).
--
-- critical: a fact an agent must never miss (an allergy, a production guard rail). Recall, resume, prime
-- and task context return the critical memories of the namespaces they read ahead of everything else,
-- within a reserved share of the budget, whatever the query says.
--
-- conflict_key: a slot a fact fills ("user.city"). A memory written with a key supersedes the current
-- memory of the namespace with the same key at once, through a `supersedes` link (the graph ends the
-- older one's validity and history shows the chain): deterministic, no model.
ALTER TABLE memories
  ADD COLUMN critical boolean NOT NULL DEFAULT false,
  ADD COLUMN conflict_key text CHECK (conflict_key IS NULL OR length(conflict_key) BETWEEN 1 AND 200);

-- Recall reads a namespace's critical memories on every request: a small partial index finds them.
CREATE INDEX memories_critical ON memories (tenant_id, namespace) WHERE critical AND status = 'active';
-- A keyed write finds the key's current memory.
CREATE INDEX memories_conflict_key ON memories (tenant_id, namespace, conflict_key)
  WHERE conflict_key IS NOT NULL AND status = 'active';
