"""The Lambda functions: one per folder under functions/, all arm64 / Python 3.12, in the VPC.

Every function gets the same two layers (third-party dependencies, and the engram core
library), the same environment, JSON logs into its own log group with a retention, X-Ray
tracing, and a role of its own. Beyond that baseline a function is granted only what its
profile in infra/profiles.py lists.

Where the environment turns SnapStart on (`snap_start`) and a function's profile asks for it, the
function publishes a version on every change, with a `live` alias on it: SnapStart applies to
published versions only, so the API invokes that alias (`targets`), never the unqualified function.
"""

from __future__ import annotations

from collections.abc import Iterable

from aws_cdk import Annotations, Aws, Duration, RemovalPolicy, Size, Stack
from aws_cdk import aws_ec2 as ec2
from aws_cdk import aws_iam as iam
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from aws_cdk import aws_s3 as s3
from constructs import Construct

from infra.assets import LambdaAssets
from infra.config import EnvConfig
from infra.connections import reserved_concurrency
from infra.database import LOGIN_ROLES, Database
from infra.nag import acknowledge, main_resource
from infra.profiles import (
    CONSOLIDATE_QUEUE,
    EMBED_QUEUE,
    EXPORT_QUEUE,
    EXTRACT_QUEUE,
    UPLOAD_EVENTS_QUEUE,
    FunctionProfile,
    profile_for,
)
from infra.retention import retention_days
from infra.storage import UPLOADS_PREFIX
from infra.workers import MAX_RECEIVES, WorkQueues

RUNTIME = lambda_.Runtime.PYTHON_3_12
ARCHITECTURE = lambda_.Architecture.ARM_64
HANDLER = "handler.handler"
VPC_POLICY = "service-role/AWSLambdaVPCAccessExecutionRole"
BASIC_POLICY = "service-role/AWSLambdaBasicExecutionRole"  # logs only: for functions outside the VPC
# Cross-region inference profile ids start with a geography ("us.", "eu.", "apac.", "global.").
INFERENCE_PROFILE_PREFIXES = ("us.", "eu.", "apac.", "jp.", "au.", "ca.", "global.")
MIGRATE_FUNCTION = "migrate"
LIVE_ALIAS = "live"  # what the API invokes of a SnapStart function: its latest published version

# A paused Aurora Serverless v2 cluster takes ~15 s to resume (~30 s after a day or more paused). A
# function waits for it within its own timeout: the wait, the last connection attempt (which may run
# libpq's 2 s minimum past it) and the work after it must fit, or Lambda kills the function and API
# Gateway answers a bare 500. A route must also fit in API Gateway's 30 s, which a cold start's init
# (the runtime, the imports, the secret read) counts against too. The authorizer and GET /v1/health do
# not wait (one attempt of DB_PROBE_TIMEOUT_S): API Gateway gives an authorizer 10 s, so it leaves a key
# it could not check to the route (engram_http.authorizer).
API_GATEWAY_TIMEOUT_S = 30  # HTTP API's integration timeout, fixed
COLD_START_S = 5  # a cold route container's init before its first attempt (the mcp function's is ~3 s)
DB_WAIT_HEADROOM_S = 4  # the last attempt's 2 s, and 2 s for the request's own work
ROUTE_DB_WAIT_S = API_GATEWAY_TIMEOUT_S - COLD_START_S - DB_WAIT_HEADROOM_S  # 21 s: a resume, with room
# Queue and schedule workers answer nobody waiting: they ride out the long resume after a day's pause.
BACKGROUND_DB_WAIT_S = 60
DB_PROBE_TIMEOUT_S = 2
DB_SECRET_TIMEOUT_S = 1  # each of connect and read, one attempt: a Secrets Manager endpoint that drops packets


def database_wait_s(profile: FunctionProfile) -> int:
    """How long a function waits for the database: its profile's own figure (migrate), a worker's
    long wait, or a route's, never past its own timeout."""
    if profile.db_wait_s is not None:
        wanted = profile.db_wait_s
    elif profile.consumes or profile.scheduled:
        wanted = BACKGROUND_DB_WAIT_S
    else:
        wanted = ROUTE_DB_WAIT_S
    return max(0, min(wanted, profile.timeout_s - DB_WAIT_HEADROOM_S))


