-- Idempotency-Key (0014) and namespace confinement (0023): a stored answer is replayed only to a caller
-- confined to the same namespaces. A token confined to `alpha` that repeated a key and body first sent
-- by a key (or by a token of `beta`) got that request's stored answer, memories of other namespaces
-- included. confined_to: the caller's namespaces, sorted, as a JSON array; '' for a caller confined
-- to none (an API key, an unconfined token). Keys are unique per tenant and confinement, so each
-- side's retry finds its own answer.
--
-- No row-level security on it: an erasure made by a confined token must still delete every stored
-- answer naming what it erased, whoever stored it; every read of a stored answer names confined_to.
ALTER TABLE idempotency_keys ADD COLUMN confined_to text NOT NULL DEFAULT '';
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_pkey;
ALTER TABLE idempotency_keys ADD PRIMARY KEY (tenant_id, confined_to, idempotency_key);
