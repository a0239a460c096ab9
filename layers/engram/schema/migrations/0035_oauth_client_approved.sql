-- OAuth (0023): /authorize sends an error back to a client's redirect URI only once a person has
-- approved that client on the consent page. Anyone may register any https redirect URI, so before a
-- first approval such a redirect would make this API an open redirector (RFC 9700 §4.11.2); the
-- person gets a page naming the error instead. approved_at: when the client's first grant was made.
ALTER TABLE oauth_clients ADD COLUMN approved_at timestamptz;
UPDATE oauth_clients c SET approved_at = g.first_grant
  FROM (SELECT client_id, min(created_at) AS first_grant FROM oauth_grants GROUP BY client_id) g
  WHERE g.client_id = c.id;
