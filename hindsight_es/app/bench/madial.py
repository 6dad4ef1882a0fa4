"""MADial-Bench memory recall through the real pipeline: one bank per user.

Each memory ("event", with its date) is published as a turn of that user's bank (turn id = memory
id); the query is the dialogue before the test turn; gold = the dialogue's relevant memory ids.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from hindsight_es.app.bench.metrics import aggregate, hits_at, score_ranking
from hindsight_es.client import Hindsight, make_turn

_SPEAKER = re.compile(r'^<([^>]+)>:\s*"?(.*?)"?\s*$', re.S)


def _json_lines(directory: Path, name: str) -> list:
    return [
        json.loads(line) for line in (Path(directory) / name).read_text(encoding="utf-8").splitlines() if line.strip()
    ]


def load_dialogues(directory: Path, language: str = "zh") -> list[dict]:
    return _json_lines(directory, f"MADial-Bench-{language}-dialogue.json")


def load_memories(directory: Path, language: str = "zh") -> dict[str, dict]:
    """Memory id -> memory (event, time, user id)."""
    memories: dict[str, dict] = {}
    for line in _json_lines(directory, f"MADial-Bench-{language}-memory.json"):
        memories.update(line)
    if language != "zh" and any("user-id" not in m for m in memories.values()):
        # The English memory file omits whose memory it is; its ids are the Chinese file's, which says.
        owners = {k: m["user-id"] for k, m in load_memories(directory, "zh").items()}
        memories = {k: {**m, "user-id": owners[k]} for k, m in memories.items() if k in owners}
    return memories


def mixed_memories(directory: Path) -> dict[str, dict]:
    """Every memory in one of the two languages, alternating by id (even ids Chinese, odd English): a
    bilingual user's bank, where a query in either language has gold memories in both."""
    zh, en = load_memories(directory, "zh"), load_memories(directory, "en")
    return {k: (zh if int(k) % 2 == 0 else en).get(k, zh[k]) for k in zh}


def query_of(dialogue: dict) -> str:
    """The conversation before the test turn, one 'speaker: text' line per turn."""
    lines = []
    for raw in dialogue["dialogue"][: dialogue["test-turn"][0]]:
        match = _SPEAKER.match(raw.strip())
        if match:
            lines.append(f"{match.group(1)}: {match.group(2)}")
    return "\n".join(lines)


async def ingest(hs: Hindsight, memories: dict[str, dict]) -> list[str]:
    turns = []
    for memory_id, m in sorted(memories.items(), key=lambda kv: int(kv[0])):
        when = datetime.fromisoformat(m["time"]).replace(tzinfo=UTC)
        turns.append(
            make_turn(
                hs.settings,
                f"madial-user-{m['user-id']}",
                m["event"],
                session_id=f"memory-{memory_id}",
                turn_id=str(memory_id),
                occurred_at=when,
                source="user",
            )
        )
    await hs.publish(turns)
    return sorted({t.bank_id for t in turns})


async def evaluate(
    hs: Hindsight, dialogues: list[dict], *, k: int = 10, on_question: Callable[[dict], None] | None = None
) -> dict[str, dict[str, float]]:
    rows = []
    for n, d in enumerate(dialogues):
        hits = await hs.recall(f"madial-user-{d['user-id']}", query_of(d), limit=k)
        items = [[turn] for turn in dict.fromkeys(t for h in hits for t in h.source_turn_ids)]
        gold = [str(i) for i in d["relevant-id"]]
        row = {"qid": str(d.get("id", n)), "category": 0, **score_ranking(items, gold), **hits_at(items, gold)}
        rows.append(row)
        if on_question:
            on_question({**row, "gold": gold, "items": items[:10]})
    return aggregate(rows, {0: "all"})
