"""No burst of Lambdas can open more database connections than Aurora accepts, and every way of
running out is seen by an alarm."""

from __future__ import annotations

import pytest
from aws_cdk import App

from infra.config import EnvConfig, load_config
from infra.connections import OPERATOR_CONNECTIONS, connection_plan, estimated_max_connections
from infra.profiles import profile_for


def _function_props(s, name: str) -> dict:
    return s.json["Resources"][s.function_logical_id(name)]["Properties"]


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_reserved_concurrency_keeps_every_burst_under_max_connections(env, request):
    s = request.getfixturevalue(env)
    config = load_config(App().node, env)
    opened = OPERATOR_CONNECTIONS
    for name in s.stack.function_names:
        reserved = _function_props(s, name)["ReservedConcurrentExecutions"]
        assert reserved >= 1, name
        profile = profile_for(name)
        opened += reserved * (profile.connections if profile.database else 0)
    assert opened <= estimated_max_connections(config.db_min_acu, config.db_max_acu), (env, opened)
    # What the stack checked is what the template says.
    assert opened == s.stack.connection_plan.total_connections


def test_the_reader_budget_counts_what_reads_there(prod):
    plan = prod.stack.connection_plan
    on_reader = OPERATOR_CONNECTIONS
    for name in prod.stack.function_names:
        if "ENGRAM_DB_READER_HOST" in _function_props(prod, name)["Environment"]["Variables"]:
            on_reader += _function_props(prod, name)["ReservedConcurrentExecutions"]
    assert plan.readers == 1 and plan.reader_total == on_reader > OPERATOR_CONNECTIONS
    assert "reader:" in plan.table()


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_every_environment_closes_idle_sessions(env, request):
    s = request.getfixturevalue(env)
    (params,) = s.resources("AWS::RDS::DBClusterParameterGroup").values()
    assert 60_000 <= int(params["Properties"]["Parameters"]["idle_session_timeout"]) <= 3_600_000


def test_queue_workers_reserve_what_their_event_source_runs(prod):
    for mapping in prod.resources("AWS::Lambda::EventSourceMapping").values():
        function_id = mapping["Properties"]["FunctionName"]["Ref"]
        reserved = prod.json["Resources"][function_id]["Properties"]["ReservedConcurrentExecutions"]
        assert mapping["Properties"]["ScalingConfig"]["MaximumConcurrency"] <= reserved


def test_max_connections_estimate_follows_aurora():
    assert estimated_max_connections(0, 1) == 189  # AWS's figure for a 0.5-1 ACU cluster
    assert estimated_max_connections(0.5, 16) == 2000  # capped: the minimum is 0.5 ACU
    assert estimated_max_connections(1, 16) > 2000
    assert estimated_max_connections(2, 256) == 5000


def test_a_budget_that_does_not_fit_is_refused():
    names = ["admin", "memories", "recall", "authorizer", "migrate", "embed_worker"]
    assert connection_plan(EnvConfig(env="dev", db_max_acu=4), names).problems() == []
    too_many = connection_plan(EnvConfig(env="dev", db_max_acu=4, route_concurrency=300), names).problems()
    assert any("above the ~756 Aurora accepts" in p for p in too_many), too_many
    # Behind RDS Proxy the proxy's pool is the cap, but the account's concurrency still is one.
    proxied = EnvConfig(env="prod", db_min_acu=1, db_rds_proxy=True, route_concurrency=300)
    assert any("account's 1000" in p for p in connection_plan(proxied, names).problems())
    with pytest.raises(ValueError, match="db_idle_session_timeout_s"):
        EnvConfig(env="prod", db_idle_session_timeout_s=0).validate()


def _alarms(s) -> dict[str, dict]:
    return {a["Properties"]["AlarmName"]: a["Properties"] for a in s.resources("AWS::CloudWatch::Alarm").values()}


def test_alarms_watch_connections_throttles_and_concurrency(prod):
    alarms = _alarms(prod)
    assert alarms["engram-prod-db-connections-high"]["Threshold"] == int(0.8 * 2000)
    assert "engram-prod-db-connections-refused" in alarms
    for name in prod.stack.function_names:
        alarm = alarms[f"engram-prod-{name.replace('_', '-')}-at-capacity"]
        metrics = {m["Id"]: m for m in alarm["Metrics"]}
        assert metrics["throttles"]["MetricStat"]["Metric"]["MetricName"] == "Throttles"
        assert metrics["concurrency"]["MetricStat"]["Metric"]["MetricName"] == "ConcurrentExecutions"
    refused = {
        f["Properties"]["LogGroupName"]["Ref"]
        for f in prod.resources("AWS::Logs::MetricFilter").values()
        if f["Properties"]["MetricTransformations"][0]["MetricName"] == "DatabaseConnectionsRefused"
    }
    assert len(refused) == len(prod.stack.function_names)  # every function's log group
