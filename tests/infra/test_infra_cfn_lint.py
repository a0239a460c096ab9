"""cfn-lint on the synthesized template of every environment (and of prod with every option on):
no error, and no warning that is not acknowledged here with its reason (~13 s per template)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from cfnlint.api import ManualArgs, lint
from cfnlint.match import Match

REGION = "us-east-1"
W3005_REASON = (
    "aws-cdk-lib makes each Lambda function depend explicitly on its role, the bucket-notification resource "
    "on the queues it points at, and the RDS Proxy's target group on the cluster, next to the GetAtt or Ref "
    "that already orders them: the duplicate DependsOn changes nothing in CloudFormation's order, and "
    "dropping it would mean overriding CDK internals."
)


def _w3005_is_cdk_redundancy(match: Match, resources: dict[str, Any]) -> bool:
    """A W3005 of one of the kinds W3005_REASON explains (a new kind stays a finding)."""
    found = re.match(
        r"'(\w+)' dependency already enforced by a '(?:GetAtt|Ref)' at 'Resources/(\w+)/(.+)'", match.message
    )
    if found is None:
        return False
    dependency, dependent, where = found.groups()
    dependency_type = resources.get(dependency, {}).get("Type")
    dependent_type = resources.get(dependent, {}).get("Type")
    function_role = dependent_type == "AWS::Lambda::Function" and where == "Properties/Role"
    function_role = function_role and dependency_type == "AWS::IAM::Role"
    notification_queue = dependent_type == "Custom::S3BucketNotifications" and dependency_type == "AWS::SQS::Queue"
    proxy_cluster = dependent_type == "AWS::RDS::DBProxyTargetGroup" and dependency_type == "AWS::RDS::DBCluster"
    return function_role or notification_queue or proxy_cluster


def unacknowledged(template: dict[str, Any]) -> list[str]:
    matches = lint(json.dumps(template), config=ManualArgs(regions=[REGION]))
    return [
        f"{m.rule.id} {m.message} ({m.path_string})"
        for m in matches
        if not (m.rule.id == "W3005" and _w3005_is_cdk_redundancy(m, template["Resources"]))
    ]


def test_cfn_lint_reports_an_invalid_template():
    template = {
        "Resources": {
            "Fn": {
                "Type": "AWS::Lambda::Function",
                "Properties": {
                    "Runtime": "python2.0",
                    "Handler": "handler.handler",
                    "Role": "arn:aws:iam::123456789012:role/x",
                    "Code": {"ZipFile": "x"},
                },
            },
            # A W3005 of a kind the acknowledgement does not cover stays a finding.
            "Queue": {"Type": "AWS::SQS::Queue", "Properties": {}},
            "Topic": {
                "Type": "AWS::SNS::Topic",
                "DependsOn": ["Queue"],
                "Properties": {"DisplayName": {"Fn::GetAtt": ["Queue", "QueueName"]}},
            },
        }
    }
    rules = {finding.split()[0] for finding in unacknowledged(template)}
    assert {"E3030", "W3005"} <= rules


@pytest.mark.parametrize("env", ["dev", "staging", "prod", "future"])
def test_templates_pass_cfn_lint(env, request):
    findings = unacknowledged(request.getfixturevalue(env).json)
    assert findings == [], "\n".join(findings) + f"\n(acknowledged, W3005 of these kinds only: {W3005_REASON})"
