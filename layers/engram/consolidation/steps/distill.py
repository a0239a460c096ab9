"""Topic distillation: a topic leaf whose members overlap is condensed by the LLM into fewer memories
that keep every detail; the sources are superseded by them."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID

import psycopg

from engram.consolidation import memory_store, store
from engram.consolidation.distilling import (
    DISTILL_MAX_TOKENS,
    DISTILL_SYSTEM,
    distill_prompt,
    leaf_overlap,
    members_to_send,
    parse_distillation,
)
from engram.consolidation.memory_store import MemoryRow
from engram.consolidation.merging import UnusableAnswer, changed_fields, choose_survivor, merged_fields
from engram.consolidation.steps.absorb import lineage
from engram.consolidation.steps.context import Cursor, Details, StepContext, undecided
from engram.consolidation.steps.pairs import namespace_common_tokens
from engram.core.errors import EngramError
from engram.core.models import MAX_TAGS, NewMemory
from engram.core.text import content_hash
from engram.memories.service import write_memory
from engram.topics.models import LeafMembers
from engram.topics.service import leaves_of_size


class _NotDistilled(Exception):
    """A distillation that cannot be written as it stands (its savepoint is rolled back)."""


def distill(ctx: StepContext, cursor: Cursor | None) -> Cursor | None:
    """Topic distillation: a leaf of the namespace's topic tree with enough overlapping
    members is condensed by the LLM into fewer memories that keep every detail; the sources are
    superseded by them through the graph. One leaf per batch, at most `max_leaves` a run; a plan
    lists the leaves without a call. A leaf refused or declined is not asked about again until one
    of its members changes or it gains or loses one."""
    if ctx.apply and ctx.llm.unavailable:
        ctx.skipped = ctx.llm.unavailable  # only an LLM distils
        return None
    rules = ctx.distill
    seen: list[str] = list((cursor or {}).get("seen", []))
    if len(seen) >= rules.max_leaves:
        return None
    leaves = {leaf.id: leaf for leaf in leaves_of_size(ctx.conn, ctx.namespace, rules.min_members)}
    if not leaves:
        return None
    # Template words ("the ... service caches responses in Redis for") make facts about different
    # things look alike: overlap counts the tokens few memories of the namespace have.
    common = namespace_common_tokens(ctx, cursor)
    queue: list[str] | None = (cursor or {}).get("queue")
    if queue is None:  # the run's first batch ranks every leaf once; the later ones look again at one
        rows = memory_store.memories_by_id(ctx.conn, [i for leaf in leaves.values() for i in leaf.memory_ids])
        texts = {leaf.id: [rows[i].content for i in leaf.memory_ids if i in rows] for leaf in leaves.values()}
        queue = [
            leaf_id
            for leaf_id, members in texts.items()
            if len(leaf_overlap(members, rules.overlap_jaccard, common).overlapping) >= rules.min_members
        ]
    for leaf_id in queue:
        leaf = leaves.get(leaf_id)
        if leaf is None or leaf_id in seen:
            continue
        members = list(memory_store.memories_by_id(ctx.conn, leaf.memory_ids).values())
        overlap = leaf_overlap([m.content for m in members], rules.overlap_jaccard, common)
        if len(overlap.overlapping) < rules.min_members:
            continue  # changed since the ranking
        sent = [members[i] for i in members_to_send([m.content for m in members], overlap, rules.prompt_chars)]
        ids = [m.id for m in sent]
        if store.distillation_answered(ctx.conn, ids):
            continue
        seen.append(leaf.id)
        details: Details = {
            "leaf": leaf.id,
            "name": leaf.name,
            "members": len(members),
            "overlapping": len(overlap.overlapping),
            "sent": len(sent),
            "overlap_jaccard": rules.overlap_jaccard,
        }
        why = (
            f"topic {leaf.id} ({leaf.name}): {len(overlap.overlapping)} of {len(members)} members overlap"
            f" another (Jaccard of their uncommon tokens >= {rules.overlap_jaccard})"
        )
        if undecided(ctx):
            ctx.candidate("distill", "distill", ids, why, details)
        else:
            locked = memory_store.memories_by_id(ctx.conn, ids, lock=True)
            if len(locked) == len(ids):  # else one changed under us: the next run looks again
                _distill_leaf(ctx, leaf, [locked[i] for i in ids], why, details)
        return {"seen": seen, "queue": queue, "common": sorted(common)}
    return None


def _distill_leaf(ctx: StepContext, leaf: LeafMembers, sent: list[MemoryRow], why: str, details: Details) -> None:
    ids = [m.id for m in sent]
    answer = ctx.ask("consolidation_distill", DISTILL_SYSTEM, distill_prompt(sent), max_tokens=DISTILL_MAX_TOKENS)
    if answer is None:
        ctx.candidates += 1
        return
    try:
        entries = parse_distillation(answer, [m.content for m in sent], ctx.max_chars)
    except UnusableAnswer as exc:
        ctx.act("distill", "distill_refused", ids, f"{why}; refused: {exc}", details=details, applied=False)
        return
    if not entries:
        ctx.act(
            "distill",
            "distill_declined",
            ids,
            f"{why}; the LLM found nothing to condense",
            details=details,
            applied=False,
        )
        return
    created: list[UUID] = []  # new memories (undo deletes them)
    results: list[UUID] = []  # each entry's memory: a new one, or the source whose text it is
    links: list[UUID] = []
    chunk_ids: list[UUID] = []
    # The distilled memories hold from this instant, and their sources until it (supersedes ends them
    # where the newer one starts): `as_of` before it reads the sources, after it the distillation.
    valid_from = datetime.now(UTC)
    try:
        with ctx.conn.transaction():  # a savepoint: a clash undoes this leaf only
            for entry in entries:
                sources = [sent[i] for i in entry.sources]
                same = [m for m in sources if content_hash(m.content) == content_hash(entry.content)]
                if same:  # the text is a source's own: that memory takes in the others, as a merge does
                    result = same[0].id
                    _keep_distilled(ctx, same[0], [m for m in sources if m is not same[0]])
                else:
                    result, new_chunks = _write_distilled(ctx, leaf, sources, entry.content, valid_from)
                    created.append(result)
                    chunk_ids += new_chunks
                results.append(result)
                olders = [m.id for m in sources if m.id != result]
                links += lineage(ctx, result, olders, ("supersedes", "derived_from"), why)
    except (_NotDistilled, psycopg.errors.UniqueViolation, EngramError) as exc:
        ctx.act("distill", "distill_refused", ids, f"{why}; not written: {exc}", details=details, applied=False)
        return
    consumed = [sent[i] for entry in entries for i in entry.sources]
    ctx.chunk_ids += chunk_ids
    ctx.consumed |= {m.id for m in consumed}
    ctx.act(
        "distill",
        "distill",
        [*(m.id for m in consumed), *created],
        f"{why}; {len(consumed)} memories distilled into {len(results)}",
        details={
            **details,
            "sources": len(consumed),
            "distilled": [
                {"memory_id": str(result), "sources": [str(sent[i].id) for i in entry.sources]}
                for result, entry in zip(results, entries, strict=True)
            ],
        },
        before={"memories": [m.image for m in consumed], "created": [str(i) for i in created]},
        links=links,
    )


def _distilled_tags(tags: list[str]) -> list[str]:
    return ["distilled", *(t for t in tags if t != "distilled")][:MAX_TAGS]


def _keep_distilled(ctx: StepContext, kept: MemoryRow, others: list[MemoryRow]) -> None:
    """A source whose text the LLM returned as the distilled one stays, with what the others earned
    (merged_fields) and the tag `distilled`; its before-image is the run's (it is a source)."""
    fields = merged_fields(kept, others)
    fields["tags"] = _distilled_tags(fields["tags"])
    changes = changed_fields(kept, fields)
    if changes:
        memory_store.update_memory(ctx.conn, kept.id, changes)


