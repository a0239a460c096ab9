-- Erasure (0021) and namespace confinement (0023): an erasure's record names the namespaces of what it
-- erased, and a namespace-confined token sees (or writes) a record only when all of them are its own.
-- The record of a memory erased in another namespace was returned to a confined token that asked to
-- erase that id again (a never-existing id is a 404), telling it the id, when, and by which key.
-- Records from before this have no namespaces: no confined token sees them.
ALTER TABLE erasures ADD COLUMN namespaces text[];
UPDATE erasures SET namespaces = ARRAY[selector->>'namespace']
  WHERE scope = 'subject' AND selector->>'namespace' IS NOT NULL;

DROP POLICY namespace_confinement ON erasures;
CREATE POLICY namespace_confinement ON erasures AS RESTRICTIVE TO engram_confined
  USING (scope = 'memory' AND cardinality(namespaces) > 0
         AND namespaces <@ COALESCE(NULLIF(current_setting('engram.namespaces', true), '')::text[], '{}'))
  WITH CHECK (scope = 'memory' AND cardinality(namespaces) > 0
              AND namespaces <@ COALESCE(NULLIF(current_setting('engram.namespaces', true), '')::text[], '{}'));
