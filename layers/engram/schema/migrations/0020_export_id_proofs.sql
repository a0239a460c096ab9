-- An import keeps a record's id only when the file proves the id is the importing tenant's own: an
-- export writes, beside each memory, link and conversation id, a proof bound to the exporting tenant
-- (SHA-256 of a key only the database holds, the tenant id and the record id). Any other id is given
-- a new one, whether another tenant holds it or nobody does, so an import never tells which.
CREATE TABLE engram_server_keys (
  name text PRIMARY KEY,
  key  bytea NOT NULL
);
INSERT INTO engram_server_keys (name, key)
VALUES ('export_id_proof', uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid())
                           || uuid_send(gen_random_uuid()) || uuid_send(gen_random_uuid()));
REVOKE ALL ON engram_server_keys FROM PUBLIC;

-- The proof of one id for the current tenant (none without a tenant).
CREATE FUNCTION engram_id_proof(p_id uuid) RETURNS text
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT left(encode(sha256(k.key || uuid_send(engram_current_tenant()) || uuid_send(p_id)), 'hex'), 32)
  FROM engram_server_keys k WHERE k.name = 'export_id_proof' AND engram_current_tenant() IS NOT NULL
$$;
REVOKE ALL ON FUNCTION engram_id_proof(uuid) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_id_proof(uuid) TO engram_app;
