"""The rule extractor on phrasings ``rules/24`` added (more facts said in passing), and the ones they must
leave alone. My own sentences, not the labelled sets'."""

from __future__ import annotations

import pytest

from tests.unit.test_rule_phrasings import pairs


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a diet one is on; not food asked for
        ("We're doing a low-FODMAP diet at home now.", [("user/diet", "low-fodmap")]),
        ("I'm on paleo, so no grains please.", [("user/diet", "paleo")]),
        ("Can you find keto recipes?", []),
        ("I'm on keto friendly snacks all day", []),
        # trigger words typed wrong
        ("im alergic to kiwi", [("user/allergy:kiwi", "kiwi")]),
        ("I've been vegitarian for a year.", [("user/diet", "vegetarian")]),
        # a birthday coming up
        ("My bday's coming up on the 9th of May, any ideas?", [("user/birthday", "may 9th")]),
        # a job one qualified as, the speaker's or a relative's; how a job is held is no part of it
        ("I retrained as a plumber after the factory closed.", [("user/occupation", "plumber")]),
        ("Dad's just qualified as a paramedic!", [("father/occupation", "paramedic")]),
        ("I'm a part-time bookkeeper.", [("user/occupation", "bookkeeper")]),
        ("兼职会计，周末在家做账。", []),
        # a pet by its kind and what it is called
        ("The kitten's called Miso now.", [("user/pet:cat", "miso")]),
        ("our parrot is named Kiwi", [("user/pet:parrot", "kiwi")]),
        ("The movie's called Arrival.", []),
        # a kind of workplace is no employer; a name ending like an organisation is no place
        ("I work at a garden centre.", []),
        ("I just moved over to Northwind Logistics, same job.", [("user/employer", "northwind logistics")]),
        ("We moved to Bristol in May.", [("user/location", "bristol")]),
        ("我在社区医院当护士。", [("user/occupation", "护士")]),
        ("我在华山医院当护士。", [("user/employer", "华山医院"), ("user/occupation", "护士")]),
        # a second verb of the same subject
        ("My son lives in Leeds and works for Arup.", [("son/employer", "arup"), ("son/location", "leeds")]),
        ("I'm a teacher and live in Hull.", [("user/location", "hull"), ("user/occupation", "teacher")]),
        ("My son and I live in Leeds.", [("user/location", "leeds")]),
        # a job after what kind of one it is; an employer one reported to; a relative who went to work somewhere
        ("我是个开夜班的出租车司机。", [("user/occupation", "出租车司机")]),
        ("上周一去美团报到了。", [("user/employer", "美团")]),
        ("我儿子去杭州工作了。", [("son/location", "杭州")]),
        # a time gone by; a statement after "from now on" is no instruction; a "don't" of a request is its own
        ("小时候我天天喝汽水。", []),
        ("Reply in Spanish from now on, my English is rusty.", [("user/reply_language", "spanish")]),
        ("帮我写段祝福语，别太长。", []),
        ("以后别用感叹号。", [("user/instruction:用感叹号", "never")]),
        # the second round (read from the thirty-first set's misses)
        ("We moved up to Carlisle a couple of months ago.", [("user/location", "carlisle")]),
        ("My back is killing me after the move.", []),
        (
            "My husband's a chef at Dishoom and his knees are shot.",
            [("husband/employer", "dishoom"), ("husband/occupation", "chef")],
        ),
        ("I've swapped tea for hot chocolate in the evenings.", [("user/drink", "hot chocolate")]),
        ("The dog's name is officially Pepper now.", [("user/pet:dog", "pepper")]),
        ("My birthday falls on the 2nd of July.", [("user/birthday", "july 2nd")]),
        (  # the subject taught names the job, as in "I teach piano on weekends" (rules/45)
            "I teach piano at Castle Music School on weekends.",
            [("user/employer", "castle music school"), ("user/occupation", "piano teacher")],
        ),
        ("We do paleo at home.", [("user/diet", "paleo")]),
        ("上个月跳槽到了美团，新同事都挺好。", [("user/employer", "美团")]),
        ("我妹搬到杭州了，离我近多了。", [("sister/location", "杭州")]),
        ("我吃素，而且对花生过敏。", [("user/allergy:花生", "花生"), ("user/diet", "vegetarian")]),
        ("我叫李娜，今年35，老家广东梅州的。", [("user/age", "35"), ("user/hometown", "梅州"), ("user/name", "李娜")]),
        ("我是开货车的司机。", [("user/occupation", "司机")]),
        ("下个月要去昆明出差。", [(None, "去昆明出差")]),
        ("明天要下雨，记得带伞。", []),
        ("We've booked Lisbon for the last week of May.", [(None, "lisbon for the last week of may")]),
        # a count right after the name one gives is one's age
        (
            "Hi, I'm Priya, 27, and I live in Leeds.",
            [("user/age", "27"), ("user/location", "leeds"), ("user/name", "priya")],
        ),
        ("I'm Sam, 2 kids and a dog.", [("user/name", "sam")]),
    ],
)
def test_phrasings(text, expected):
    assert pairs(text) == expected
