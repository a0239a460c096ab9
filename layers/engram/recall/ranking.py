"""Ranking recall candidates: recency decay, score fusion, maximal marginal relevance. Pure: no SQL,
unit-tested without a database."""

from __future__ import annotations

import bisect
import math
import re
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from uuid import UUID

from engram.recall.rows import CandidateRow

RECENCY_HALF_LIFE_DAYS = 30.0
# engram-go's composite weights; see docs/performance.md, "Recall quality" for what was measured.
W_VECTOR, W_KEYWORD, W_RECENCY = 0.50, 0.35, 0.15
# Reciprocal rank fusion's k: 10 beat 20 at every budget on real dialogue (bench/dialogue_recall.py), as it
# beat 20, 40 and 60 on bench/longconv_recall.py: a small k lets each list's first hits lead, which is what
# evidence within a small budget needs.
RRF_K = 10
# Conversation turns, on real dialogue (bench/quality/dialogue_recall.py; docs/performance.md, "Recall quality"):
# - A session (a conversation's turns of one day) that holds more of the query's rare words than its
#   turns do one by one is where the answer is: a third list ranks the candidate turns by their
#   session's sum of the query words' weights (each word once), counted SESSION_WEIGHT. 0.6 beat 0.5 at
#   2k, 4k and 8k once a named speaker's own statements were in (below), no type lower, and tied or won
#   on the synthetic long conversations; 0.75-1.0 won too but lost open-domain, 0.35 and 2.0 lost.
# - A question that names one of the speakers ("What did Caroline research?") is about that speaker's
#   turns (97% of the evidence turns of such questions): their fused score is raised by SPEAKER_BOOST.
SESSION_WEIGHT = 0.6
SPEAKER_BOOST = 0.5
# - A question asking what a named speaker would (likely) do, be or like ("Would Caroline likely pursue
#   writing as a career?"), or what they have done ("What activities has Melanie done?"), is answered by
#   what that speaker said of themselves ("I've been writing a lot lately", "I'm off to go swimming"):
#   their turns that hold a first-person word are raised on top of SPEAKER_BOOST, by the boost of the
#   first cue of SELF_STATEMENT_CUES the question matches. On the development split, against none:
#   .778 / .838 / .909 -> .779 / .840 / .913 at 2k / 4k / 8k, open-domain at 8k .634 -> .657,
#   multi-hop .748 -> .762, no type lower than without them (bench/quality/RESULTS-conversations.md).
#   "would / likely" reaches 18 of its 44 open-domain questions and no other type; "has / have" 72 of
#   the 142 multi-hop ones and 46 others, hence its smaller boost (0.5 lost a question at 4k).
SELF_STATEMENT_CUES: tuple[tuple[re.Pattern[str], float], ...] = (
    (re.compile(r"\b(would|likely)\b", re.IGNORECASE), 0.5),
    (re.compile(r"\b(has|have)\b", re.IGNORECASE), 0.25),
)
# A turn in which its speaker speaks of themselves: a first-person word ("I" also starts I'm, I've, I'd).
_FIRST_PERSON = re.compile(r"\b(I|[Mm]e|[Mm]y|[Mm]ine|[Mm]yself)\b")
# - A question's answer is often the reply to the turn that matches it ("What does Melanie do to destress?"
#   / "...pottery. It's like therapy for me"): a turn's vector score is its cosine plus NEIGHBOUR_VECTOR_WEIGHT
#   x the higher cosine of the turns before and after it, said the same day (when the namespace's rows are
#   few enough to be scored exactly, engram.recall.store). 0.2 beat none at 2k, 4k and 8k (+.004 each),
#   multi-hop and open-domain both up; 0.3 and 0.4 lost open-domain at 8k.
NEIGHBOUR_VECTOR_WEIGHT = 0.2
# Candidates per list are 5 x the results a request can return: its limit, or, when budget_chars decides,
# what the budget holds at BUDGET_CHARS_PER_RESULT characters a result (0: the limit alone). A budget
# without a limit asks for up to 100 results, so each list took 500 candidates, a real conversation's
# whole namespace (~400-700 turns), all of them fetched and ranked in Python. On real dialogue
# (bench/quality/dialogue_recall.py) 100 characters, 100 / 200 / 400 candidates at 2k / 4k / 8k, found
# as much as 500 (.776 / .835 / .905 against .775 / .834 / .905); 150 lost .001 at 8k.
BUDGET_CHARS_PER_RESULT = 100
# The keyword list's weight beside the vector list's 1 is the setting recall_rrf_keyword_weight (1, chosen
# on real dialogue against 0.15, where the synthetic set had put it).
# MMR (recall's `diversify`, off by default): lambda x relevance - (1 - lambda) x redundancy. Relevance is
# the fused score over the best one's (RRF scores are ~0.1: unscaled, any penalty outweighs them);
# redundancy is the highest cosine to a result already picked, counted above MMR_FLOOR and scaled to
# [0, 1], so a result on the same subject is not a repeat and a near-copy is. Lambda chosen on
# bench/longconv_recall.py's train split (0.3 to 0.9). The floor on real dialogue (bench/dialogue_recall.py):
# at 0.7 MMR cost .042 / .040 / .068 of the evidence at 2k / 4k / 8k (turns of one conversation share
# its subjects, cosine 0.7-0.85 with MiniLM); at 0.9 it ties with off, and a near-copy still waits.
MMR_LAMBDA = 0.5
MMR_FLOOR = 0.9
# Keyword rank: the sum of the matched query words' inverse document frequencies (engram.recall.store),
# counted over at most KEYWORD_IDF_ROWS rows; False: ts_rank_cd alone, which weighs every word alike.
# The counts cost (bench/recall_latency.py, 10k memories, a loaded machine: recall p50 60 ms counting to
# 10,000, 33 ms to 2,000); a word in 2,000 rows of a namespace says little about which row is meant.
KEYWORD_IDF = True
KEYWORD_IDF_ROWS = 2_000
# A query word found only in a turn's neighbours (chunks.context, weight D) counts this share of its
# weight: the turn is found by it but ranks below one that says the word itself (bench/dialogue_recall.py).
CONTEXT_WORD_WEIGHT = 0.5


