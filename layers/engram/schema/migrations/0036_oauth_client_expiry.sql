-- OAuth (0023): registration is open to anyone (RFC 7591, as MCP clients need), so a client row must
-- neither hold what a stranger sends nor live for ever.
--
-- active_until: the client is kept until then. Registering or fetching its metadata document, and
-- each /authorize, keep it for ENGRAM_OAUTH_UNUSED_CLIENT_TTL_S; a grant made or refreshed keeps it
-- as long as the grant's refresh token could still be used. Expired clients are deleted as new ones
-- register (their requests and expired grants go with them, ON DELETE CASCADE).
ALTER TABLE oauth_clients ADD COLUMN active_until timestamptz;
UPDATE oauth_clients c SET active_until = GREATEST(
    c.created_at + interval '1 day',
    c.fetched_at + interval '1 day',
    (SELECT max(r.expires_at) FROM oauth_requests r WHERE r.client_id = c.id) + interval '1 day',
    (SELECT max(g.expires_at) FROM oauth_grants g WHERE g.client_id = c.id));
ALTER TABLE oauth_clients ALTER COLUMN active_until SET NOT NULL;
CREATE INDEX oauth_clients_expiry ON oauth_clients (active_until);

-- Only the registration fields the server uses are kept (RFC 7591 §2: a server ignores the rest).
UPDATE oauth_clients SET metadata = COALESCE(
    (SELECT jsonb_object_agg(key, value) FROM jsonb_each(metadata)
     WHERE key IN ('redirect_uris', 'client_name', 'token_endpoint_auth_method', 'grant_types',
                   'response_types', 'scope')),
    '{}');
