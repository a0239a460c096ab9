"""Where export and import files live: the uploads bucket, under exports/ and imports/. No SQL."""

from __future__ import annotations

from datetime import timedelta

from engram.core.config import settings
from engram.core.errors import DependencyDown

CONTENT_TYPE = "application/x-ndjson"
EXPIRY_GRACE = timedelta(minutes=15)  # an event may lag the PUT; only then is a pending import expired


def files_bucket() -> str:
    name = settings().uploads_bucket
    if not name:
        raise DependencyDown(
            "exports and imports are not configured (ENGRAM_UPLOADS_BUCKET)", {"dependency": "uploads_bucket"}
        )
    return name
