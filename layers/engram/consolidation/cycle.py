"""The steps of a consolidation cycle. Each call does one batch of one step inside the caller's
transaction and returns its actions and where the step continues (None: the step is finished).

A step never commits: the service writes the actions and moves the checkpoint in the same
transaction, so a batch is applied once or not at all. In a dry run the same code plans instead
of applying (`ctx.apply` is False) and LLM-dependent actions become candidates, with no call.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

import psycopg
from aws_lambda_powertools import Logger

from engram.adapters import llm
from engram.consolidation import store
from engram.consolidation.distilling import (
    DISTILL_MAX_TOKENS,
    DISTILL_SYSTEM,
    DistillRules,
    distill_prompt,
    leaf_overlap,
    members_to_send,
    parse_distillation,
)
from engram.consolidation.lifecycle import (
    LifecycleRules,
    decayed_importance,
    demotion_reason,
    eviction_order,
    gate_candidacy,
    gate_heuristic,
    gate_rejection,
    promotion_reason,
)
from engram.consolidation.merging import (
    GATE_SYSTEM,
    MERGE_SYSTEM,
    RECONCILE_SYSTEM,
    UnusableAnswer,
    choose_survivor,
    gate_prompt,
    merge_prompt,
    merged_fields,
    parse_gate,
    parse_merge,
    parse_reconcile,
    reconcile_prompt,
)
from engram.consolidation.similarity import (
    PairVerdict,
    SimilarityThresholds,
    classify_pair,
    common_tokens,
    shared_rare_tokens,
    tokens,
)
from engram.core.errors import Conflict, EngramError
from engram.core.models import MAX_TAGS, NewMemory
from engram.core.text import content_hash
from engram.graph.service import LinkCreate, Relation, write_links
from engram.memories.service import rechunk_memory, write_memory
from engram.topics.service import LeafMembers, leaves_of_size, rebuild_tree, tree_image

logger = Logger()

Row = dict[str, Any]


@dataclass
class LlmBudget:
    """The run's LLM allowance: the caps (per run, per tenant per UTC day) checked before each call."""

    unavailable: str | None  # why no call may be made at all (LLM off / not configured)
    run_calls: int
    run_tokens: int
    max_run_calls: int
    max_run_tokens: int
    day_calls: int
    day_tokens: int
    max_day_calls: int
    max_day_tokens: int
    capped: str | None = None
    calls: int = 0  # made in this batch
    input_tokens: int = 0
    output_tokens: int = 0

    def refusal(self) -> str | None:
        """None when one more call is allowed, else why not (and the run says so: `llm_capped`)."""
        if self.unavailable:
            return self.unavailable
        if self.capped:
            return self.capped
        used_calls, used_tokens = self.run_calls + self.calls, self.run_tokens + self.input_tokens + self.output_tokens
        day_calls = self.day_calls + self.calls
        day_tokens = self.day_tokens + self.input_tokens + self.output_tokens
        if used_calls >= self.max_run_calls:
            self.capped = f"run call cap reached: {self.max_run_calls} calls"
        elif used_tokens >= self.max_run_tokens:
            self.capped = f"run token cap reached: {self.max_run_tokens} tokens"
        elif day_calls >= self.max_day_calls:
            self.capped = f"tenant daily call cap reached: {self.max_day_calls} calls"
        elif day_tokens >= self.max_day_tokens:
            self.capped = f"tenant daily token cap reached: {self.max_day_tokens} tokens"
        return self.capped

    def spent(self, result: llm.LlmResult) -> None:
        self.calls += 1
        self.input_tokens += result.input_tokens
        self.output_tokens += result.output_tokens


