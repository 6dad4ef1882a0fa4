"""What a typed memory quotes: the clause that says its value, so the rest of its sentence stays the episode's."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import uuid4

import numpy as np
import pytest

from hindsight_es.events import ForgetRequested, MemoryForgotten, MemoryRetained, TurnRecorded
from hindsight_es.extraction import RuleExtractor
from hindsight_es.extraction.quotes import quoted
from hindsight_es.memory import BankState, Prepared, decide, evolve

RULES = RuleExtractor()


@pytest.mark.parametrize(
    "sentence, value, quote",
    [
        ("My brother lives in Osaka and works as a chef.", "chef", "and works as a chef."),
        ("I love hiking but my favourite food is sushi", "sushi", "but my favourite food is sushi"),
        ("I moved to Berlin, and I love it", "Berlin", "I moved to Berlin"),
        ("I quit my job at Amazon; I'm at Stripe now.", "not:amazon", "I quit my job at Amazon;"),
        ("I like salt and pepper.", "salt and pepper", "I like salt and pepper."),  # a value across parts: whole
        ("I'm allergic to peanuts.", "peanuts", "I'm allergic to peanuts."),  # one part: whole
        ("My daughter is called Mia, she is six.", "Mia", "My daughter is called Mia"),  # a subject of its own
        ("我女儿叫小美，她今年六岁", "小美", "我女儿叫小美"),
        ("我女儿叫小美，今年六岁", "小美", "我女儿叫小美"),  # a time of its own
        ("我们用的是 PostgreSQL，不是 MySQL。", "postgresql", "我们用的是 PostgreSQL，不是 MySQL。"),  # continues
    ],
)
def test_the_quote_is_the_clause_that_says_the_value(sentence, value, quote):
    assert quoted(sentence, value) == quote


def run(state: BankState, event) -> list:
    prepared = None
    if isinstance(event, TurnRecorded):
        cands = RULES.extract(event.text)
        prepared = Prepared(cands, np.ones((len(cands), 4), np.float32), "e", RULES.id)
    out = decide(state, event, prepared)
    for e in out:
        evolve(state, e)
    return out


def test_forgetting_one_fact_keeps_what_the_rest_of_its_sentence_said():
    """Found by a new user over MCP: forgetting "the user's brother works as a chef" also forgot the turn
    "My brother lives in Osaka and works as a chef.", the only memory that said Osaka."""
    state = BankState("b")
    turn = TurnRecorded(
        bank_id="b",
        session_id="s",
        turn_id="t1",
        text="My brother lives in Osaka and works as a chef.",
        occurred_at=datetime(2026, 2, 1, tzinfo=UTC),
    )
    retained = [e for e in run(state, turn) if isinstance(e, MemoryRetained)]
    fact = next(m for m in retained if m.kind != "episode" and "chef" in m.text)  # Osaka is a fact too (rules/32)
    episode = next(m for m in retained if m.kind == "episode")
    assert fact.quote == "and works as a chef."
    out = run(state, ForgetRequested(bank_id="b", memory_ids=(fact.memory_id,), event_id=uuid4()))
    forgotten = [e.memory_id for e in out if isinstance(e, MemoryForgotten)]
    assert fact.memory_id in forgotten
    # Osaka is still said: by the episode, or (rules/32) by the brother's place, a fact of its own, with which the
    # episode says nothing else and goes along
    osaka = [m for m in state.memories.values() if m.status == "active" and "Osaka" in m.text]
    assert osaka and set(forgotten) <= {fact.memory_id, episode.memory_id}
