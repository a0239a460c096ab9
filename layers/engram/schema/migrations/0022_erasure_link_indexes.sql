-- Hard deletes of memories (erasure, undo of a distillation) cascade to their links row by row:
-- `DELETE FROM links WHERE from_id = $1` and `... to_id = $1`. The links indexes lead with tenant_id,
-- so each of those read every link of every tenant: an erasure of 2,000 memories took 10 s at 20k
-- links. Plain indexes on each end make each cascade one index probe.
CREATE INDEX links_from_id ON links (from_id);
CREATE INDEX links_to_id ON links (to_id);
