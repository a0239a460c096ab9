"""HTTP API Lambda authorizer: engram_http.authorizer resolves the API key."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools.utilities.data_classes import event_source
from aws_lambda_powertools.utilities.data_classes.api_gateway_authorizer_event import APIGatewayAuthorizerEventV2

from engram_http.authorizer import authorize


@event_source(data_class=APIGatewayAuthorizerEventV2)
def handler(event: APIGatewayAuthorizerEventV2, context: Any) -> dict[str, Any]:
    return authorize(event).asdict()
