"""`make destroy` then `make deploy` works in every environment: nothing the stack leaves behind has a
fixed physical name, so the next create cannot collide with it (CloudFormation would fail with
"already exists"). Generated names differ per create; fixed-name resources that go with the stack
(queues, alarms, the topic, the cluster, its secret: CloudFormation deletes secrets without a
recovery window) are free again once it is gone."""

from __future__ import annotations

from typing import Any

import pytest

# What CloudFormation leaves behind when the stack is deleted (Snapshot deletes the resource itself).
RETAINED = {"Retain", "RetainExceptOnCreate"}
# Properties ending in Name/Identifier that do not name the resource in the account.
NOT_PHYSICAL_NAMES = {"DatabaseName", "PolicyName", "MetricName", "MetricNamespace"}


def _references(value: Any, resources: dict[str, Any]) -> bool:
    """Whether `value` depends on a resource of this stack (then it differs per create)."""
    if isinstance(value, dict):
        if "Ref" in value:
            return value["Ref"] in resources
        if "Fn::GetAtt" in value:
            return True
        if "Fn::Sub" in value:
            text = value["Fn::Sub"] if isinstance(value["Fn::Sub"], str) else value["Fn::Sub"][0]
            return any(f"${{{name}" in text for name in resources) or _references(value["Fn::Sub"], resources)
        return any(_references(v, resources) for v in value.values())
    if isinstance(value, list):
        return any(_references(v, resources) for v in value)
    return False


def fixed_name_retained(template: dict[str, Any]) -> list[str]:
    """`Type LogicalId Property=value` for every retained resource with a name that does not
    change from one create to the next (a literal, or built from pseudo parameters only)."""
    resources = template["Resources"]
    found = []
    for logical_id, resource in resources.items():
        if resource.get("DeletionPolicy") not in RETAINED:
            continue
        for key, value in resource.get("Properties", {}).items():
            physical_name = key.endswith(("Name", "Identifier")) and key not in NOT_PHYSICAL_NAMES
            if physical_name and not _references(value, resources):
                found.append(f"{resource['Type']} {logical_id} {key}={value}")
    return found


def test_the_check_finds_a_fixed_name_retained_log_group():
    template = {
        "Resources": {
            "Cluster": {"Type": "AWS::RDS::DBCluster", "DeletionPolicy": "Snapshot", "Properties": {}},
            "Fixed": {
                "Type": "AWS::Logs::LogGroup",
                "DeletionPolicy": "Retain",
                "Properties": {"LogGroupName": "/aws/rds/cluster/engram-prod/postgresql"},
            },
            "Pseudo": {
                "Type": "AWS::S3::Bucket",
                "DeletionPolicy": "RetainExceptOnCreate",
                "Properties": {"BucketName": {"Fn::Sub": "engram-${AWS::AccountId}-${AWS::Region}"}},
            },
            "PerCreate": {
                "Type": "AWS::Logs::LogGroup",
                "DeletionPolicy": "Retain",
                "Properties": {"LogGroupName": {"Fn::Join": ["", ["/aws/rds/cluster/", {"Ref": "Cluster"}]]}},
            },
            "GoesWithTheStack": {
                "Type": "AWS::SQS::Queue",
                "DeletionPolicy": "Delete",
                "Properties": {"QueueName": "engram-prod-embed-jobs"},
            },
        }
    }
    found = fixed_name_retained(template)
    assert [f.split()[1] for f in found] == ["Fixed", "Pseudo"]


@pytest.mark.parametrize("env", ["dev", "staging", "prod", "future"])
def test_no_retained_resource_has_a_fixed_name(env, request):
    s = request.getfixturevalue(env)
    assert fixed_name_retained(s.json) == [], (
        "a retained resource with a fixed name collides with itself on the next create after `make destroy`: "
        "let CloudFormation name it, or adopt it as infra/database.py does for the Aurora log group"
    )


def test_aurora_log_group_is_adopted_where_logs_are_retained(dev, staging, prod):
    def postgres_log_groups(s) -> list[dict[str, Any]]:
        return [
            r
            for r in s.resources("AWS::Logs::LogGroup").values()
            if "/aws/rds/cluster/" in str(r["Properties"].get("LogGroupName"))
        ]

    (dev_group,) = postgres_log_groups(dev)
    assert dev_group["DeletionPolicy"] == "Delete"
    assert dev_group["Properties"]["LogGroupName"] == "/aws/rds/cluster/engram-dev/postgresql"
    for s, days in ((staging, 30), (prod, 90)):
        assert postgres_log_groups(s) == []
        (retention,) = s.resources("Custom::LogRetention").values()
        (cluster_id,) = s.resources("AWS::RDS::DBCluster")
        assert retention["Properties"]["LogGroupName"] == {
            "Fn::Join": ["", ["/aws/rds/cluster/", {"Ref": cluster_id}, "/postgresql"]]
        }
        assert retention["Properties"]["RetentionInDays"] == days
