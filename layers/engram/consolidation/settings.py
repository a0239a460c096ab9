"""The consolidation cycle's settings: the worker's time budget, the dispatcher, the lifecycle rules,
the similarity thresholds, topic distillation and the LLM caps per run. Its queue, the local schedule
and the daily LLM caps (read by adapters and the local stack) are shared: engram.core.config.Settings."""

from __future__ import annotations

from pydantic import Field

from engram.core.config import Fraction, SettingsGroup, settings_accessor


class ConsolidationSettings(SettingsGroup):
    consolidation_time_budget_s: float = Field(
        default=600.0,
        gt=0,
        le=840,
        description="How long one worker invocation works before it checkpoints and continues in a new message "
        "(well inside Lambda's 15 minutes; it also stops early when less time remains)",
    )
    consolidation_dispatch_limit: int = Field(default=5000, ge=1, description="Namespaces started per dispatcher run")
    consolidation_requeue_after_s: int = Field(
        default=900,
        ge=60,
        description="A run still queued after this long lost its message: the dispatcher sends it again",
    )
    consolidation_abandon_after_s: int = Field(
        default=12 * 3600,
        ge=600,
        description="A run open this long without progress is abandoned (its message went to the dead-letter "
        "queue): the dispatcher marks it failed so its namespace gets runs again",
    )
    consolidation_max_interruptions: int = Field(
        default=3,
        ge=1,
        le=100,
        description="A run whose worker died mid-run (kill, crash, Lambda timeout) this many times is marked failed "
        "instead of resumed again: it may be what kills the worker",
    )
    consolidation_max_receives: int = Field(
        default=5,
        ge=1,
        le=1000,
        description="Receives before SQS moves a message to the DLQ (the queue's maxReceiveCount; set by the CDK "
        "app): on the last one, a worker whose run raised marks the run failed",
    )
    # The cycle. Decay is per active epoch (one applied run), by kind.
    consolidation_decay_episodic: float = Field(
        default=0.98, gt=0, le=1, description="Importance factor per active epoch, episodic memories"
    )
    consolidation_decay_semantic: float = Field(
        default=0.988, gt=0, le=1, description="Importance factor per active epoch, semantic memories"
    )
    consolidation_decay_procedural: float = Field(
        default=0.996, gt=0, le=1, description="Importance factor per active epoch, procedural memories"
    )
    consolidation_importance_floor: Fraction = Field(
        default=0.01, description="Decay never takes importance below this"
    )
    consolidation_promote_score: float = Field(
        default=5.0, ge=0, description="Promotion buffer -> working at access + repetition weight x repetition"
    )
    consolidation_repetition_weight: float = Field(
        default=2.5, ge=0, description="Weight of a repetition in the promotion score"
    )
    consolidation_promote_kind_epochs: int = Field(
        default=4, ge=0, description="Epochs after which a procedural (or `lesson`) memory leaves the buffer"
    )
    consolidation_gate_score: float = Field(default=3.0, ge=0, description="Score a memory needs to reach core")
    consolidation_gate_min_importance: Fraction = Field(
        default=0.6, description="Importance a memory needs to reach core"
    )
    consolidation_gate_age_days: float = Field(default=7.0, ge=0, description="Age a memory needs to reach core")
    consolidation_gate_cooldown_epochs: tuple[int, int] = Field(
        default=(48, 144),
        description="Epochs before the gate looks again after a 1st and a 2nd rejection; after the 3rd, never",
    )
    consolidation_buffer_cap: int = Field(default=200, ge=1, description="Buffer memories kept per namespace")
    consolidation_drop_below: Fraction = Field(
        default=0.01, description="Buffer memories whose importance falls under it go to the trash"
    )
    # Similarity defaults; an embedding space's row (embedding_spaces.consolidation_thresholds)
    # and the calibrated values for known models override the cosine ones.
    consolidation_dedupe_cosine: Fraction = Field(default=0.85, description="Near-duplicate candidates")
    consolidation_near_exact_jaccard: Fraction = Field(
        default=0.7,
        description="Token Jaccard at which near-duplicates (same numbers and ids, one text holding every word of "
        "the other) merge without an LLM; 0.7 merged 11 of 20 labelled duplicates and none of 36 updates "
        "or related pairs "
        "(bench/consolidation_thresholds.py)",
    )
    consolidation_merge_jaccard: Fraction = Field(
        default=0.5, description="Token Jaccard LLM merge candidates need too"
    )
    consolidation_reconcile_min_cosine: Fraction = Field(
        default=0.55,
        description="Lowest cosine of a pair reconcile asks the LLM about (update, absorb, contradiction)",
    )
    consolidation_reconcile_max_cosine: Fraction = Field(
        default=1.0,
        description="Highest cosine of a pair reconcile asks about (1: pairs the near-duplicate rule refused stay in)",
    )
    consolidation_reconcile_min_gap_s: int = Field(
        default=3600, ge=0, description="Reconcile only when the newer side is at least this much newer, seconds"
    )
    consolidation_reconcile_rare_share: Fraction = Field(
        default=0.005,
        description="Reconcile asks about a pair only when the two share a token found in at most this share of the "
        "namespace's memories (or in at most consolidation_reconcile_rare_min): at 10k templated memories "
        "3,489 -> 102 pairs per 1k memories, every planted update in the window kept (bench/consolidation.py)",
    )
    consolidation_reconcile_rare_min: int = Field(
        default=5, ge=0, description="In a small namespace, a token in this many memories or fewer is still rare"
    )
    consolidation_neighbours: int = Field(default=5, ge=1, le=50, description="pgvector neighbours per memory")
    consolidation_batch_size: int = Field(default=500, ge=1, le=100_000, description="Memories per committed batch")
    # Topic distillation: the LLM condenses a topic leaf whose texts overlap.
    consolidation_distill_min_members: int = Field(
        default=10, ge=2, le=1000, description="Overlapping members a topic leaf needs to be distilled"
    )
    consolidation_distill_overlap_jaccard: Fraction = Field(
        default=0.4,
        description="A leaf member overlaps when the Jaccard of its uncommon tokens (those in few memories of the "
        "namespace, counted as reconcile counts them) with another member's reaches this; from 0.3 to 0.5 the same "
        "7 of 8 restated services and 0 of 8 distinct ones qualified (bench/distillation.py)",
    )
    consolidation_distill_max_leaves: int = Field(
        default=2, ge=0, le=50, description="Topic leaves distilled per run, one LLM call each"
    )
    consolidation_distill_prompt_chars: int = Field(
        default=40_000,
        ge=1000,
        le=400_000,
        description="Member text sent in one distillation call, characters: a larger leaf sends its most "
        "overlapping members up to it",
    )
    # LLM caps per run (the daily ones per tenant are shared: the LLM adapter enforces them).
    consolidation_llm_run_calls: int = Field(default=100, ge=0, description="LLM calls per run")
    consolidation_llm_run_tokens: int = Field(default=200_000, ge=0, description="LLM tokens per run")


@settings_accessor
def consolidation_settings() -> ConsolidationSettings:
    return ConsolidationSettings()