def results_expected(limit: int, budget_chars: int | None) -> int:
    """The results a request will return at most: its limit, or what its budget holds when that is fewer."""
    if budget_chars is None or not BUDGET_CHARS_PER_RESULT:
        return limit
    return min(limit, -(-budget_chars // BUDGET_CHARS_PER_RESULT))


@dataclass(slots=True)
class Candidate:
    row: CandidateRow
    vector: float | None = None  # cosine similarity
    keyword: float | None = None  # ts_rank_cd normalised to [0, 1)
    vector_rank: int | None = None
    keyword_rank: int | None = None
    recency: float = 0.0
    fused: float = 0.0
    # rewrite_query: (cosine, keyword rank) in each rewrite's lists, by rewrite; what those lists added to fused.
    rewrites: dict[int, tuple[float | None, float | None]] = field(default_factory=dict)
    rewrite_part: float = 0.0
    rerank: float | None = None  # the reranker's relevance, when `rerank` re-scored this candidate
    speaker: str | None = None  # a conversation turn's speaker, when its text names one
    session_rank: int | None = None  # a conversation turn's session in the session list
    feedback: float | None = None  # feedback's ranking factor (engram.feedback), when there was feedback on it

    @property
    def score(self) -> float:
        """What orders the results: the reranker's relevance when it re-scored them, else the fused score."""
        return self.fused if self.rerank is None else self.rerank


_DECAY_PER_SECOND = math.log(2) / (RECENCY_HALF_LIFE_DAYS * 86400.0)


def recency_score(occurred_at: datetime, now: datetime) -> float:
    """1 now, halving every RECENCY_HALF_LIFE_DAYS of age."""
    return math.exp(-_DECAY_PER_SECOND * max((now - occurred_at).total_seconds(), 0.0))


def session_key(row: CandidateRow) -> tuple[int, date] | None:
    """A conversation turn's session: its conversation (the id as an integer: a UUID hashes in Python,
    an int in C, and a recall keys a few hundred turns) and the day it was said (UTC)."""
    if row.conversation_id is None:
        return None
    return row.conversation_id.int, row.occurred_at.astimezone(UTC).date()


def rank_sessions(candidates: list[Candidate]) -> None:
    """Each conversation candidate's session_rank: 1 + the sessions that hold a higher sum of the query's
    word weights among their candidate turns' own words (the row's `session_total`, summed by the candidate
    query: engram.recall.store). With query rewrites, a session takes the highest sum any of the queries
    gave it."""
    totals: dict[tuple[int, date], float] = {}
    # Only a turn with a total is in the list: the others' sessions are not looked up at all.
    keyed = [(c, key) for c in candidates if c.row.session_total and (key := session_key(c.row)) is not None]
    for c, key in keyed:
        totals[key] = max(totals.get(key, 0.0), c.row.session_total or 0.0)
    ordered = sorted(totals.values())
    for c in candidates:
        c.session_rank = None
    for c, key in keyed:
        # the sessions above it: those past the last total equal to its own
        c.session_rank = 1 + len(ordered) - bisect.bisect_right(ordered, totals[key])


def named_speakers(candidates: list[Candidate], query: str) -> set[str]:
    """The candidates' speakers the query names (a whole word, any case), when it names some of them
    but not all: naming every speaker singles none out."""
    speakers = {c.speaker for c in candidates if c.speaker}
    words = set(re.findall(r"\w+", query.casefold()))
    named = {s for s in speakers if s.split()[0].casefold() in words}
    return named if named != speakers else set()


def fuse(
    candidates: list[Candidate], fusion: str, rewrites: int = 0, keyword_weight: float = 1.0, query: str = ""
) -> None:
    """Each candidate's fused score. rrf: 1/(RRF_K + rank) in the vector list plus keyword_weight x
    1/(RRF_K + rank) in the keyword list (the setting recall_rrf_keyword_weight); weighted: W_*.

    Conversation turns are then ordered among themselves with their own signals: the session list
    (SESSION_WEIGHT x 1/(RRF_K + session rank)), SPEAKER_BOOST for a speaker the query names and, when it
    asks what that speaker would do or has done, SELF_STATEMENT_CUES' boost for their turns about
    themselves. Those only reorder the turns within the places the turns hold: a memory, which has none
    of these signals, keeps its place among them, so a tenant's notes are not pushed down by its chat logs."""
    # Ties break by the other list's score, not by the order the rows came in.
    by_vec = sorted(
        (c for c in candidates if c.vector is not None), key=lambda c: (-(c.vector or 0), -(c.keyword or 0))
    )
    by_kw = sorted(
        (c for c in candidates if c.keyword is not None), key=lambda c: (-(c.keyword or 0), -(c.vector or 0))
    )
    for i, c in enumerate(by_vec):
        c.vector_rank = i + 1
    for i, c in enumerate(by_kw):
        c.keyword_rank = i + 1
    top_kw = by_kw[0].keyword if by_kw and by_kw[0].keyword else 1.0
    if not by_vec:  # keyword mode, or no vectors to compare: the weight is relative, scores stay as they were
        keyword_weight = 1.0
    _rewrite_parts(candidates, fusion, rewrites, top_kw, keyword_weight)
    rank_sessions(candidates)
    named = named_speakers(candidates, query)
    own = next((boost for cue, boost in SELF_STATEMENT_CUES if cue.search(query)), 0.0) if named else 0.0
    with_turn_signals: dict[int, float] = {}  # id(candidate) -> its score with the session and speaker
    for c in candidates:
        importance = float(c.row.importance)
        factor = 1.0 + 0.1 * c.recency + 0.1 * importance
        session = 0.0
        if fusion == "rrf":
            base = c.rewrite_part
            if c.vector_rank is not None:
                base += 1.0 / (RRF_K + c.vector_rank)
            if c.keyword_rank is not None:
                base += keyword_weight / (RRF_K + c.keyword_rank)
            if c.session_rank is not None:
                session = SESSION_WEIGHT / (RRF_K + c.session_rank)
            c.fused = base * factor
        else:
            kw_norm = (c.keyword or 0.0) / top_kw  # best keyword hit of this query = 1.0
            base = W_VECTOR * max(c.vector or 0.0, 0.0) + W_KEYWORD * kw_norm + W_RECENCY * c.recency + c.rewrite_part
            factor = 0.8 + 0.4 * importance
            c.fused = base * factor
        turn = (base + session) * factor
        if c.speaker in named:
            turn *= 1.0 + SPEAKER_BOOST
            if own and _FIRST_PERSON.search(c.row.text):
                turn *= 1.0 + own
        with_turn_signals[id(c)] = turn
    _order_turns_among_themselves([c for c in candidates if c.row.conversation_id], with_turn_signals)


def _order_turns_among_themselves(turns: list[Candidate], with_turn_signals: dict[int, float]) -> None:
    """The turns' fused scores, highest first, handed to the turns in the order of their scores with
    the turn signals: the places turns hold beside memories stay, who holds them changes."""
    places = sorted((c.fused for c in turns), reverse=True)
    ordered = sorted(
        turns, key=lambda c: (-round(with_turn_signals[id(c)], 12), -(c.keyword or 0.0), -(c.vector or 0.0))
    )
    for i, (c, place) in enumerate(zip(ordered, places, strict=True)):
        c.fused = place - i * 1e-9  # places the two lists left equal keep the turns' order


def _rewrite_parts(
    candidates: list[Candidate], fusion: str, rewrites: int, top_kw: float, keyword_weight: float = 1.0
) -> None:
    """What the query rewrites' vector and keyword lists add to each candidate's base score. rrf: their
    reciprocal ranks, each rewrite weighing 1/rewrites, so together they count as much as the question
    (the caller's own words; a rewrite is a guess). weighted: the best rewrite's match where it beats the
    question's (the score of the best-matching phrasing)."""
    for j in range(rewrites):
        found = [(c, *c.rewrites[j]) for c in candidates if j in c.rewrites]
        by_vec = [c for c, vector, _ in sorted(found, key=lambda f: -(f[1] or 0.0)) if vector is not None]
        by_kw = [c for c, _, keyword in sorted(found, key=lambda f: -(f[2] or 0.0)) if keyword is not None]
        if fusion == "rrf":
            for ranked, weight in ((by_vec, 1.0), (by_kw, keyword_weight)):
                for i, c in enumerate(ranked):
                    c.rewrite_part += weight / (RRF_K + i + 1) / rewrites
            continue
        rewrite_top_kw = (by_kw[0].rewrites[j][1] or 1.0) if by_kw else 1.0
        for c in candidates:
            if j not in c.rewrites:
                continue
            vector, keyword = c.rewrites[j]
            question = W_VECTOR * max(c.vector or 0.0, 0.0) + W_KEYWORD * (c.keyword or 0.0) / top_kw
            rewrite = W_VECTOR * max(vector or 0.0, 0.0) + W_KEYWORD * (keyword or 0.0) / rewrite_top_kw
            c.rewrite_part = max(c.rewrite_part, rewrite - question)


def mmr(candidates: list[Candidate], vectors: dict[UUID, list[float]], limit: int) -> list[Candidate]:
    """Maximal marginal relevance: trade a little relevance for results that say different things.

    Each pick scores every remaining candidate as lambda x relevance (its fused score over the best
    one's) - (1 - lambda) x redundancy (its highest cosine to what was already picked, above MMR_FLOOR,
    scaled to [0, 1]); candidates without a vector keep their relevance. The
    highest cosine is kept per candidate and raised with each pick, so a pick costs one
    matrix-vector product: O(limit x pool x dim) in numpy, milliseconds for 100 of 400.
    """
    import numpy as np  # here: a recall without vectors (keyword mode) never loads it

    if not candidates or limit <= 0:
        return []
    ids = [c.row.chunk_id for c in candidates]
    has_vector = np.array([i in vectors for i in ids])
    dim = len(next(iter(vectors.values()))) if vectors else 0
    matrix = np.zeros((len(candidates), dim))
    for row, chunk_id in enumerate(ids):
        if chunk_id in vectors:
            matrix[row] = vectors[chunk_id]
    relevance = np.array([c.score for c in candidates], dtype=float)
    if relevance.max() > 0:
        relevance /= relevance.max()  # the best candidate is 1, whatever the fusion's scale
    closest = np.full(len(candidates), -np.inf)  # highest cosine to a picked candidate with a vector
    available = np.ones(len(candidates), dtype=bool)
    chosen: list[int] = []
    while len(chosen) < limit and available.any():
        if chosen:
            above_floor = np.where(np.isfinite(closest), closest, 0.0) - MMR_FLOOR
            redundancy = np.clip(above_floor / (1 - MMR_FLOOR), 0.0, None)
            gain = np.where(has_vector, MMR_LAMBDA * relevance - (1 - MMR_LAMBDA) * redundancy, relevance)
        else:
            gain = relevance.copy()
        gain[~available] = -np.inf
        best = int(np.argmax(gain))  # the first of equals, as candidates are ordered
        chosen.append(best)
        available[best] = False
        if has_vector[best]:
            closest = np.maximum(closest, matrix @ matrix[best])
    return [candidates[i] for i in chosen]