@dataclass
class StepContext:
    conn: psycopg.Connection[Any]
    tenant_id: UUID
    run_id: UUID
    namespace: str
    apply: bool  # False: a dry run's plan
    epoch: int  # the run's epoch (a dry run: the namespace's current one)
    since: datetime | None  # the previous applied run's start: pairs older than it were looked at then
    now: datetime
    rules: LifecycleRules
    thresholds: SimilarityThresholds
    space: Row | None  # the active embedding space (model_id, dimension), None before any vector
    llm: LlmBudget
    batch_size: int
    neighbours: int
    max_chars: int
    distill: DistillRules
    actions: list[Row] = field(default_factory=list)
    candidates: int = 0
    skipped: str | None = None
    chunk_ids: list[UUID] = field(default_factory=list)  # new chunks to embed after commit
    pairs_seen: set[frozenset[UUID]] = field(default_factory=set)  # in this batch (earlier ones: actions)
    consumed: set[UUID] = field(default_factory=set)  # superseded in this batch
    changed: set[UUID] = field(default_factory=set)  # survivors changed in this batch (rows to read again)

    def act(
        self,
        step: str,
        action: str,
        memory_ids: Sequence[UUID],
        reason: str,
        *,
        details: Row | None = None,
        before: Row | None = None,
        links: Sequence[UUID] = (),
        applied: bool | None = None,
    ) -> None:
        self.actions.append(
            {
                "step": step,
                "action": action,
                "memory_ids": list(memory_ids),
                "reason": reason,
                "details": details or {},
                "applied": self.apply if applied is None else applied,
                "before_image": before if (applied if applied is not None else self.apply) else None,
                "links_created": list(links),
            }
        )

    def candidate(self, step: str, action: str, memory_ids: Sequence[UUID], reason: str, details: Row) -> None:
        """An LLM-dependent action not decided (dry run, LLM off, cap reached): listed in plans only."""
        self.candidates += 1
        if not self.apply:
            self.act(step, f"{action}_candidate", memory_ids, reason, details=details, applied=False)

    def ask(self, purpose: str, system: str, prompt: str, max_tokens: int = 1024) -> str | None:
        """One LLM call within the caps; None when refused or failed (logged, the pair is left alone)."""
        refusal = self.llm.refusal()
        if refusal:
            self.skipped = refusal
            return None
        try:
            result = llm.complete(self.tenant_id, purpose, system, prompt, max_tokens=max_tokens, run_id=self.run_id)
        except llm.LlmError as exc:
            logger.warning("consolidation llm call failed", extra={"purpose": purpose, "error": str(exc)[:200]})
            self.skipped = f"llm call failed: {str(exc)[:200]}"
            return None
        self.llm.spent(result)
        return result.text


StepFn = Callable[[StepContext, Row | None], Row | None]


def _after(cursor: Row | None) -> UUID | None:
    return UUID(cursor["after"]) if cursor and cursor.get("after") else None


def _next(rows: Sequence[Row] | Sequence[UUID], limit: int) -> Row | None:
    if len(rows) < limit:
        return None
    last = rows[-1]
    return {"after": str(last["id"] if isinstance(last, dict) else last)}


# --- decay, promotion, gate, demotion -----------------------------------------------------------


def decay(ctx: StepContext, cursor: Row | None) -> Row | None:
    limit = ctx.batch_size * 10  # one small UPDATE per batch: rows are cheap here
    rows = store.decay_images(ctx.conn, ctx.namespace, _after(cursor), limit)
    updates, images = [], []
    for r in rows:
        new = decayed_importance(float(r["importance"]), r["kind"], ctx.rules)
        epoch = r["layer_epoch"] if r["layer_epoch"] is not None else ctx.epoch
        if new != float(r["importance"]) or r["layer_epoch"] is None:
            updates.append((r["id"], new, epoch))
            images.append(r["image"])
    if updates:
        if ctx.apply:
            store.apply_decay(ctx.conn, updates)
        by_kind = {k: ctx.rules.decay[k] for k in sorted({r["kind"] for r in rows})}
        ctx.act(
            "decay",
            "decay",
            [u[0] for u in updates],
            f"epoch {ctx.epoch}: importance x factor by kind",
            details={"memories": len(updates), "factors": by_kind, "floor": ctx.rules.floor},
            before={"decay": images},
        )
    return _next(rows, limit)


