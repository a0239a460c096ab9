"""Scheduled consolidation: schedule -> dispatcher -> consolidate-jobs (+DLQ) -> worker, with the
least privilege each needs, and alarms on failed runs and undeliverable schedule events."""

from __future__ import annotations

import pytest

from infra.workers import MAX_RECEIVES, VISIBILITY_FACTOR


def _actions(statements) -> set[str]:
    found: set[str] = set()
    for st in statements:
        found |= {st["Action"]} if isinstance(st["Action"], str) else set(st["Action"])
    return found


def _queue_id(synth, name: str) -> str:
    (found,) = [k for k, q in synth.resources("AWS::SQS::Queue").items() if q["Properties"]["QueueName"] == name]
    return found


@pytest.mark.parametrize(
    ("env", "expression"),
    [
        ("dev", "cron(0 3 * * ? *)"),
        ("staging", "cron(0 */6 * * ? *)"),
        ("prod", "rate(1 hour)"),
    ],
)
def test_the_schedule_comes_from_cdk_json_with_a_window_retries_and_a_dlq(synth, env, expression):
    s = synth(env)
    (schedule,) = s.resources("AWS::Scheduler::Schedule").values()
    props = schedule["Properties"]
    assert props["ScheduleExpression"] == expression
    assert props["FlexibleTimeWindow"] == {"Mode": "FLEXIBLE", "MaximumWindowInMinutes": 10}
    target = props["Target"]
    assert target["Arn"] == {"Fn::GetAtt": [s.function_logical_id("consolidation_dispatcher"), "Arn"]}
    assert target["RetryPolicy"] == {"MaximumRetryAttempts": 2, "MaximumEventAgeInSeconds": 3600}
    dlq = _queue_id(s, f"engram-{env}-consolidation-dispatcher-schedule-dlq")
    assert target["DeadLetterConfig"] == {"Arn": {"Fn::GetAtt": [dlq, "Arn"]}}


def test_the_worker_consumes_one_run_at_a_time_with_bounded_concurrency(prod):
    worker = prod.function_logical_id("consolidation_worker")
    props = prod.json["Resources"][worker]["Properties"]
    assert props["Timeout"] == 900  # Lambda's maximum; the cycle's time budget stays well inside it
    (mapping,) = [
        m
        for m in prod.resources("AWS::Lambda::EventSourceMapping").values()
        if m["Properties"]["FunctionName"] == {"Ref": worker}
    ]
    queue = _queue_id(prod, "engram-prod-consolidate-jobs")
    assert mapping["Properties"]["EventSourceArn"] == {"Fn::GetAtt": [queue, "Arn"]}
    assert mapping["Properties"]["BatchSize"] == 1
    assert mapping["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert mapping["Properties"]["ScalingConfig"]["MaximumConcurrency"] >= 2
    q = prod.json["Resources"][queue]["Properties"]
    assert q["VisibilityTimeout"] >= VISIBILITY_FACTOR * 900
    assert q["RedrivePolicy"]["maxReceiveCount"] == MAX_RECEIVES
    assert props["Environment"]["Variables"]["ENGRAM_CONSOLIDATION_MAX_RECEIVES"] == str(MAX_RECEIVES)


def test_dispatcher_and_worker_may_send_only_to_their_queues(prod):
    consolidate = {"Fn::GetAtt": [_queue_id(prod, "engram-prod-consolidate-jobs"), "Arn"]}
    embed = {"Fn::GetAtt": [_queue_id(prod, "engram-prod-embed-jobs"), "Arn"]}
    # The dispatcher's role also sends its failed invocations to its on-failure destination.
    failures = {"Fn::GetAtt": [_queue_id(prod, "engram-prod-consolidation-dispatcher-failures"), "Arn"]}
    # It also sweeps quiet conversations with unread turns to extraction.
    extract = {"Fn::GetAtt": [_queue_id(prod, "engram-prod-extract-jobs"), "Arn"]}
    for name, allowed in (
        ("consolidation_dispatcher", [consolidate, failures, extract]),
        ("consolidation_worker", [consolidate, embed]),
    ):
        statements = prod.role_statements(name)
        sqs = [st for st in statements if "sqs:SendMessage" in _actions([st])]
        resources = [
            r for st in sqs for r in (st["Resource"] if isinstance(st["Resource"], list) else [st["Resource"]])
        ]
        assert sorted(map(str, resources)) == sorted(map(str, allowed)), name
        # The dispatcher empties the trash past its retention, export files that held those memories too.
        s3 = {a for a in _actions(statements) if a.startswith("s3:")}
        assert s3 == ({"s3:DeleteObject"} if name == "consolidation_dispatcher" else set()), name
    assert not any(a.startswith("bedrock:") for a in _actions(prod.role_statements("consolidation_dispatcher")))


def test_only_the_scheduler_role_may_invoke_the_dispatcher_on_schedule(prod):
    (schedule,) = prod.resources("AWS::Scheduler::Schedule").values()
    role_id = schedule["Properties"]["Target"]["RoleArn"]["Fn::GetAtt"][0]
    policies = [p["Properties"] for p in prod.resources("AWS::IAM::Policy").values()]
    statements = [st for p in policies if {"Ref": role_id} in p["Roles"] for st in p["PolicyDocument"]["Statement"]]
    invoke = [st for st in statements if "lambda:InvokeFunction" in _actions([st])]
    dispatcher = prod.function_logical_id("consolidation_dispatcher")
    assert invoke and all(dispatcher in str(st["Resource"]) for st in invoke)
    assert _actions(statements) <= {"lambda:InvokeFunction", "sqs:SendMessage"}


def test_failed_runs_and_undelivered_schedule_events_raise_alarms(prod):
    alarms = {a["Properties"]["AlarmName"]: a["Properties"] for a in prod.resources("AWS::CloudWatch::Alarm").values()}
    failures = alarms["engram-prod-consolidation-run-failures"]
    metric = failures.get("Metrics", [{}])[0].get("MetricStat", {}).get("Metric") or failures
    assert (metric["Namespace"], metric["MetricName"]) == ("Engram/prod", "ConsolidationRunsFailed")
    assert failures["Threshold"] == 1
    assert "engram-prod-consolidate-jobs-dlq-depth" in alarms
    assert "engram-prod-consolidation-dispatcher-schedule-dlq-depth" in alarms
    filters = {
        f["Properties"]["MetricTransformations"][0]["MetricName"]: f["Properties"]
        for f in prod.resources("AWS::Logs::MetricFilter").values()
    }
    failed = filters["ConsolidationRunsFailed"]
    assert failed["LogGroupName"] == {
        "Ref": prod.stack.get_logical_id(
            prod.stack.functions.functions["consolidation_worker"].log_group.node.default_child
        )
    }
    assert '$.status = "failed"' in failed["FilterPattern"]
    assert filters["ConsolidationRunsStarted"]["MetricTransformations"][0]["MetricValue"] == "$.started"


def test_the_dashboard_shows_consolidation(prod):
    (dashboard,) = prod.resources("AWS::CloudWatch::Dashboard").values()
    body = str(dashboard["Properties"]["DashboardBody"])
    assert "Consolidation runs" in body and "ConsolidationRunsFailed" in body
