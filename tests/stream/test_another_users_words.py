"""Another user's words are never presented as the user's own: a statement names whose word it is."""

from __future__ import annotations

import numpy as np

from hindsight_es.events import TurnRecorded
from hindsight_es.extraction import RuleExtractor
from hindsight_es.memory import BankState
from streams.preparing import prepare


class _Vectors:
    id, dim = "test", 4

    def embed(self, texts: list[str]) -> np.ndarray:
        return np.ones((len(texts), self.dim), np.float32)


def _turn(text: str, actor: str, speaker: str | None = None) -> TurnRecorded:
    return TurnRecorded(bank_id="b", session_id="s", turn_id=text, text=text, actor=actor, speaker=speaker)


def test_a_statement_names_another_user_and_says_the_user_for_the_owner():
    state = BankState("b")
    batch = [
        _turn("I live in Lisbon.", "mcp:token-ab12"),  # the bank's first user turn: its owner
        _turn("我住在马德里。", "someone-else"),
        _turn("I live in Porto.", "http:token-cd34"),
        _turn("I live in Faro.", "http:token-ab12"),  # the owner at another door
        _turn("I live in Braga.", "someone-else", speaker="Kim"),  # a named speaker is named as before
    ]
    prepared = prepare(batch, lambda _: state, RuleExtractor(), _Vectors(), {})  # type: ignore[arg-type]
    facts = [[c.text for c in p.candidates if c.kind == "fact"] for p in prepared if p is not None]
    assert facts == [
        ["The user lives in Lisbon"],
        ["someone-else住在马德里"],
        ["token-cd34 lives in Porto"],
        ["The user lives in Faro"],
        ["Kim lives in Braga"],
    ]
