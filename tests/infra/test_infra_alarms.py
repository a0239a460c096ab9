"""Alarms reach someone, and no failure of an asynchronously invoked function is dropped silently."""

from __future__ import annotations

from typing import Any

import pytest
from aws_cdk import App

from infra.app import build_app
from infra.config import ENVIRONMENTS, EnvConfig, load_config

# Services whose invocations of a Lambda function are asynchronous (InvocationType=Event).
ASYNC_PRINCIPALS = {"events.amazonaws.com", "s3.amazonaws.com", "sns.amazonaws.com", "scheduler.amazonaws.com"}


def _topic_id(s) -> str:
    (topic_id,) = s.resources("AWS::SNS::Topic")
    return topic_id


def _function_id(target: Any) -> str | None:
    """The logical id of the function an ARN expression points at, if it is one of ours."""
    if isinstance(target, dict) and "Fn::GetAtt" in target:
        return target["Fn::GetAtt"][0]
    if isinstance(target, dict) and "Ref" in target:
        return target["Ref"]
    return None


def async_invoked_functions(s) -> set[str]:
    """Functions something invokes asynchronously, read from the template: schedule targets and
    functions that an event service may invoke."""
    functions = set(s.resources("AWS::Lambda::Function"))
    found = set()
    for schedule in s.resources("AWS::Scheduler::Schedule").values():
        found.add(_function_id(schedule["Properties"]["Target"]["Arn"]))
    for permission in s.resources("AWS::Lambda::Permission").values():
        if permission["Properties"]["Principal"] in ASYNC_PRINCIPALS:
            found.add(_function_id(permission["Properties"]["FunctionName"]))
    return found & functions


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_every_environment_mails_its_alarms(env, request):
    s = request.getfixturevalue(env)
    email = load_config(App().node, env).alarm_email
    assert email, f"cdk.json: {env} has no alarm_email"
    (subscription,) = s.resources("AWS::SNS::Subscription").values()
    assert subscription["Properties"]["Protocol"] == "email"
    assert subscription["Properties"]["Endpoint"] == email
    assert subscription["Properties"]["TopicArn"] == {"Ref": _topic_id(s)}


@pytest.mark.parametrize("env", ["dev", "prod", "future"])
def test_every_alarm_publishes_to_the_topic(env, request):
    s = request.getfixturevalue(env)
    alarms = s.resources("AWS::CloudWatch::Alarm").values()
    assert alarms
    for alarm in alarms:
        assert alarm["Properties"]["AlarmActions"] == [{"Ref": _topic_id(s)}], alarm["Properties"]["AlarmName"]


@pytest.mark.parametrize("env", ["dev", "prod", "future"])
def test_async_invoked_functions_send_failures_to_an_alarmed_queue(env, request):
    s = request.getfixturevalue(env)
    async_functions = async_invoked_functions(s)
    assert s.function_logical_id("consolidation_dispatcher") in async_functions
    configs = {
        _function_id(c["Properties"]["FunctionName"]): c["Properties"]
        for c in s.resources("AWS::Lambda::EventInvokeConfig").values()
    }
    alarmed_queues = {
        dimension["Value"]["Fn::GetAtt"][0]
        for alarm in s.resources("AWS::CloudWatch::Alarm").values()
        if alarm["Properties"].get("MetricName") == "ApproximateNumberOfMessagesVisible"
        and alarm["Properties"]["AlarmActions"] == [{"Ref": _topic_id(s)}]
        for dimension in alarm["Properties"]["Dimensions"]
        if isinstance(dimension["Value"], dict) and "Fn::GetAtt" in dimension["Value"]
    }
    for function_id in async_functions:
        assert function_id in configs, f"{function_id} is invoked asynchronously without an on-failure destination"
        config = configs[function_id]
        destination = config["DestinationConfig"]["OnFailure"]["Destination"]
        (queue_id, attribute) = destination["Fn::GetAtt"]
        assert s.json["Resources"][queue_id]["Type"] == "AWS::SQS::Queue" and attribute == "Arn"
        assert queue_id in alarmed_queues, f"{function_id}'s failures queue has no alarm"
        assert config["MaximumRetryAttempts"] == 2
        assert config["MaximumEventAgeInSeconds"] == 3600


def test_the_dispatcher_failures_queue_is_named_and_kept_14_days(prod):
    (queue,) = [
        q
        for q in prod.resources("AWS::SQS::Queue").values()
        if q["Properties"]["QueueName"] == "engram-prod-consolidation-dispatcher-failures"
    ]
    assert queue["Properties"]["MessageRetentionPeriod"] == 14 * 24 * 3600
    assert queue["Properties"]["SqsManagedSseEnabled"] is True
    alarms = {a["Properties"]["AlarmName"] for a in prod.resources("AWS::CloudWatch::Alarm").values()}
    assert "engram-prod-consolidation-dispatcher-failures-depth" in alarms


