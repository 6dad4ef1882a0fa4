"""Deterministic synthetic conversations for the benchmarks: bilingual turns with real-looking content."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from hindsight_es.client import make_turn
from hindsight_es.config import Settings
from hindsight_es.events import TurnRecorded

_EN = [
    "I moved to {city} last {when}.",
    "We use {db} for the {thing} service.",
    "My favorite color is {color}.",
    "I'm going to visit {city} next {when} with my sister.",
    "Please always reply in {lang}.",
    "Yesterday I painted a {color} sunrise by the lake.",
    "We decided to go with {db} after the outage.",
    "I'm allergic to {food}.",
    "The {thing} meeting went well, thanks for asking!",
    "ok thanks",
]
_ZH = [
    "我上个{when_zh}搬到了{city_zh}。",
    "我们的{thing_zh}用的是 {db}。",
    "我最喜欢的颜色是{color_zh}。",
    "下周我要去{city_zh}出差。",
    "我对{food_zh}过敏。",
    "好的，谢谢",
    "我们决定下个月换成 {db}。",
]
_FILL = {
    "city": ["Paris", "Berlin", "Tokyo", "Austin", "Lisbon"],
    "when": ["week", "month", "year"],
    "db": ["PostgreSQL", "MySQL", "SQLite", "MongoDB"],
    "thing": ["billing", "search", "orders", "auth"],
    "color": ["blue", "green", "red"],
    "lang": ["English", "Chinese"],
    "food": ["peanuts", "shellfish"],
    "when_zh": ["月", "星期"],
    "city_zh": ["上海", "杭州", "深圳"],
    "thing_zh": ["订单系统", "搜索服务"],
    "color_zh": ["红色", "蓝色"],
    "food_zh": ["花生", "海鲜"],
}


def synthetic_turns(settings: Settings, bank: str, n: int, seed: int = 7) -> list[TurnRecorded]:
    """Deterministic bilingual turns (70% English), 20 turns per session, one minute apart."""
    rng = random.Random(seed)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    turns = []
    for i in range(n):
        template = rng.choice(_EN if rng.random() < 0.7 else _ZH)
        text = template.format(**{k: rng.choice(v) for k, v in _FILL.items()}) + f" (#{i})"
        turns.append(
            make_turn(
                settings,
                bank,
                text,
                session_id=f"s{i // 20}",
                turn_id=f"t{i}",
                occurred_at=start + timedelta(minutes=i),
            )
        )
    return turns
