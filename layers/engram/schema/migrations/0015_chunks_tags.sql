-- Recall's keyword rank counts the rows its filters leave (engram.recall.store, _KEYWORD_IDF): with a
-- tag filter and no index on chunks.tags that count read every row of the tenant (a sequential scan:
-- ~50 ms of a filtered recall at 100k chunks). With this index a namespace + tag filter reads only the
-- rows that pass it (a bitmap AND with chunks_scope). Depends on 0001 and 0009.
CREATE INDEX chunks_tags ON chunks USING gin (tags);
