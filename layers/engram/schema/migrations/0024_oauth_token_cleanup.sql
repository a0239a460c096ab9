-- OAuth (0023): a grant's expired tokens are deleted when it issues new ones (every refresh adds two
-- rows), so the request role may delete them; row-level security still confines it to its tenant.
GRANT DELETE ON oauth_tokens TO engram_app;
