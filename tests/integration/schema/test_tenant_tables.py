"""The catalogue of tenant tables: every table with a `tenant_id` column in the migrated schema has
row-level security on with a policy keyed on the request's tenant, and is reached by tenant erasure,
namespace erasure (a subject erasure by `namespace`), export, import and namespace purge, or is listed
below as deliberately out of that path, with the reason.

What a path reaches is derived, not copied: the SQL its code can run (tests/support/sql_reach.py reads
it from the entry function down, through the `engram_*` database functions it calls), then for the
deleting paths every table that goes with those rows by ON DELETE CASCADE in the live schema. A new
tenant table fails here until a path reaches it or this file says why it does not."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import psycopg

from tests.support.owner_view import owner_connection
from tests.support.sql_reach import strings_reached, tables_in

# The roles requests run as (migrations 0001, 0023, 0040): row-level security binds them because they
# own no table and bypass nothing. FORCE ROW LEVEL SECURITY would bind the owner too, and the owner is
# the migration role (the master user on Aurora: NOSUPERUSER, past row-level security only as owner),
# whose SECURITY DEFINER functions work across tenants by design (the authorizer's key lookup before a
# tenant is known, the trash expiry, the consolidation dispatcher, tenant erasure). So no table is
# forced, and what forcing would guarantee is held here instead: a table that is not forced is owned by
# none of these roles, and none of them is a superuser or bypasses row-level security.
REQUEST_ROLES = ("engram_app", "engram_confined", "engram_api", "engram_worker")

NOT_ERASED_WITH_TENANT = {
    "erasures": "the audit record outlives what it erased, a tenant included (no foreign key): counts and "
    "ids, never content (docs/erasure.md)",
}
NOT_ERASED_WITH_NAMESPACE = {
    "api_keys": "the tenant's credentials, not a namespace's data",
    "oauth_grants": "a client's grant to the tenant, not a namespace's data (it names namespaces it may reach)",
    "oauth_codes": "a grant's short-lived authorization codes, not a namespace's data",
    "oauth_tokens": "a grant's tokens (hashes), not a namespace's data",
    "erasures": "the audit record of the erasure itself",
    "llm_usage": "calls and tokens per day, component and model: no content",
    "namespace_activity": "when the namespace was last written, for the scheduler: no content",
    "consolidation_namespaces": "the scheduler's per-namespace state: no content",
    "extraction_settings": "the namespace's extraction switch and kinds: no content",
    "topic_counters": "the tenant's next topic number: no content",
    "topic_trees": "a tree's model, size and run: counts, no names (the topics themselves are scrubbed)",
    "imports": "an import's job record (its report counts lines and names refused ones by number); the "
    "uploaded file expires with the bucket's imports/ lifecycle rule",
}
NOT_EXPORTED = {
    "api_keys": "credentials stay with the deployment that issued them",
    "oauth_grants": "grants are made to a client by a person on this deployment",
    "oauth_codes": "short-lived, of a grant",
    "oauth_tokens": "of a grant",
    "erasures": "the audit record stays with the deployment that erased",
    "exports": "the export's own job record",
    "imports": "import job records",
    "idempotency_keys": "stored answers for replays within the retention, of this deployment's requests",
    "conversation_appends": "the idempotency records of appends, of this deployment's requests",
    "document_uploads": "an upload's transient record; the document itself is exported with its memory",
    "document_pages": "rebuilt from the exported body when a Tier 2 document is imported",
    "consolidation_runs": "run history is of this deployment (undo restores its own rows); a derived "
    "memory keeps its evidence and an extraction run its actions",
    "consolidation_actions": "of a consolidation run (not exported)",
    "consolidation_verdicts": "of a consolidation run (not exported)",
    "consolidation_namespaces": "the scheduler's state",
    "namespace_activity": "the scheduler's state; an import marks the namespaces it wrote",
    "topic_counters": "topic numbering of this deployment",
    "topic_trees": "derived from vectors; an import rebuilds the tree at the next consolidation run",
    "llm_usage": "this deployment's model spend",
    "recall_events": "recalls answered by this deployment, kept for feedback's retention",
    "recall_feedback": "feedback on this deployment's recalls",
    "feedback_weights": "ranking signals from this deployment's recalls, decaying with time",
}
NOT_IMPORTED = {
    # An import writes a Tier 2 document's pages from its body, and marks the namespaces it wrote.
    **{table: why for table, why in NOT_EXPORTED.items() if table not in ("document_pages", "namespace_activity")},
    "topics": "derived from vectors: exported for reading, not imported (topics_skipped); the next "
    "consolidation run rebuilds them",
    "topic_members": "of a topic (not imported)",
}
NOT_PURGED = {
    "api_keys": "the tenant's credentials, not a namespace's data",
    "oauth_grants": "a client's grant to the tenant, not a namespace's data",
    "oauth_codes": "of a grant",
    "oauth_tokens": "of a grant",
    "erasures": "audit records",
    "llm_usage": "calls and tokens per day: no content",
    "namespace_activity": "when the namespace was last written, for the scheduler: no content",
    "consolidation_namespaces": "the scheduler's per-namespace state: no content",
    "extraction_settings": "the namespace's extraction switch and kinds: no content",
    "topic_counters": "the tenant's next topic number: no content",
    "exports": "job records; a purge does not retire export files (erasure does), which expire with the "
    "bucket's exports/ lifecycle rule",
    "imports": "job records; the uploaded files expire with the bucket's imports/ lifecycle rule",
    "document_uploads": "upload records keep their row (memory_id set NULL); the uploaded objects expire "
    "with the bucket's uploads/ lifecycle rule (erasure deletes both at once)",
    "idempotency_keys": "stored answers naming purged memories stay until idempotency_retention_hours "
    "(erasure deletes them at once)",
    "consolidation_runs": "run history: a purge does not scrub it (erasure does)",
    "consolidation_actions": "the before-images of purged memories stay in their runs' actions until the "
    "runs go (erasure scrubs them): a purge is not an erasure",
    "consolidation_verdicts": "of a consolidation run (see consolidation_actions)",
}


@dataclass(frozen=True)
class CodePath:
    """A code path: its entry functions, the verbs whose tables it reaches, and whether rows deleted
    there take their ON DELETE CASCADE dependants with them."""

    name: str
    entries: tuple[Callable[..., Any], ...]
    verbs: str
    cascades: bool
    out: dict[str, str]


def _paths() -> list[CodePath]:
    from engram.erasure import service as erasure
    from engram.portability import export as portability_export
    from engram.portability import service as portability
    from engram.tenancy import service as tenancy

    deleting = r"DELETE\s+FROM|UPDATE"
    return [
        CodePath("tenant erasure", (erasure.erase_tenant,), deleting, True, NOT_ERASED_WITH_TENANT),
        CodePath("namespace erasure", (erasure.create_erasure,), deleting, True, NOT_ERASED_WITH_NAMESPACE),
        CodePath("export", (portability_export.write_export,), r"FROM|JOIN", False, NOT_EXPORTED),
        CodePath("import", (portability.import_object,), r"INSERT\s+INTO", False, NOT_IMPORTED),
        CodePath("namespace purge", (tenancy.purge_namespace,), deleting, True, NOT_PURGED),
    ]


def tenant_tables(conn: psycopg.Connection) -> dict[str, dict[str, Any]]:
    """Every table of the public schema with a tenant_id column: its row-level security, owner, policies."""
    rows = conn.execute(
        "SELECT c.relname, c.relrowsecurity, c.relforcerowsecurity, pg_get_userbyid(c.relowner),"
        " ARRAY(SELECT coalesce(p.qual, '') FROM pg_policies p WHERE p.schemaname = 'public'"
        "   AND p.tablename = c.relname AND p.permissive = 'PERMISSIVE')"
        " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND NOT c.relispartition"
        " AND EXISTS (SELECT 1 FROM information_schema.columns k WHERE k.table_schema = 'public'"
        "   AND k.table_name = c.relname AND k.column_name = 'tenant_id')"
        " ORDER BY c.relname"
    ).fetchall()
    return {r[0]: {"rls": r[1], "forced": r[2], "owner": r[3], "policies": r[4]} for r in rows}


def cascade_closure(conn: psycopg.Connection, tables: set[str]) -> set[str]:
    """The tables and every table whose rows go with theirs by ON DELETE CASCADE, transitively."""
    edges = conn.execute(
        "SELECT confrelid::regclass::text, conrelid::regclass::text FROM pg_constraint"
        " WHERE contype = 'f' AND confdeltype = 'c'"
    ).fetchall()
    reached, grew = set(tables), True
    while grew:
        more = {child for parent, child in edges if parent in reached} - reached
        reached |= more
        grew = bool(more)
    return reached


def database_function_bodies(conn: psycopg.Connection, strings: list[str]) -> list[str]:
    """The bodies of the engram_* database functions the statements call, and of those they call."""
    seen: set[str] = set()
    bodies: list[str] = []
    todo = list(strings)
    while todo:
        for name in re.findall(r"\b(engram_[a-z0-9_]+)\s*\(", todo.pop()):
            if name in seen:
                continue
            seen.add(name)
            for (body,) in conn.execute("SELECT prosrc FROM pg_proc WHERE proname = %s", (name,)).fetchall():
                bodies.append(body)
                todo.append(body)
    return bodies


def reached_by(conn: psycopg.Connection, path: CodePath) -> set[str]:
    strings = strings_reached(*path.entries)
    named = tables_in(strings + database_function_bodies(conn, strings), path.verbs)
    return cascade_closure(conn, named) if path.cascades else named


# Migration 0062: compared with the bare call, the planner reads the request's tenant into its estimates,
# and a tenant the statistics have not seen looks like a row or two (test_tenant_policies.py).
BARE_CALL = "a policy compares with engram_current_tenant() itself: write (SELECT engram_current_tenant())"


def catalogue_gaps(conn: psycopg.Connection, paths: list[CodePath]) -> list[str]:
    """What a tenant table lacks, one line each; a reason listed for a table no path misses is a gap
    too (a stale entry hides the next table of that name)."""
    tables = tenant_tables(conn)
    gaps = []
    roles = conn.execute(
        "SELECT rolname, rolsuper OR rolbypassrls FROM pg_roles WHERE rolname = ANY(%s)", (list(REQUEST_ROLES),)
    ).fetchall()
    assert roles, "none of the request roles exists: the migrations did not run"
    gaps += [f"role {name} bypasses row-level security" for name, bypasses in roles if bypasses]
    for table, t in tables.items():
        if not t["rls"]:
            gaps.append(f"{table}: row-level security is not enabled")
        if not any("tenant_id" in q and "engram_current_tenant()" in q for q in t["policies"]):
            gaps.append(f"{table}: no permissive policy keys its rows on tenant_id = engram_current_tenant()")
        if any(re.search(r"= engram_current_tenant\(\)", q) for q in t["policies"]):
            gaps.append(f"{table}: {BARE_CALL}")
        if not t["forced"] and t["owner"] in REQUEST_ROLES:
            gaps.append(f"{table}: owned by {t['owner']}, a request role, and not forced")
    for path in paths:
        reached = reached_by(conn, path)
        for table in tables:
            if table not in reached and table not in path.out:
                gaps.append(f"{table}: {path.name} does not reach it (reach it, or say why in this file)")
            if table in reached and table in path.out:
                gaps.append(f"{table}: {path.name} reaches it, yet it is listed as out")
        gaps += [f"{table}: listed as out of {path.name} but not a tenant table" for table in path.out.keys() - tables]
    return gaps


def test_every_tenant_table_is_isolated_erased_exported_and_purged(stack: Any) -> None:
    with owner_connection(stack) as conn:
        assert len(tenant_tables(conn)) > 30  # the catalogue is real: read from the migrated schema
        assert catalogue_gaps(conn, _paths()) == []


def test_a_new_tenant_table_fails_the_catalogue_until_it_is_covered(stack: Any) -> None:
    with owner_connection(stack) as conn, conn.transaction(force_rollback=True):
        conn.execute(
            "CREATE TABLE scratch_notes (id uuid PRIMARY KEY, tenant_id uuid NOT NULL"
            " REFERENCES tenants ON DELETE CASCADE, namespace text NOT NULL, content text NOT NULL)"
        )
        conn.execute("CREATE TABLE scratch_loose (tenant_id uuid NOT NULL)")
        conn.execute("ALTER TABLE scratch_loose ENABLE ROW LEVEL SECURITY")
        conn.execute("CREATE POLICY tenant ON scratch_loose USING (tenant_id = engram_current_tenant())")
        gaps = [g for g in catalogue_gaps(conn, _paths()) if g.startswith("scratch_")]
    assert "scratch_notes: row-level security is not enabled" in gaps
    assert "scratch_notes: no permissive policy keys its rows on tenant_id = engram_current_tenant()" in gaps
    for path in ("namespace erasure", "export", "import", "namespace purge"):
        assert f"scratch_notes: {path} does not reach it (reach it, or say why in this file)" in gaps
    # Its rows go with the tenant's by cascade: tenant erasure reaches it without naming it.
    assert "scratch_notes: tenant erasure does not reach it (reach it, or say why in this file)" not in gaps
    # The other has row-level security but nothing takes its rows when the tenant goes.
    assert "scratch_loose: tenant erasure does not reach it (reach it, or say why in this file)" in gaps
    assert not any(g.startswith("scratch_loose: row-level") or g.startswith("scratch_loose: no") for g in gaps)
    assert f"scratch_loose: {BARE_CALL}" in gaps
