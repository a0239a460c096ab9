"""Every environment variable the CDK app sets on a function is a field of engram's settings (so it is
read, validated and documented in one place), and the ones every function needs are set."""

from __future__ import annotations

from engram.ops.settings_listing import environment_variables


def _function_variables(synth) -> dict[str, set[str]]:
    return {
        logical_id: set(resource["Properties"].get("Environment", {}).get("Variables", {}))
        for logical_id, resource in synth.resources("AWS::Lambda::Function").items()
        if "Layers" in resource["Properties"]  # engram's functions, not CDK's own helper functions
    }


def test_every_variable_set_on_a_function_is_a_setting(dev, future) -> None:
    known = environment_variables()
    for synth in (dev, future):
        functions = _function_variables(synth)
        assert functions, "no engram functions found in the template"
        unknown = {f"{fn}: {v}" for fn, names in functions.items() for v in names if v not in known}
        assert not unknown, f"add these to a settings group (with a description): {sorted(unknown)}"


def test_every_function_gets_the_database_and_the_queue(dev) -> None:
    for fn, names in _function_variables(dev).items():
        # Its duty's secret, except the console's static files, which never touch the database.
        assert ("ENGRAM_DB_SECRET_ARN" in names) != fn.startswith("FunctionsConsole"), fn
        assert {
            "ENGRAM_DB_HOST",
            "ENGRAM_EMBED_QUEUE_URL",
            "ENGRAM_EMBEDDER",
            "ENGRAM_EMBED_MODEL",
            "ENGRAM_EMBED_DIM",
        } <= names, fn
