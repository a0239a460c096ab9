"""Tenancy: tenants, API keys and scopes, per-tenant statistics, namespace purge."""
