"""The embedded PostgreSQL's cache: a quarter of the memory it may use (the machine's, or its container's
limit when lower), from 128 MB to 1 GB."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from engram_local import postgres

PAGE = 4096
MB = 1024 * 1024


def _machine(monkeypatch: pytest.MonkeyPatch, memory_mb: int) -> None:
    sizes = {"SC_PAGE_SIZE": PAGE, "SC_PHYS_PAGES": memory_mb * MB // PAGE}
    monkeypatch.setattr(os, "sysconf", lambda name: sizes[name])


@pytest.mark.parametrize(
    ("memory_mb", "expected_mb"),
    [(256, 128), (1024, 256), (2048, 512), (4096, 1024), (24 * 1024, 1024)],
)
def test_the_cache_is_a_quarter_of_memory_within_its_bounds(monkeypatch, tmp_path, memory_mb, expected_mb):
    _machine(monkeypatch, memory_mb)
    monkeypatch.setattr(postgres, "CGROUP_MEMORY_LIMITS", (tmp_path / "none-v2", tmp_path / "none-v1"))
    assert postgres.shared_buffers_mb() == expected_mb


@pytest.mark.parametrize(
    ("v2", "v1", "expected_mb"),
    [
        ("max\n", None, 1024),  # v2 without a limit: the machine's 24 GB
        (f"{2048 * MB}\n", None, 512),  # a 2 GB container on a 24 GB machine
        (None, f"{1024 * MB}\n", 256),  # cgroup v1's limit file
        (None, "9223372036854771712\n", 1024),  # v1 without a limit: a number past the machine's memory
    ],
)
def test_a_containers_memory_limit_counts_when_lower(monkeypatch, tmp_path, v2, v1, expected_mb):
    _machine(monkeypatch, 24 * 1024)
    paths: list[Path] = []
    for name, text in (("memory.max", v2), ("memory.limit_in_bytes", v1)):
        path = tmp_path / name
        if text is not None:
            path.write_text(text)
        paths.append(path)
    monkeypatch.setattr(postgres, "CGROUP_MEMORY_LIMITS", tuple(paths))
    assert postgres.shared_buffers_mb() == expected_mb