def _set_layer(
    ctx: StepContext, m: Row, step: str, action: str, layer: str, reason: str, extra: Row | None = None
) -> None:
    changes: Row = {"layer": layer, "layer_epoch": ctx.epoch, **(extra or {})}
    if ctx.apply:
        store.update_memory(ctx.conn, m["id"], changes)
    ctx.act(
        step, action, [m["id"]], reason, details={"from": m["layer"], "to": layer}, before={"memories": [m["image"]]}
    )


def promote(ctx: StepContext, cursor: Row | None) -> Row | None:
    rows = store.live_memories(
        ctx.conn, ctx.namespace, layer="buffer", after=_after(cursor), limit=ctx.batch_size, lock=ctx.apply
    )
    for m in rows:
        reason = promotion_reason(m, ctx.epoch, ctx.rules)
        if reason:
            _set_layer(ctx, m, "promote", "promote", "working", reason)
    return _next(rows, ctx.batch_size)


def gate(ctx: StepContext, cursor: Row | None) -> Row | None:
    rows = store.live_memories(
        ctx.conn, ctx.namespace, layer="working", after=_after(cursor), limit=ctx.batch_size, lock=ctx.apply
    )
    scan = _Scan([m["id"] for m in rows], ctx.batch_size)
    for m in rows:
        if scan.enough(ctx, m["id"]):
            break
        why = gate_candidacy(m, ctx.epoch, ctx.now, ctx.rules)
        if not why:
            continue
        if ctx.llm.unavailable:
            approved, verdict = gate_heuristic(m, ctx.rules)
            verdict = f"heuristic ({ctx.llm.unavailable.split(':')[0]}): {verdict}"
        elif not ctx.apply:
            ctx.candidate("gate", "gate", [m["id"]], f"candidate for core: {why}", {"candidacy": why})
            continue
        else:
            answer = ctx.ask("consolidation_gate", GATE_SYSTEM, gate_prompt(m))
            if answer is None:
                ctx.candidates += 1
                continue
            try:
                approved, verdict = parse_gate(answer)
            except UnusableAnswer as exc:
                ctx.candidates += 1
                logger.warning("unusable gate answer", extra={"error": exc.loggable})
                continue
        if approved:
            _set_layer(ctx, m, "gate", "gate_approve", "core", f"{why}; {verdict}")
        else:
            count, retry, note = gate_rejection(m["gate_rejections"], ctx.epoch, ctx.rules)
            if ctx.apply:
                store.update_memory(ctx.conn, m["id"], {"gate_rejections": count, "gate_retry_epoch": retry})
            ctx.act(
                "gate",
                "gate_reject",
                [m["id"]],
                f"{why}; {verdict}; {note}",
                details={"rejections": count, "retry_epoch": retry},
                before={"memories": [m["image"]]},
            )
    return scan.cursor()


def demote(ctx: StepContext, cursor: Row | None) -> Row | None:
    rows = store.live_memories(
        ctx.conn, ctx.namespace, layer="core", after=_after(cursor), limit=ctx.batch_size, lock=ctx.apply
    )
    for m in rows:
        reason = demotion_reason(m)
        if reason:
            _set_layer(ctx, m, "demote", "demote", "working", reason)
    return _next(rows, ctx.batch_size)


# --- near-duplicates and reconcile -------------------------------------------------------------


def _lineage(
    ctx: StepContext, newer: UUID, olders: Sequence[UUID], relations: Sequence[Relation], reason: str
) -> list[UUID]:
    """The run's links from `newer` to each of `olders` (supersedes ends an older memory's validity,
    so `as_of` still finds it; derived_from keeps where a text came from). Returns the link ids."""
    written = write_links(
        ctx.conn,
        ctx.tenant_id,
        [
            LinkCreate(from_id=newer, to_id=older, relation=rel, metadata={"reason": reason[:200]})
            for older in olders
            for rel in relations
        ],
        created_by="consolidation",
        run_id=ctx.run_id,
    )
    return [link.id for link in written]


