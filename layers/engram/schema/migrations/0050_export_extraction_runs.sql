-- Exports carry extraction runs (with their actions) as they carry memories, links and conversations:
-- an import keeps a run's id when it is the importing tenant's own and free anywhere, so
-- engram_ids_taken (0012) answers for extraction_runs too.
CREATE OR REPLACE FUNCTION engram_ids_taken(p_table text, p_ids uuid[]) RETURNS SETOF uuid
LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  IF p_table = 'memories' THEN
    RETURN QUERY SELECT id FROM memories WHERE id = ANY(p_ids);
  ELSIF p_table = 'links' THEN
    RETURN QUERY SELECT id FROM links WHERE id = ANY(p_ids);
  ELSIF p_table = 'conversations' THEN
    RETURN QUERY SELECT id FROM conversations WHERE id = ANY(p_ids);
  ELSIF p_table = 'extraction_runs' THEN
    RETURN QUERY SELECT id FROM extraction_runs WHERE id = ANY(p_ids);
  ELSE
    RAISE EXCEPTION 'unknown table %', p_table;
  END IF;
END
$$;
