"""Full text answers queries in its own script; across scripts the vectors decide."""

from __future__ import annotations

import json
from datetime import datetime
from importlib.resources import files

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from hindsight_es.recall.search import CROSS_MIN_RELEVANCE
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
        await hs.publish(
            [
                make_turn(settings, "bart", text, session_id=f"m{i}", turn_id=f"m{i}", speaker="Bart")
                for i, text in enumerate(MEMORIES)
            ]
        )
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        # "Bart" is in every memory and every letter of it in the n-gram index: only the meaning can decide
        hits = await hs.recall("bart", "Bart: 我上个月从收容所领养了一只小狗，你还记得它叫什么吗？", limit=3)
        assert hits[0].source_turn_ids == ["m2"]
        hits = await hs.recall("bart", "Bart: 我的牙补过以后一直很疼", limit=3)
        assert hits[0].source_turn_ids == ["m0"]
        # why it came back: the meaning across languages, as the cross-script search compared it; the
        # whole vector's cosine (its English half is zero for the Chinese query) would say 0.5 of anything
        reasons = await hs.browser.explain("bart", "Bart: 我的牙补过以后一直很疼", hits)
        said = [r for r in reasons[hits[0].memory_id] if r.startswith("meaning")]
        assert len(said) == 1 and said[0].startswith("meaning across languages: similarity "), said
        best = float(said[0].rsplit(" ", 1)[1])
        others = [float(r.rsplit(" ", 1)[1]) for h in hits[1:] for r in reasons[h.memory_id] if r.startswith("meaning")]
        assert others and all(best > o for o in others)  # the memory it is about is the most similar


BILINGUAL = [
    "From now on use FedEx for all international orders.",
    "Hi! I'm Lin, I run a small tea shop in Hangzhou.",
    "Nice to meet you, Lin. How can I help with the shop?",
    "thanks",
    "我们决定下个月在上海开第二家店。",
    "国内快递我以后都用顺丰。",
    "我最喜欢的茶是龙井。",
    "不对，我们用的是 PostgreSQL，不是 MySQL。",
]


async def test_in_a_bilingual_bank_a_question_finds_the_memory_in_the_other_language(tmp_path):
    """English questions over Chinese memories beside English ones (and the other way round): the other
    script is searched apart, so its memories are not all outranked by weak same-script matches, and
    only those that are similar at all are listed (the unrelated tea preference is not)."""
    settings = Settings(data_dir=tmp_path, partitions=1)
    async with Hindsight(settings) as hs:
        await user_said(hs, settings, "lin", BILINGUAL)

        def top(hits, n=2):
            return [turn for h in hits[:n] for turn in h.source_turn_ids]

        assert "m7" in top(await hs.recall("lin", "what database do we use?"), 1)
        assert "m4" in top(await hs.recall("lin", "where is the new shop opening?"))
        carriers = await hs.recall("lin", "which carrier do we ship with?", limit=3)
        assert top(carriers) in (["m0", "m5"], ["m5", "m0"])  # the unrelated tea preference ranks below both
        assert "m0" in top(await hs.recall("lin", "国际订单用什么快递？"))


async def user_said(hs: Hindsight, settings: Settings, bank: str, texts: list[str]) -> None:
    """The user said ``texts`` in ``bank``, turn ``m<i>`` each in a session of its own; projected."""
    await hs.publish(
        [make_turn(settings, bank, t, session_id=f"m{i}", turn_id=f"m{i}", source="user") for i, t in enumerate(texts)]
    )
    await catch_up_all(settings, hs.log, embedder=hs.embedder)


SPOKEN = [  # one speaker, two languages, as in the demo
    ("s1", "I'm allergic to peanuts, so never suggest snacks with peanuts for the gift boxes."),
    ("s1", "From now on use FedEx for all international orders."),
    ("s1", "thanks"),
    ("s2", "我们决定下个月在上海开第二家店。"),
    ("s2", "国内快递我以后都用顺丰。"),
    ("s2", "我最喜欢的茶是龙井。"),
    ("s2", "好的"),
]


async def test_naming_the_speaker_does_not_make_all_their_other_language_memories_similar(tmp_path):
    """Memories are embedded with their speaker: "is Lin allergic to anything?" was similar to every
    Chinese memory of Lin's by the name alone, and they filled the top above the allergy. The other
    script is matched on content, so the name finds the speaker and the words find the memory."""
    settings = Settings(data_dir=tmp_path, partitions=1)
    async with Hindsight(settings) as hs:
        await hs.publish(
            [
                make_turn(settings, "lin", text, session_id=session, turn_id=f"m{i}", speaker="Lin")
                for i, (session, text) in enumerate(SPOKEN)
            ]
        )
        await catch_up_all(settings, hs.log, embedder=hs.embedder)

        async def top(query: str, n: int) -> list[str]:
            return [turn for h in (await hs.recall("lin", query, limit=n)) for turn in h.source_turn_ids]

        allergy = await top("is Lin allergic to anything?", 3)
        assert allergy[0] == "m0" and not {"m5", "m6"} & set(allergy)
        assert (await top("When does Lin open the Shanghai store?", 1)) == ["m3"]
        assert (await top("Which courier does Lin use inside China?", 1)) == ["m4"]
        assert (await top("Lin 对什么过敏？", 1)) == ["m0"]
        assert (await top("Lin对什么过敏？", 1)) == ["m0"]  # no space: the name still ends at its last letter


