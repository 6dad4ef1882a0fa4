"""LoCoMo evidence retrieval through the real pipeline: one bank per conversation.

Each dialog turn is published as a ``TurnRecorded`` (turn id = dia_id, session date = the turn's
time, image captions kept as "[shares image: …]"); every question goes through ``Hindsight.recall``
and the hits are mapped to the ranked, distinct source turn ids they cite.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hindsight_es.app.bench.metrics import aggregate, score_ranking
from hindsight_es.client import Hindsight, make_turn

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_EVIDENCE = re.compile(r"D:?(\d+):(\d+)")


def parse_session_time(text: str) -> datetime:
    """'1:56 pm on 8 May, 2023' -> an aware datetime (UTC, the dataset has no zone)."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)


def load(path: Path) -> list[dict[str, Any]]:
    """Conversations with their turns (dia_id, session, time, speaker, text) and questions."""
    out = []
    for sample in json.loads(Path(path).read_text(encoding="utf-8")):
        conv = sample["conversation"]
        sessions = sorted((k for k in conv if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1]))
        turns = []
        for key in sessions:
            start = parse_session_time(conv[f"{key}_date_time"])
            for i, t in enumerate(conv[key]):
                text = t["text"] + (f" [shares image: {t['blip_caption']}]" if t.get("blip_caption") else "")
                turns.append(
                    {
                        "dia_id": t["dia_id"],
                        "session": key,
                        "time": start + timedelta(seconds=30 * i),
                        "speaker": t["speaker"],
                        "text": text,
                    }
                )
        valid = {t["dia_id"] for t in turns}
        questions = []
        for n, qa in enumerate(sample["qa"]):
            evidence = list(
                dict.fromkeys(
                    f"D{int(s)}:{int(t)}" for e in qa.get("evidence", []) for s, t in _EVIDENCE.findall(str(e))
                )
            )
            evidence = [e for e in evidence if e in valid]
            questions.append(
                {
                    "qid": f"{sample['sample_id']}#{n}",
                    "question": qa["question"],
                    "category": int(qa["category"]),
                    "evidence": evidence,
                }
            )
        out.append({"id": sample["sample_id"], "turns": turns, "questions": questions})
    return out


async def ingest(hs: Hindsight, conversation: dict[str, Any]) -> str:
    bank = f"locomo-{conversation['id']}"
    turns = [
        make_turn(
            hs.settings,
            bank,
            t["text"],
            session_id=t["session"],
            turn_id=t["dia_id"],
            speaker=t["speaker"],
            occurred_at=t["time"],
        )
        for t in conversation["turns"]
    ]
    await hs.publish(turns)
    return bank


async def evaluate(
    hs: Hindsight,
    conversations: list[dict[str, Any]],
    *,
    include_adversarial: bool = False,
    k: int = 20,
    min_relevance: float | None = None,
    on_question: Callable[[dict], None] | None = None,
) -> dict[str, dict[str, float]]:
    """Evidence recall per category; ``min_relevance``: the floor (None: the settings' default)."""
    rows = []
    for conversation in conversations:
        bank = f"locomo-{conversation['id']}"
        now = max(t["time"] for t in conversation["turns"])
        for qa in conversation["questions"]:
            if (qa["category"] == 5 and not include_adversarial) or not qa["evidence"]:
                continue
            hits = await hs.recall(bank, qa["question"], limit=k, now=now, min_relevance=min_relevance)
            items = [[turn] for turn in dict.fromkeys(t for h in hits for t in h.source_turn_ids)]
            row = {"qid": qa["qid"], "category": qa["category"], **score_ranking(items, qa["evidence"])}
            row["best"] = max((h.relevance for h in hits), default=0.0)
            rows.append(row)
            if on_question:
                on_question({**row, "question": qa["question"], "evidence": qa["evidence"], "items": items[:10]})
    return aggregate(rows, CATEGORIES)


def off_topic_probes(conversations: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """(conversation, bank, question): each conversation's questions asked in the next conversation's bank."""
    out = []
    for n, conversation in enumerate(conversations):
        other = conversations[(n + 1) % len(conversations)]
        if other is conversation:
            continue
        for qa in conversation["questions"]:
            if qa["category"] != 5 and qa["evidence"]:
                out.append((conversation["id"], f"locomo-{other['id']}", qa["question"]))
    return out
