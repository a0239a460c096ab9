"""What an execution environment restored from a Lambda SnapStart snapshot must not share.

SnapStart imports the handler once, when a version is published, snapshots the process, and resumes
every new execution environment from that one image. Whatever the import created is shared by all
of them. The handlers create nothing unique at import (the database connection, boto3 clients,
the DSN and the settings are made on first use, after the restore); the exception is Python's
global `random` generator, seeded from the OS when `random` is first imported, which is at import.
Restored environments would draw the same sequence, so the retry jitter meant to spread concurrent
containers apart (ours in engram.core.db and the LLM adapter, botocore's) would line them up.
`uuid4`, `secrets` and `os.urandom` read the kernel's generator at each call and are unaffected.
"""

from __future__ import annotations

import random

_reseeded = False


def reseed_once() -> None:
    """Give this execution environment a `random` sequence of its own: from fresh OS entropy, once,
    at its first invocation (a snapshot is taken before any invocation, so a restored environment
    always reseeds). Without SnapStart it costs one seed per container and changes nothing."""
    global _reseeded
    if not _reseeded:
        random.seed()  # None: os.urandom
        _reseeded = True
