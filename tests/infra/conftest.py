"""Synthesize each environment once per test session (a synth with cdk-nag takes ~10 s on two
cores) and hand the templates to the tests.

Synthesis here skips asset bundling and staging and uses `engram:assets=auto`, so it needs
neither Docker nor `make build`. cdk-nag runs in every synth: an unacknowledged finding makes
the fixture, and so every test that uses it, fail.
"""

from __future__ import annotations

import copy
import os
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
for path in (REPO_ROOT, REPO_ROOT / "layers"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

pytest.importorskip("aws_cdk", reason="aws-cdk-lib is in the dev extra")
pytest.importorskip("cdk_nag", reason="cdk-nag is in the dev extra")

from aws_cdk import App  # noqa: E402
from aws_cdk.assertions import Template  # noqa: E402

from engram_http.route_table import ROUTES, Route  # noqa: E402
from infra.app import build_app  # noqa: E402
from infra.config import read_cdk_json_context  # noqa: E402
from infra.profiles import EVENT_FUNCTIONS  # noqa: E402
from infra.stack import EngramStack  # noqa: E402

# Functions the route table will grow (documents, topics, consolidation), plus one with a name
# nothing in infra knows: all must synthesize, wired as their profiles say, nag-clean.
_KNOWN = {(t.method, t.path) for t in ROUTES}
FUTURE_ROUTES = tuple(
    r
    for r in (
        Route("POST", "/v1/documents", "documents"),
        Route("POST", "/v1/memories/{memory_id}/query", "documents"),
        Route("GET", "/v1/topics", "topics"),
        Route("GET", "/v1/widgets", "widgets"),
    )
    if (r.method, r.path) not in _KNOWN
)
FUTURE_EVENT_FUNCTIONS = tuple(
    f for f in ("document_ingest", "consolidation_dispatcher", "consolidation_worker") if f not in EVENT_FUNCTIONS
)


@dataclass
class Synth:
    env: str
    stack: EngramStack
    template: Template
    json: dict[str, Any]

    def resources(self, type_: str) -> dict[str, dict[str, Any]]:
        return {k: v for k, v in self.json["Resources"].items() if v["Type"] == type_}

    def key_authorizer_id(self) -> str:
        """The cached authorizer (identity source: the Authorization header) that every /v1 route
        uses; /mcp has a second one without an identity source, so a request with no credentials
        reaches the route and its bearer challenge."""
        (found,) = [
            k
            for k, v in self.resources("AWS::ApiGatewayV2::Authorizer").items()
            if v["Properties"].get("IdentitySource")
        ]
        return found

    def function_logical_id(self, function: str) -> str:
        fn = self.stack.functions.functions[function]
        return self.stack.get_logical_id(fn.node.default_child)  # type: ignore[arg-type]

    def role_statements(self, function: str) -> list[dict[str, Any]]:
        """All inline policy statements attached to a function's role."""
        role = self.stack.functions.functions[function].role
        role_id = self.stack.get_logical_id(role.node.default_child)  # type: ignore[union-attr,arg-type]
        statements = []
        for policy in self.resources("AWS::IAM::Policy").values():
            if {"Ref": role_id} in policy["Properties"]["Roles"]:
                statements += policy["Properties"]["PolicyDocument"]["Statement"]
        return statements


@cache
def _synth(env: str, future: bool, tmp: str) -> Synth:
    context: dict[str, Any] = {
        "env": env,
        "engram:assets": "auto",
        "aws:cdk:bundling-stacks": [],
        "aws:cdk:disable-asset-staging": True,
    }
    kwargs: dict[str, Any] = {}
    if future:
        # prod with the options no environment uses by default: the RDS Proxy, recall's reranker, a
        # browser origin besides the console's allowed to PUT uploads.
        environments = copy.deepcopy(read_cdk_json_context()["engram:environments"])
        environments[env]["db_rds_proxy"] = True
        environments[env]["rerank_model"] = "amazon.rerank-v1:0"
        environments[env]["upload_cors_origins"] = ["https://app.example.com"]
        context["engram:environments"] = environments
    app = App(outdir=tmp, context=context)
    if future:
        kwargs = {"routes": ROUTES + FUTURE_ROUTES, "event_functions": EVENT_FUNCTIONS + FUTURE_EVENT_FUNCTIONS}
    app, stack = build_app(app, **kwargs)
    assembly = app.synth()  # runs cdk-nag; raises on an unacknowledged finding
    data = assembly.get_stack_by_name(stack.stack_name).template
    return Synth(env=env, stack=stack, template=Template.from_json(data), json=data)


@pytest.fixture(scope="session")
def synth(tmp_path_factory: pytest.TempPathFactory):
    def get(env: str, future: bool = False) -> Synth:
        return _synth(env, future, str(tmp_path_factory.getbasetemp() / f"cdk-{env}-{future}"))

    return get


@pytest.fixture(scope="session")
def dev(synth) -> Synth:
    return synth("dev")


@pytest.fixture(scope="session")
def staging(synth) -> Synth:
    return synth("staging")


@pytest.fixture(scope="session")
def prod(synth) -> Synth:
    return synth("prod")


@pytest.fixture(scope="session")
def future(synth) -> Synth:
    """prod, with the route table grown by FUTURE_ROUTES / FUTURE_EVENT_FUNCTIONS, RDS Proxy on, a
    rerank model configured and https://app.example.com allowed to PUT uploads."""
    return synth("prod", future=True)
