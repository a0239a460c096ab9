"""The consolidation cycle: its steps in order, each one module of `engram.consolidation.steps`.

The service runs one batch of one step at a time (`STEP_FUNCTIONS[step](ctx, cursor)`), inside the
transaction that writes the batch's actions and moves the run's checkpoint.
"""

from __future__ import annotations

from engram.consolidation.steps import (
    buffer_cap,
    decay,
    dedupe,
    demote,
    distill,
    drop_decayed,
    gate,
    promote,
    reconcile,
    topics,
)
from engram.consolidation.steps.context import StepFn

# A batch is one transaction: once it has made this many LLM calls it ends at the next memory
# boundary, so locks stay short and the worker's time budget is checked often.
LLM_CALLS_PER_BATCH = 20

STEP_FUNCTIONS: dict[str, StepFn] = {
    "decay": decay.decay,
    "promote": promote.promote,
    "gate": gate.gate,
    "demote": demote.demote,
    "dedupe": dedupe.dedupe,
    "reconcile": reconcile.reconcile,
    "buffer_cap": buffer_cap.buffer_cap,
    "drop_decayed": drop_decayed.drop_decayed,
    "distill": distill.distill,
    "topics": topics.topics,
}
