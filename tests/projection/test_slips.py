"""A slip corrected in the next message supersedes what it corrects, through the bank actor: the corrected
statement is recalled (found by the words of the earlier message), the earlier one is kept in history."""

from __future__ import annotations

from hindsight_es.app.bench import banks as bench
from hindsight_es.client import Hindsight, make_turn
from hindsight_es.config import Settings
from streams.service import catch_up_all


async def test_the_statement_as_corrected_is_recalled_and_the_slip_kept_in_history(tmp_path):
    settings = Settings(data_dir=tmp_path, partitions=1, embedder="minilm")
    said = [
        ("s1", "My flight to Denver is on July 12."),
        ("s1", "thanks!"),  # content-free, not retained: the correction still follows the flight
        ("s1", "Sorry, make that July 14."),
        ("s2", "我们周六下午三点开会。"),
        ("s2", "不对，是四点。"),
        ("s3", "The rent is $5,000 a month."),
        ("s4", "Wait, $5,200."),  # another session: no statement of its own to correct
        ("s5", "My birthday is May 3."),
        ("s5", "Oops, I meant May 4."),  # keyed: the key rules correct it, as before
        ("s6", "My son Theo has swim practice on Tuesdays at 4pm."),  # keyed (his name), but not by the time
        ("s6", "Sorry, 5pm."),
    ]
    async with Hindsight(settings) as hs:
        turns = [make_turn(settings, "u", text, session_id=s, turn_id=f"t{i}") for i, (s, text) in enumerate(said)]
        await hs.publish(turns)
        await catch_up_all(settings, hs.log, embedder=hs.embedder)

        flight = await hs.recall("u", "when is my flight to Denver?", limit=3)
        assert flight[0].text == "My flight to Denver is on July 14."
        assert flight[0].source_turn_ids == ["t0", "t2"]  # its words and its value: erasing either erases it
        assert not any("July 12" in h.text for h in flight)
        assert "Sorry, make that July 14." not in [h.text for h in flight]  # its episode says nothing else
        meeting = await hs.recall("u", "周六几点开会？", limit=3)
        assert meeting[0].text == "我们周六下午四点开会。"
        assert not any("三点" in h.text for h in meeting)
        rent = await hs.recall("u", "how much is the rent?", limit=3)
        assert rent[0].text == "The rent is $5,000 a month."  # not corrected from another session
        birthday = await hs.recall("u", "when is my birthday?", limit=3)
        assert "May 4" in birthday[0].text and not any("May 3" in h.text for h in birthday)

        swim = await hs.recall("u", "what time is Theo's swim practice?", limit=3)
        assert swim[0].text == "My son Theo has swim practice on Tuesdays at 5pm."
        assert not any("4pm" in h.text for h in swim)

        history = await hs.history("u", flight[0].memory_id)
        assert [m["text"] for m in history["supersedes"]] == ["My flight to Denver is on July 12."], history
        assert [t["turn_id"] for t in history["source_turns"]] == ["t0", "t2"]


async def test_bench_banks_counts_stale_and_current_answers_to_questions_on_a_correction(tmp_path):
    """``bench banks``' correction figures: the uncorrected statement among the top 3 is stale; a top hit citing
    the correction is current. A reply that is no correction leaves the earlier statement current in memory."""

    def bank(name: str, second: str) -> dict:
        return {
            "bank": name,
            "kind": "event",
            "messages": [
                {"id": f"{name}/1", "text": "My flight to Denver is on July 12."},
                {"id": f"{name}/2", "text": second},
            ],
            "questions": [
                {"question": "When is my flight to Denver?", "evidence": [f"{name}/2", f"{name}/1"], "type": "update"},
                {"question": "Where am I flying?", "evidence": [f"{name}/1"], "type": "simple"},  # not counted
            ],
        }

    settings = Settings(data_dir=tmp_path, partitions=1, embedder="minilm")
    async with Hindsight(settings) as hs:
        slipped, unread = [bank("slip", "Sorry, make that July 14.")], [bank("other", "Hmm, July 14 would be nicer.")]
        await bench.ingest(hs, slipped + unread)
        await catch_up_all(settings, hs.log, embedder=hs.embedder)
        assert await bench.corrections(hs, slipped) == {"n": 1, "stale@3": 0.0, "current@1": 1.0}
        assert (await bench.corrections(hs, unread))["stale@3"] == 1.0
        # the figures per question type beside the overall ones, the product's and the raw baseline's alike
        ours, raw = await bench.evaluate(hs, slipped + unread), bench.raw_baseline(hs.embedder, slipped + unread)
        for found in (ours, raw):
            assert {k: v["n"] for k, v in found.items()} == {"simple": 2, "update": 2, "overall": 4}
        assert ours["simple"]["R@1"] == 1.0  # "Where am I flying?" has one message to cite, and finds it
