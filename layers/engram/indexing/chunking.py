"""Splitting text into retrieval chunks at natural boundaries.

Short texts stay whole (one chunk); longer ones are cut near `target_chars` at the strongest
boundary available: a heading, a blank line, a sentence end, a space, in that order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

SINGLE_CHUNK_BELOW = 8 * 1024  # characters: a shorter text is one chunk
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


def chunk_text(
    text: str, target_chars: int = DOCUMENT_TARGET, single_below: int = SINGLE_CHUNK_BELOW
) -> list[TextChunk]:
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


# Focused mode: ~512-token windows overlapping by 50 tokens. Tokens are
# approximated as words and punctuation marks (`\w+|[^\w\s]`), close to a BPE count for prose;
# windows start and end on token edges, so a multibyte character is never split.
FOCUSED_TOKENS = 512
FOCUSED_OVERLAP = 50
_TOKEN = re.compile(r"\w+|[^\w\s]")


def chunk_focused(
    text: str,
    window_tokens: int = FOCUSED_TOKENS,
    overlap: int = FOCUSED_OVERLAP,
    single_below: int = SINGLE_CHUNK_BELOW,
) -> list[TextChunk]:
    if not 0 <= overlap < window_tokens:
        raise ValueError("overlap must be smaller than the window")
    if len(text) < single_below:
        return [TextChunk(0, 0, text)]
    step = window_tokens - overlap
    starts: list[int] = []  # start of the window's first token, per window
    ends: list[int] = []  # end of the window's last token, per window
    last_end, count = 0, 0
    for i, m in enumerate(_TOKEN.finditer(text)):
        if i % step == 0:
            starts.append(m.start())
        if i >= window_tokens - 1 and (i - window_tokens + 1) % step == 0:
            ends.append(m.end())
        last_end, count = m.end(), i + 1
    if count == 0:
        return [TextChunk(0, 0, text)]
    chunks: list[TextChunk] = []
    for k, start in enumerate(starts):
        end = ends[k] if k < len(ends) else last_end
        chunks.append(TextChunk(len(chunks), start, text[start:end]))
        if end == last_end:
            break
    return chunks


def chunk(text: str, mode: str = "document") -> list[TextChunk]:
    """Chunk in `document` mode (~2,000 characters at boundaries) or `focused` mode (512/50 tokens)."""
    if mode == "focused":
        return chunk_focused(text)
    if mode == "document":
        return chunk_text(text)
    raise ValueError(f"unknown chunking mode {mode!r}")
