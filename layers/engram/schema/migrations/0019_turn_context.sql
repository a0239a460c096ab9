-- Recall on real dialogue (bench/dialogue_recall.py): a turn's own words rarely hold everything a
-- question asks ("What did Caroline research?" / "Researching adoption agencies" is answered one turn
-- later), so a conversation chunk's keyword index also holds its neighbouring turns, the one before
-- and the one after on the same day, with the lowest weight (D): found by them, ranked mostly by its
-- own words (weight A). The chunk's text, what recall returns and bills to budget_chars, is unchanged.
-- The embedding stays the turn's own: MiniLM on a turn with its neighbours found less than on the
-- turn alone. tsv is a generated column, so it is dropped and added again with the new expression;
-- tenant_chunks (SELECT * expanded when created) is recreated around it.
DROP VIEW tenant_chunks;
ALTER TABLE chunks ADD COLUMN context text;
ALTER TABLE chunks DROP COLUMN tsv;
ALTER TABLE chunks ADD COLUMN tsv tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english', text), 'A') || setweight(to_tsvector('english', coalesce(context, '')), 'D')
) STORED;
CREATE INDEX chunks_tsv ON chunks USING gin (tsv);
CREATE VIEW tenant_chunks AS
  SELECT * FROM chunks WHERE tenant_id = engram_current_tenant();
GRANT SELECT ON tenant_chunks TO engram_app;

-- Conversation chunks stored before: their neighbours, as engram.conversations.store writes them.
UPDATE chunks c SET context = nullif(concat_ws(E'\n',
  (SELECT p.content FROM messages p JOIN messages f ON f.conversation_id = p.conversation_id AND f.seq = p.seq + 1
    WHERE p.conversation_id = c.conversation_id AND f.seq = c.seq_from
      AND (p.created_at AT TIME ZONE 'UTC')::date = (f.created_at AT TIME ZONE 'UTC')::date),
  (SELECT n.content FROM messages n WHERE n.conversation_id = c.conversation_id AND n.seq = c.seq_to + 1
      AND (n.created_at AT TIME ZONE 'UTC')::date = (c.occurred_at AT TIME ZONE 'UTC')::date)), '')
WHERE c.conversation_id IS NOT NULL;
