"""Where the Lambda code and layers come from at synth time.

`make build` (infra/build_assets.py) writes everything Lambda runs under build/lambda/:

    build/lambda/functions/<name>/       one folder per function (handler.py ...)
    build/lambda/layers/deps/python/     third-party packages for arm64 / CPython 3.12
    build/lambda/layers/core/python/     the engram, engram_http and engram_mcp packages
    build/lambda/manifest.json           what was built, with sizes

Synthesis must also work on a fresh clone (make synth, the tests), where nothing is built.
Then ("auto" mode) the function code comes straight from functions/<name>, the core layer
from a throw-away copy of layers/, and the dependency layer is an empty placeholder. Such a
template is fine to read and check but not to deploy, so the default mode ("build") refuses
to synthesize without a build: `cdk deploy` cannot ship placeholders by accident.
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from aws_cdk import aws_lambda as lambda_

from infra.paths import BUILD_DIR, CORE_PACKAGES, EXCLUDE, FUNCTIONS_SRC, LAYERS_SRC, MANIFEST

ASSET_MODES = ("build", "auto")


class MissingBuildError(RuntimeError):
    pass


@dataclass
class LambdaAssets:
    """Hands out lambda.Code objects for functions and layers, from build/ or the sources."""

    mode: str = "build"
    warnings: list[str] = field(default_factory=list)
    _scratch: Path | None = None

    def __post_init__(self) -> None:
        if self.mode not in ASSET_MODES:
            raise ValueError(f"engram:assets must be one of {ASSET_MODES}, not {self.mode!r}")
        self.built = MANIFEST.is_file()
        if self.mode == "build" and not self.built:
            raise MissingBuildError(
                "build/lambda/manifest.json is missing: run `make build` before deploying, "
                "or pass -c engram:assets=auto to synthesize with placeholder code (not deployable)."
            )
        self.manifest: dict[str, Any] = json.loads(MANIFEST.read_text()) if self.built else {}

    @property
    def deployable(self) -> bool:
        return self.built and not self.warnings

    def function_code(self, name: str) -> lambda_.Code:
        built = BUILD_DIR / "functions" / name
        if self.built:
            if not (built / "handler.py").is_file():
                self._missing(f"function {name!r} is not in build/lambda (run `make build` again)")
                return lambda_.Code.from_asset(str(self._placeholder(f"function-{name}")))
            return lambda_.Code.from_asset(str(built))
        source = FUNCTIONS_SRC / name
        if not (source / "handler.py").is_file():
            self._missing(f"functions/{name}/handler.py does not exist yet")
            return lambda_.Code.from_asset(str(self._placeholder(f"function-{name}")))
        return lambda_.Code.from_asset(str(source), exclude=EXCLUDE)

    def core_layer_code(self) -> lambda_.Code:
        if self.built:
            return lambda_.Code.from_asset(str(BUILD_DIR / "layers" / "core"))
        staged = self._scratch_dir() / "core"
        for package in CORE_PACKAGES:
            if (LAYERS_SRC / package).is_dir():
                shutil.copytree(
                    LAYERS_SRC / package,
                    staged / "python" / package,
                    ignore=shutil.ignore_patterns(*EXCLUDE),
                    dirs_exist_ok=True,
                )
        (staged / "python").mkdir(parents=True, exist_ok=True)
        return lambda_.Code.from_asset(str(staged))

    def deps_layer_code(self) -> lambda_.Code:
        if self.built:
            return lambda_.Code.from_asset(str(BUILD_DIR / "layers" / "deps"))
        self._missing("the dependency layer is not built (run `make build`)")
        return lambda_.Code.from_asset(str(self._placeholder("deps-layer", python_dir=True)))

    # -- helpers ---------------------------------------------------------------------------

    def _missing(self, what: str) -> None:
        if self.mode == "build":
            raise MissingBuildError(f"{what}; refusing to synthesize a deployable template")
        self.warnings.append(what)

    def _scratch_dir(self) -> Path:
        if self._scratch is None:
            # Not under build/: tests and a synth may run at the same time in one checkout.
            self._scratch = Path(tempfile.mkdtemp(prefix="engram-assets-"))
            atexit.register(shutil.rmtree, self._scratch, True)
        return self._scratch

    def _placeholder(self, name: str, python_dir: bool = False) -> Path:
        folder = self._scratch_dir() / "placeholders" / name
        target = folder / "python" if python_dir else folder
        target.mkdir(parents=True, exist_ok=True)
        (target / "PLACEHOLDER.txt").write_text(
            "Placeholder asset from a synth without `make build`. Not deployable.\n"
        )
        return folder
