"""The rule extractor on Traditional Chinese (``rules/31``): a turn gets the keys and values its Simplified form
gets, so a later turn in either script, or in English, supersedes it; its statements and quotes are in the
script it was written in; a drink keeps the words that make it a kind of its kind ("珍珠奶茶")."""

from __future__ import annotations

import opencc
import pytest

from hindsight_es.extraction.rules import extract
from tests.unit.test_rule_phrasings import pairs

_MAINLAND = opencc.OpenCC("tw2sp")  # Simplified, with the mainland's words for 資料庫, 程式


@pytest.mark.parametrize(
    "text",
    [
        "我的貓叫咪咪。",
        "我們公司用 MySQL 當資料庫。",
        "我住在臺北，在台積電上班。",
        "我對花生過敏。",
        "我女兒今年六歲。",
        "我老婆每天都喝咖啡。",
        "我們團隊用 Python 寫後端。",
        "以後用繁體中文回答我。",
        "我最近不喝咖啡了，改喝綠茶。",
        "我的程式語言是 Go。",
    ],
)
def test_a_traditional_turn_gets_the_keys_and_values_of_its_simplified_form(text: str) -> None:
    assert pairs(text), text
    assert pairs(text) == pairs(_MAINLAND.convert(text))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我的貓叫咪咪。", [("user/pet:cat", "咪咪")]),
        ("我的猫叫花花。", [("user/pet:cat", "花花")]),
        ("My cat is called Tom.", [("user/pet:cat", "tom")]),
        ("我們公司用 MySQL 當資料庫。", [("team/database", "mysql")]),
        ("我们公司用MySQL当数据库。", [("team/database", "mysql")]),
        ("我們的伺服器都放在 AWS。", [("team/cloud_provider", "aws")]),
    ],
)
def test_one_key_per_attribute_in_every_script(text: str, expected: list[tuple[str, str]]) -> None:
    assert pairs(text) == expected


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("我的貓叫咪咪。", "用戶的貓叫咪咪"),
        ("我們公司用 MySQL 當資料庫。", "團隊的資料庫：MySQL"),  # the speaker's word for it, not 數據庫
        ("我住在臺北。", "用戶住在臺北"),  # 臺 as written, not s2tw's 台
        ("我在台積電上班。", "用戶在台積電工作"),  # 台 as written, not s2t's 臺
        ("我們的伺服器都放在 AWS。", "團隊的雲服務：AWS"),  # not 雲伺服: 服务 is not the speaker's word here
        ("我的猫叫花花。", "用户的猫叫花花"),  # Simplified stays Simplified
    ],
)
def test_a_statement_is_in_the_script_it_was_said_in(text: str, statement: str) -> None:
    typed = [c for c in extract(text) if c.kind != "episode"]
    assert [c.text for c in typed] == [statement]


def test_a_quote_is_the_speakers_own_words() -> None:
    typed = [c for c in extract("我叫小明，我的貓叫咪咪。") if c.key == "user/pet:cat"]
    assert [c.quote for c in typed] == ["我的貓叫咪咪。"]


@pytest.mark.parametrize(
    ("text", "expected", "shown"),
    [
        ("最喜歡喝珍珠奶茶", ("user/drink", "bubble tea"), "用戶的飲品：珍珠奶茶"),
        ("最喜欢喝珍珠奶茶", ("user/drink", "bubble tea"), "用户的饮品：珍珠奶茶"),
        ("我每天都喝港式奶茶", ("user/drink", "港式奶茶"), "用户的饮品：港式奶茶"),
        ("我爱喝无糖豆浆", ("user/drink", "无糖豆浆"), "用户的饮品：无糖豆浆"),
        # how it is made or served, a count, or a drink before the drink is no kind of it
        ("我每天早上都喝一杯现磨豆浆", ("user/drink", "soy milk"), "用户的饮品：豆浆"),
        ("我每天都要喝一杯奶茶", ("user/drink", "milk tea"), "用户的饮品：奶茶"),
        ("我每天喝燕麦奶拿铁。", ("user/drink", "latte"), "用户的饮品：拿铁"),
    ],
)
def test_a_drink_keeps_the_words_that_make_it_a_kind(text: str, expected: tuple[str, str], shown: str) -> None:
    typed = [c for c in extract(text) if c.key == "user/drink"]
    assert [(c.key, c.value, c.text) for c in typed] == [(*expected, shown)]
