"""Recall's `rerank` in the CDK app: wired only where an environment names a rerank model."""

from __future__ import annotations

from typing import Any

RERANK_MODEL = "amazon.rerank-v1:0"  # what the `future` synth configures


def _env(s: Any, name: str) -> dict[str, Any]:
    return s.json["Resources"][s.function_logical_id(name)]["Properties"]["Environment"]["Variables"]


def _statements_with(s: Any, name: str, action: str) -> list[dict[str, Any]]:
    found = []
    for st in s.role_statements(name):
        actions = st["Action"] if isinstance(st["Action"], list) else [st["Action"]]
        if action in actions:
            found.append(st)
    return found


def _agent_runtime_endpoints(s: Any) -> list[dict[str, Any]]:
    return [r for r in s.resources("AWS::EC2::VPCEndpoint").values() if "bedrock-agent-runtime" in str(r)]


def test_without_a_rerank_model_nothing_is_wired(dev):
    assert "ENGRAM_RERANK_MODEL" not in _env(dev, "recall")
    assert _statements_with(dev, "recall", "bedrock:Rerank") == []
    assert _agent_runtime_endpoints(dev) == []


def test_a_rerank_model_gives_recall_its_setting_grant_and_endpoint(future):
    assert _env(future, "recall")["ENGRAM_RERANK_MODEL"] == RERANK_MODEL
    [rerank] = _statements_with(future, "recall", "bedrock:Rerank")
    assert rerank["Resource"] == "*"  # the action has no resource-level permissions
    invoked = [str(st["Resource"]) for st in _statements_with(future, "recall", "bedrock:InvokeModel")]
    assert any(f"foundation-model/{RERANK_MODEL}" in r for r in invoked)
    [endpoint] = _agent_runtime_endpoints(future)
    assert endpoint["Properties"]["PrivateDnsEnabled"] is True
    others = [n for n in future.stack.function_names if n != "recall" and _statements_with(future, n, "bedrock:Rerank")]
    assert others == []
