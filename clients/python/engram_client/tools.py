"""What the framework adapters' memory tools say back to a model: recall's results as short text."""

from __future__ import annotations

from engram_client.models import CompactHit, RecallHit, RecallResponse

DEFAULT_BUDGET_CHARS = 4000  # what one tool answer puts into a model's context at most


def recall_text(response: RecallResponse) -> str:
    """One line per result, best first: the text with when it was stored and its id."""
    if not response.results:
        return "No memories found."
    lines = []
    for hit in response.results:
        if isinstance(hit, CompactHit):
            lines.append(f"- {hit.text} ({hit.created_at:%Y-%m-%d}, {hit.type} {hit.id})")
        elif isinstance(hit, RecallHit):
            ref = hit.memory_id or hit.conversation_id
            lines.append(f"- {hit.chunk.text} ({hit.created_at:%Y-%m-%d}, {hit.type} {ref})")
    return "\n".join(lines)
