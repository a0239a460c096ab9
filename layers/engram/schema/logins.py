"""The duty login roles get their passwords from their own secrets, on every deploy.

In AWS each function logs in with the secret of its duty (engram_api for the API, engram_worker for the
queue and schedule workers); only the migrate function holds the master secret. Secrets Manager
generates each password and rotates it (single-user rotation: the role changes its own password), so
migrate only has to make a role's secret work the first time, or again after someone reset it: it
tries the secret, and sets the role's password only when the secret cannot log in.
"""

from __future__ import annotations

from collections.abc import Mapping

import psycopg

from engram.core.config import database_secret, dsn_from_secret
from engram.core.db import Conn
from engram.schema.login_store import can_log_in, set_login_password

LOGIN_CHECK_TIMEOUT_S = 5


def provision_logins(owner: Conn, secret_arns: Mapping[str, str]) -> list[str]:
    """Make each role's secret log in (role name -> secret ARN). Returns the roles whose password was set."""
    changed = []
    for role, arn in sorted(secret_arns.items()):
        secret = database_secret(arn, force_fetch=True)
        if secret.get("username") != role:
            raise ValueError(f"the secret given for {role} logs in as {secret.get('username')!r}")
        if can_log_in(owner, role) and _secret_logs_in(dsn_from_secret(secret)):
            continue
        set_login_password(owner, role, str(secret["password"]))
        changed.append(role)
    owner.commit()
    return changed


def _secret_logs_in(dsn: str) -> bool:
    try:
        with psycopg.connect(dsn, connect_timeout=LOGIN_CHECK_TIMEOUT_S):
            return True
    except psycopg.OperationalError:
        return False
