"""The embedded PostgreSQL's cache: a quarter of the machine's memory, from 128 MB to 1 GB."""

from __future__ import annotations

import os

import pytest

from engram_local import postgres

PAGE = 4096


@pytest.mark.parametrize(
    ("memory_mb", "expected_mb"),
    [(256, 128), (1024, 256), (2048, 512), (4096, 1024), (24 * 1024, 1024)],
)
def test_the_cache_is_a_quarter_of_memory_within_its_bounds(monkeypatch, memory_mb, expected_mb):
    sizes = {"SC_PAGE_SIZE": PAGE, "SC_PHYS_PAGES": memory_mb * 1024 * 1024 // PAGE}
    monkeypatch.setattr(os, "sysconf", lambda name: sizes[name])
    assert postgres.shared_buffers_mb() == expected_mb
