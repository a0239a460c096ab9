"""The SQL of the duty login roles (migration 0040): only the migrate function runs it, as the owner."""

from __future__ import annotations

from psycopg import sql
from psycopg.rows import scalar_row

from engram.core.db import Conn

# The roles migration 0040 creates; nothing else may be given a login here.
LOGIN_ROLES = ("engram_api", "engram_worker")


def set_login_password(owner: Conn, role: str, password: str) -> None:
    """LOGIN, with this password (PostgreSQL stores its SCRAM verifier, never the text)."""
    if role not in LOGIN_ROLES:
        raise ValueError(f"{role!r} is not a duty login role ({', '.join(LOGIN_ROLES)})")
    owner.execute(sql.SQL("ALTER ROLE {} WITH LOGIN PASSWORD {}").format(sql.Identifier(role), sql.Literal(password)))


def can_log_in(owner: Conn, role: str) -> bool:
    cur = owner.cursor(row_factory=scalar_row)
    return bool(cur.execute("SELECT rolcanlogin FROM pg_roles WHERE rolname = %s", (role,)).fetchone())
