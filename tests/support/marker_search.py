"""Where a marker string is stored: every text, json and text[] column of every table (as the
database owner, past row-level security), and every object of the local bucket. An erasure's proof
is that neither finds it."""

from __future__ import annotations

from typing import Any

from psycopg import sql

from tests.support.owner_view import owner_connection


def hits(stack: Any, needle: str) -> list[str]:
    """Every text, json, jsonb and text[] column of every table holding `needle`: table.column."""
    found = []
    with owner_connection(stack) as conn:
        columns = conn.execute(
            "SELECT c.table_name, c.column_name FROM information_schema.columns c"
            " JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name"
            " WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'"
            " AND (c.data_type IN ('text', 'json', 'jsonb', 'character varying') OR c.udt_name = '_text')"
        ).fetchall()
        assert len(columns) > 40  # the scan is real: every table's columns
        for table, column in columns:
            query = sql.SQL("SELECT count(*) FROM {} WHERE strpos({}::text, %s) > 0").format(
                sql.Identifier(table), sql.Identifier(column)
            )
            row = conn.execute(query, (needle,)).fetchone()
            if row and row[0]:
                found.append(f"{table}.{column}")
    return found


def s3_hits(stack: Any, needle: str) -> list[str]:
    """Every object of the local bucket holding `needle`."""
    s3 = stack.aws.s3()
    found = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=stack.uploads_bucket):
        for obj in page.get("Contents", []):
            body = s3.get_object(Bucket=stack.uploads_bucket, Key=obj["Key"])["Body"].read()
            if needle.encode() in body:
                found.append(obj["Key"])
    return found
