-- OAuth 2.1 for the remote MCP endpoint (issue 25): registered clients, pending authorizations, grants,
-- one-time codes and tokens; and namespace confinement of a grant's tokens by row-level security.
-- Depends on 0001-0021.

-- Public clients (no secret): registered (RFC 7591) or described by a Client ID Metadata Document
-- (the id is then its https URL). No tenant is known when a client registers or starts an authorization,
-- and neither table holds tenant data: the request role reads them directly.
CREATE TABLE oauth_clients (
  id                text PRIMARY KEY,
  client_name       text NOT NULL DEFAULT '',
  redirect_uris     text[] NOT NULL CHECK (cardinality(redirect_uris) BETWEEN 1 AND 10),
  metadata_document boolean NOT NULL DEFAULT false,
  metadata          jsonb NOT NULL DEFAULT '{}',
  created_at        timestamptz NOT NULL DEFAULT now(),
  fetched_at        timestamptz
);

-- /oauth/authorize's request, waiting for the person's consent (its id is the unguessable handle).
CREATE TABLE oauth_requests (
  id             text PRIMARY KEY,
  client_id      text NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  redirect_uri   text NOT NULL,
  code_challenge text NOT NULL,
  state          text,
  scopes         text[] NOT NULL,
  resource       text NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  expires_at     timestamptz NOT NULL
);
CREATE INDEX oauth_requests_expiry ON oauth_requests (expires_at);

GRANT SELECT, INSERT, UPDATE, DELETE ON oauth_clients, oauth_requests TO engram_app;

-- What a person allowed a client: at most what the granting key can do, checked again at every use.
CREATE TABLE oauth_grants (
  id           uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id    uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  key_id       uuid NOT NULL REFERENCES api_keys(id) ON DELETE CASCADE,
  client_id    text NOT NULL REFERENCES oauth_clients(id) ON DELETE CASCADE,
  client_name  text NOT NULL DEFAULT '',
  scopes       text[] NOT NULL CHECK (scopes <@ ARRAY['read', 'write', 'admin']::text[] AND cardinality(scopes) > 0),
  namespaces   text[],                    -- NULL: every namespace
  resource     text NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  expires_at   timestamptz NOT NULL,      -- the last refresh token's expiry
  revoked_at   timestamptz
);
CREATE INDEX oauth_grants_listing ON oauth_grants (tenant_id, created_at DESC);
CREATE INDEX oauth_grants_key ON oauth_grants (key_id) WHERE revoked_at IS NULL;

-- One-time codes: only the sha256 is kept. used_at set: a second use revokes the grant.
CREATE TABLE oauth_codes (
  code_hash      bytea PRIMARY KEY,
  tenant_id      uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  grant_id       uuid NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  redirect_uri   text NOT NULL,
  code_challenge text NOT NULL,
  expires_at     timestamptz NOT NULL,
  used_at        timestamptz
);