def _absorb(
    ctx: StepContext,
    step: str,
    action: str,
    survivor: Row,
    other: Row,
    reason: str,
    details: Row,
    *,
    content: str | None,
    relations: Sequence[Relation],
) -> None:
    """`survivor` takes the other's counts, importance and tags (and new content, if given); the other is
    superseded through the graph (its valid_to set), never deleted."""
    fields = merged_fields(survivor, [other])
    changes = {k: v for k, v in fields.items() if v != survivor[k]}
    if content is not None and content != survivor["content"]:
        changes.update(content=content, content_hash=content_hash(content))
    ids = [survivor["id"], other["id"]]
    before: Row = {"memories": [survivor["image"], other["image"]]}
    links: list[UUID] = []
    if ctx.apply:
        try:
            with ctx.conn.transaction():  # a savepoint: a clash undoes only this merge
                new_chunks: list[UUID] = []
                if "content" in changes:
                    before["chunks"] = {str(survivor["id"]): store.chunk_images(ctx.conn, survivor["id"])}
                    store.update_memory(ctx.conn, survivor["id"], {**changes, "version": survivor["version"] + 1})
                    new_chunks = rechunk_memory(ctx.conn, ctx.tenant_id, {**survivor, **changes}, content or "")
                elif changes:
                    store.update_memory(ctx.conn, survivor["id"], changes)
                links = _lineage(ctx, survivor["id"], [other["id"]], relations, reason)
        except (psycopg.errors.UniqueViolation, EngramError) as exc:
            # Another active memory already has the merged text, or a link of this pair exists.
            logger.info("merge skipped", extra={"memories": [str(i) for i in ids], "error": str(exc)[:200]})
            return
        ctx.chunk_ids += new_chunks
        ctx.consumed.add(other["id"])
        ctx.changed.add(survivor["id"])
    ctx.act(
        step,
        action,
        ids,
        reason,
        details={
            **details,
            "survivor": str(survivor["id"]),
            "superseded": str(other["id"]),
            "changes": sorted(k for k in changes if k != "content_hash"),
            "links": list(relations),
        },
        before=before,
        links=links,
    )


# A batch is one transaction: once it has made this many LLM calls it ends at the next memory
# boundary, so locks stay short and the worker's time budget is checked often.
LLM_CALLS_PER_BATCH = 20


class _Scan:
    """Where a batch of scanned memories ends: after all of them, or earlier, between two scanned
    memories, once the batch made LLM_CALLS_PER_BATCH calls (the rest is the next batch's)."""

    def __init__(self, ids: Sequence[UUID], limit: int) -> None:
        self.ids, self.limit = list(ids), limit
        self.current: UUID | None = None
        self.stopped_after: UUID | None = None

    def enough(self, ctx: StepContext, scanned: UUID) -> bool:
        """Called before the work of `scanned`; True: stop here (after the memory before it)."""
        if scanned != self.current:
            if self.current is not None and ctx.llm.calls >= LLM_CALLS_PER_BATCH:
                self.stopped_after = self.current
                return True
            self.current = scanned
        return False

    def cursor(self) -> Row | None:
        if self.stopped_after is not None:
            return {"after": str(self.stopped_after)}
        return _next(self.ids, self.limit)


