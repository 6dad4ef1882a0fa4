"""A reply to a short question is found by what the question was about (``memory.indexing.reply_context``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from streams.service import catch_up_all

# Two friends' sessions. The exam's date is said in a reply to "When's that again?", which names nothing:
# the exam is named in the turn before the question.
SESSIONS = [
    [
        ("Marisol", "The trial is over, no more nine-hour days in court. I can finally practice for the CRR exam."),
        ("Dev", "When's that again?"),
        ("Marisol", "The 24th. Two weeks from yesterday."),
        ("Dev", "You'll be ready. Pico must miss you."),
    ],
    [
        ("Dev", "My sister is coming to visit next month, and I still need to clean the flat."),
        ("Marisol", "When does she arrive?"),
        ("Dev", "On the 3rd, by the early train."),
    ],
    [
        ("Marisol", "Pico got his first ribbon at the herding trial on Saturday."),
        ("Dev", "That's brilliant, well done both of you."),
        ("Marisol", "We practiced for weeks. When is your next gig?"),
        ("Dev", "Friday the 12th at the Crown."),
    ],
]


async def test_the_answer_to_a_short_question_is_found_by_the_topic_before_it(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1)
    start = datetime(2023, 6, 11, 15, 0, tzinfo=UTC)
    turns = [
        make_turn(
            settings,
            "friends",
            text,
            session_id=f"s{s}",
            turn_id=f"s{s}-{i}",
            speaker=speaker,
            occurred_at=start + timedelta(days=7 * s, minutes=i),
        )
        for s, session in enumerate(SESSIONS)
        for i, (speaker, text) in enumerate(session)
    ]
    async with Hindsight(settings) as hs:
        await hs.publish(turns)
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        hits = await hs.recall("friends", "When is Marisol's CRR exam?", limit=2)
        assert "s0-2" in [t for h in hits for t in h.source_turn_ids], [h.text for h in hits]
        # a reply to a question that names its own topic is indexed with that question alone
        hits = await hs.recall("friends", "When did Dev's sister arrive?", limit=2)
        assert "s1-2" in [t for h in hits for t in h.source_turn_ids], [h.text for h in hits]


AGENT = [
    ("user", "I'm finally booking the trip to Kyoto for the cherry blossoms."),
    ("assistant", "Lovely! When?"),
    ("user", "March 28th, for a week."),
    ("user", "Also my sister Ana is moving to Lisbon in June."),
    ("assistant", "Oh nice. Why?"),
    ("user", "A new job at a bank there."),
]


async def test_an_agent_session_recalls_the_answer_not_the_assistants_short_question(tmp_path):
    from hindsight_es.app.local import local

    async with local(Settings(data_dir=tmp_path, partitions=1)) as hs:
        for i, (role, text) in enumerate(AGENT):
            await hs.retain("u", text, session_id="s1", turn_id=f"t{i}", role=role, wait=True)
        for query, answer in [("When is my Kyoto trip?", "t2"), ("Why is Ana moving to Lisbon?", "t5")]:
            hits = await hs.recall("u", query, limit=3)
            assert hits[0].source_turn_ids == [answer], [h.text for h in hits]
            assert not {"t1", "t4"} & {t for h in hits for t in h.source_turn_ids}, [h.text for h in hits]
        # the user's next message in a row answers "When?" too, but is not about Kyoto
        hits = await hs.recall("u", "When is my Kyoto trip?", limit=2)
        assert {t for h in hits for t in h.source_turn_ids} == {"t0", "t2"}, [(h.text, h.relevance) for h in hits]
