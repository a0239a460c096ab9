"""Nothing public, least privilege, encryption and TLS, and cdk-nag clean with reasons."""

from __future__ import annotations

import json
from typing import Any

import pytest

from infra.profiles import profile_for

XRAY_ACTIONS = {"xray:PutTraceSegments", "xray:PutTelemetryRecords"}


def _actions(statement: dict[str, Any]) -> set[str]:
    actions = statement["Action"]
    return {actions} if isinstance(actions, str) else set(actions)


def _resources(statement: dict[str, Any]) -> list[Any]:
    resources = statement["Resource"]
    return resources if isinstance(resources, list) else [resources]


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_nothing_is_public(synth, env):
    s = synth(env)
    for bucket in s.resources("AWS::S3::Bucket").values():
        assert bucket["Properties"]["PublicAccessBlockConfiguration"] == {
            "BlockPublicAcls": True, "BlockPublicPolicy": True, "IgnorePublicAcls": True,
            "RestrictPublicBuckets": True,
        }  # fmt: skip
        assert "BucketEncryption" in bucket["Properties"]
    for group in s.resources("AWS::EC2::SecurityGroup").values():
        for rule in group["Properties"].get("SecurityGroupIngress", []):
            assert rule.get("CidrIp") != "0.0.0.0/0" and rule.get("CidrIpv6") != "::/0"
    for rule in s.resources("AWS::EC2::SecurityGroupIngress").values():
        assert "CidrIp" not in rule["Properties"], "ingress must come from security groups"
    for instance in s.resources("AWS::RDS::DBInstance").values():
        assert instance["Properties"]["PubliclyAccessible"] is False
    assert not s.resources("AWS::EC2::InternetGateway"), "no internet gateway without NAT"
    for permission in s.resources("AWS::Lambda::Permission").values():
        assert permission["Properties"]["Principal"] != "*"
    for policy in s.resources("AWS::S3::BucketPolicy").values():
        statements = policy["Properties"]["PolicyDocument"]["Statement"]
        assert any(
            st["Effect"] == "Deny" and st.get("Condition") == {"Bool": {"aws:SecureTransport": "false"}}
            for st in statements
        )
        for statement in statements:
            if statement["Effect"] == "Allow":
                assert statement["Principal"] != "*" and statement["Principal"] != {"AWS": "*"}


def test_database_is_encrypted_tls_only_and_rotated(dev):
    (cluster,) = dev.resources("AWS::RDS::DBCluster").values()
    assert cluster["Properties"]["StorageEncrypted"] is True
    assert cluster["Properties"]["Engine"] == "aurora-postgresql"
    assert cluster["Properties"]["EngineVersion"].startswith("16.")
    (params,) = dev.resources("AWS::RDS::DBClusterParameterGroup").values()
    assert params["Properties"]["Parameters"]["rds.force_ssl"] == "1"
    rotations = dev.resources("AWS::SecretsManager::RotationSchedule").values()
    assert len(rotations) == 3  # the master secret and each duty's login secret
    for rotation in rotations:
        assert rotation["Properties"]["RotationRules"]["ScheduleExpression"] == "rate(30 days)"


def _secret_reads(s, function: str) -> list[Any]:
    """The secrets (their attachments' Refs) a function's role may read."""
    found = []
    for statement in s.role_statements(function):
        if _actions(statement) & {"secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"}:
            found += _resources(statement)
    return found


def _attachment_of(s, role: str) -> dict[str, str]:
    """The Ref of the attached secret that logs in as `role` (the master's is engram_admin)."""
    secrets = s.resources("AWS::SecretsManager::Secret")
    for attachment_id, attachment in s.resources("AWS::SecretsManager::SecretTargetAttachment").items():
        secret = secrets[attachment["Properties"]["SecretId"]["Ref"]]
        template = secret["Properties"]["GenerateSecretString"]["SecretStringTemplate"]
        if json.loads(template)["username"] == role:
            return {"Ref": attachment_id}
    raise AssertionError(f"no secret logs in as {role}")


