"""Per-environment settings from cdk.json, and environments side by side in one account."""

from __future__ import annotations

import re
from typing import Any

import pytest
from aws_cdk import App

from infra.config import EnvConfig, load_config


def _cluster(s) -> dict[str, Any]:
    (cluster,) = s.resources("AWS::RDS::DBCluster").values()
    return cluster


def _function_env(s, name: str) -> dict[str, Any]:
    return s.json["Resources"][s.function_logical_id(name)]["Properties"]["Environment"]["Variables"]


def test_dev_scales_to_zero_and_is_disposable(dev):
    cluster = _cluster(dev)
    scaling = cluster["Properties"]["ServerlessV2ScalingConfiguration"]
    assert scaling["MinCapacity"] == 0
    assert scaling["SecondsUntilAutoPause"] == 15 * 60
    assert cluster["Properties"]["DeletionProtection"] is False
    assert cluster["DeletionPolicy"] == "Delete"
    assert cluster["Properties"]["BackupRetentionPeriod"] == 1
    assert len(dev.resources("AWS::RDS::DBInstance")) == 1
    assert not dev.resources("AWS::RDS::DBProxy")
    # buckets are emptied and deleted with the stack
    assert dev.resources("Custom::S3AutoDeleteObjects")
    (params,) = dev.resources("AWS::RDS::DBClusterParameterGroup").values()
    assert params["Properties"]["Parameters"]["idle_session_timeout"] == "600000"
    for bucket in dev.resources("AWS::S3::Bucket").values():
        assert bucket["DeletionPolicy"] == "Delete"
    # interface endpoints in one AZ only (they are billed per AZ-hour); no NAT gateway
    for endpoint in dev.resources("AWS::EC2::VPCEndpoint").values():
        if endpoint["Properties"].get("VpcEndpointType") == "Interface":
            assert len(endpoint["Properties"]["SubnetIds"]) == 1
    assert not dev.resources("AWS::EC2::NatGateway")
    assert _function_env(dev, "recall")["ENGRAM_LLM_LEVEL"] == "off"


def test_prod_is_protected_and_highly_available(prod):
    cluster = _cluster(prod)
    assert cluster["Properties"]["DeletionProtection"] is True
    assert cluster["DeletionPolicy"] == "Snapshot"
    assert cluster["Properties"]["BackupRetentionPeriod"] >= 14
    scaling = cluster["Properties"]["ServerlessV2ScalingConfiguration"]
    assert scaling["MinCapacity"] >= 0.5 and "SecondsUntilAutoPause" not in scaling
    assert len(prod.resources("AWS::RDS::DBInstance")) == 2  # writer + reader in another AZ
    (params,) = prod.resources("AWS::RDS::DBClusterParameterGroup").values()
    # Connections of containers Lambda froze are closed in prod too (infra/connections.py).
    assert int(params["Properties"]["Parameters"]["idle_session_timeout"]) > 0
    for bucket in prod.resources("AWS::S3::Bucket").values():
        assert bucket["DeletionPolicy"] == "Retain"
    assert not prod.resources("Custom::S3AutoDeleteObjects")
    for endpoint in prod.resources("AWS::EC2::VPCEndpoint").values():
        if endpoint["Properties"].get("VpcEndpointType") == "Interface":
            assert len(endpoint["Properties"]["SubnetIds"]) == 2
    assert prod.stack.termination_protection is True


def test_reads_that_tolerate_lag_go_to_prods_reader(prod, dev):
    (cluster_id,) = prod.resources("AWS::RDS::DBCluster")
    reader = {"Fn::GetAtt": [cluster_id, "ReadEndpoint.Address"]}
    assert _function_env(prod, "admin")["ENGRAM_DB_READER_HOST"] == reader  # GET /v1/stats
    assert _function_env(prod, "export_worker")["ENGRAM_DB_READER_HOST"] == reader
    assert "ENGRAM_DB_READER_HOST" not in _function_env(prod, "recall")  # read-your-writes
    assert "ENGRAM_DB_READER_HOST" not in _function_env(dev, "admin")  # no reader there