PEOPLE = [  # people named in one language and asked about in either
    "王磊在招商银行做程序员。",
    "林晓雯对花生过敏。",  # not "别给她带花生糖": a memory about "her" may be about anyone asked for
    "卡罗琳下个月要去冰岛看极光。",
    "Priya Shah volunteers at the animal shelter every Tuesday.",
    "周敏的猫叫年糕，是一只橘猫。",
    "Marcus Becker is learning Japanese with a phone app.",
    "我最喜欢的茶是龙井。",
    "We moved the shop's database to PostgreSQL last spring.",
]


async def test_a_question_about_someone_the_bank_never_names_gets_nothing_in_either_language(tmp_path):
    """A question that names a person no memory mentions is answered by nothing at the default floor,
    whatever language the memories are in; one that names a person the bank knows, in the other script
    (pinyin, a transliteration) or the same one, is answered by what was said about them."""
    settings = Settings(data_dir=tmp_path, partitions=1)
    async with Hindsight(settings) as hs:
        await user_said(hs, settings, "bi", PEOPLE)

        async def found(query: str) -> list[str]:
            return [turn for h in await hs.recall("bi", query, limit=5) for turn in h.source_turn_ids]

        for query, turn in [
            ("Where does Wang Lei work?", "m0"),  # pinyin of 王磊
            ("What is Lin allergic to?", "m1"),  # 林 of 林晓雯
            ("Where is Caroline going next month?", "m2"),  # 卡罗琳: a transliteration
            ("王磊在哪里上班？", "m0"),
            ("Priya 每周二做什么？", "m3"),  # a Latin name in a Chinese question
            ("周敏的猫叫什么名字？", "m4"),
            ("小周的猫是什么颜色的？", "m4"),  # a short form of 周敏
        ]:
            assert turn in await found(query), query
        for query in [
            "Where does Bram Okafor volunteer?",
            "What language is Thaddeus Oyelaran learning?",
            "赵丽华的猫叫什么名字？",
            "陈医生对什么过敏？",
        ]:
            assert await found(query) == [], query
            assert await hs.recall("bi", query, min_relevance=0), query  # the floor empties it, nothing else
        # a conversation so far names people in passing: what it asks is still answered
        said = "Lin: I ran into Bram Okafor at the station.\nAssistant: Nice!\nLin: Where does Priya volunteer?"
        assert "m3" in await found(said)


async def test_an_other_language_memory_that_is_no_answer_does_not_lead(tmp_path):
    """The demo's bank: "which carrier do we ship with?" once ranked "Lin的国内快递：顺丰" (relevance 0.17, under
    the floor) above the FedEx memory (0.79), on the vote of the other-script list. A memory votes in that
    list only when it is relevant enough to be an answer (``search.CROSS_MIN_RELEVANCE``)."""
    settings = Settings(data_dir=tmp_path, partitions=1)
    turns = [
        json.loads(line) for line in (files("hindsight_es.assets") / "samples" / "demo.jsonl").read_text().splitlines()
    ]
    async with Hindsight(settings) as hs:
        await hs.publish(
            [
                make_turn(
                    settings,
                    "demo",
                    t["text"],
                    session_id=t["session_id"],
                    turn_id=t["turn_id"],
                    occurred_at=datetime.fromisoformat(t["occurred_at"]),
                    **{k: t[k] for k in ("role", "speaker", "source") if k in t},
                )
                for t in turns
            ]
        )
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        hits = await hs.recall("demo", "which carrier do we ship with?", limit=3, min_relevance=0)
        assert hits[0].source_turn_ids == ["s1-3"], [(h.text, h.relevance) for h in hits]
        shunfeng = [h for h in hits if h.source_turn_ids == ["s2-2"]]
        assert all(h.relevance < CROSS_MIN_RELEVANCE for h in shunfeng)  # the case it is about, still under the floor
        # an other-language answer above the floor still leads: "where is the new shop opening?"
        hits = await hs.recall("demo", "where is the new shop opening?", limit=3, min_relevance=0)
        assert hits[0].source_turn_ids == ["s2-1"] and hits[0].relevance >= CROSS_MIN_RELEVANCE


def test_the_other_language_gate_is_the_default_floor():
    assert Settings.model_fields["min_relevance"].default == CROSS_MIN_RELEVANCE


async def test_a_question_in_traditional_chinese_finds_the_simplified_memory_above_the_floor(tmp_path):
    """Found by a user: 數據庫 (Traditional) found nothing at the default floor for a memory written 数据库; the
    embedder reads Traditional poorly (cosine 0.03 against 0.42). Taiwan's word for it (資料庫) is found too."""
    settings = Settings(data_dir=tmp_path, partitions=1)  # the default floor and embedder
    said = ["我们的数据库用的是PostgreSQL。", "我喜欢喝绿茶。"]
    async with Hindsight(settings) as hs:
        await hs.publish([make_turn(settings, "zh", t, session_id="s1", turn_id=f"t{i}") for i, t in enumerate(said)])
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        for query in ("數據庫用什麼？", "資料庫用什麼？", "数据库用什么？"):
            hits = await hs.recall("zh", query, limit=3)
            assert hits and "PostgreSQL" in hits[0].text, (query, hits)
