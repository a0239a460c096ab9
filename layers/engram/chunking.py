"""Splitting text into retrieval chunks at natural boundaries.

Short texts stay whole (one chunk); longer ones are cut near `target_chars` at the strongest
boundary available: a heading, a blank line, a sentence end, a space, in that order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SINGLE_CHUNK_BELOW = 8 * 1024  # characters; seed 000's lazy-chunk threshold
DOCUMENT_TARGET = 2000

_BOUNDARIES = (
    re.compile(r"\n(?=#{1,6} )"),  # before a Markdown heading
    re.compile(r"\n\s*\n"),  # paragraph
    re.compile(r"(?<=[.!?])\s+"),  # sentence
    re.compile(r"\s+"),  # word
)


@dataclass(frozen=True)
class TextChunk:
    position: int
    char_start: int
    text: str


def _cut_point(text: str, start: int, target: int) -> int:
    """Index where the chunk starting at `start` should end."""
    hard_end = min(len(text), start + target)
    if hard_end >= len(text):
        return len(text)
    window_start = start + target // 2  # never cut shorter than half the target
    window = text[window_start:hard_end]
    for pattern in _BOUNDARIES:
        last = None
        for m in pattern.finditer(window):
            last = m
        if last is not None:
            return window_start + last.end()
    return hard_end


def chunk_text(text: str, target_chars: int = DOCUMENT_TARGET,
               single_below: int = SINGLE_CHUNK_BELOW) -> list[TextChunk]:
    if len(text) < single_below:
        return [TextChunk(0, 0, text)]
    chunks: list[TextChunk] = []
    start = 0
    while start < len(text):
        end = _cut_point(text, start, target_chars)
        piece = text[start:end]
        if piece.strip():
            chunks.append(TextChunk(len(chunks), start, piece))
        start = end
    return chunks
