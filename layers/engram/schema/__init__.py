"""The database schema: plain SQL migrations and the runner that applies them."""
