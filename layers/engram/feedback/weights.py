"""How feedback moves a result's ranking weight. Pure: no SQL.

A weight lives in [WEIGHT_MIN, WEIGHT_MAX]. Useful adds STEP_USEFUL, not useful takes STEP_NOT_USEFUL off,
each from the weight as it has decayed so far: it halves every feedback_half_life_days without new
feedback, spaced-repetition style (engram-go), so what was useful once fades back to neutral and what
keeps being useful stays up. Recall multiplies a candidate's fused score by 1 + weight: between 0.5
(never 0: feedback cannot hide a memory for good) and 2. Steps chosen on real dialogue
(bench/quality/feedback_recall.py, docs/performance.md): a useful step of 0.5 found more evidence for the
questions given feedback but cost the others .028 of theirs at 2,000 characters; 0.25 / 0.25 cost them
.008; 0.25 / 0.05 gains as much where feedback is given and costs the others nothing (+.009): a heavy
"not useful" pushed down results that answer other questions."""

from __future__ import annotations

import math
from datetime import datetime

WEIGHT_MIN, WEIGHT_MAX = -0.5, 1.0
STEP_USEFUL, STEP_NOT_USEFUL = 0.25, 0.05


def decayed(weight: float, updated_at: datetime, now: datetime, half_life_days: float) -> float:
    """The weight as it stands at `now`."""
    age_days = max((now - updated_at).total_seconds(), 0.0) / 86400.0
    return weight * math.pow(0.5, age_days / half_life_days)


def moved(current: float, useful: bool) -> float:
    """The weight after one more feedback (`current`: as decayed to now), within the bounds."""
    step = STEP_USEFUL if useful else -STEP_NOT_USEFUL
    return round(min(WEIGHT_MAX, max(WEIGHT_MIN, current + step)), 6)


def ranking_factor(weight: float) -> float:
    """What recall multiplies a candidate's fused score by (4 places: a weight read a moment after it was
    written has decayed by a few millionths)."""
    return round(1.0 + min(WEIGHT_MAX, max(WEIGHT_MIN, weight)), 4)
