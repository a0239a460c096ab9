"""`make synth` / `make nag`: synthesize offline, with cdk-nag, without the CDK CLI.

    python infra/synth.py                  # dev (or $ENV) into cdk.out/
    python infra/synth.py --env prod
    python infra/synth.py --all --report   # every environment; list each nag acknowledgement

Uses build/lambda when `make build` has run, else the source folders and a placeholder
dependency layer (good for reading and checking the template, not for deploying). Any
unacknowledged cdk-nag finding fails the run. The acknowledgements, with their reasons, are
written to cdk.out/<env>/nag-acknowledgements.json.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("JSII_SILENCE_WARNING_END_OF_LIFE_NODE_VERSION", "20")

from aws_cdk import App

from infra.app import build_app
from infra.config import ENVIRONMENTS, REPO_ROOT
from infra.stack import EngramStack


def synth(env: str, outdir: Path) -> tuple[dict[str, Any], EngramStack]:
    app = App(outdir=str(outdir), context={"env": env, "engram:assets": "auto"})
    app, stack = build_app(app)
    assembly = app.synth()  # raises on any unacknowledged nag finding
    return assembly.get_stack_by_name(stack.stack_name).template, stack


def acknowledgements(template: dict[str, Any]) -> list[dict[str, str]]:
    found = []
    for logical_id, resource in template.get("Resources", {}).items():
        path = resource.get("Metadata", {}).get("aws:cdk:path", logical_id)
        for rule in resource.get("Metadata", {}).get("cdk_nag", {}).get("rules_to_suppress", []):
            if rule["id"].startswith("AwsSolutions"):
                found.append({"resource": path, "rule": rule["id"], "reason": rule["reason"]})
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", default=os.environ.get("ENV", "dev"), choices=ENVIRONMENTS)
    parser.add_argument("--all", action="store_true", help="synthesize every environment")
    parser.add_argument("--report", action="store_true", help="print every nag acknowledgement")
    parser.add_argument("--outdir", default=str(REPO_ROOT / "cdk.out"))
    args = parser.parse_args(argv)

    for env in ENVIRONMENTS if args.all else (args.env,):
        started = time.monotonic()
        outdir = Path(args.outdir) / env if args.all else Path(args.outdir)
        template, stack = synth(env, outdir)
        acks = acknowledgements(template)
        (outdir / "nag-acknowledgements.json").write_text(json.dumps(acks, indent=2) + "\n")
        types = Counter(r["Type"] for r in template["Resources"].values())
        print(
            f"Engram-{env}: {len(template['Resources'])} resources "
            f"({len(stack.function_names)} Engram functions, {types['AWS::ApiGatewayV2::Route']} routes, "
            f"{types['AWS::SQS::Queue']} queues, {types['AWS::CloudWatch::Alarm']} alarms) -> {outdir} "
            f"in {time.monotonic() - started:.0f} s"
        )
        print(f"  cdk-nag AwsSolutions: 0 unacknowledged findings, {len(acks)} acknowledged (with reasons)")
        if stack.assets.warnings:
            print("  NOT DEPLOYABLE as synthesized (placeholder code): run `make build` first")
        if args.report:
            by_rule = Counter(a["rule"].split("[")[0] for a in acks)
            for rule, count in sorted(by_rule.items()):
                print(f"    {rule}: {count}")
            grouped: dict[tuple[str, str], list[str]] = {}
            for ack in acks:
                grouped.setdefault((ack["rule"], ack["reason"]), []).append(ack["resource"])
            for (rule, reason), resources in sorted(grouped.items()):
                print(f"  - {rule} x{len(resources)}: {reason}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
