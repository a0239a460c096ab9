"""A tenant holds at most ENGRAM_MAX_ACTIVE_KEYS_PER_TENANT active keys, through the API and the CLI."""

from __future__ import annotations

import pytest


@pytest.fixture
def key_limit_3(settings_env):
    settings_env(ENGRAM_MAX_ACTIVE_KEYS_PER_TENANT="3")
    return 3


def test_the_keys_api_answers_409_naming_the_limit_until_a_key_is_revoked(api, key_limit_3):
    issued = [api.post("/v1/keys", {"scopes": ["read"], "name": f"k{i}"}) for i in range(2)]  # + the tenant's first
    assert [r.status for r in issued] == [201, 201]
    refused = api.post("/v1/keys", {"scopes": ["read"], "name": "one too many"})
    assert refused.status == 409, refused.body
    error = refused.body["error"]
    assert error["code"] == "conflict" and error["details"]["limit"] == 3 and "3" in error["message"]
    assert len([k for k in api.get("/v1/keys").body if not k["revoked_at"]]) == 3  # nothing written
    assert api.delete(f"/v1/keys/{issued[0].body['key_id']}").status in (200, 204)
    assert api.post("/v1/keys", {"scopes": ["read"], "name": "after a revoke"}).status == 201


def test_the_cli_refuses_with_the_limit_and_no_traceback(tenant, key_limit_3, capsys):
    from engram.ops.cli import main

    assert [main(["create-key", tenant.id]) for _ in range(2)] == [0, 0]
    capsys.readouterr()
    assert main(["create-key", tenant.id]) == 2
    err = capsys.readouterr().err
    assert "limit is 3" in err and "Traceback" not in err
