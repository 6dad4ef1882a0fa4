"""The text a memory is embedded and full-text indexed under (not the text it is shown with).

An utterance is indexed with its speaker and with the turn it answers, so "How do you unwind?"
followed by "Running clears my head" finds the answer from a question about unwinding. Built in the
actor (for the vector) and in the projection (for full text) from fields carried in the event.
"""

from __future__ import annotations

CONTEXT_CHARS = 200


def index_text(text: str, speaker: str | None = None, context: str | None = None) -> str:
    head = f"{speaker}: {text}" if speaker else text
    return f"{head}\n[in reply to] {context[:CONTEXT_CHARS]}" if context else head