-- Access and refresh tokens: only the sha256 is kept. A refresh token is rotated on use
-- (rotated_at); presenting a rotated one again revokes the whole grant.
CREATE TABLE oauth_tokens (
  token_hash bytea PRIMARY KEY,
  tenant_id  uuid NOT NULL REFERENCES tenants(id) ON DELETE CASCADE,
  grant_id   uuid NOT NULL REFERENCES oauth_grants(id) ON DELETE CASCADE,
  kind       text NOT NULL CHECK (kind IN ('access', 'refresh')),
  scopes     text[] NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  rotated_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX oauth_tokens_grant ON oauth_tokens (grant_id);

ALTER TABLE oauth_grants ENABLE ROW LEVEL SECURITY;
ALTER TABLE oauth_codes ENABLE ROW LEVEL SECURITY;
ALTER TABLE oauth_tokens ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON oauth_grants
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON oauth_codes
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
CREATE POLICY tenant_isolation ON oauth_tokens
  USING (tenant_id = engram_current_tenant()) WITH CHECK (tenant_id = engram_current_tenant());
GRANT SELECT, INSERT, UPDATE ON oauth_grants, oauth_codes, oauth_tokens TO engram_app;

-- The tenant a code or a token belongs to, before any tenant is known (the token endpoint, revocation):
-- nothing else; the caller then works in that tenant's transaction.
CREATE FUNCTION engram_oauth_tenant(p_hash bytea) RETURNS uuid
LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public, pg_temp AS $$
  SELECT tenant_id FROM oauth_codes WHERE code_hash = p_hash
  UNION ALL
  SELECT tenant_id FROM oauth_tokens WHERE token_hash = p_hash
  LIMIT 1
$$;
REVOKE ALL ON FUNCTION engram_oauth_tenant(bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_oauth_tenant(bytea) TO engram_app;

-- An access token -> its caller, as engram_authenticate does for keys. The scopes are the token's
-- within the granting key's scopes now (a key narrowed later narrows its tokens); a revoked key, grant
-- or token, or an expired token, matches nothing. Marks the grant used (at most once a minute).
CREATE FUNCTION engram_authenticate_token(p_token_hash bytea)
RETURNS TABLE (grant_id uuid, tenant_id uuid, key_id uuid, scopes text[], namespaces text[], resource text)
LANGUAGE plpgsql VOLATILE SECURITY DEFINER SET search_path = public, pg_temp AS $$
BEGIN
  RETURN QUERY
    SELECT g.id, g.tenant_id, g.key_id,
      ARRAY(SELECT s FROM unnest(t.scopes) s WHERE s = ANY(k.scopes) OR 'admin' = ANY(k.scopes)),
      g.namespaces, g.resource
    FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN api_keys k ON k.id = g.key_id
    WHERE t.token_hash = p_token_hash AND t.kind = 'access' AND t.revoked_at IS NULL AND t.expires_at > now()
      AND g.revoked_at IS NULL AND k.revoked_at IS NULL;
  UPDATE oauth_grants g SET last_used_at = now()
  FROM oauth_tokens t
  WHERE t.token_hash = p_token_hash AND g.id = t.grant_id
    AND (g.last_used_at IS NULL OR g.last_used_at < now() - interval '1 minute');
END
$$;
REVOKE ALL ON FUNCTION engram_authenticate_token(bytea) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION engram_authenticate_token(bytea) TO engram_app;

-- A grant can never outlive its key: revoking the key revokes its grants (and so their tokens).
CREATE FUNCTION engram_api_key_revokes_grants() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  UPDATE oauth_grants SET revoked_at = NEW.revoked_at WHERE key_id = NEW.id AND revoked_at IS NULL;
  RETURN NULL;
END
$$;
CREATE TRIGGER api_keys_revoke_grants AFTER UPDATE OF revoked_at ON api_keys
  FOR EACH ROW WHEN (NEW.revoked_at IS NOT NULL AND OLD.revoked_at IS NULL)
  EXECUTE FUNCTION engram_api_key_revokes_grants();

-- Namespace confinement. A transaction made with a namespaces-limited token sets
-- engram.namespaces (a JSON array) and SET LOCAL ROLE engram_confined: the restrictive policies
-- below apply to that role only, so every other request keeps its plans exactly as they were.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'engram_confined') THEN
    CREATE ROLE engram_confined NOLOGIN;
  END IF;
END
$$;
GRANT engram_app TO engram_confined;    -- every privilege of the request role, and no more
GRANT engram_confined TO CURRENT_USER;  -- so the session user may SET ROLE to it

CREATE FUNCTION engram_namespace_allowed(p_namespace text) RETURNS boolean
LANGUAGE sql STABLE AS $$
  SELECT p_namespace IS NOT NULL AND p_namespace IN (
    SELECT jsonb_array_elements_text(COALESCE(NULLIF(current_setting('engram.namespaces', true), ''), '[]')::jsonb))
$$;

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['memories', 'chunks', 'conversations', 'document_uploads', 'consolidation_namespaces',
                           'consolidation_runs', 'namespace_activity', 'topic_trees', 'topics', 'exports', 'imports']
  LOOP
    EXECUTE format('CREATE POLICY namespace_confinement ON %I AS RESTRICTIVE TO engram_confined'
                   ' USING (engram_namespace_allowed(namespace)) WITH CHECK (engram_namespace_allowed(namespace))', t);
  END LOOP;
END
$$;
-- Rows without a namespace follow their owner (whose own policy applies inside the subquery).
CREATE POLICY namespace_confinement ON messages AS RESTRICTIVE TO engram_confined
  USING (EXISTS (SELECT 1 FROM conversations v WHERE v.id = conversation_id))
  WITH CHECK (EXISTS (SELECT 1 FROM conversations v WHERE v.id = conversation_id));
CREATE POLICY namespace_confinement ON conversation_appends AS RESTRICTIVE TO engram_confined
  USING (EXISTS (SELECT 1 FROM conversations v WHERE v.id = conversation_id))
  WITH CHECK (EXISTS (SELECT 1 FROM conversations v WHERE v.id = conversation_id));
CREATE POLICY namespace_confinement ON documents AS RESTRICTIVE TO engram_confined
  USING (EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id))
  WITH CHECK (EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id));
CREATE POLICY namespace_confinement ON document_pages AS RESTRICTIVE TO engram_confined
  USING (EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id))
  WITH CHECK (EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id));
CREATE POLICY namespace_confinement ON memory_versions AS RESTRICTIVE TO engram_confined
  USING (EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id))
  WITH CHECK (EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id));
CREATE POLICY namespace_confinement ON topic_members AS RESTRICTIVE TO engram_confined
  USING (EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id))
  WITH CHECK (EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_id));
CREATE POLICY namespace_confinement ON links AS RESTRICTIVE TO engram_confined
  USING (EXISTS (SELECT 1 FROM memories m WHERE m.id = from_id) AND EXISTS (SELECT 1 FROM memories m WHERE m.id = to_id))
  WITH CHECK (EXISTS (SELECT 1 FROM memories m WHERE m.id = from_id)
              AND EXISTS (SELECT 1 FROM memories m WHERE m.id = to_id));
CREATE POLICY namespace_confinement ON consolidation_actions AS RESTRICTIVE TO engram_confined
  USING (EXISTS (SELECT 1 FROM consolidation_runs r WHERE r.id = run_id))
  WITH CHECK (EXISTS (SELECT 1 FROM consolidation_runs r WHERE r.id = run_id));
CREATE POLICY namespace_confinement ON consolidation_verdicts AS RESTRICTIVE TO engram_confined
  USING (EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_a) AND EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_b))
  WITH CHECK (EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_a)
              AND EXISTS (SELECT 1 FROM memories m WHERE m.id = memory_b));
-- A confined token erases single memories of its namespaces only (a subject or the tenant spans them all).
CREATE POLICY namespace_confinement ON erasures AS RESTRICTIVE TO engram_confined
  USING (scope = 'memory') WITH CHECK (scope = 'memory');
-- Keys and grants are the tenant's, not a namespace's: a confined token neither sees nor makes them.
CREATE POLICY namespace_confinement ON api_keys AS RESTRICTIVE TO engram_confined USING (false) WITH CHECK (false);
CREATE POLICY namespace_confinement ON oauth_grants AS RESTRICTIVE TO engram_confined USING (false) WITH CHECK (false);
