"""Paths shared by the CDK app and the build script (no CDK import: `make build` stays quick)."""

from __future__ import annotations

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
CDK_JSON = REPO_ROOT / "cdk.json"
BUILD_DIR = REPO_ROOT / "build" / "lambda"
MANIFEST = BUILD_DIR / "manifest.json"
FUNCTIONS_SRC = REPO_ROOT / "functions"
LAYERS_SRC = REPO_ROOT / "layers"
MIGRATIONS_DIR = LAYERS_SRC / "engram" / "schema" / "migrations"
# The packages shipped in the core layer; engram_local (the dev server) stays behind.
CORE_PACKAGES = ("engram", "engram_http", "engram_mcp")
# Never shipped, whatever the mode.
EXCLUDE = ["__pycache__", "*.pyc", "*.pyo", ".pytest_cache", "tests", ".gitkeep", "*.egg-info"]
