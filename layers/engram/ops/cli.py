"""`engram` command: migrations, tenants and keys, embedding backfill (runs as the schema owner),
and a consolidation run on demand."""

from __future__ import annotations

import argparse
import json
import sys
from uuid import UUID

from engram.core.errors import EngramError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="engram", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    mig = sub.add_parser("migrate", help="apply SQL migrations and register the embedder")
    mig.add_argument(
        "--activate-embedder", action="store_true", help="switch the active embedding space to the configured embedder"
    )
    t = sub.add_parser("create-tenant", help="create a tenant and print its first API key (shown once)")
    t.add_argument("name")
    t.add_argument("--scopes", default="read,write,admin")
    k = sub.add_parser("create-key", help="issue another key for a tenant")
    k.add_argument("tenant_id", type=UUID)
    k.add_argument("--scopes", default="read,write")
    k.add_argument("--name", default="")
    r = sub.add_parser("revoke-key", help="revoke a key by id")
    r.add_argument("key_id", type=UUID)
    g = sub.add_parser("grants", help="apps connected by OAuth: list a tenant's grants, revoke one")
    grants = g.add_subparsers(dest="grants_command", required=True)
    grants.add_parser("list", help="a tenant's grants, newest first").add_argument("--tenant", type=UUID, required=True)
    grants.add_parser("revoke", help="revoke a grant: its tokens stop at once").add_argument("grant_id", type=UUID)
    b = sub.add_parser("backfill", help="re-enqueue chunks that still have no vector")
    b.add_argument("--limit", type=int, default=100_000)
    b.add_argument("--tenant", type=UUID, default=None, help="only this tenant's chunks")
    c = sub.add_parser("consolidate", help="run a consolidation cycle for a namespace now, to the end; prints the run")
    c.add_argument("--tenant", type=UUID, required=True)
    c.add_argument("--namespace", default="default")
    c.add_argument("--dry-run", action="store_true", help="plan only: list the actions, change nothing")
    c.add_argument("--steps", default=None, help="comma-separated steps (default: every step)")
    e = sub.add_parser(
        "erase-tenant", help="erase a tenant for good: every row, key and S3 object; prints the audit record"
    )
    e.add_argument("tenant_id", type=UUID)
    e.add_argument("--yes", action="store_true", help="required: the erasure cannot be undone")
    sub.add_parser("settings", help="list every setting: its environment variable, value here, and description")
    m = sub.add_parser("mcp", help="MCP over stdio for local agents, forwarded to the API's remote /mcp endpoint")
    m.add_argument("--url", help="the API's base URL (default: ENGRAM_API_URL)")
    m.add_argument("--key", help="an API key (default: ENGRAM_API_KEY)")
    args = parser.parse_args(argv)
    if args.command == "mcp":  # no database: settings and the standard library only
        from engram.core.config import settings
        from engram_mcp import stdio_bridge

        url, key = args.url, args.key
        if not (url and key):
            s = settings()
            url = url or s.api_url
            key = key or (s.api_key.get_secret_value() if s.api_key else None)
        return stdio_bridge.run(url, key)
    try:
        return _run(args)
    except EngramError as exc:  # the caller's mistake or a limit: one clear line, no traceback
        print(f"engram {args.command}: {exc.message}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    # Imported here, not at the top: `engram mcp` must start without loading the database stack.
    from engram.core.db import owner_connection
    from engram.ops import operations
    from engram.tenancy.store import issue_key, revoke_key

    if args.command == "settings":
        from engram.ops.settings_listing import listing

        print(listing())
    elif args.command == "migrate":
        applied = operations.migrate_and_register_embedder(activate=args.activate_embedder)
        print(json.dumps({"applied": applied}))
    elif args.command == "create-tenant":
        print(json.dumps(operations.create_tenant_with_key(args.name, args.scopes.split(",")), indent=2))
    elif args.command == "create-key":
        with owner_connection() as owner:
            key = issue_key(owner, args.tenant_id, args.scopes.split(","), name=args.name)
            owner.commit()
        print(json.dumps({"key_id": str(key.key_id), "api_key": key.api_key, "scopes": list(key.scopes)}))
    elif args.command == "revoke-key":
        with owner_connection() as owner:
            revoke_key(owner, args.key_id)
            owner.commit()
        print(json.dumps({"revoked": str(args.key_id)}))
    elif args.command == "grants":
        _grants(args)
    elif args.command == "backfill":
        tenant = str(args.tenant) if args.tenant else None
        print(json.dumps({"enqueued": operations.backfill(limit=args.limit, tenant_id=tenant)}))
    elif args.command == "consolidate":
        from engram.consolidation.dispatch import consolidate_now

        run = consolidate_now(
            args.tenant, args.namespace, dry_run=args.dry_run, steps=args.steps.split(",") if args.steps else None
        )
        print(run.model_dump_json(indent=2))
    elif args.command == "erase-tenant":
        if not args.yes:
            print("engram erase-tenant: add --yes: the tenant's data cannot be brought back", file=sys.stderr)
            return 2
        from engram.erasure.service import erase_tenant

        print(erase_tenant(args.tenant_id, actor="cli").model_dump_json(indent=2))
    return 0


def _grants(args: argparse.Namespace) -> None:
    from engram.core.db import owner_connection
    from engram.core.errors import NotFound
    from engram.oauth import service as oauth_service
    from engram.oauth import store as oauth_store

    if args.grants_command == "list":
        print(oauth_service.list_grants(args.tenant).model_dump_json(indent=2))
        return
    with owner_connection() as owner:  # any tenant's grant, as revoke-key takes any key
        if not oauth_store.revoke_grant(owner, args.grant_id):
            raise NotFound(f"no grant {args.grant_id}")
        owner.commit()
    print(json.dumps({"revoked": str(args.grant_id)}))


if __name__ == "__main__":
    sys.exit(main())
