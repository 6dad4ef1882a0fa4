"""A typed memory's statement names its attribute in the words it is asked by, so a question that asks for it
finds it first and above the relevance floor ("用户的老家是衡阳" for "我老家是哪里？", "The user works as a paralegal"
for "what is my job?"); with "用户来自衡阳" the question ranked it third at 0.20, under two unrelated facts."""

from __future__ import annotations

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from streams.service import catch_up_all


async def test_a_question_by_the_attribute_word_finds_the_fact_first(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1)
    async with Hindsight(settings) as hs:
        turns = [
            ("zh", "我叫陈晓，今年28，老家湖南衡阳的，现在在北京工作。"),
            ("en", "I'm a paralegal, and I'm allergic to peanuts."),
        ]
        await hs.publish([make_turn(settings, bank, text, session_id="s", turn_id="t") for bank, text in turns])
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        for bank, question, answer in [
            ("zh", "我老家是哪里？", "用户的老家是衡阳"),
            ("zh", "我的老家在哪里？", "用户的老家是衡阳"),
            ("en", "what is my job?", "The user works as a paralegal"),
        ]:
            hits = await hs.recall(bank, question, limit=3)
            assert hits and hits[0].text == answer, (question, [(h.text, h.relevance) for h in hits])
            assert hits[0].relevance >= settings.min_relevance
