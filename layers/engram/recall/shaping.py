"""Recall's results as the caller gets them: ranked candidates cut to the character budget and the
limit, critical facts first in their reserved share, in the full or the compact form. Pure: no SQL."""

from __future__ import annotations

from engram.core.select_lists import field_names
from engram.recall.models import CompactHit, RecalledChunk, RecallHit, RecallRequest, ScoreParts
from engram.recall.ranking import Candidate
from engram.recall.rows import CandidateRow

# What a result and its chunk show of the candidate row: every field they share by name (the chunk's
# id is the row's chunk_id; its text is the part of it that fits the budget).
_HIT_FIELDS = tuple(name for name in field_names(CandidateRow) if name in RecallHit.model_fields)
_CHUNK_FIELDS = tuple(
    name for name in field_names(CandidateRow) if name in RecalledChunk.model_fields and name != "text"
)


def shape_results(
    pinned: list[Candidate], ranked: list[Candidate], req: RecallRequest, critical_share: float
) -> tuple[list[RecallHit], int]:
    """The critical facts (`pinned`) first, within critical_share of budget_chars, then the ranked
    results in what is left of the budget and the limit; the characters used."""
    critical_budget = None if req.budget_chars is None else int(req.budget_chars * critical_share)
    first, used = shape_hits(pinned[: req.limit], req, critical_budget, critical=True)
    rest_budget = None if req.budget_chars is None else req.budget_chars - used
    rest, more = shape_hits(ranked[: req.limit - len(first)], req, rest_budget)
    return first + rest, used + more


def shape_hits(
    ranked: list[Candidate], req: RecallRequest, budget: int | None, critical: bool = False
) -> tuple[list[RecallHit], int]:
    """Hits in order until `budget` characters are used (the last one cut to fit, unless only a sliver
    would be left of it)."""
    hits: list[RecallHit] = []
    used = 0
    for c in ranked:
        text = c.row.text
        truncated = False
        if budget is not None:
            room = budget - used
            if room <= 0:
                break
            if len(text) > room:
                if hits and room < 200:  # a sliver of a chunk is noise; stop here
                    break
                text, truncated = text[:room], True
        used += len(text)
        r = c.row
        hits.append(
            RecallHit(
                type="conversation" if r.conversation_id else "memory",
                **{name: getattr(r, name) for name in _HIT_FIELDS},
                chunk=RecalledChunk(
                    id=r.chunk_id,
                    text=text,
                    truncated=truncated,
                    **{name: getattr(r, name) for name in _CHUNK_FIELDS},
                ),
                score=round(c.score, 6),
                critical=critical,
                explain=ScoreParts(
                    vector=c.vector,
                    keyword=c.keyword,
                    recency=round(c.recency, 6),
                    importance=float(r.importance),
                    fused=c.fused,
                    rewrites=round(c.rewrite_part, 6) if req.rewrite_query else None,
                    rerank=c.rerank,
                    feedback=c.feedback,
                )
                if req.explain
                else None,
            )
        )
    return hits, used


def compact(h: RecallHit) -> CompactHit:
    """The compact form of a result: its text once, and what names and ranks it."""
    ident = h.memory_id if h.memory_id is not None else h.conversation_id
    assert ident is not None  # chunks_one_owner: a chunk has a memory or a conversation
    return CompactHit(
        type=h.type,
        id=ident,
        text=h.chunk.text,
        score=h.score,
        namespace=h.namespace,
        created_at=h.created_at,
        seq_from=h.chunk.seq_from,
        seq_to=h.chunk.seq_to,
        truncated=h.chunk.truncated,
        critical=h.critical,
        explain=h.explain,
        conflicts=h.conflicts or None,
        linked=h.linked,
        evidence=h.evidence,
    )
