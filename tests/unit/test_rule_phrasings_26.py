"""The rule extractor on phrasings ``rules/26`` changed: a title's or an abbreviation's dot before a name is
not the end of a value; 终于 and 总算 before a move; a new employer after leaving, and looking for work is none.
My own sentences."""

from __future__ import annotations

import pytest

from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("My dentist is Dr. Lee.", [("user/dentist", "dr. lee")]),
        ("My doctor is Dr. Anna Kim, she is great.", [("user/doctor", "dr. anna kim")]),
        ("I moved to St. Louis last year.", [("user/location", "st. louis")]),
        # a dot that ends the sentence still ends the value
        (
            "My favourite drink is tea. I also like coffee.",
            [("user/favorite:drink", "tea"), ("user/preference:coffee", "coffee")],
        ),
        ("My dentist is on Main St. He is nice.", [("user/dentist", "on main st")]),
        # a move with its subject left out, after 终于 or 总算
        ("终于搬到望京了，骑车十分钟到公司，爽。", [("user/location", "望京")]),
        ("我们总算搬去深圳了", [("user/location", "深圳")]),
        # the new employer after leaving the old one, or 去 X 上班; looking for work is no employer
        ("我从腾讯离职了，现在在字节跳动。", [("user/employer", "字节跳动")]),
        ("我去小米上班了。", [("user/employer", "小米")]),
        ("我离职了，现在在家带孩子", []),
        ("我在找工作", []),
        ("辞职了，在找工作", []),
        ("我在家工作", []),
        ("我每天坐地铁去公司上班", []),
    ],
)
def test_phrasing(text, expected):
    assert pairs(text) == expected
