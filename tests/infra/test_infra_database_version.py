"""The Aurora engine version: the newest 16.x minor aws-cdk-lib knows, one RDS still creates (by
cfn-lint's data, which tracks the versions RDS lists as deprecated), upgraded in place by RDS."""

from __future__ import annotations

import json
import re
from importlib import resources

import pytest
from aws_cdk import App
from aws_cdk import aws_rds as rds

from infra.config import ENVIRONMENTS, load_config

ENGINE = "aurora-postgresql"


def _cfn_lint_versions(filename: str) -> set[str]:
    """EngineVersion values cfn-lint's RDS DBCluster data lists for aurora-postgresql in `filename`
    (engine_version.json: what CloudFormation accepts; engine_version_deprecated.json: what RDS no
    longer creates, rule W3690)."""
    package = resources.files("cfnlint.data.schemas.extensions.aws_rds_dbcluster")
    schema = json.loads((package / filename).read_text())
    for branch in schema["allOf"]:
        condition = branch["if"]["properties"]
        if condition["Engine"].get("const") != ENGINE:
            continue
        if filename == "engine_version.json":
            return set(branch["then"]["properties"]["EngineVersion"]["enum"])
        return set(condition["EngineVersion"]["enum"])
    raise AssertionError(f"cfn-lint's {filename} no longer has an {ENGINE} branch: re-read its layout")


def _newest_cdk_16_minor() -> str:
    minors = [
        int(m.group(1)) for name in dir(rds.AuroraPostgresEngineVersion) if (m := re.fullmatch(r"VER_16_(\d+)", name))
    ]
    return f"16.{max(minors)}"


def test_cfn_lint_data_lists_deprecated_and_accepted_versions():
    # The lookups this module relies on find something: 16.4 was deprecated before 16.13 came out.
    assert "16.4" in _cfn_lint_versions("engine_version_deprecated.json")
    assert "16.13" in _cfn_lint_versions("engine_version.json")


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_engine_version_is_one_rds_still_creates(env):
    version = load_config(App().node, env).db_engine_version
    assert version in _cfn_lint_versions("engine_version.json"), f"{env}: {version} unknown to CloudFormation"
    deprecated = _cfn_lint_versions("engine_version_deprecated.json")
    assert version not in deprecated, (
        f"{env}: Aurora PostgreSQL {version} is deprecated (RDS no longer creates it, per cfn-lint's data): "
        f"set db_engine_version in cdk.json to {_newest_cdk_16_minor()}"
    )


@pytest.mark.parametrize("env", ENVIRONMENTS)
def test_engine_version_is_the_newest_16_minor_the_cdk_knows(env):
    assert load_config(App().node, env).db_engine_version == _newest_cdk_16_minor()


def test_minor_versions_are_upgraded_by_rds(dev, prod):
    for s in (dev, prod):
        (cluster,) = s.resources("AWS::RDS::DBCluster").values()
        assert cluster["Properties"]["Engine"] == ENGINE
        assert cluster["Properties"]["EngineVersion"] == _newest_cdk_16_minor()
        assert cluster["Properties"]["AutoMinorVersionUpgrade"] is True
        instances = s.resources("AWS::RDS::DBInstance").values()
        assert instances and all(i["Properties"]["AutoMinorVersionUpgrade"] is True for i in instances)
