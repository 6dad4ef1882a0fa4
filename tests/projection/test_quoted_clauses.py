"""What a typed memory's statement leaves out of its sentence stays findable: "My daughter is called Mia, she is
six." keys the daughter's name; the age is the episode's, and recall shows that episode beside the name (it was
merged into the name's statement, whose quote was the whole sentence, and the age could not be recalled)."""

from __future__ import annotations

import pytest

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from streams.service import catch_up_all


@pytest.mark.parametrize(
    ("said", "question", "age"),
    [
        ("My daughter is called Mia, she is six.", "How old is my daughter?", "six"),
        ("我女儿叫小美，今年六岁", "我女儿几岁了？", "六岁"),
        # the name's quote spans the date its statement drops: the episode is shown for the date
        ("Please remember: my daughter Mia was born on 2019-05-03.", "When was Mia born?", "2019-05-03"),
        ("Please remember: my daughter Mia was born on 2019-05-03.", "When is Mia's birthday?", "2019-05-03"),
    ],
)
async def test_the_rest_of_a_keyed_sentence_is_recalled(tmp_path, said: str, question: str, age: str) -> None:
    settings = Settings(data_dir=tmp_path, partitions=1, embedder="minilm")
    async with Hindsight(settings) as hs:
        turns = [said, "We ship with FedEx.", "I'm allergic to peanuts."]
        await hs.publish([make_turn(settings, "u", t, session_id="s", turn_id=f"t{i}") for i, t in enumerate(turns)])
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        hits = await hs.recall("u", question, limit=5)
        assert any(age in h.text for h in hits), [(h.kind, h.text) for h in hits]
        context = await hs.context("u", "s2", question)
        assert age in context.text
