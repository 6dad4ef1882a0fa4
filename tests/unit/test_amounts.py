"""Answer types for amounts: a question that asks for money or an age prefers the memories that state one."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from hindsight_es.client import Hindsight
from hindsight_es.config import Settings
from hindsight_es.recall.amounts import asks_amounts, says_amount
from hindsight_es.recall.query import parse_query
from hindsight_es.recall.scoring import rescore
from streams.service import catch_up_all

NOW = datetime(2024, 5, 1, tzinfo=UTC)
MONEY, AGE = frozenset({"money"}), frozenset({"age"})


@pytest.mark.parametrize(
    ("query", "kinds"),
    [
        ("新车多少钱？", MONEY),
        ("装修一共得花多少钱？", MONEY),
        ("新房子的租金是多少？", MONEY),
        ("摄影班学费多少？", MONEY),
        ("How much did the bike cost?", MONEY),
        ("What's the rent?", MONEY),
        ("What was the ticket price?", MONEY),
        ("柠檬树多大了？", AGE),
        ("张国强的孩子几岁？", AGE),
        ("How old is Hana?", AGE),
        # the amount's word as a topic, not what is asked
        ("邱志刚几号收房租？", frozenset()),
        ("每月发工资后存的那笔钱放在哪？", frozenset()),
        ("How much do you sleep?", frozenset()),
        ("房子多大？", frozenset()),
        ("When is the rent due?", frozenset()),
    ],
)
def test_questions_that_ask_for_an_amount(query: str, kinds: frozenset[str]) -> None:
    assert asks_amounts(query) == kinds


@pytest.mark.parametrize(
    ("text", "kinds", "says"),
    [
        ("落地价是二十四万元。", MONEY, True),
        ("我在华为官方商城买的，花了六千九百九十九元。", MONEY, True),
        ("预算超了，算下来得二十八万，哪些地方还能省", MONEY, True),
        ("新家两室一厅，89平，租金每月6500", MONEY, True),
        ("It was $45 with the tip", MONEY, True),
        ("my rent is 1,800 a month", MONEY, True),
        ("今天走了三万步", MONEY, False),
        ("每月20号交", MONEY, False),
        ("I ran 5k today", MONEY, False),
        ("we paid 2 visits to the clinic", MONEY, False),
        ("它已经三岁了，今年第一次结果。", AGE, True),
        ("刘洋比我小两岁，95年的", AGE, True),
        ("a 5-year-old greyhound named Juno", AGE, True),
        ("My birthday is in February. I will be 37.", AGE, True),
        ("She is 5 minutes late again", AGE, False),
        ("他们家有一对双胞胎儿子", AGE, False),
    ],
)
def test_texts_that_state_an_amount(text: str, kinds: frozenset[str], says: bool) -> None:
    assert says_amount(kinds, text) is says


def test_an_amount_question_prefers_the_memory_that_states_one() -> None:
    rows = {
        "named": {"text": "我们家买了一辆新车。"},
        "colour": {"text": "新车的颜色是宝石红。"},
        "price": {"text": "落地价是二十四万元。"},
    }
    fused = [("named", 0.10), ("colour", 0.09), ("price", 0.07)]
    price = rescore(fused, rows, parse_query("新车多少钱？", NOW))
    assert [m for m, _ in price][0] == "price"
    colour = rescore(fused, rows, parse_query("新车是什么颜色？", NOW))
    assert [m for m, _ in colour] == ["named", "colour", "price"]  # other questions keep the fused order
    assert sorted(m for m, _ in price) == sorted(rows)  # reordered, never added or removed


async def test_recall_and_explain_prefer_the_stated_age(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    async with Hindsight(settings) as hs:
        for text in ("我在阳台上种了一盆柠檬树。", "柠檬树需要每天晒六个小时太阳。", "它已经三岁了，今年第一次结果。"):
            await hs.record_turn("plant", text, session_id="s1")
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        hits = await hs.recall("plant", "柠檬树多大了？", min_relevance=0)
        assert "三岁" in hits[0].text
        reasons = await hs.browser.explain("plant", "柠檬树多大了？", hits)
        assert "states age, which the query asks" in reasons[hits[0].memory_id]
        assert all("states age" not in r for h in hits[1:] for r in reasons[h.memory_id])