def test_an_existing_topic_receives_every_alarm_too(tmp_path):
    arn = "arn:aws:sns:us-east-1:123456789012:oncall"
    app = App(
        outdir=str(tmp_path),
        context={
            "env": "dev",
            "engram:assets": "auto",
            "engram:nag": "false",
            "aws:cdk:bundling-stacks": [],
            "aws:cdk:disable-asset-staging": True,
            "engram:environments": {"dev": {"alarm_email": None, "alarm_topic_arn": arn}},
        },
    )
    app, stack = build_app(app)
    template = app.synth().get_stack_by_name(stack.stack_name).template
    resources = template["Resources"]
    assert not [r for r in resources.values() if r["Type"] == "AWS::SNS::Subscription"]
    alarms = [r["Properties"] for r in resources.values() if r["Type"] == "AWS::CloudWatch::Alarm"]
    assert alarms and all(arn in a["AlarmActions"] and len(a["AlarmActions"]) == 2 for a in alarms)


def test_a_deploy_refuses_alarms_that_reach_nobody():
    # cdk.json's addresses are example.com placeholders: a deployable synth (the CLI's default mode)
    # stops before anything else and names the setting.
    with pytest.raises(ValueError, match=r"alarms of dev would reach nobody.*engram:environments\.dev\.alarm_email"):
        build_app(App(context={"env": "dev"}))
    assert EnvConfig(env="prod").deploy_problems()
    assert EnvConfig(env="prod", alarm_email="oncall@acme.io").deploy_problems() == []
    assert EnvConfig(env="prod", alarm_topic_arn="arn:aws:sns:eu-west-1:123456789012:pager").deploy_problems() == []


def test_alarm_settings_are_validated():
    with pytest.raises(ValueError, match="alarm_email: 'oncall' is not an email address"):
        EnvConfig(env="dev", alarm_email="oncall").validate()
    with pytest.raises(ValueError, match=r"alarm_topic_arn: .* is not an SNS topic ARN"):
        EnvConfig(env="dev", alarm_topic_arn="arn:aws:sqs:us-east-1:123456789012:q").validate()


def _alarm(s, suffix: str) -> dict[str, Any]:
    (found,) = [
        a["Properties"]
        for a in s.resources("AWS::CloudWatch::Alarm").values()
        if a["Properties"]["AlarmName"] == f"engram-{s.env}-{suffix}"
    ]
    return found


def _metric_name(alarm: dict[str, Any]) -> str:
    if "MetricName" in alarm:
        return str(alarm["MetricName"])
    (metric,) = alarm["Metrics"]
    return str(metric["MetricStat"]["Metric"]["MetricName"])


def _filters_of(s, metric_name: str) -> list[dict[str, Any]]:
    return [
        f["Properties"]
        for f in s.resources("AWS::Logs::MetricFilter").values()
        if f["Properties"]["MetricTransformations"][0]["MetricName"] == metric_name
    ]


def test_a_route_that_answers_500_for_a_bug_reaches_an_alarm(dev):
    """A route catches its bug and answers 500: Lambda's Errors metric never sees it, the log does."""
    filters = _filters_of(dev, "HandledErrors")
    log_groups = {f["LogGroupName"]["Ref"] for f in filters}
    for function in ("memories", "recall", "mcp", "oauth", "authorizer"):
        fn = dev.json["Resources"][dev.function_logical_id(function)]
        assert fn["Properties"]["LoggingConfig"]["LogGroup"]["Ref"] in log_groups, function
    assert all('$.message = "unhandled error"' in f["FilterPattern"] for f in filters)
    alarm = _alarm(dev, "handled-errors")
    assert _metric_name(alarm) == "HandledErrors" and alarm["Threshold"] == 1


def test_the_5xx_alarm_leaves_out_a_resumes_503s_and_a_lasting_503_still_alarms(dev):
    (stage,) = dev.resources("AWS::ApiGatewayV2::Stage").values()
    access_logs = stage["Properties"]["AccessLogSettings"]["DestinationArn"]["Fn::GetAtt"][0]
    (server_errors,) = _filters_of(dev, "ApiServerErrors")
    assert server_errors["LogGroupName"] == {"Ref": access_logs}
    assert server_errors["FilterPattern"] == '{ ($.status = "5*") && ($.status != "503") }'
    assert _metric_name(_alarm(dev, "api-5xx")) == "ApiServerErrors"
    (unavailable,) = _filters_of(dev, "ApiUnavailable")
    assert unavailable["FilterPattern"] == '{ $.status = "503" }'
    sustained = _alarm(dev, "api-503-sustained")
    (metric,) = sustained["Metrics"]
    assert sustained["EvaluationPeriods"] * metric["MetricStat"]["Period"] >= 15 * 60  # longer than any resume
