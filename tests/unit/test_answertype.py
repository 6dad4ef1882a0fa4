"""Answer types: a question that asks when prefers memories that say when; nothing is added or removed."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.recall.answertype import asks_current, asks_when, says_change, says_when
from hindsight_es.recall.query import parse_query
from hindsight_es.recall.scoring import rescore
from streams.service import catch_up_all

NOW = datetime(2023, 11, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    "query",
    [
        "When did Melanie paint a sunrise?",
        "when Jon has lost his job?",
        "So when is the party?",
        "How long has Caroline had her friends?",
        "What year did Jon start his business?",
        "How many weeks did the trip take?",
        "我什么时候去的上海？",
        "车险几月续保？",
        "妈妈哪天去医院复查？",
        "这个项目做了多久？",
    ],
)
def test_questions_that_ask_when(query: str) -> None:
    assert asks_when(query)
    assert asks_when(f"Assistant: Hi, how are you?\nUser: {query}")  # a dialogue's last turn asks it


@pytest.mark.parametrize(
    "query",
    [
        "Who supports Caroline when she has a negative experience?",  # a conjunction, not a question word
        "What is Jon's job?",
        "Where do we live now?",
        "我对什么过敏？",
        # a dialogue asks what its last turn asks: the earlier "什么时候" was answered two turns ago
        "Bart: 你上次是什么时候去的动物园？\nAssistant: 上个月。\nBart: 我最喜欢的动物是什么来着？",
    ],
)
def test_questions_that_do_not(query: str) -> None:
    assert not asks_when(query)


@pytest.mark.parametrize(
    "text",
    [
        "Yeah, I painted that lake sunrise last year!",
        "We went camping with my fam two weekends ago.",
        "I got mentored by this amazing business dude yesterday!",
        "The movers are booked for the 3rd of June.",
        "The roof was replaced in 2019.",
        "My knee started hurting after the long run last Sunday.",
        "我们八月中旬出发。",
        "云南的机票上周二就订好了。",
        "这辆车是前年春天买的。",
        "她五年前退休的。",
        "演唱会从晚上七点半开始，唱了三个多小时。",
        "会议预计开四个小时。",
    ],
)
def test_texts_that_say_when(text: str) -> None:
    assert says_when(text)


@pytest.mark.parametrize(
    "text",
    [
        "Wow, Caroline! Books have such an awesome power!",
        "I may go to the concert with Mar.",  # "may" and "mar" are not read as months
        "My favourite colour is blue.",
        "我喜欢喝不加糖的绿茶。",
        "孩子最想去的是玉龙雪山。",
        "能不能便宜一点？",
    ],
)
def test_texts_that_do_not(text: str) -> None:
    assert not says_when(text)


def test_a_when_question_prefers_the_memory_that_says_when() -> None:
    rows = {
        "talk": {"text": "Books have such an awesome power!"},
        "dated": {"text": "This book I read last year reminds me to pursue my dreams."},
    }
    fused = [("talk", 0.10), ("dated", 0.08)]
    when = rescore(fused, rows, parse_query("When did Melanie read the book?", NOW))
    assert [m for m, _ in when] == ["dated", "talk"]
    what = rescore(fused, rows, parse_query("What book did Melanie read?", NOW))
    assert [m for m, _ in what] == ["talk", "dated"]  # other questions keep the fused order
    assert sorted(m for m, _ in when) == sorted(rows)  # reordered, never added or removed


async def test_explain_says_a_hit_was_preferred_for_saying_when(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    async with Hindsight(settings) as hs:
        await hs.record_turn("mel", "Yeah, I painted that lake sunrise last year!", session_id="s1", speaker="Melanie")
        await hs.record_turn("mel", "Painting is a great outlet for me.", session_id="s1", speaker="Melanie")
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        when = await hs.recall("mel", "When did Melanie paint a sunrise?", min_relevance=0)
        reasons = await hs.browser.explain("mel", "When did Melanie paint a sunrise?", when)
        dated = next(h for h in when if "last year" in h.text)
        assert "says when, which the query asks" in reasons[dated.memory_id]
        assert all("says when" not in r for h in when if h is not dated for r in reasons[h.memory_id])
        what = await hs.recall("mel", "What did Melanie paint?", min_relevance=0)
        reasons = await hs.browser.explain("mel", "What did Melanie paint?", what)
        assert all("says when" not in r for rs in reasons.values() for r in rs)


@pytest.mark.parametrize(
    ("query", "current"),
    [
        ("王婷现在哪天到上海？", True),
        ("国庆这趟旅行最后定的目的地是哪里？", True),
        ("我目前在吃的降压药是什么？", True),
        ("Which carrier do we use now?", True),
        ("Where did they end up going in the end?", True),
        ("搬家到底定在哪天？", True),  # 到底: the settled answer, after what was said before
        ("What time are we meeting at this point?", True),
        ("王婷哪天到上海？", False),
        ("Which carrier did we use in 2021?", False),
    ],
)
def test_questions_that_ask_how_things_stand_now(query: str, current: bool) -> None:
    assert asks_current(query) is current


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("刚通知年会改到1月19号了", True),
        ("等下我记错了，门口那个站是8号线的", True),
        ("复诊的时候医生把药换成了厄贝沙坦", True),
        ("We switched to UPS last month.", True),
        ("The dentist moved it to Thursday.", True),
        # a value moved up or down, a plan that fell through, a thing renamed
        ("磨了一下午，砍到8万6了！", True),
        ("打针推到下周五了", True),
        ("小叔子一家不来了，人数变9个了", True),
        ("talked him down to $750 because of the derailleur", True),
        ("monthly's going up to $85 starting next month", True),
        ("rent went down by $100", True),
        ("we're renaming her Juniper", True),
        ("公司年会定在1月18号", False),
        ("We ship with FedEx.", False),
        # moving about, not a value moving: no number after "to"
        ("I went up the hill and down to the beach.", False),
        ("She cut the cake to share with everyone.", False),
    ],
)
def test_memories_that_say_what_changed(text: str, change: bool) -> None:
    assert says_change(text) is change
