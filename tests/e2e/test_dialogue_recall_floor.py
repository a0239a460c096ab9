"""The quality floor: recall on real dialogue may not fall below the figure committed with the code.

Runs bench/quality/dialogue_recall.py as a user would (its own local stack; the five development dialogues of
../shared/data/locomo-dev ingested through the API, every question asked with budget_chars 4,000) and
compares evidence recall, overall and for the weakest question types, with bench/quality/dialogue_recall_floor.json.
A ranking change that loses there fails the gate; one that wins should raise the committed figure.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[2]
FLOOR = PROJECT_ROOT / "bench" / "quality" / "dialogue_recall_floor.json"


def test_evidence_recall_at_4000_characters_holds_the_committed_figure(tmp_path: Path) -> None:
    floor = json.loads(FLOOR.read_text())
    out = tmp_path / "figures.json"
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "bench.quality.dialogue_recall",
            "--ways",
            "budget",
            "--budgets",
            str(floor["budget_chars"]),
            "--json",
            str(out),
        ],
        cwd=PROJECT_ROOT,
        env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
        capture_output=True,
        text=True,
        timeout=1800,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    figures = json.loads(out.read_text())["defaults"]["budget"]
    measured = figures[str(floor["budget_chars"])]
    least = floor["evidence_recall"] - floor["margin"]
    assert measured >= least, (
        f"evidence recall at {floor['budget_chars']} characters fell to {measured:.4f}, below the committed "
        f"{floor['evidence_recall']:.4f} - {floor['margin']} (bench/quality/dialogue_recall_floor.json): {run.stdout}"
    )
    # The weak question types are held too: a change may not buy the whole figure with them.
    fallen = {
        name: figures["types"][name]
        for name, committed in floor["types"].items()
        if figures["types"][name] < committed - floor["types_margin"]
    }
    assert not fallen, (
        f"evidence recall at {floor['budget_chars']} characters fell for {fallen}, below the committed "
        f"{floor['types']} - {floor['types_margin']} (bench/quality/dialogue_recall_floor.json): {run.stdout}"
    )
