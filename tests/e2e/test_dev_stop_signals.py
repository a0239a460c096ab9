"""`make dev` stopped the way `timeout`, a supervisor, CI or Ctrl-C stops it: SIGTERM or SIGINT to its
process group (make passes the group's signal on, so the server gets it twice) or to the server alone,
once or repeated. Each time the embedded database is shut down, no traceback is printed, and the
server exits 0."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from tests.support.dev_process import DevProcess, gone, postmaster_pid

STOP_TIMEOUT_S = 60
# What an aborted stop printed: a Python traceback, the C++ runtime's abort, make reporting its child.
BROKEN_STOP = ("Traceback", "terminate called", "Aborted", "make: ***")


def _signal(dev: DevProcess, signum: signal.Signals, times: int, group: bool) -> None:
    for _ in range(times):
        if group:
            os.killpg(dev.proc.pid, signum)
        else:
            dev.proc.send_signal(signum)
        time.sleep(0.05)  # quickly, as make passes on what the group got


def _assert_stopped_cleanly(dev: DevProcess, pgdata: Path, postmaster: int) -> int:
    code = dev.proc.wait(STOP_TIMEOUT_S)
    dev.reader.join(10)
    output = "".join(dev.lines)
    assert not [marker for marker in BROKEN_STOP if marker in output], output
    deadline = time.monotonic() + 10
    while not gone(postmaster) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert gone(postmaster), "the embedded PostgreSQL is still running"
    assert not (pgdata / "postmaster.pid").exists()  # stopped by pg_ctl, not left for the next start
    return code


@pytest.mark.parametrize(
    ("signum", "times", "group"),
    [
        (signal.SIGTERM, 2, True),  # timeout(1), a supervisor or CI: the group, and make passes it on
        (signal.SIGINT, 2, True),  # Ctrl-C twice in the terminal
        (signal.SIGTERM, 1, False),  # kill <pid>
        (signal.SIGINT, 3, False),
    ],
    ids=["sigterm-group-twice", "sigint-group-twice", "sigterm-once", "sigint-three-times"],
)
def test_a_stop_signal_shuts_the_database_down_and_exits_0(dev_env, signum, times, group):
    env, pgdata = dev_env
    dev = DevProcess(env)
    postmaster = postmaster_pid(pgdata)
    _signal(dev, signum, times, group)
    assert _assert_stopped_cleanly(dev, pgdata, postmaster) == 0


def test_make_dev_stopped_by_sigterm_to_its_group_stops_the_server_and_the_database(dev_env):
    env, pgdata = dev_env
    # -o: the venv is what it is (a test must not reinstall it); the server runs as `make dev` runs it.
    dev = DevProcess(env, ["make", "--no-print-directory", "-o", ".venv/.installed-stamp", "dev"])
    postmaster = postmaster_pid(pgdata)
    _signal(dev, signal.SIGTERM, 2, group=True)
    # make itself dies of the signal once its recipe is done (its status is the signal's); it says
    # nothing more when the server exited 0 ("make: *** ... Error" otherwise).
    assert _assert_stopped_cleanly(dev, pgdata, postmaster) == -signal.SIGTERM


def test_a_signal_during_the_start_still_stops_the_database(dev_env):
    env, pgdata = dev_env
    dev = DevProcess(env, wait=False)
    deadline = time.monotonic() + 120
    while not (pgdata / "postmaster.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.05)  # the database is up; migrations, the dev key or the embedder are under way
    postmaster = postmaster_pid(pgdata)
    assert not dev.ready.is_set(), "the start was over before the signal"
    _signal(dev, signal.SIGTERM, 2, group=True)
    assert _assert_stopped_cleanly(dev, pgdata, postmaster) == 0
