-- Namespace confinement (0023), cheaper: the policies' check was a SQL function with a subquery, which
-- PostgreSQL cannot inline, so it ran once per row (a confined count of 10k memories took 20x the
-- unconfined one). engram.namespaces now holds a text[] literal and the check is one inlinable
-- expression. No setting (or an empty one) still allows nothing.
CREATE OR REPLACE FUNCTION engram_namespace_allowed(p_namespace text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT COALESCE(p_namespace = ANY(NULLIF(current_setting('engram.namespaces', true), '')::text[]), false)
$$;
