"""One environment of Engram Serverless: the constructs wired together."""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence

from aws_cdk import CfnOutput, Stack, Tags
from aws_cdk import Environment as AwsEnvironment
from constructs import Construct

from infra.api import AUTHORIZER_FUNCTION, Api, RouteSpec
from infra.assets import LambdaAssets
from infra.config import REPO_ROOT, EnvConfig
from infra.connections import connection_plan
from infra.database import Database
from infra.functions import MIGRATE_FUNCTION, Functions
from infra.migrations import Migrations
from infra.nag import acknowledge
from infra.network import Network
from infra.observability import Observability
from infra.profiles import EVENT_FUNCTIONS
from infra.storage import Storage
from infra.workers import EventWiring, WorkQueues

CONSOLE_FUNCTION = "console"

# The route table lives with the application code (layers/engram_http), which is not installed
# into the CDK environment: make it importable.
if str(REPO_ROOT / "layers") not in sys.path:
    sys.path.insert(0, str(REPO_ROOT / "layers"))


def default_routes() -> tuple[Sequence[RouteSpec], Sequence[str]]:
    from engram_http.route_table import ROUTES

    return ROUTES, EVENT_FUNCTIONS


class EngramStack(Stack):
    def __init__(
        self,
        scope: Construct,
        *,
        config: EnvConfig,
        assets: LambdaAssets,
        routes: Iterable[RouteSpec] | None = None,
        event_functions: Iterable[str] | None = None,
        migrate_nonce: str = "",
    ) -> None:
        env = AwsEnvironment(account=config.account, region=config.region)
        super().__init__(
            scope,
            config.stack_name,
            env=env,
            description=f"Engram Serverless ({config.env}): long-term memory API for AI agents",
            termination_protection=config.db_deletion_protection,
        )
        if routes is None or event_functions is None:
            table_routes, table_events = default_routes()
            routes = table_routes if routes is None else routes
            event_functions = table_events if event_functions is None else event_functions
        self.routes = list(routes)
        # One Lambda per function folder named in the table, in a stable order.
        names = sorted({r.function for r in self.routes} | set(event_functions))
        for required in (AUTHORIZER_FUNCTION, MIGRATE_FUNCTION):
            if required not in names:
                raise ValueError(f"the route table must name the {required!r} function")
        self.function_names = names
        # No burst may open more database connections than Aurora accepts (infra/connections.py).
        self.connection_plan = connection_plan(config, names)
        problems = self.connection_plan.problems()
        if problems:
            raise ValueError(f"cdk.json settings for {config.env!r}: " + "; ".join(problems))
        self.assets = assets

        # AWS::RDS::DBProxyTargetGroup has no Tags property; CloudFormation would reject one.
        untaggable = ["AWS::RDS::DBProxyTargetGroup"]
        Tags.of(self).add("app", "engram", exclude_resource_types=untaggable)
        Tags.of(self).add("env", config.env, exclude_resource_types=untaggable)

        self.storage = Storage(self, "Storage", config=config)
        self.network = Network(self, "Network", config=config, flow_log_bucket=self.storage.logs_bucket)
        self.database = Database(
            self,
            "Database",
            config=config,
            vpc=self.network.vpc,
            subnets=self.network.app_subnets,
            client_security_group=self.network.lambda_security_group,
        )
        # The rotation function calls Secrets Manager through the endpoint, too.
        self.network.allow_endpoints_from(self.database.rotation_security_group, "secret rotation function")
        self.queues = WorkQueues(self, "Queues", config=config, functions=names)
        self.functions = Functions(
            self,
            "Functions",
            config=config,
            names=names,
            assets=assets,
            vpc=self.network.vpc,
            subnets=self.network.app_subnets,
            security_group=self.network.lambda_security_group,
            database=self.database,
            queues=self.queues,
            uploads_bucket=self.storage.uploads_bucket,
        )
        fns = self.functions.functions
        self.migrations = Migrations(
            self,
            "Migrations",
            config=config,
            migrate_function=fns[MIGRATE_FUNCTION],
            database=self.database.cluster,
            nonce=migrate_nonce,
        )
        # New code goes live only after the schema it expects is in place.
        for name, function in fns.items():
            if name != MIGRATE_FUNCTION:
                function.node.add_dependency(self.migrations.resource)

        self.events = EventWiring(
            self,
            "Events",
            config=config,
            functions=fns,
            queues=self.queues,
            uploads_bucket=self.storage.uploads_bucket,
        )
        # SnapStart functions are invoked through their `live` alias (see infra/functions.py).
        self.api = Api(self, "Api", config=config, routes=self.routes, functions=self.functions.targets)
        # The memory console PUTs documents from its page, served on the API's own origin (there is
        # no custom domain); agents upload from servers, which CORS does not concern. The bucket then
        # refers to the API resource alone, which depends on nothing of the bucket's (its routes do,
        # through the functions): no cycle.
        console_origins = [self.api.http_api.api_endpoint] if CONSOLE_FUNCTION in names else []
        self.storage.allow_browser_uploads([*console_origins, *config.upload_cors_origins])
        self.observability = Observability(
            self,
            "Observability",
            config=config,
            functions=fns,
            queues=self.queues,
            http_api=self.api.http_api,
            access_logs=self.api.access_logs,
            cluster=self.database.cluster,
            connection_plan=self.connection_plan,
            schedule_dead_letter_queues=self.events.schedule_dead_letter_queues,
            failure_queues=self.events.failure_queues,
        )
        self._acknowledge_cdk_internals()

        CfnOutput(self, "ApiUrl", value=self.api.url, description="Base URL of the Engram API")
        CfnOutput(
            self,
            "MigrateFunctionName",
            value=fns[MIGRATE_FUNCTION].function_name,
            description='Invoke with {"action": "create_tenant", "name": ...} to create a tenant and key',
        )
        CfnOutput(self, "UploadsBucketName", value=self.storage.uploads_bucket.bucket_name)
        CfnOutput(self, "DatabaseSecretArn", value=self.database.secret.secret_arn)
        CfnOutput(self, "DatabaseEndpoint", value=self.database.endpoint)
        CfnOutput(self, "AlarmTopicArn", value=self.observability.topic.topic_arn)
        CfnOutput(self, "DashboardName", value=self.observability.dashboard.dashboard_name)
        for work in self.queues.queues.values():
            CfnOutput(self, f"{work.node.id}DeadLetterQueueUrl", value=work.dead_letter_queue.queue_url)
        for name, failures in self.events.failure_queues.items():
            CfnOutput(self, f"{name.title().replace('_', '')}FailuresQueueUrl", value=failures.queue_url)

    def _acknowledge_cdk_internals(self) -> None:
        """Findings on helper functions that aws-cdk-lib adds at stack level (bucket notifications;
        emptying buckets on delete in disposable environments). Not ours to change; each reason
        says why that is fine."""
        for child in self.node.children:
            if child.node.id.startswith("BucketNotificationsHandler"):
                acknowledge(
                    child,
                    "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                    "AWSLambdaBasicExecutionRole]",
                    "aws-cdk-lib's bucket-notification helper only writes its own logs with this managed role.",
                )
                acknowledge(
                    child,
                    "AwsSolutions-IAM5[Resource::*]",
                    "aws-cdk-lib's bucket-notification helper calls s3:PutBucketNotification at deploy time; "
                    "CDK grants it without a resource scope and it runs only during deployments.",
                )
            if child.node.id.startswith("LogRetention"):
                acknowledge(
                    child,
                    "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                    "AWSLambdaBasicExecutionRole]",
                    "aws-cdk-lib's log-retention helper (the Aurora log group where logs are retained) "
                    "only writes its own logs with this managed role.",
                )
                acknowledge(
                    child,
                    "AwsSolutions-IAM5[Resource::*]",
                    "aws-cdk-lib's log-retention helper creates or adopts the Aurora log group and sets its "
                    "retention at deploy time; CDK grants logs:PutRetentionPolicy without a resource scope.",
                )
            if child.node.id.startswith("Custom::S3AutoDeleteObjects"):
                acknowledge(
                    child,
                    "AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/"
                    "AWSLambdaBasicExecutionRole]",
                    "aws-cdk-lib's bucket auto-delete helper (dev only) needs nothing beyond writing its logs.",
                )
                acknowledge(
                    child,
                    "AwsSolutions-L1",
                    "aws-cdk-lib's bucket auto-delete helper (dev only) runs on the Node.js runtime "
                    "aws-cdk-lib ships it with; it moves with aws-cdk-lib upgrades.",
                )
