"""Prompt-ready context: a session's recent turns plus relevant long-term memories, within a token budget.

Tokens are estimated, not counted (no tokenizer, deterministic): one token per CJK character (Han, kana,
Hangul) plus one per four other characters, rounded up, which is close to what BPE tokenizers give
for English and Chinese. Packing, all pure:

  1. the frame (header, section titles, footer) is paid first;
  2. recent turns are promised up to ``turn_share`` of the rest, so they always appear;
  3. memories fill what the promise leaves, in rank order; one that does not fit is skipped and a
     smaller one may still fit;
  4. recent turns take everything left, newest first, and are shown oldest first.

Memories come first in the block, each with its id, kind, date and source turns. An episode whose
source turns are all in the recent window is left out: the window already shows it verbatim.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from pydantic import BaseModel, ConfigDict

from hindsight_es.recall.models import RecallHit, TurnView

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")
TAG = "remembered_context"
HEADER = (
    "Remembered context from long-term memory (hindsight). It is background, not part of the "
    "user's message, and may be outdated: what the user says now wins."
)
MEMORIES_TITLE = "Long-term memories, most relevant first ([id] for forget / correct / history):"
TURNS_TITLE = "Recent turns of this session, oldest first:"


class ContextBlock(BaseModel):
    """One prompt-ready block and what went into it."""

    model_config = ConfigDict(frozen=True)

    text: str
    tokens: int
    budget_tokens: int
    memory_ids: list[str]
    turn_ids: list[str]
    omitted_memories: int = 0
    omitted_turns: int = 0


def estimate_tokens(text: str) -> int:
    cjk = len(_CJK.findall(text))
    return cjk + math.ceil((len(text) - cjk) / 4)


def _clean(text: str) -> str:
    """One line, and no way to close the block from inside it."""
    return " ".join(text.split()).replace(f"</{TAG}", f"<\\/{TAG}")


def memory_line(hit: RecallHit) -> str:
    turns = f", from turn {','.join(hit.source_turn_ids)}" if hit.source_turn_ids else ""
    return f"- [{hit.memory_id}] ({hit.kind}, {hit.valid_from:%Y-%m-%d}{turns}) {_clean(hit.text)}"


def turn_line(turn: TurnView) -> str:
    who = turn.speaker or turn.role
    return f"- {_clean(who)} ({turn.occurred_at:%Y-%m-%d %H:%M}): {_clean(turn.text)}"


def _fit(lines: Sequence[str], budget: int) -> tuple[list[int], int]:
    """Indexes of the lines taken in order while they fit (a line too big is skipped), and tokens used."""
    taken, used = [], 0
    for i, line in enumerate(lines):
        cost = estimate_tokens(line) + 1  # the newline
        if used + cost <= budget:
            taken.append(i)
            used += cost
    return taken, used


def fit_hits(hits: Sequence[RecallHit], max_tokens: int) -> list[RecallHit]:
    """The best-ranked hits whose lines fit in ``max_tokens`` (recall with a token budget)."""
    taken, _ = _fit([memory_line(h) for h in hits], max_tokens)
    return [hits[i] for i in taken]


def build_context(
    bank_id: str,
    session_id: str,
    message: str,
    turns: Sequence[TurnView],
    hits: Sequence[RecallHit],
    budget_tokens: int,
    *,
    turn_share: float = 0.4,
) -> ContextBlock:
    """Pack ``hits`` (best first) and ``turns`` (oldest first) into one block of at most ``budget_tokens``."""
    window = list(turns)
    if window and message.strip() and _clean(window[-1].text) == _clean(message):
        window.pop()  # the current message, already recorded: the model has it in front of it
    in_window = {t.turn_id for t in window}
    hits = [h for h in hits if not (h.kind == "episode" and h.source_turn_ids and set(h.source_turn_ids) <= in_window)]
    open_tag = f'<{TAG} source="hindsight" bank="{_clean(bank_id)}" session="{_clean(session_id)}">'
    frame = [open_tag, HEADER, MEMORIES_TITLE, TURNS_TITLE, f"</{TAG}>"]
    left = budget_tokens - sum(estimate_tokens(line) + 1 for line in frame)
    if left <= 0 or not (window or hits):
        return ContextBlock(
            text="",
            tokens=0,
            budget_tokens=budget_tokens,
            memory_ids=[],
            turn_ids=[],
            omitted_memories=len(hits),
            omitted_turns=len(window),
        )
    newest_first = [turn_line(t) for t in reversed(window)]
    promised = min(sum(estimate_tokens(line) + 1 for line in newest_first), int(left * turn_share))
    mem_lines = [memory_line(h) for h in hits]
    mem_taken, mem_used = _fit(mem_lines, left - promised)
    turn_taken, _ = _fit(newest_first, left - mem_used)
    shown_turns = sorted(turn_taken, reverse=True)  # back to oldest first
    body = [open_tag, HEADER]
    if mem_taken:
        body += [MEMORIES_TITLE, *(mem_lines[i] for i in mem_taken)]
    if shown_turns:
        body += [TURNS_TITLE, *(newest_first[i] for i in shown_turns)]
    body.append(f"</{TAG}>")
    text = "\n".join(body)
    return ContextBlock(
        text=text,
        tokens=estimate_tokens(text),
        budget_tokens=budget_tokens,
        memory_ids=[hits[i].memory_id for i in mem_taken],
        turn_ids=[window[len(window) - 1 - i].turn_id for i in shown_turns],
        omitted_memories=len(hits) - len(mem_taken),
        omitted_turns=len(window) - len(shown_turns),
    )
