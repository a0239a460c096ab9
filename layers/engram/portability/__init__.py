"""Portability: a tenant's data out as a JSONL file through S3 (export), and such a file back in (import)."""
