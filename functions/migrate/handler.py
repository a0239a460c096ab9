"""Applies migrations on every deploy (CloudFormation custom resource via the CDK Provider),
and creates tenants when invoked directly: {"action": "create_tenant", "name": "acme"}.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger

from engram.ops import operations

logger = Logger()


@logger.inject_lambda_context(clear_state=True)
def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
    if event.get("action") == "create_tenant":
        return operations.create_tenant_with_key(str(event.get("name", "")), list(event.get("scopes", ["admin"])))
    if event.get("RequestType") == "Delete":  # keep the data when the stack goes away
        return {"PhysicalResourceId": event.get("PhysicalResourceId", "engram-migrations")}
    applied = operations.migrate_and_register_embedder()
    logger.info("migrations applied", extra={"applied": applied})
    return {"PhysicalResourceId": "engram-migrations", "Data": {"Applied": ",".join(applied) or "none"}}
