"""cdk-nag (AwsSolutions) wiring and the helper every acknowledgement goes through.

cdk-nag 3 is a CDK policy-validation plugin: any finding that is not acknowledged fails
synthesis. Acknowledgements are placed on the smallest construct they concern and always
carry a reason; `acknowledge` refuses an empty one.
"""

from __future__ import annotations

from aws_cdk import Acknowledgment, App, CfnResource, Stack, Validations
from cdk_nag import AwsSolutionsChecks
from constructs import IConstruct

PACK = "AwsSolutions"


def acknowledge(scope: IConstruct, rule: str, reason: str) -> None:
    """Acknowledge one nag finding (e.g. `AwsSolutions-IAM5[Resource::*]`) on `scope` and below."""
    if len(reason.strip()) < 20:
        raise ValueError(f"acknowledgement of {rule} needs a real reason, got {reason!r}")
    Validations.of(scope).acknowledge(Acknowledgment(id=rule, reason=reason))


def main_resource(construct: IConstruct) -> CfnResource:
    """The CloudFormation resource an L2 construct wraps (where its acknowledgements go)."""
    resource = construct.node.default_child
    if not isinstance(resource, CfnResource):
        raise TypeError(f"{construct.node.path} wraps no single CloudFormation resource")
    return resource


def logical_id(construct: IConstruct) -> str:
    """The CloudFormation logical id of an L2 construct's main resource (as cdk-nag prints it)."""
    return Stack.of(construct).get_logical_id(main_resource(construct))


def add_nag(app: App) -> None:
    """Run the AwsSolutions pack over the app; acknowledgements are also written to the template
    metadata (cdk_nag.rules_to_suppress) so a reader of the template sees each reason."""
    Validations.of(app).add_plugins(AwsSolutionsChecks(app, write_suppressions_to_cloud_formation=True))
