"""The first request after Aurora paused: the authorizer answers well within API Gateway's 10 s
without the database, and every function behind an authorized route can wait out a resume (~15 s)
and still answer before Lambda kills it (a kill reaches the client as a bare 500)."""

from __future__ import annotations

import json

import pytest

from engram.core.config import Settings
from engram_http.route_table import ROUTES
from infra.functions import COLD_START_S, DB_WAIT_HEADROOM_S, database_timeouts
from infra.profiles import FunctionProfile, profile_for

AURORA_RESUME_S = 15  # Aurora Serverless v2 resuming from a pause (AWS: "about 15 seconds")
AUTHORIZER_LIMIT_S = 10  # HTTP API: a Lambda authorizer must answer within 10 s
INTEGRATION_LIMIT_S = 30  # HTTP API: an integration must answer within 30 s
LIBPQ_MIN_ATTEMPT_S = 2  # a connection attempt's shortest timeout


def _variables(synth, function: str) -> dict[str, str]:
    return synth.json["Resources"][synth.function_logical_id(function)]["Properties"]["Environment"]["Variables"]


def _timeout(synth, function: str) -> int:
    return synth.json["Resources"][synth.function_logical_id(function)]["Properties"]["Timeout"]


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_the_authorizer_answers_without_the_database_within_api_gateways_limit(env, request) -> None:
    synth = request.getfixturevalue(env)
    timeout = _timeout(synth, "authorizer")
    assert timeout <= AUTHORIZER_LIMIT_S
    variables = _variables(synth, "authorizer")
    secret_s, probe_s = float(variables["ENGRAM_DB_SECRET_TIMEOUT_S"]), int(variables["ENGRAM_DB_PROBE_TIMEOUT_S"])
    Settings(db_probe_timeout_s=probe_s, db_secret_timeout_s=secret_s)  # values the code accepts
    # Worst case: the secret read times out on connect and on read, the cached connection is dead and
    # the new one's single attempt times out. The rest of the 10 s is for the cold start.
    worst = 2 * secret_s + 2 * probe_s
    assert worst <= timeout - 3, (worst, timeout)


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_every_authorized_route_waits_out_a_resume_within_its_timeout(env, request) -> None:
    synth = request.getfixturevalue(env)
    for function in sorted({r.function for r in ROUTES if r.auth}):
        timeout = _timeout(synth, function)
        wait = float(_variables(synth, function)["ENGRAM_DB_CONNECT_WAIT_S"])
        assert timeout < INTEGRATION_LIMIT_S, function
        assert wait >= AURORA_RESUME_S + 5, (function, wait)  # a resume, with room to spare
        assert wait + LIBPQ_MIN_ATTEMPT_S + 2 <= timeout, (function, wait, timeout)
        # API Gateway's 30 s count the cold start's init too: the wait, the last attempt and the work fit after it.
        assert COLD_START_S + wait + LIBPQ_MIN_ATTEMPT_S + 2 <= INTEGRATION_LIMIT_S, (function, wait)


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_migrate_waits_out_a_resume_after_a_long_pause(env, request) -> None:
    """A cluster paused for a day or more resumes in ~30 s: a deploy must not roll back for it."""
    synth = request.getfixturevalue(env)
    wait = float(_variables(synth, "migrate")["ENGRAM_DB_CONNECT_WAIT_S"])
    assert wait >= 4 * 30, wait
    assert wait + LIBPQ_MIN_ATTEMPT_S + 2 <= _timeout(synth, "migrate")
    Settings(db_connect_wait_s=wait)  # a value the code accepts


def test_a_short_timeout_shortens_the_wait_instead_of_being_outlived() -> None:
    assert database_timeouts(FunctionProfile(timeout_s=10))["ENGRAM_DB_CONNECT_WAIT_S"] == str(10 - DB_WAIT_HEADROOM_S)
    assert database_timeouts(FunctionProfile(timeout_s=3))["ENGRAM_DB_CONNECT_WAIT_S"] == "0"
    assert database_timeouts(profile_for("embed_worker"))["ENGRAM_DB_CONNECT_WAIT_S"] == "60"  # a worker waits longer


def test_no_database_settings_on_a_function_without_the_database(dev) -> None:
    assert "ENGRAM_DB_CONNECT_WAIT_S" not in _variables(dev, "console")


def test_the_access_log_says_who_checked_the_key(dev) -> None:
    (stage,) = dev.resources("AWS::ApiGatewayV2::Stage").values()
    log_format = json.loads(stage["Properties"]["AccessLogSettings"]["Format"])
    assert log_format["keyCheck"] == "$context.authorizer.key_check"
