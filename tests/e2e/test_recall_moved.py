"""A thing the owner moved to another time is recalled at its new time; its first time stays in history and
answers a question about what held first (``memory.revisions``, ``recall.asked.asks_first_held``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hindsight_es.app.local import local
from hindsight_es.config import Settings

TURNS = {
    "en": (
        "Also I have a dentist appointment on Tuesday before we leave.",
        "Thanks, that helps!",
        "Actually the dentist moved my appointment to Thursday.",
    ),
    "zh": ("周六约了看房，在莘庄那边。", "好的，谢谢！", "看房改到周日了。"),
}
ASKED = {
    "en": ("when is my dentist appointment?", "when was my dentist appointment originally?", "Thursday", "Tuesday"),
    "zh": ("看房是哪天？", "看房最早约的是哪天？", "周日", "周六"),
}


@pytest.mark.parametrize("lang", ["en", "zh"])
async def test_a_moved_appointment_is_recalled_at_its_new_time_and_its_first_time_when_asked(
    tmp_path: Path, lang: str
) -> None:
    now_q, first_q, new, old = ASKED[lang]
    async with local(Settings(data_dir=tmp_path / "data")) as hs:
        for text in TURNS[lang]:
            await hs.retain("maya", text, session_id="s1", wait=True)
        current = [hit.text for hit in await hs.recall("maya", now_q, limit=5)]
        first = [hit.text for hit in await hs.recall("maya", first_q, limit=5)]
    assert new in current[0] and not any(old in text for text in current), current
    assert any(old in text for text in first), first


async def test_a_question_about_before_the_change_finds_the_earlier_time(tmp_path: Path) -> None:
    async with local(Settings(data_dir=tmp_path / "data")) as hs:
        for text in TURNS["zh"]:
            await hs.retain("maya", text, session_id="s1", wait=True)
        before = [hit.text for hit in await hs.recall("maya", "改到周日以前，看房约的是哪天？", limit=5)]
    assert any("周六" in text for text in before), before