def _pairs(
    ctx: StepContext,
    cursor: Row | None,
    min_cosine: float,
    wanted: tuple[str, ...],
    related: Callable[[Row, Row], bool] | None = None,
) -> tuple[Iterator[tuple[UUID, Row, Row, PairVerdict]], _Scan]:
    """The pairs of this batch that fall in `wanted` classes (and pass `related`, if given), with both
    rows (live, locked when applying): neighbours and rows come in one query each, the text checks
    run here, and only the pairs that matter cost another look at the database (handled by this run
    already?)."""
    if ctx.space is None:
        ctx.skipped = "no embedding space yet: nothing to compare"
        return iter(()), _Scan([], 1)
    limit = ctx.batch_size
    ids = store.scan_candidates(ctx.conn, ctx.namespace, _after(cursor), ctx.since, limit)
    pairs = store.neighbours(
        ctx.conn, ctx.namespace, ids, ctx.space["model_id"], ctx.space["dimension"], ctx.neighbours, min_cosine
    )
    rows = store.memories_by_id(ctx.conn, list({i for p in pairs for i in (p["a"], p["b"])}), lock=ctx.apply)

    def classified() -> Iterator[tuple[UUID, Row, Row, PairVerdict]]:
        for pair in pairs:
            a_id, b_id = pair["a"], pair["b"]
            key = frozenset((a_id, b_id))
            if key in ctx.pairs_seen or a_id in ctx.consumed or b_id in ctx.consumed:
                continue
            ctx.pairs_seen.add(key)
            for changed in {a_id, b_id} & ctx.changed:  # a survivor of this batch: read it again
                rows.update(store.memories_by_id(ctx.conn, [changed]))
                ctx.changed.discard(changed)
            a, b = rows.get(a_id), rows.get(b_id)
            if a is None or b is None:
                continue  # merged or superseded since the neighbours were found
            gap = abs((a["created_at"] - b["created_at"]).total_seconds())
            if "reconcile_candidate" in wanted and gap < ctx.thresholds.reconcile_min_gap_s:
                continue  # written together: not an update of one by the other
            verdict = classify_pair(
                a["content"], b["content"], a["created_at"], b["created_at"], float(pair["cosine"]), ctx.thresholds
            )
            if verdict.cls not in wanted or (related is not None and not related(a, b)):
                continue
            if not store.pair_seen_in_run(ctx.conn, ctx.run_id, a_id, b_id):
                yield a_id, a, b, verdict

    return classified(), _Scan(ids, limit)


def _undecided(ctx: StepContext) -> bool:
    """True when an LLM decision cannot be had now: a plan (no call is made), the LLM off, or a cap
    reached (the step says which)."""
    refusal = ctx.llm.refusal()
    if refusal:
        ctx.skipped = refusal
    return refusal is not None or not ctx.apply


def _fuller(pair: list[Row]) -> Row:
    """A near-exact pair's survivor: the memory whose text holds every word of the other (it takes
    the higher layer with the merged fields), else the usual choice."""
    a, b = pair
    ta, tb = tokens(a["content"]), tokens(b["content"])
    if ta != tb and (ta >= tb or tb >= ta):
        return a if ta > tb else b
    return choose_survivor(pair)


def dedupe(ctx: StepContext, cursor: Row | None) -> Row | None:
    pairs, scan = _pairs(ctx, cursor, ctx.thresholds.dedupe_cosine, ("exact", "near_exact", "merge_candidate"))
    for scanned, a, b, verdict in pairs:
        if scan.enough(ctx, scanned):
            break
        details = {"cosine": round(verdict.cosine, 4), "jaccard": round(verdict.jaccard, 4)}
        if verdict.cls in ("exact", "near_exact"):
            survivor = _fuller([a, b])
            other = b if survivor is a else a
            _absorb(
                ctx,
                "dedupe",
                "merge",
                survivor,
                other,
                f"{verdict.cls} duplicate: {verdict.reason}",
                details,
                content=None,
                relations=("supersedes", "derived_from"),
            )
        elif verdict.cls == "merge_candidate":
            if store.fresh_verdict(ctx.conn, a["id"], b["id"], "merge"):
                continue
            if _undecided(ctx):
                ctx.candidate("dedupe", "merge", [a["id"], b["id"]], f"near-duplicate: {verdict.reason}", details)
                continue
            survivor = choose_survivor([a, b])
            other = b if survivor is a else a
            answer = ctx.ask("consolidation_merge", MERGE_SYSTEM, merge_prompt([survivor["content"], other["content"]]))
            if answer is None:
                ctx.candidates += 1
                continue
            try:
                merged = parse_merge(answer, [survivor["content"], other["content"]], ctx.max_chars)
            except UnusableAnswer as exc:
                ctx.candidates += 1
                logger.warning("unusable merge answer", extra={"error": exc.loggable})
                continue
            if merged is None:
                store.record_verdict(ctx.conn, ctx.tenant_id, a["id"], b["id"], "merge", "keep_separate", ctx.run_id)
                continue
            _absorb(
                ctx,
                "dedupe",
                "merge",
                survivor,
                other,
                f"llm merge: {verdict.reason}",
                details,
                content=merged,
                relations=("supersedes", "derived_from"),
            )
    return scan.cursor()


