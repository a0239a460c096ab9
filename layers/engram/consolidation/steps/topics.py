"""The topic tree: rebuilt from what the run left, published with the run's checkpoint."""

from __future__ import annotations

from engram.consolidation.steps.context import Cursor, StepContext
from engram.topics.service import rebuild_tree, tree_image


def topics(ctx: StepContext, cursor: Cursor | None) -> Cursor | None:
    """Rebuild the namespace's topic tree from what the run left (engram.topics). One batch: the tree
    is published with the run's checkpoint, whole and named, or not at all. A plan builds nothing."""
    if not ctx.apply:
        return None
    previous = tree_image(ctx.conn, ctx.namespace)  # the before-image: undo puts this tree back
    built = rebuild_tree(ctx.conn, ctx.tenant_id, ctx.namespace, ask=ctx.ask, run_id=ctx.run_id)
    if built.skipped:
        ctx.skipped = built.skipped
        return None
    ctx.act(
        "topics",
        "topic_tree",
        [],
        f"topic tree rebuilt: {built.leaves} leaves over {built.memories} memories",
        details={
            "memories": built.memories,
            "leaves": built.leaves,
            "topics": built.topics,
            "kept_ids": built.kept_ids,
            "new_ids": built.new_ids,
            "llm_named": built.llm_named,
            "seconds": built.seconds,
        },
        before={"topic_tree": previous},
    )
    return None