def _write_distilled(
    ctx: StepContext, leaf: LeafMembers, sources: list[MemoryRow], content: str, valid_from: datetime
) -> tuple[UUID, list[UUID]]:
    """A new memory holding `content`, with what its sources earned (merged_fields: highest layer,
    max importance, summed counts, their tags) and the tag `distilled`. Returns its id and chunks."""
    first = choose_survivor(sources)
    fields = merged_fields(first, [m for m in sources if m is not first])
    tags = _distilled_tags(fields["tags"])
    written = write_memory(
        ctx.conn,
        ctx.tenant_id,
        NewMemory(
            namespace=ctx.namespace,
            content=content,
            kind=first.kind,
            layer=fields["layer"],
            importance=fields["importance"],
            tags=tags,
            source="distill",
            metadata={"distilled_from_topic": leaf.id},
            valid_from=valid_from,
        ),
    )
    if not written.inserted:
        raise _NotDistilled(f"a distilled text is memory {written.id} already")
    memory_store.update_memory(
        ctx.conn,
        written.id,
        {
            "access_count": fields["access_count"],
            "repetition_count": fields["repetition_count"],
            "last_accessed": fields["last_accessed"],
            "layer_epoch": ctx.epoch,
        },
    )
    return written.id, written.chunk_ids