def _contradicts(ctx: StepContext, newer: Row, older: Row, verdict: PairVerdict, details: Row) -> None:
    """Both kept, linked newer -> older (`contradicts`); never resolved by consolidation."""
    links: list[UUID] = []
    try:
        written = write_links(
            ctx.conn,
            ctx.tenant_id,
            [
                LinkCreate(
                    from_id=newer["id"],
                    to_id=older["id"],
                    relation="contradicts",
                    metadata={"run_id": str(ctx.run_id)},
                )
            ],
            created_by="consolidation",
            run_id=ctx.run_id,
        )
        links = [link.id for link in written]
    except Conflict:
        pass  # linked by an earlier run; one side changed since, so it was asked again
    # Not asked again until one side changes (the verdict goes with this run's undo).
    store.record_verdict(ctx.conn, ctx.tenant_id, newer["id"], older["id"], "reconcile", "contradiction", ctx.run_id)
    ctx.act(
        "reconcile",
        "contradicts",
        [newer["id"], older["id"]],
        f"llm: they disagree and it cannot tell which holds; both kept, linked; {verdict.reason}",
        details=details,
        links=links,
    )


def _common_tokens(ctx: StepContext, cursor: Row | None) -> frozenset[str]:
    """The namespace's common tokens: counted once, on the step's first batch, then carried in the
    step's cursor (a continuation does not count them again)."""
    if cursor and "common" in cursor:
        return frozenset(cursor["common"])
    t = ctx.thresholds
    return common_tokens(store.live_contents(ctx.conn, ctx.namespace), t.reconcile_rare_share, t.reconcile_rare_min)


def reconcile(ctx: StepContext, cursor: Row | None) -> Row | None:
    """Pairs in the similarity window, the newer side at least reconcile_min_gap_s newer, that share a
    rare token (an update restates its subject: a name, an id, a rare word). Templated facts fill the
    window otherwise: without that rule the LLM was asked about two pairs per memory."""
    if ctx.apply and ctx.llm.unavailable:
        ctx.skipped = ctx.llm.unavailable  # only an LLM decides here: a plan still lists the candidates
        return None
    common = _common_tokens(ctx, cursor)
    pairs, scan = _pairs(
        ctx,
        cursor,
        ctx.thresholds.reconcile_min_cosine,
        ("reconcile_candidate", "merge_candidate"),
        related=lambda a, b: bool(shared_rare_tokens(a["content"], b["content"], common)),
    )
    for scanned, a, b, verdict in pairs:
        if scan.enough(ctx, scanned):
            break
        if verdict.cls == "merge_candidate" and store.fresh_verdict(ctx.conn, a["id"], b["id"], "merge") != (
            "keep_separate"
        ):
            continue  # dedupe's question; once the LLM said "not the same fact", it may be an update
        older, newer = sorted((a, b), key=lambda m: (m["created_at"], str(m["id"])))
        details = {
            "cosine": round(verdict.cosine, 4),
            "jaccard": round(verdict.jaccard, 4),
            "older": str(older["id"]),
            "newer": str(newer["id"]),
        }
        if store.fresh_verdict(ctx.conn, a["id"], b["id"], "reconcile"):
            continue
        if _undecided(ctx):
            ctx.candidate(
                "reconcile",
                "reconcile",
                [newer["id"], older["id"]],
                f"same topic, newer information? {verdict.reason}",
                details,
            )
            continue
        answer = ctx.ask(
            "consolidation_reconcile", RECONCILE_SYSTEM, reconcile_prompt(older["content"], newer["content"])
        )
        if answer is None:
            ctx.candidates += 1
            continue
        try:
            decided = parse_reconcile(answer, older["content"], newer["content"], ctx.max_chars)
        except UnusableAnswer as exc:
            ctx.candidates += 1
            logger.warning("unusable reconcile answer", extra={"error": exc.loggable})
            continue
        if decided.decision == "update":
            _absorb(
                ctx,
                "reconcile",
                "supersede",
                newer,
                older,
                f"llm: update, the newer memory replaces the older; {verdict.reason}",
                details,
                content=None,
                relations=("supersedes",),
            )
        elif decided.decision == "absorb":
            _absorb(
                ctx,
                "reconcile",
                "merge",
                newer,
                older,
                f"llm: absorb, one memory holds both; {verdict.reason}",
                details,
                content=decided.content,
                relations=("supersedes", "derived_from"),
            )
        elif decided.decision == "contradiction":
            _contradicts(ctx, newer, older, verdict, details)
        else:
            store.record_verdict(ctx.conn, ctx.tenant_id, a["id"], b["id"], "reconcile", "keep_both", ctx.run_id)
    step_cursor = scan.cursor()
    return {**step_cursor, "common": sorted(common)} if step_cursor else None


