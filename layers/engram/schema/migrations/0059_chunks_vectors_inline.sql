-- A chunk's vector (384 floats: 1,540 bytes) stays in its row. With text, words and the neighbours'
-- words beside it a conversation turn's row is ~2.6 kB, past the 2 kB at which PostgreSQL moves the
-- largest value out of line, so every vector was in the TOAST table: scoring a namespace's turns
-- exactly (a conversation, a small tenant) read each one through the TOAST index, three buffers a row.
-- Rows up to half a page now stay whole: the candidate statement over a real conversation's ~420 turns
-- read 1,182 buffers instead of 3,157 and ran in 6.3-6.8 ms instead of 7.6 (docs/performance.md,
-- "Where a conversation recall's time goes"). Rows written before keep their out-of-line vectors until
-- they are written again (a re-embedding, VACUUM FULL).
ALTER TABLE chunks SET (toast_tuple_target = 4080);
