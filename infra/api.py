"""The HTTP API: one route per entry of the route table, a cached Lambda authorizer, throttling
and JSON access logs.

Routes come from `engram_http.route_table.ROUTES`, the same table the local server dispatches
with, so a route added there appears here on the next synth. Each function gets one Lambda
integration shared by all of its routes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Protocol

import jsii
from aws_cdk import Duration, RemovalPolicy
from aws_cdk import aws_apigateway as apigw
from aws_cdk import aws_apigatewayv2 as apigwv2
from aws_cdk import aws_apigatewayv2_authorizers as authorizers
from aws_cdk import aws_apigatewayv2_integrations as integrations
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_logs as logs
from constructs import Construct

from infra.config import EnvConfig
from infra.nag import acknowledge, main_resource
from infra.retention import retention_days

AUTHORIZER_FUNCTION = "authorizer"
IDENTITY_SOURCE = "$request.header.Authorization"

# One JSON object per request; tenant_id and key_id come from the authorizer's context.
ACCESS_LOG_FORMAT = json.dumps(
    {
        "requestId": "$context.requestId",
        "time": "$context.requestTime",
        "ip": "$context.identity.sourceIp",
        "userAgent": "$context.identity.userAgent",
        "method": "$context.httpMethod",
        "routeKey": "$context.routeKey",
        "path": "$context.path",
        "status": "$context.status",
        "protocol": "$context.protocol",
        "responseLength": "$context.responseLength",
        "responseLatency": "$context.responseLatency",
        "integrationLatency": "$context.integrationLatency",
        "integrationStatus": "$context.integrationStatus",
        "integrationError": "$context.integrationErrorMessage",
        "authorizerError": "$context.authorizer.error",
        "tenantId": "$context.authorizer.tenant_id",
        "keyId": "$context.authorizer.key_id",
        "grantId": "$context.authorizer.grant_id",  # set when the caller used an OAuth access token
        # "route" when the authorizer could not reach the database and the route checked the key
        "keyCheck": "$context.authorizer.key_check",
        "error": "$context.error.message",
    }
)


class RouteSpec(Protocol):
    """What the API needs from a route-table entry (engram_http.route_table.Route fits)."""

    @property
    def method(self) -> str: ...
    @property
    def path(self) -> str: ...
    @property
    def function(self) -> str: ...
    @property
    def auth(self) -> bool: ...
    @property
    def challenge(self) -> bool: ...


@jsii.implements(apigwv2.IAccessLogSettings)
class _AccessLogSettings:
    def __init__(self, destination: apigwv2.IAccessLogDestination, log_format: apigw.AccessLogFormat) -> None:
        self._destination = destination
        self._format = log_format

    @property
    def destination(self) -> apigwv2.IAccessLogDestination:
        return self._destination

    @property
    def format(self) -> apigw.AccessLogFormat:
        return self._format


class Api(Construct):
    def __init__(
        self,
        scope: Construct,
        id: str,
        *,
        config: EnvConfig,
        routes: Iterable[RouteSpec],
        functions: Mapping[str, lambda_.IFunction],
    ) -> None:
        super().__init__(scope, id)
        self.authorizer = authorizers.HttpLambdaAuthorizer(
            "ApiKeyAuthorizer",
            functions[AUTHORIZER_FUNCTION],
            authorizer_name=f"{config.prefix}-api-key",
            response_types=[authorizers.HttpLambdaResponseType.SIMPLE],
            identity_source=[IDENTITY_SOURCE],
            # A key's verdict is cached per Authorization header: a revoked key keeps working
            # for at most this long, and the database sees one lookup per key per period.
            results_cache_ttl=Duration.seconds(config.authorizer_cache_seconds),
        )
        # The same function without an identity source, so uncached: a request with no Authorization
        # header reaches it, and the route answers 401 with the bearer challenge an MCP client's OAuth
        # discovery starts from (API Gateway's own 401 has no WWW-Authenticate). For `challenge` routes.
        self.challenge_authorizer = authorizers.HttpLambdaAuthorizer(
            "ChallengeAuthorizer",
            functions[AUTHORIZER_FUNCTION],
            authorizer_name=f"{config.prefix}-api-key-challenge",
            response_types=[authorizers.HttpLambdaResponseType.SIMPLE],
            identity_source=[],
            results_cache_ttl=Duration.seconds(0),
        )
        self.http_api = apigwv2.HttpApi(
            self,
            "HttpApi",
            api_name=config.prefix,
            description=f"Engram memory API ({config.env})",
            default_authorizer=self.authorizer,
            create_default_stage=False,
        )
        self.access_logs = logs.LogGroup(
            self,
            "AccessLogs",
            retention=retention_days(config.log_retention_days),
            removal_policy=RemovalPolicy.RETAIN if config.retain_data else RemovalPolicy.DESTROY,
        )
        self.stage = apigwv2.HttpStage(
            self,
            "DefaultStage",
            http_api=self.http_api,
            stage_name="$default",
            auto_deploy=True,
            throttle=apigwv2.ThrottleSettings(
                rate_limit=config.api_throttle_rate, burst_limit=config.api_throttle_burst
            ),
            detailed_metrics_enabled=True,
            access_log_settings=_AccessLogSettings(
                apigwv2.LogGroupLogDestination(self.access_logs), apigw.AccessLogFormat.custom(ACCESS_LOG_FORMAT)
            ),
        )

        integrations_by_function: dict[str, integrations.HttpLambdaIntegration] = {}
        public_routes: list[str] = []
        self.routes: dict[str, apigwv2.HttpRoute] = {}
        for route in routes:
            if route.function not in functions:
                raise ValueError(f"route {route.method} {route.path}: no function {route.function!r}")
            integration = integrations_by_function.setdefault(
                route.function,
                integrations.HttpLambdaIntegration(
                    f"{route.function}-integration",
                    functions[route.function],
                    payload_format_version=apigwv2.PayloadFormatVersion.VERSION_2_0,
                    # One permission per function for every route of this API, not one per route:
                    # each is a CloudFormation resource, and a stack holds at most 500.
                    scope_permission_to_route=False,
                ),
            )
            (added,) = self.http_api.add_routes(
                path=route.path,
                methods=[apigwv2.HttpMethod[route.method.upper()]],
                integration=integration,
                authorizer=(
                    (self.challenge_authorizer if route.challenge else None)
                    if route.auth
                    else apigwv2.HttpNoneAuthorizer()
                ),
            )
            self.routes[f"{route.method.upper()} {route.path}"] = added
            if not route.auth:
                public_routes.append(f"{route.method.upper()} {route.path}")
                acknowledge(
                    main_resource(added),
                    "AwsSolutions-APIG4",
                    f"{route.method} {route.path} is public on purpose (marked auth=False in the route "
                    "table): health checks, the OpenAPI document, the console's static files and the OAuth endpoints "
                    "an MCP client uses before it has a token need no API key (the console calls the API with "
                    "the operator's key; the consent's approval goes through the authorizer).",
                )

        self._throttle_public_routes(config, public_routes)

    def _throttle_public_routes(self, config: EnvConfig, route_keys: list[str]) -> None:
        """Routes anyone may call without a key get their own, smaller rate: an anonymous flood of
        /oauth/register or /v1/health is cut at this rate, not at the stage's, which the keyed routes
        keep for the tenants."""
        stage = self.stage.node.default_child
        assert isinstance(stage, apigwv2.CfnStage)
        stage.route_settings = {
            key: {
                "ThrottlingRateLimit": config.public_route_throttle_rate,
                "ThrottlingBurstLimit": config.public_route_throttle_burst,
            }
            for key in route_keys
        }

    @property
    def url(self) -> str:
        return self.stage.url
