"""One configuration source: the settings groups (`engram.core.config.Settings`, shared, and each
capability's `engram.<cap>.settings`), all listed by `engram settings`. Every field is documented by its
description, each variable belongs to one group, and no other module reads the environment (the local
stack may set variables)."""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
from pathlib import Path

from engram.core.config import SettingsGroup
from engram.core.config import environment_variables as group_variables
from engram.ops.settings_listing import GROUPS, environment_variables

ROOT = Path(__file__).resolve().parents[2]
# `engram settings` in an empty environment, as it printed when every setting was one class: the listing
# now groups them under headings, and the variables, defaults and descriptions stay these. A new setting
# adds its two lines here.
LISTING = Path(__file__).with_name("settings_listing.txt")


def test_every_setting_is_documented() -> None:
    undocumented = [
        f"{group.__name__}.{name}"
        for group in GROUPS
        for name, field in group.model_fields.items()
        if not (field.description or "").strip()
    ]
    assert not undocumented, f"give these settings fields a description: {undocumented}"


def test_every_group_is_listed() -> None:
    """Each capability's settings module declares groups; `engram settings` must list every one."""
    declared = set()
    for path in sorted((ROOT / "layers" / "engram").glob("*/settings.py")):
        module = importlib.import_module(f"engram.{path.parent.name}.settings")
        declared |= {
            cls
            for cls in vars(module).values()
            if inspect.isclass(cls) and issubclass(cls, SettingsGroup) and cls.__module__ == module.__name__
        }
    assert declared, "no capability settings found"
    assert not declared - set(GROUPS), f"add these to engram.ops.settings_listing.GROUPS: {declared - set(GROUPS)}"


def test_each_variable_belongs_to_one_group() -> None:
    owners: dict[str, list[str]] = {}
    for group in GROUPS:
        for variable in group_variables(group):
            owners.setdefault(variable, []).append(group.__name__)
    assert not {v: o for v, o in owners.items() if len(o) > 1}


def _entries(text: str) -> list[tuple[str, str]]:
    """A listing's settings: (variables = value, description) pairs; headings left out."""
    lines = [line for line in text.splitlines() if not line.startswith("# ")]
    return list(zip(lines[::2], lines[1::2], strict=True))


def test_the_listing_keeps_every_variable_default_and_description() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "engram.ops.cli", "settings"],
        env={"PATH": "/usr/bin:/bin", "HOME": "/nonexistent"},
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    headings = [line for line in out.splitlines() if line.startswith("# ")]
    assert headings == [f"# {group.__module__}.{group.__qualname__}" for group in GROUPS]
    now, before = _entries(out), _entries(LISTING.read_text())
    assert len(now) == len(set(now)), "a setting is listed twice"
    assert not set(before) - set(now), f"missing or changed: {sorted(set(before) - set(now))}"
    assert not set(now) - set(before), f"new or changed (a new setting adds its lines to {LISTING.name}): " + str(
        sorted(set(now) - set(before))
    )


def test_variable_names() -> None:
    names = environment_variables()
    assert names["ENGRAM_DATABASE_URL"] == "database_url" and names["ENGRAM_EMBED_MODEL"] == "embed_model"
    assert names["ANTHROPIC_API_KEY"] == names["ENGRAM_ANTHROPIC_API_KEY"] == "anthropic_api_key"
    assert names["POWERTOOLS_LOG_LEVEL"] == "log_level"


ENVIRON = ("os.environ",)  # a bare `environ` is a WSGI request, not the process environment


def _reads(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        return ast.unparse(node.func) in ("os.getenv", "os.environ.get")
    if isinstance(node, ast.Subscript):
        return isinstance(node.ctx, ast.Load) and ast.unparse(node.value) in ENVIRON
    if isinstance(node, ast.Compare):  # "X" in os.environ
        return any(ast.unparse(c) in ENVIRON for c in node.comparators)
    return False


def _environment_reads(tree: ast.AST) -> list[int]:
    """Lines that read os.environ / os.getenv (setting a variable is allowed)."""
    return [node.lineno for node in ast.walk(tree) if _reads(node)]  # type: ignore[attr-defined]


def test_nothing_but_settings_reads_the_environment() -> None:
    offenders = []
    for folder in ("layers", "functions"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            lines = _environment_reads(ast.parse(path.read_text(), str(path)))
            offenders += [f"{path.relative_to(ROOT)}:{line}" for line in lines]
    assert not offenders, f"read configuration through engram.core.config.settings(), not the environment: {offenders}"


def test_the_check_finds_a_read() -> None:
    code = "import os\nx = os.environ.get('A')\ny = os.environ['B']\nz = 'C' in os.environ\nw = os.getenv('D')"
    assert _environment_reads(ast.parse(code)) == [2, 3, 4, 5]
    assert not _environment_reads(ast.parse("import os\nos.environ['A'] = '1'\nos.environ.pop('A', None)"))


def _environment_writes(tree: ast.AST) -> set[str]:
    """Constant names the code sets: os.environ["X"] = ..., os.environ.setdefault("X", ...)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store) and ast.unparse(node.value) in ENVIRON:
            key = node.slice
        elif isinstance(node, ast.Call) and ast.unparse(node.func) == "os.environ.setdefault" and node.args:
            key = node.args[0]
        else:
            continue
        if isinstance(key, ast.Constant) and isinstance(key.value, str):
            names.add(key.value)
    return names


def test_every_variable_the_code_sets_for_itself_is_a_setting() -> None:
    """The local stack sets ENGRAM_* (and Powertools') variables for the code it runs; AWS_* are boto3's."""
    known = environment_variables()
    written = set()
    for folder in ("layers", "functions"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            written |= _environment_writes(ast.parse(path.read_text(), str(path)))
    ours = {name for name in written if not name.startswith("AWS_")}
    assert "ENGRAM_EMBED_QUEUE_URL" in ours
    assert not ours - set(known), f"add these to a settings group: {sorted(ours - set(known))}"


def _settings_cache_clears(tree: ast.AST) -> list[int]:
    """Lines that clear one settings accessor by hand (`settings.cache_clear()`, `recall_settings.cache_clear()`)."""
    return [
        node.lineno
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "cache_clear"
        and ast.unparse(node.func.value).endswith("settings")
    ]


def test_settings_are_reloaded_one_way() -> None:
    """reload_settings() clears every group: clearing one by hand leaves the others stale."""
    offenders = []
    for folder in ("layers", "functions", "tests", "bench"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.match("layers/engram/core/config.py"):
                continue
            lines = _settings_cache_clears(ast.parse(path.read_text(), str(path)))
            offenders += [f"{path.relative_to(ROOT)}:{line}" for line in lines]
    assert not offenders, f"call engram.core.config.reload_settings() instead: {offenders}"
    assert _settings_cache_clears(ast.parse("config.settings.cache_clear()\nrecall_settings.cache_clear()")) == [1, 2]
