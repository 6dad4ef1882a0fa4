"""The rule extractor on phrasings ``rules/27`` changed: a hometown in a conjunct after where one lives ("… but
grew up in …"), whoever's sentence it is; a third person who lives somewhere is nobody's user; 我在 a known
place as a clause of its own; an organisation named by its ending (科技, 公司, 银行 …) where one does the
work. My own sentences."""

from __future__ import annotations

import pytest

from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "I live in Sacramento but grew up in El Paso, so the heat is fine.",
            [("user/hometown", "el paso"), ("user/location", "sacramento")],
        ),
        ("I live in Leeds and grew up in York.", [("user/hometown", "york"), ("user/location", "leeds")]),
        (
            "My brother lives in Lyon but grew up in Nice.",
            [("brother/hometown", "nice"), ("brother/location", "lyon")],
        ),
        # someone else's, by name: not the speaker's
        ("Tom lives in Rome but grew up in Milan.", []),
        ("Tom lives in Rome, grew up in Milan.", []),
        # 我在 a known place, a clause of its own
        ("我在杭州，平时在阿里上班", [("user/employer", "阿里"), ("user/location", "杭州")]),
        ("我在成都，想找个周末能去的地方", [("user/location", "成都")]),
        # not where one lives: on a trip there, busy, or a place with more said after it
        ("我在杭州出差，明天回", []),
        ("我在开会，晚点说", []),
        ("我在北京。", []),
        # an organisation, by its name's ending, where one does the work
        (
            "顺便说下我是后端，在杭州云栈科技写Java。",
            [("user/employer", "杭州云栈科技"), ("user/programming_language", "java")],
        ),
        ("我在招商银行当柜员", [("user/employer", "招商银行"), ("user/occupation", "柜员")]),
        ("我在医院看病", []),
        ("他在阿里科技写Java", []),
    ],
)
def test_phrasing(text, expected):
    assert pairs(text) == expected
