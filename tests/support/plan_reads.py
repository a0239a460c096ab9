"""What a statement read of a table, from its EXPLAIN (ANALYZE, FORMAT JSON) plan: counted by the
plan, not by the statistics views, so a bitmap index scan's entries count too (they never reach the
table's row counters when a bitmap AND throws them away)."""

from __future__ import annotations

from typing import Any

from psycopg import Connection, sql
from psycopg.rows import tuple_row


def rows_read(conn: Connection[Any], table: str, statement: sql.Composable, params: Any) -> int:
    """Run the statement under EXPLAIN ANALYZE on this connection and count what it read of the table:
    the rows its scans of the table returned or threw away by a filter or a recheck, and the entries its
    bitmap scans of the table's indexes returned, each times its loops."""
    cur = conn.cursor(row_factory=tuple_row)
    indexes = {r[0] for r in cur.execute("SELECT indexname FROM pg_indexes WHERE tablename = %s", (table,))}
    explained = cur.execute(sql.SQL("EXPLAIN (ANALYZE, FORMAT JSON) {}").format(statement), params).fetchone()
    assert explained is not None
    return _read(explained[0][0]["Plan"], table, indexes)


_RECHECKED = "Rows Removed by Index Recheck"


def _read(node: dict[str, Any], table: str, indexes: set[str]) -> int:
    own = 0
    if node.get("Relation Name") == table:
        own = sum(int(node.get(k, 0)) for k in ("Actual Rows", "Rows Removed by Filter", _RECHECKED))
    elif node.get("Node Type") == "Bitmap Index Scan" and node.get("Index Name") in indexes:
        own = int(node.get("Actual Rows", 0))
    return own * int(node.get("Actual Loops", 1)) + sum(_read(p, table, indexes) for p in node.get("Plans", []))