@pytest.mark.parametrize("env", ["dev", "prod"])
def test_functions_log_in_as_their_duty_and_only_migrate_holds_the_master_secret(env, request):
    s = request.getfixturevalue(env)
    master, api, worker = (_attachment_of(s, r) for r in ("engram_admin", "engram_api", "engram_worker"))
    for name in s.stack.function_names:
        reads = _secret_reads(s, name)
        variables = s.json["Resources"][s.function_logical_id(name)]["Properties"]["Environment"]["Variables"]
        if name == "console":
            assert reads == [] and "ENGRAM_DB_SECRET_ARN" not in variables
        elif name == "migrate":
            assert sorted(map(str, reads)) == sorted(map(str, [master, api, worker]))
            assert variables["ENGRAM_DB_SECRET_ARN"] == master
        else:
            duty = worker if name.endswith(("_worker", "_ingest", "_dispatcher")) else api
            assert reads == [duty], name  # the oauth function's included: never the master secret
            assert variables["ENGRAM_DB_SECRET_ARN"] == duty, name


def test_recall_cannot_write_s3_or_read_other_secrets(dev):
    statements = dev.role_statements("recall")
    actions = set().union(*(_actions(st) for st in statements))
    assert not any(a.startswith("s3:") for a in actions)
    assert not any(a.startswith("sqs:") for a in actions)
    assert _secret_reads(dev, "recall") == [_attachment_of(dev, "engram_api")]
    for statement in statements:
        if "bedrock:InvokeModel" in _actions(statement):
            (resource,) = _resources(statement)
            assert "foundation-model/amazon.titan-embed-text-v2:0" in str(resource)


def test_no_function_role_has_wildcards_beyond_xray(dev):
    for name in dev.stack.function_names:
        for statement in dev.role_statements(name):
            actions = _actions(statement)
            assert not any(a == "*" or a.endswith(":*") for a in actions), (name, actions)
            if "*" in _resources(statement):
                assert actions <= XRAY_ACTIONS, (name, actions)


def test_only_writers_may_enqueue(dev):
    for name in dev.stack.function_names:
        actions = set().union(*(_actions(st) for st in dev.role_statements(name)))
        profile = profile_for(name)
        assert ("sqs:SendMessage" in actions) == (
            profile.embed_send or profile.consolidate_send or profile.export_send
        ), name
    assert profile_for("memories").embed_send and not profile_for("recall").embed_send


def test_only_embedders_may_call_bedrock_when_the_llm_is_off(dev):
    assert dev.stack.functions.config.llm_level == "off"
    for name in dev.stack.function_names:
        actions = set().union(*(_actions(st) for st in dev.role_statements(name)))
        assert ("bedrock:InvokeModel" in actions) == profile_for(name).bedrock_embed, name
    assert profile_for("recall").bedrock_embed and profile_for("embed_worker").bedrock_embed


def test_llm_functions_may_invoke_only_the_configured_claude_model(prod):
    config = prod.stack.functions.config
    assert config.llm_level != "off"
    llm_users = [n for n in prod.stack.function_names if profile_for(n).bedrock_llm]
    for name in prod.stack.function_names:
        resources = [
            str(r) for st in prod.role_statements(name) if "bedrock:InvokeModel" in _actions(st) for r in _resources(st)
        ]
        claude = [r for r in resources if "anthropic" in r]
        assert bool(claude) == (name in llm_users), name
        for resource in claude:
            assert config.llm_model.split(".", 1)[1] in resource


@pytest.mark.parametrize("env", ["dev", "staging", "prod"])
def test_nag_is_clean_and_every_acknowledgement_has_a_reason(synth, env):
    s = synth(env)  # the fixture's synth raises on any unacknowledged AwsSolutions finding
    acks = [
        rule
        for resource in s.json["Resources"].values()
        for rule in resource.get("Metadata", {}).get("cdk_nag", {}).get("rules_to_suppress", [])
    ]
    assert acks, "expected acknowledgements written to the template metadata"
    for ack in acks:
        assert len(ack["reason"].strip()) >= 20, ack


def test_nag_fails_synth_on_an_unacknowledged_finding(tmp_path):
    from aws_cdk import App, Stack
    from aws_cdk import aws_sqs as sqs

    from infra.nag import add_nag

    app = App(outdir=str(tmp_path))
    stack = Stack(app, "Bad")
    sqs.Queue(stack, "NoDlqNoTls")
    add_nag(app)
    with pytest.raises(Exception, match="ValidationFailed"):
        app.synth()
