"""The write filter: pleasantries and acknowledgements (寒暄、确认) are not memories; content after one is."""

from __future__ import annotations

import pytest

from hindsight_es.extraction import extract
from hindsight_es.extraction.filler import is_filler


@pytest.mark.parametrize(
    "text",
    [
        "thanks",
        "Thank you so much!",
        "ok cool",
        "Got it, sounds good.",
        "Nice to meet you, Lin. How can I help with the shop?",
        "Hey Mel! Good to see you! How have you been?",
        "That's so cool, thanks for sharing!",
        "You're welcome! Let me know if you need anything else.",
        "Thanks, Caroline!",
        "Have a great weekend!",
        "👍👍",
        "hahahahahahahahahahahahahahahahahahahahahahahahahahahahaha",
        "好的",
        "好的，谢谢",
        "收到，谢谢！",
        "嗯嗯，好的呀",
        "谢谢提醒！",
        "你好，Lin，有什么可以帮你的？",
        "晚安～",
        "哈" * 80,
    ],
)
def test_pleasantries_and_acknowledgements_are_filler(text):
    assert is_filler(text)
    assert extract(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "thanks — and book the 9:00 train",
        "Thanks! By the way, I moved to Shanghai.",
        "OK, Monday.",
        "好的，明天",
        "好的，谢谢，我们现在住在上海。",
        "Congrats on the new job!",
        "No, it's PostgreSQL.",
        "I went hiking yesterday.",
        "Where do I live?",
    ],
)
def test_a_turn_with_content_is_kept(text):
    assert not is_filler(text)
    assert extract(text)[0].kind == "episode"
