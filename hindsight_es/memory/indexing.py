"""The text a memory is embedded and full-text indexed under (not the text it is shown with).

An utterance is indexed with its speaker and with the turn it answers, so "How do you unwind?"
followed by "Running clears my head" finds the answer from a question about unwinding. Built in the
actor (for the vector) and in the projection (for full text) from fields carried in the event.

Full text weighs the utterance ``UTTERANCE_WEIGHT`` times its context (by repeating it: BM25 has one
field per index): the context helps a reply be found, but a question about the earlier turn should
still find that turn before the replies to it. Measured on LoCoMo dev, R@10: once 0.792, twice 0.795,
three times 0.805.
"""

from __future__ import annotations

import re
from typing import NamedTuple

CONTEXT_CHARS = 200
UTTERANCE_WEIGHT = 3
# A question this short ("When's that again?", "To when?", "然后呢？") says too little to name what its
# answer is about: that is in the turn it asked about, so its answer is indexed with both (``reply_context``).
# A short statement ("We use MySQL.") names its own topic.
SHORT_WORDS = 5
ASKING = re.compile(r"[?？][?？!！\"'”’)）]*\s*$")  # the turn's last sentence is a question ("When?!" too)
_WORD = re.compile(r"[^\W\d_]+|\d+")
_CJK_CHAR = re.compile(r"[\u3400-\u9fff]")


def index_text(text: str, speaker: str | None = None, context: str | None = None, quote: str | None = None) -> str:
    """``quote``: the words a typed memory's statement was drawn from, indexed after the statement."""
    said = f"{text}\n{quote}" if quote else text
    head = f"{speaker}: {said}" if speaker else said
    return f"{head}\n[in reply to] {context[:CONTEXT_CHARS]}" if context else head


def unindexed(text: str, speaker: str | None) -> str:
    """The words ``index_text`` indexed as ``text`` with ``speaker`` (and no quote or context)."""
    return text.removeprefix(f"{speaker}: ") if speaker else text


def full_text(text: str, speaker: str | None = None, context: str | None = None, quote: str | None = None) -> str:
    """What the full-text indexes hold: the utterance weighted over its context (see the module)."""
    if not context:
        return index_text(text, speaker, quote=quote)
    return (
        "\n".join([index_text(text, speaker, quote=quote)] * UTTERANCE_WEIGHT)
        + f"\n[in reply to] {context[:CONTEXT_CHARS]}"
    )


class LastTurn(NamedTuple):
    """A session's latest turn, as the next turn's context is chosen from it."""

    who: str | None  # its speaker (or, without one, its source)
    text: str  # "speaker: text", as indexed
    context: str | None  # the context it was indexed with


#: Sources whose turns are a conversation's replies to each other. A document or a tool's output is
#: material, not a party to it: it neither takes a context nor gives one. Otherwise a user's message
#: after a pasted document was indexed with the document's words, and found, with a high relevance, by
#: questions about the document ("where is the office moving?" found "The user likes window seats" at
#: 0.81), and an untrusted text could steer which of the user's memories a query surfaces.
CONVERSATION = frozenset({"user", "assistant"})


def reply_context(last: LastTurn | None, who: str | None, source: str = "user") -> str | None:
    """The turn a new turn of ``who`` answers: the latest one of someone else. A second message in a row
    from the same speaker is not a reply to their first: it answers what the first answered. ``last`` is
    only ever a conversation's turn (``CONVERSATION``); a turn from any other source has no context."""
    if last is None or source not in CONVERSATION:
        return None
    if last.who == who:  # what the turn before answered, without what its question asked about
        return _unchained(last.context)
    if last.context and _short_turn_question(last.text):
        return f"{last.text}\n{last.context}"
    return last.text


def short_question(words: str) -> bool:
    """Whether a turn's text asks, in at most ``SHORT_WORDS`` words (a CJK character counting as half of one)."""
    cjk = len(_CJK_CHAR.findall(words))
    return ASKING.search(words) is not None and (
        len([w for w in _WORD.findall(words) if not _CJK_CHAR.match(w)]) + cjk / 2 <= SHORT_WORDS
    )


def _short_turn_question(said: str) -> bool:
    """``short_question`` of a turn as indexed ("speaker: text", ``index_text``)."""
    return short_question(said.split(": ", 1)[-1])


def _unchained(context: str | None) -> str | None:
    """A reply's context as the turn it answers alone: a short question with the turn it followed (the chain
    ``reply_context`` builds) cut to the question. A second message in a row of one speaker answers the same
    question, but need not be about what the question asked about ("March 28th." then "Also, my sister is
    moving to Lisbon.")."""
    if context and "\n" in context:
        first = context.split("\n", 1)[0]
        if _short_turn_question(first):
            return first
    return context
