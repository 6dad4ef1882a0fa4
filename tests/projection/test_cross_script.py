"""Full text answers queries in its own script; across scripts the vectors decide."""

from __future__ import annotations

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from streams.service import catch_up_all

MEMORIES = [
    "Bart went to the dentist and the filling hurt a lot.",
    "Bart scored two goals in the football match on Saturday.",
    "Bart adopted a small brown puppy called Max from the shelter.",
    "Bart baked chocolate cookies with his grandmother.",
    "Bart lost his blue umbrella on the bus.",
    "Bart read a comic book about space pirates before bed.",
]


async def test_a_chinese_question_finds_the_english_memory_it_is_about(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1)  # the default bilingual embedder
    async with Hindsight(settings) as hs:
        await hs.publish([make_turn(settings, "bart", text, session_id=f"m{i}", turn_id=f"m{i}", speaker="Bart")
                          for i, text in enumerate(MEMORIES)])
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        # "Bart" is in every memory and every letter of it in the n-gram index: only the meaning can decide
        hits = await hs.recall("bart", "Bart: 我上个月从收容所领养了一只小狗，你还记得它叫什么吗？", limit=3)
        assert hits[0].source_turn_ids == ["m2"]
        hits = await hs.recall("bart", "Bart: 我的牙补过以后一直很疼", limit=3)
        assert hits[0].source_turn_ids == ["m0"]
