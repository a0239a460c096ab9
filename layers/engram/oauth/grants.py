"""A tenant's grants: the clients its API keys allowed, listed and revoked (revoking a grant revokes
its tokens)."""

from __future__ import annotations

from uuid import UUID

from engram.core.db import tenant_transaction
from engram.core.errors import NotFound
from engram.oauth import store
from engram.oauth.models import GrantList

__all__ = ["list_grants", "revoke_grant"]


def list_grants(tenant_id: UUID) -> GrantList:
    with tenant_transaction(tenant_id) as conn:
        return GrantList(grants=store.list_grants(conn))


def revoke_grant(tenant_id: UUID, grant_id: UUID) -> None:
    with tenant_transaction(tenant_id) as conn:
        if not store.revoke_grant(conn, grant_id):
            raise NotFound(f"no grant {grant_id}")