# --- buffer cap and decayed memories -----------------------------------------------------------


def buffer_cap(ctx: StepContext, cursor: Row | None) -> Row | None:
    buffer = store.buffer_weights(ctx.conn, ctx.namespace)
    doomed = eviction_order(buffer, ctx.rules.buffer_cap)
    if not doomed:
        return None
    # Applied: evict a batch, then look again. Planned: nothing changes, so plan every eviction now.
    batch = doomed[: ctx.batch_size * 10] if ctx.apply else doomed
    images = store.memories_by_id(ctx.conn, [m["id"] for m in batch], lock=ctx.apply)
    evicted = [m for m in batch if m["id"] in images]
    if ctx.apply:
        store.trash_memories(ctx.conn, [m["id"] for m in evicted])
    for m in evicted:
        ctx.act(
            "buffer_cap",
            "evict",
            [m["id"]],
            f"evicted: buffer holds {len(buffer)} > cap {ctx.rules.buffer_cap}; lowest weight",
            details={"importance": float(m["importance"])},
            before={"memories": [images[m["id"]]["image"]]},
        )
    return {"round": (cursor or {}).get("round", 0) + 1} if ctx.apply and len(doomed) > len(batch) else None


def drop_decayed(ctx: StepContext, cursor: Row | None) -> Row | None:
    from psycopg import sql

    rows = store.live_memories(
        ctx.conn,
        ctx.namespace,
        layer="buffer",
        after=_after(cursor),
        limit=ctx.batch_size,
        lock=ctx.apply,
        extra=sql.SQL("m.importance <= %s"),
        extra_params=[ctx.rules.drop_below],
    )
    if ctx.apply and rows:
        store.trash_memories(ctx.conn, [m["id"] for m in rows])
    for m in rows:
        ctx.act(
            "drop_decayed",
            "drop_decayed",
            [m["id"]],
            f"decayed: importance {float(m['importance']):.4f} <= {ctx.rules.drop_below}",
            details={"importance": float(m["importance"])},
            before={"memories": [m["image"]]},
        )
    return _next(rows, ctx.batch_size)


# --- topic distillation --------------------------------------------------------------------------


class _NotDistilled(Exception):
    """A distillation that cannot be written as it stands (its savepoint is rolled back)."""


