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


@pytest.mark.parametrize(
    "text",
    [
        "Oh that's very sweet of you, thank you dear.",  # a pleasantry composed of light words, not listed whole
        "thanks, that's exactly what I needed",
        "ok that was super helpful, ty",
        "thank youuu soooo much",  # held letters
        "Touché, good point.",  # accents
        "ok谢谢",  # two scripts without a space
        "謝謝你，辛苦了",  # Traditional
        "好的好的，真的太贴心了",
        "哈哈哈太好笑了吧",
        "收到，明白了，谢谢老铁",
        "sorry, typo",
    ],
)
def test_pleasantries_made_of_light_words_are_filler(text):
    assert is_filler(text)
    assert extract(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "help me",  # light words with no pleasantry in them
        "that's very sweet of you, my son turns 6 tomorrow",
        "thanks, that's perfect for my mum's birthday",
        "thank you dear, I'm flying to Lisbon on Friday",
        "ok谢谢，我下周三去体检",
        "謝謝你，我女兒叫小美",
        "真的太贴心了，我老婆很喜欢",
        "I love sushi",
        "Glad it helped — my exam is at 9.",
    ],
)
def test_a_look_alike_with_content_is_kept(text):
    assert not is_filler(text)
    assert extract(text)[0].kind == "episode"