def test_rds_proxy_option_puts_the_functions_behind_the_proxy(future):
    ((proxy_id, proxy),) = future.resources("AWS::RDS::DBProxy").items()
    assert proxy["Properties"]["RequireTLS"] is True
    assert _function_env(future, "recall")["ENGRAM_DB_HOST"] == {"Fn::GetAtt": [proxy_id, "Endpoint"]}
    (target_group,) = future.resources("AWS::RDS::DBProxyTargetGroup").values()
    assert "Tags" not in target_group["Properties"]  # CloudFormation has no Tags there


def test_staging_sits_between(staging, dev, prod):
    assert _cluster(staging)["DeletionPolicy"] == "Snapshot"
    assert _cluster(staging)["Properties"]["BackupRetentionPeriod"] == 7
    assert not staging.resources("AWS::RDS::DBProxy")
    levels = [_function_env(s, "recall")["ENGRAM_LLM_LEVEL"] for s in (dev, staging, prod)]
    assert levels == ["off", "auto", "auto"]


def test_log_retention_follows_the_environment(dev, prod):
    def retentions(s) -> set[int]:
        return {g["Properties"]["RetentionInDays"] for g in s.resources("AWS::Logs::LogGroup").values()}

    assert retentions(dev) == {7}
    assert retentions(prod) == {90}


def _physical_names(s) -> set[str]:
    names = set()
    for resource in s.json["Resources"].values():
        for key, value in resource.get("Properties", {}).items():
            if (
                isinstance(value, str)
                and re.search(r"(Name|Identifier)$", key)
                and key != "DatabaseName"
                and "engram" in value.lower()
            ):
                names.add(value)
    return names


def test_names_and_tags_carry_the_environment(dev, prod):
    assert dev.stack.stack_name == "Engram-dev" and prod.stack.stack_name == "Engram-prod"
    dev_names, prod_names = _physical_names(dev), _physical_names(prod)
    assert "engram-dev-recall" in dev_names and "engram-prod-recall" in prod_names
    assert "engram-dev" in dev_names  # cluster identifier, API, dashboard
    # two environments side by side in one account: no physical name in common
    assert not dev_names & prod_names, dev_names & prod_names
    for name in dev_names:
        assert "dev" in name, name
    (vpc,) = dev.resources("AWS::EC2::VPC").values()
    assert {"Key": "env", "Value": "dev"} in vpc["Properties"]["Tags"]
    assert {"Key": "app", "Value": "engram"} in vpc["Properties"]["Tags"]


def test_vpc_cidrs_differ_so_environments_could_be_peered(dev, staging, prod):
    cidrs = [next(iter(s.resources("AWS::EC2::VPC").values()))["Properties"]["CidrBlock"] for s in (dev, staging, prod)]
    assert len(set(cidrs)) == 3


def test_config_rejects_unknown_and_inconsistent_settings():
    app = App(context={"engram:environments": {"dev": {"db_min_acus": 1}}})
    with pytest.raises(ValueError, match="unknown settings"):
        load_config(app.node, "dev")
    with pytest.raises(ValueError, match="expected one of"):
        load_config(App().node, "qa")
    with pytest.raises(ValueError, match="keeps the cluster awake"):
        EnvConfig(env="dev", db_min_acu=0, db_rds_proxy=True).validate()
    with pytest.raises(ValueError, match="Titan v2"):
        EnvConfig(env="dev", embed_dim=384).validate()
    with pytest.raises(ValueError, match="internet egress"):
        EnvConfig(env="dev", llm_provider="anthropic", llm_level="auto").validate()


def test_cdk_json_settings_are_valid_for_every_environment():
    for env in ("dev", "staging", "prod"):
        config = load_config(App().node, env)
        assert config.env == env and config.prefix == f"engram-{env}"
