"""CDK entry point: `python infra/app.py -c env=dev|staging|prod` (or through the CDK CLI).

Context (from cdk.json, overridable with -c):
  env                      dev | staging | prod (default dev)
  engram:assets            build (default: refuse to synthesize without `make build`)
                           | auto (use build/ if present, else source folders and placeholders)
  engram:nag               true (default) runs cdk-nag AwsSolutions; findings fail synthesis
  engram:migrate-nonce     any string: forces the migrate custom resource to run again
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

if __package__ in (None, ""):
    # Run as a script (cdk.json: `python infra/app.py`): make `infra` importable.
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from aws_cdk import App

from infra.api import RouteSpec
from infra.assets import LambdaAssets
from infra.config import EnvConfig, load_config, read_cdk_json_context
from infra.nag import add_nag
from infra.stack import EngramStack


def _truthy(value: object) -> bool:
    return str(value).lower() in ("1", "true", "yes", "on")


def build_app(
    app: App | None = None,
    env: str | None = None,
    *,
    routes: Iterable[RouteSpec] | None = None,
    event_functions: Iterable[str] | None = None,
) -> tuple[App, EngramStack]:
    """The app with one environment's stack. `routes`/`event_functions` replace the route table
    (tests use them to check that functions added later get wired)."""
    app = app or App()
    # The CLI passes cdk.json's context (feature flags, settings); `python infra/app.py` and
    # the tests do not, so fill in whatever is not already set.
    for key, value in read_cdk_json_context().items():
        if app.node.try_get_context(key) is None:
            app.node.set_context(key, value)
    config: EnvConfig = load_config(app.node, env)
    if config.account is None and config.region is None:
        # The CLI sets these from the user's credentials; offline they stay unset and the
        # stack is environment-agnostic.
        config = _with_default_env(config)
    mode = str(app.node.try_get_context("engram:assets") or "build")
    if mode == "build" and (problems := config.deploy_problems()):
        raise ValueError(f"cdk.json settings for {config.env!r}: " + "; ".join(problems))
    assets = LambdaAssets(mode=mode)
    stack = EngramStack(
        app,
        config=config,
        assets=assets,
        routes=routes,
        event_functions=event_functions,
        migrate_nonce=str(app.node.try_get_context("engram:migrate-nonce") or ""),
    )
    nag = app.node.try_get_context("engram:nag")
    if nag is None or _truthy(nag):
        add_nag(app)
    for warning in assets.warnings:
        print(f"[engram] placeholder asset: {warning}", file=sys.stderr)
    return app, stack


def _with_default_env(config: EnvConfig) -> EnvConfig:
    from dataclasses import replace

    return replace(
        config,
        account=os.environ.get("CDK_DEFAULT_ACCOUNT"),
        region=os.environ.get("CDK_DEFAULT_REGION"),
    )


if __name__ == "__main__":
    application, _ = build_app()
    application.synth()
