"""One version per package: the Python SDK's pyproject.toml version is what the installed package
reports and its changelog's first entry."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import engram_client
from engram_client.transport import USER_AGENT

CLIENT = Path(__file__).parents[2] / "clients" / "python"


def test_the_python_sdk_has_one_version() -> None:
    version = tomllib.loads((CLIENT / "pyproject.toml").read_text())["project"]["version"]
    assert engram_client.__version__ == version, "reinstall the SDK (make venv) after changing its version"
    assert f"engram-client-python/{version}" == USER_AGENT
    first = re.search(r"^## (\S+)", (CLIENT / "CHANGELOG.md").read_text(), flags=re.MULTILINE)
    assert first is not None and first.group(1) == version