def distill(ctx: StepContext, cursor: Row | None) -> Row | None:
    """Seed 001's topic distillation: a leaf of the namespace's topic tree with enough overlapping
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
    common = _common_tokens(ctx, cursor)
    queue: list[str] | None = (cursor or {}).get("queue")
    if queue is None:  # the run's first batch ranks every leaf once; the later ones look again at one
        rows = store.memories_by_id(ctx.conn, [i for leaf in leaves.values() for i in leaf.memory_ids])
        texts = {leaf.id: [rows[i]["content"] for i in leaf.memory_ids if i in rows] for leaf in leaves.values()}
        queue = [
            leaf_id
            for leaf_id, members in texts.items()
            if len(leaf_overlap(members, rules.overlap_jaccard, common).overlapping) >= rules.min_members
        ]
    for leaf_id in queue:
        leaf = leaves.get(leaf_id)
        if leaf is None or leaf_id in seen:
            continue
        members = list(store.memories_by_id(ctx.conn, leaf.memory_ids).values())
        overlap = leaf_overlap([m["content"] for m in members], rules.overlap_jaccard, common)
        if len(overlap.overlapping) < rules.min_members:
            continue  # changed since the ranking
        sent = [members[i] for i in members_to_send([m["content"] for m in members], overlap, rules.prompt_chars)]
        ids = [m["id"] for m in sent]
        if store.distillation_answered(ctx.conn, ids):
            continue
        seen.append(leaf.id)
        details: Row = {
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
        if _undecided(ctx):
            ctx.candidate("distill", "distill", ids, why, details)
        else:
            locked = store.memories_by_id(ctx.conn, ids, lock=True)
            if len(locked) == len(ids):  # else one changed under us: the next run looks again
                _distill_leaf(ctx, leaf, [locked[i] for i in ids], why, details)
        return {"seen": seen, "queue": queue, "common": sorted(common)}
    return None


def _distill_leaf(ctx: StepContext, leaf: LeafMembers, sent: list[Row], why: str, details: Row) -> None:
    ids = [m["id"] for m in sent]
    answer = ctx.ask("consolidation_distill", DISTILL_SYSTEM, distill_prompt(sent), max_tokens=DISTILL_MAX_TOKENS)
    if answer is None:
        ctx.candidates += 1
        return
    try:
        entries = parse_distillation(answer, [m["content"] for m in sent], ctx.max_chars)
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
                same = [m for m in sources if content_hash(m["content"]) == content_hash(entry.content)]
                if same:  # the text is a source's own: that memory takes in the others, as a merge does
                    result = same[0]["id"]
                    _keep_distilled(ctx, same[0], [m for m in sources if m is not same[0]])
                else:
                    result, new_chunks = _write_distilled(ctx, leaf, sources, entry.content, valid_from)
                    created.append(result)
                    chunk_ids += new_chunks
                results.append(result)
                olders = [m["id"] for m in sources if m["id"] != result]
                links += _lineage(ctx, result, olders, ("supersedes", "derived_from"), why)
    except (_NotDistilled, psycopg.errors.UniqueViolation, EngramError) as exc:
        ctx.act("distill", "distill_refused", ids, f"{why}; not written: {exc}", details=details, applied=False)
        return
    consumed = [sent[i] for entry in entries for i in entry.sources]
    ctx.chunk_ids += chunk_ids
    ctx.consumed |= {m["id"] for m in consumed}
    ctx.act(
        "distill",
        "distill",
        [*(m["id"] for m in consumed), *created],
        f"{why}; {len(consumed)} memories distilled into {len(results)}",
        details={
            **details,
            "sources": len(consumed),
            "distilled": [
                {"memory_id": str(result), "sources": [str(sent[i]["id"]) for i in entry.sources]}
                for result, entry in zip(results, entries, strict=True)
            ],
        },
        before={"memories": [m["image"] for m in consumed], "created": [str(i) for i in created]},
        links=links,
    )


def _distilled_tags(tags: list[str]) -> list[str]:
    return ["distilled", *(t for t in tags if t != "distilled")][:MAX_TAGS]


def _keep_distilled(ctx: StepContext, kept: Row, others: list[Row]) -> None:
    """A source whose text the LLM returned as the distilled one stays, with what the others earned
    (merged_fields) and the tag `distilled`; its before-image is the run's (it is a source)."""
    fields = merged_fields(kept, others)
    fields["tags"] = _distilled_tags(fields["tags"])
    changes = {k: v for k, v in fields.items() if v != kept[k]}
    if changes:
        store.update_memory(ctx.conn, kept["id"], changes)


def _write_distilled(
    ctx: StepContext, leaf: LeafMembers, sources: list[Row], content: str, valid_from: datetime
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
            kind=first["kind"],
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
    store.update_memory(
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


# --- the topic tree ------------------------------------------------------------------------------


def topics(ctx: StepContext, cursor: Row | None) -> Row | None:
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


STEP_FUNCTIONS: dict[str, StepFn] = {
    "decay": decay,
    "promote": promote,
    "gate": gate,
    "demote": demote,
    "dedupe": dedupe,
    "reconcile": reconcile,
    "buffer_cap": buffer_cap,
    "drop_decayed": drop_decayed,
    "distill": distill,
    "topics": topics,
}
