"""Ordered SQL migrations, applied once each under an advisory lock.

Concurrent Lambdas (or a deploy racing a dev server) serialise on the lock; each file runs in
its own transaction and is recorded with its checksum, so an edited, already-applied file is
reported instead of silently skipped.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources

from psycopg.rows import tuple_row

from engram.core.config import settings
from engram.core.db import open_connection

# Any stable 64-bit number; the CDK migrate function and the CLI use this same key.
MIGRATION_LOCK_KEY = 0x656E6772616D  # "engram"


@dataclass(frozen=True)
class Migration:
    version: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()


class MigrationDrift(RuntimeError):
    """An applied migration file was changed afterwards."""


def available_migrations() -> list[Migration]:
    folder = resources.files("engram.schema") / "migrations"
    files = sorted((p for p in folder.iterdir() if p.name.endswith(".sql")), key=lambda p: p.name)
    return [Migration(p.name.removesuffix(".sql"), p.read_text(encoding="utf-8")) for p in files]


def apply_migrations(dsn: str) -> list[str]:
    """Apply what is missing; return the versions applied by this call."""
    applied_now: list[str] = []
    # A deploy may find a paused dev cluster: wait longer than a request would.
    with open_connection(dsn, wait_s=max(settings().db_connect_wait_s, 90.0), autocommit=True) as conn:
        conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK_KEY,))
        try:
            conn.execute(
                "CREATE TABLE IF NOT EXISTS schema_migrations ("
                " version text PRIMARY KEY, checksum text NOT NULL,"
                " applied_at timestamptz NOT NULL DEFAULT now())"
            )
            applied: list[tuple[str, str]] = (
                conn.cursor(row_factory=tuple_row).execute("SELECT version, checksum FROM schema_migrations").fetchall()
            )
            done = dict(applied)
            for migration in available_migrations():
                if migration.version in done:
                    if done[migration.version] != migration.checksum:
                        raise MigrationDrift(f"migration {migration.version} changed after it was applied")
                    continue
                with conn.transaction():
                    conn.execute(migration.sql)
                    conn.execute(
                        "INSERT INTO schema_migrations (version, checksum) VALUES (%s, %s)",
                        (migration.version, migration.checksum),
                    )
                applied_now.append(migration.version)
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK_KEY,))
    return applied_now