def database_timeouts(profile: FunctionProfile) -> dict[str, str]:
    """The connection settings of a function that uses the database, sized to its timeout."""
    return {
        "ENGRAM_DB_CONNECT_WAIT_S": str(database_wait_s(profile)),
        "ENGRAM_DB_PROBE_TIMEOUT_S": str(DB_PROBE_TIMEOUT_S),
        "ENGRAM_DB_SECRET_TIMEOUT_S": str(DB_SECRET_TIMEOUT_S),
    }


def login_duty(function: str) -> str | None:
    """The duty whose login role a function uses (infra/database.py): the queue and schedule workers
    log in as engram_worker, the API's functions as engram_api; None: migrate, the schema owner."""
    if function == MIGRATE_FUNCTION:
        return None
    profile = profile_for(function)
    return "worker" if profile.consumes or profile.scheduled else "api"


def construct_id(function: str) -> str:
    """embed_worker -> EmbedWorker (CloudFormation logical ids)."""
    return "".join(part.title() for part in function.split("_"))


def function_name(config: EnvConfig, function: str) -> str:
    """embed_worker -> engram-dev-embed-worker (the physical name carries the environment)."""
    return f"{config.prefix}-{function.replace('_', '-')}"


class Functions(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        config: EnvConfig,
        names: Iterable[str],
        assets: LambdaAssets,
        vpc: ec2.IVpc,
        subnets: ec2.SubnetSelection,
        security_group: ec2.ISecurityGroup,
        database: Database,
        queues: WorkQueues,
        uploads_bucket: s3.IBucket,
    ) -> None:
        super().__init__(scope, id)
        self.config = config
        self.deps_layer = lambda_.LayerVersion(
            self,
            "DependenciesLayer",
            layer_version_name=f"{config.prefix}-dependencies",
            description="Engram third-party dependencies (pip --platform manylinux aarch64, cp312)",
            code=assets.deps_layer_code(),
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
        )
        self.core_layer = lambda_.LayerVersion(
            self,
            "CoreLayer",
            layer_version_name=f"{config.prefix}-core",
            description="Engram core library (engram, engram_http)",
            code=assets.core_layer_code(),
            compatible_runtimes=[RUNTIME],
            compatible_architectures=[ARCHITECTURE],
        )

        embed_queue = queues.get(EMBED_QUEUE).queue
        environment = {
            "ENGRAM_ENV": config.env,
            "ENGRAM_DB_NAME": database.name,
            # The host to connect to: the RDS Proxy where there is one, else the cluster
            # writer. Overrides the host in the secret.
            "ENGRAM_DB_HOST": database.endpoint,
            "ENGRAM_EMBED_QUEUE_URL": embed_queue.queue_url,
            "ENGRAM_EMBEDDER": config.embedder,
            "ENGRAM_EMBED_MODEL": config.embed_model_id,
            "ENGRAM_EMBED_DIM": str(config.embed_dim),
            "ENGRAM_LLM_LEVEL": config.llm_level,
            "ENGRAM_LLM_PROVIDER": config.llm_provider,
            "ENGRAM_LLM_MODEL": config.llm_model,
            "ENGRAM_UPLOADS_BUCKET": uploads_bucket.bucket_name,
            # Client ID Metadata Documents are fetched from the client's own https URL: only with a route
            # out of the VPC (a NAT gateway) are they advertised and accepted (docs/mcp-oauth.md).
            "ENGRAM_OAUTH_CLIENT_METADATA_DOCUMENTS": "true" if config.nat_gateways > 0 else "false",
            "POWERTOOLS_LOG_LEVEL": config.log_level,
            "POWERTOOLS_METRICS_NAMESPACE": f"Engram/{config.env}",
        }
        if config.rerank_model:
            environment["ENGRAM_RERANK_MODEL"] = config.rerank_model
        if CONSOLIDATE_QUEUE in queues.queues:
            environment["ENGRAM_CONSOLIDATE_QUEUE_URL"] = queues.get(CONSOLIDATE_QUEUE).queue.queue_url
            # The worker marks a run failed on the last receive before the dead-letter queue.
            environment["ENGRAM_CONSOLIDATION_MAX_RECEIVES"] = str(MAX_RECEIVES)
        if EXTRACT_QUEUE in queues.queues:
            environment["ENGRAM_EXTRACT_QUEUE_URL"] = queues.get(EXTRACT_QUEUE).queue.queue_url
        if EXPORT_QUEUE in queues.queues:
            environment["ENGRAM_EXPORT_QUEUE_URL"] = queues.get(EXPORT_QUEUE).queue.queue_url
        if UPLOAD_EVENTS_QUEUE in queues.queues:
            environment["ENGRAM_UPLOAD_EVENTS_QUEUE_URL"] = queues.get(UPLOAD_EVENTS_QUEUE).queue.queue_url

        self.functions: dict[str, lambda_.Function] = {}
        # What callers invoke: the `live` alias of a SnapStart function, else the function itself.
        self.targets: dict[str, lambda_.IFunction] = {}
        for name in names:
            profile = profile_for(name)
            snap_start = config.snap_start and profile.snap_start
            if snap_start:
                _check_snap_start(name, profile)
            role = iam.Role(
                self,
                f"{construct_id(name)}Role",
                assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
                description=f"{function_name(config, name)} execution role",
                managed_policies=[
                    iam.ManagedPolicy.from_aws_managed_policy_name(VPC_POLICY if profile.database else BASIC_POLICY)
                ],
            )
            log_group = logs.LogGroup(
                self,
                f"{construct_id(name)}Logs",
                retention=retention_days(config.log_retention_days),
                removal_policy=RemovalPolicy.RETAIN if config.retain_data else RemovalPolicy.DESTROY,
            )
            function = lambda_.Function(
                self,
                construct_id(name),
                function_name=function_name(config, name),
                description=profile.description or f"Engram {name}",
                runtime=RUNTIME,
                architecture=ARCHITECTURE,
                handler=HANDLER,
                code=assets.function_code(name),
                layers=[self.deps_layer, self.core_layer],
                memory_size=config.memory_for(name),
                timeout=Duration.seconds(profile.timeout_s),
                # Its most containers, and so its most database connections (infra/connections.py).
                reserved_concurrent_executions=reserved_concurrency(config, name),
                ephemeral_storage_size=Size.mebibytes(profile.temp_mb),
                role=role,
                vpc=vpc if profile.database else None,
                vpc_subnets=subnets if profile.database else None,
                security_groups=[security_group] if profile.database else None,
                environment={
                    **environment,
                    **(database_timeouts(profile) if profile.database else {}),
                    **(self._database_login(name, database) if profile.database else {}),
                    **(
                        {"ENGRAM_DB_READER_HOST": database.reader_endpoint}
                        if profile.reads_on_reader and database.reader_endpoint
                        else {}
                    ),
                    "POWERTOOLS_SERVICE_NAME": f"engram-{name.replace('_', '-')}",
                },
                tracing=lambda_.Tracing.ACTIVE,
                logging_format=lambda_.LoggingFormat.JSON,
                application_log_level_v2=lambda_.ApplicationLogLevel[config.log_level],
                system_log_level_v2=lambda_.SystemLogLevel.WARN,
                log_group=log_group,
                snap_start=lambda_.SnapStartConf.ON_PUBLISHED_VERSIONS if snap_start else None,
                # Python SnapStart bills each published version's cached snapshot for as long as the
                # version exists: a replaced version is deleted once the alias points past it.
                current_version_options=(
                    lambda_.VersionOptions(removal_policy=RemovalPolicy.DESTROY) if snap_start else None
                ),
            )
            acknowledge(
                main_resource(function),
                "AwsSolutions-L1",
                "Python 3.12 is pinned on purpose: the dependency layer is built for CPython 3.12 wheels "
                "(pip --python-version 3.12); a runtime upgrade means rebuilding and retesting that layer.",
            )
            self._grant(name, function, role, database, queues, uploads_bucket)
            self.functions[name] = function
            self.targets[name] = self._live_alias(name, function) if snap_start else function

    def _live_alias(self, name: str, function: lambda_.Function) -> lambda_.Alias:
        """The `live` alias on the function's current version (a new version whenever its code,
        layers or configuration change; SnapStart snapshots it as it is published)."""
        Annotations.of(function).acknowledge_warning(
            "@aws-cdk/aws-lambda:snapStartRequirePublish",
            "the live alias publishes a version of the function on every change, and the API invokes that alias",
        )
        return lambda_.Alias(
            self,
            f"{construct_id(name)}Live",
            alias_name=LIVE_ALIAS,
            version=function.current_version,
            description=f"{function_name(self.config, name)}: the version the API invokes (SnapStart)",
        )

    def _database_login(self, name: str, database: Database) -> dict[str, str]:
        """The secret a function logs in with: its duty's (infra/database.py), the master's for migrate."""
        duty = login_duty(name)
        if duty is None:
            arns = {role: database.login_secrets[d].secret_arn for role, d in LOGIN_ROLES.items()}
            return {
                "ENGRAM_DB_SECRET_ARN": database.secret.secret_arn,
                # It gives each duty role the password of that role's secret (engram.schema.logins).
                "ENGRAM_DB_LOGIN_SECRET_ARNS": Stack.of(self).to_json_string(arns),
            }
        return {"ENGRAM_DB_SECRET_ARN": database.login_secrets[duty].secret_arn}

    # -- permissions -----------------------------------------------------------------------

    def _grant(
        self,
        name: str,
        function: lambda_.Function,
        role: iam.Role,
        database: Database,
        queues: WorkQueues,
        uploads_bucket: s3.IBucket,
    ) -> None:
        config, profile = self.config, profile_for(name)
        # A function that uses the database reads its duty's secret and no other; migrate alone reads the
        # master secret, and the duty secrets whose passwords it sets.
        if profile.database:
            duty = login_duty(name)
            readable = [database.secret, *database.login_secrets.values()] if duty is None else []
            for secret in readable or [database.login_secrets[str(duty)]]:
                secret.grant_read(role)
        sends = (
            (profile.embed_send, EMBED_QUEUE),
            (profile.consolidate_send, CONSOLIDATE_QUEUE),
            (profile.extract_send, EXTRACT_QUEUE),
            (profile.export_send, EXPORT_QUEUE),
            (profile.upload_events_send, UPLOAD_EVENTS_QUEUE),
        )
        for may_send, queue_key in sends:
            if may_send:
                queues.get(queue_key).queue.grant_send_messages(role)
        if profile.bedrock_embed:
            role.add_to_policy(
                iam.PolicyStatement(
                    actions=["bedrock:InvokeModel"],
                    resources=[f"arn:{Aws.PARTITION}:bedrock:{Aws.REGION}::foundation-model/{config.embed_model_id}"],
                )
            )
        if profile.bedrock_llm and config.llm_level != "off" and config.llm_provider == "bedrock":
            self._grant_llm(role)
        reranks = self._grant_rerank(role, profile)
        if profile.uploads_read:
            role.add_to_policy(
                iam.PolicyStatement(
                    actions=["s3:GetObject"], resources=[uploads_bucket.arn_for_objects(f"{UPLOADS_PREFIX}*")]
                )
            )
        if profile.uploads_write:
            role.add_to_policy(
                iam.PolicyStatement(
                    actions=["s3:PutObject"], resources=[uploads_bucket.arn_for_objects(f"{UPLOADS_PREFIX}*")]
                )
            )
        if profile.uploads_delete:
            role.add_to_policy(
                iam.PolicyStatement(
                    actions=["s3:DeleteObject"], resources=[uploads_bucket.arn_for_objects(f"{UPLOADS_PREFIX}*")]
                )
            )
        if profile.uploads_read or profile.uploads_write or profile.uploads_delete:
            acknowledge(
                role,
                f"AwsSolutions-IAM5[Resource::<{Stack.of(self).get_logical_id(_cfn(uploads_bucket))}.Arn>"
                f"/{UPLOADS_PREFIX}*]",
                "Object access is limited to the uploads/ prefix of the one uploads bucket; object keys "
                "are generated per upload, so they cannot be listed in advance.",
            )
        self._grant_objects(role, profile.object_access, uploads_bucket)

        if profile.database:
            acknowledge(
                role,
                f"AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/{VPC_POLICY}]",
                "AWSLambdaVPCAccessExecutionRole is the AWS-maintained minimum for a VPC Lambda: ENI "
                "management (which has no resource-level permissions) and writing its logs.",
            )
        else:
            acknowledge(
                role,
                f"AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/{BASIC_POLICY}]",
                "AWSLambdaBasicExecutionRole is the AWS-maintained minimum for a Lambda outside the VPC: "
                "writing its own logs.",
            )
        acknowledge(
            role,
            "AwsSolutions-IAM5[Resource::*]",
            _WILDCARD_REASON[reranks],
        )

    def _grant_objects(
        self, role: iam.Role, object_access: tuple[tuple[str, str], ...], uploads_bucket: s3.IBucket
    ) -> None:
        """One statement per prefix of the uploads bucket (exports/, imports/) with the profile's actions."""
        for prefix in sorted({prefix for _, prefix in object_access}):
            actions = sorted({action for action, p in object_access if p == prefix})
            role.add_to_policy(
                iam.PolicyStatement(actions=actions, resources=[uploads_bucket.arn_for_objects(f"{prefix}*")])
            )
            acknowledge(
                role,
                f"AwsSolutions-IAM5[Resource::<{Stack.of(self).get_logical_id(_cfn(uploads_bucket))}.Arn>/{prefix}*]",
                f"Object access is limited to the {prefix} prefix of the one uploads bucket; object keys are "
                "generated per export or import, so they cannot be listed in advance.",
            )

    def _grant_rerank(self, role: iam.Role, profile: FunctionProfile) -> bool:
        """Recall's `rerank`, when the profile asks and a model is configured: the Rerank action, and
        InvokeModel on the one configured rerank model. Returns whether it granted them."""
        model = self.config.rerank_model
        if not (profile.bedrock_rerank and model):
            return False
        role.add_to_policy(iam.PolicyStatement(actions=["bedrock:Rerank"], resources=["*"]))
        role.add_to_policy(
            iam.PolicyStatement(
                actions=["bedrock:InvokeModel"],
                resources=[f"arn:{Aws.PARTITION}:bedrock:{Aws.REGION}::foundation-model/{model}"],
            )
        )
        return True

    def _grant_llm(self, role: iam.Role) -> None:
        model = self.config.llm_model
        resources: list[str]
        if model.startswith(INFERENCE_PROFILE_PREFIXES):
            base_model = model.split(".", 1)[1]
            profile_arn = f"arn:{Aws.PARTITION}:bedrock:{Aws.REGION}:{Aws.ACCOUNT_ID}:inference-profile/{model}"
            # A cross-region inference profile forwards to the same model in any Region of its
            # geography, and IAM checks the model ARN in the destination Region as well.
            model_arn = f"arn:{Aws.PARTITION}:bedrock:*::foundation-model/{base_model}"
            resources = [profile_arn, model_arn]
            acknowledge(
                role,
                f"AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:bedrock:*::foundation-model/{base_model}]",
                "Cross-region inference needs InvokeModel on the one configured Claude model in every "
                "Region its inference profile may route to; the model itself is fixed.",
            )
        else:
            resources = [f"arn:{Aws.PARTITION}:bedrock:{Aws.REGION}::foundation-model/{model}"]
        role.add_to_policy(
            iam.PolicyStatement(
                actions=["bedrock:InvokeModel", "bedrock:InvokeModelWithResponseStream"], resources=resources
            )
        )


# Why a role may have a statement on every resource, without and with recall's rerank grant.
_WILDCARD_REASON = {
    False: "X-Ray PutTraceSegments and PutTelemetryRecords (active tracing) do not support "
    "resource-level permissions; no other statement uses a wildcard resource.",
    True: "X-Ray PutTraceSegments and PutTelemetryRecords (active tracing) and bedrock:Rerank do not support "
    "resource-level permissions; the rerank model is limited by InvokeModel on that one model.",
}


def _check_snap_start(name: str, profile: FunctionProfile) -> None:
    """SnapStart is wired for API routes only: they invoke the alias. (aws-cdk-lib itself refuses
    SnapStart with more than 512 MB of temp_mb.)"""
    if profile.consumes or profile.scheduled:
        raise ValueError(
            f"profile of {name!r}: snap_start is for API route functions; queue and schedule triggers "
            "would invoke the unpublished function, which SnapStart does not apply to"
        )


def _cfn(bucket: s3.IBucket) -> s3.CfnBucket:
    resource = main_resource(bucket)
    assert isinstance(resource, s3.CfnBucket)
    return resource
