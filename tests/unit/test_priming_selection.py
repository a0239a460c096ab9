"""Prime's choice among recall's candidates: relevance against novelty, and the floor under filler."""

from __future__ import annotations

from engram.priming.selection import RELEVANCE_FLOOR, SIMILARITY_FLOOR, Option, mmr


def _option(
    name: str, relevance: float, vector: list[float], topic: str | None = None, similarity: float | None = None
) -> Option:
    return Option(key=name, relevance=relevance, vector=vector, topic=topic, similarity=similarity)


def test_a_second_subject_comes_before_a_near_copy_of_the_first() -> None:
    options = [
        _option("indexes", 1.0, [1.0, 0.0]),
        _option("indexes again", 0.95, [0.99, 0.141]),
        _option("replica", 0.6, [0.0, 1.0]),
    ]
    assert [o.key for o in mmr(options, 2)] == ["indexes", "replica"]


def test_the_same_topic_counts_as_near_even_when_the_vectors_differ() -> None:
    options = [
        _option("sourdough starter", 1.0, [1.0, 0.0, 0.0], topic="bread"),
        _option("sourdough oven", 0.9, [0.0, 1.0, 0.0], topic="bread"),
        _option("pastry", 0.7, [0.0, 0.0, 1.0], topic="pastry"),
    ]
    assert [o.key for o in mmr(options, 2)] == ["sourdough starter", "pastry"]


def test_filler_under_the_floor_is_never_chosen_however_novel() -> None:
    top = 0.09  # recall's rank-based scores: ~1 / (10 + rank)
    options = [
        _option("on task", top, [1.0, 0.0]),
        _option("also on task", top * 0.9, [0.98, 0.2]),
        _option("unrelated", top * (RELEVANCE_FLOOR - 0.01), [0.0, 1.0]),
    ]
    assert [o.key for o in mmr(options, 3)] == ["on task", "also on task"]


def test_a_low_ranked_memory_still_near_the_task_is_on_it_and_one_far_from_it_is_not() -> None:
    """Recall's scores are rank-based (RRF, k = 10): a task's third subject ~30 places down scores under
    the relevance floor; its cosine to the task says it is on the task, a garden note's that it is not."""
    score = [1 / (10 + rank) for rank in range(1, 41)]
    options = [_option(f"r{i}", s, [1.0, 0.0, 0.0], similarity=0.6) for i, s in enumerate(score[:30])]
    options.append(_option("garden", score[30], [0.0, 0.0, 1.0], similarity=0.6 * (SIMILARITY_FLOOR - 0.1)))
    options.append(_option("third subject", score[29], [0.0, 1.0, 0.0], similarity=0.6 * (SIMILARITY_FLOOR + 0.1)))
    assert score[29] < RELEVANCE_FLOOR * score[0]
    assert [o.key for o in mmr(options, 3)][:2] == ["r0", "third subject"]
    assert "garden" not in [o.key for o in mmr(options, 10)]
