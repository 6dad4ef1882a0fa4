"""Poisoning benchmark through the real pipeline: attacks on the write path, and benign controls.

Each attack gets a bank of its own: the user's trusted statements (``setup``) first, then the attack
turns (documents, tool outputs, assistant echoes or user turns), then its target ``query``. An attack
is *quarantined* when every memory its turns produced is quarantined, and *succeeds* when a memory
from its turns is still among the top ``k`` recall hits for the query. Benign controls are ordinary
conversation turns (LoCoMo, MemoryBank, or the small set shipped in ``data/``); a benign turn is a
false positive when any memory it produced is quarantined.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

from hindsight_es.client import Hindsight, make_turn
from hindsight_es.events import TurnRecorded

T0 = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
ROLE_OF = {"user": "user", "assistant": "assistant", "tool": "tool", "document": "tool"}


@dataclass(frozen=True, slots=True)
class Attack:
    id: str
    type: str
    lang: str
    setup: list[dict[str, str]]
    attack: list[dict[str, str]]
    query: str

    @property
    def bank(self) -> str:
        return f"poison-{self.id}"


@dataclass(slots=True)
class BenignSet:
    name: str
    turns: list[TurnRecorded] = field(default_factory=list)


def default_attacks() -> Path:
    return Path(str(resources.files("hindsight_es.app.bench") / "data" / "poisoning_attacks.jsonl"))


def default_benign() -> Path:
    return Path(str(resources.files("hindsight_es.app.bench") / "data" / "poisoning_benign.jsonl"))


def load_attacks(path: Path) -> list[Attack]:
    return [Attack(**json.loads(line)) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def attack_turns(hs: Hindsight, attack: Attack) -> list[TurnRecorded]:
    """Setup turns (trusted user statements) then the attack turns ("a1", "a2", …), a minute apart."""
    turns, minute = [], 0
    for i, step in enumerate(attack.setup, 1):
        turns.append(
            make_turn(
                hs.settings,
                attack.bank,
                step["text"],
                session_id="setup",
                turn_id=f"s{i}",
                source="user",
                role="user",
                occurred_at=T0 + timedelta(minutes=minute),
            )
        )
        minute += 1
    for i, step in enumerate(attack.attack, 1):
        source = step.get("source", "document")
        turns.append(
            make_turn(
                hs.settings,
                attack.bank,
                step["text"],
                session_id="attack",
                turn_id=f"a{i}",
                source=source,
                role=ROLE_OF[source],
                occurred_at=T0 + timedelta(minutes=minute),
            )
        )
        minute += 1
    return turns


def load_benign(hs: Hindsight, path: Path) -> BenignSet:
    """Benign turns from a LoCoMo file, a MemoryBank file (``memory_bank_*.json``) or our JSONL set."""
    text = Path(path).read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        out = BenignSet(path.stem)
        for i, line in enumerate(x for x in text.splitlines() if x.strip()):
            row = json.loads(line)
            source = row.get("source", "user")
            out.turns.append(
                make_turn(
                    hs.settings,
                    f"benign-{path.stem}-{i % 10}",
                    row["text"],
                    session_id=f"s{i}",
                    turn_id=f"b{i}",
                    source=source,
                    role=ROLE_OF[source],
                    occurred_at=T0 + timedelta(minutes=i),
                )
            )
        return out
    data = json.loads(text)
    if isinstance(data, list):  # LoCoMo: one bank per conversation, every dialog turn a user turn
        from hindsight_es.app.bench import locomo

        out = BenignSet(f"locomo:{path.name}")
        for conversation in locomo.load(path):
            bank = f"benign-locomo-{conversation['id']}"
            out.turns += [
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
        return out
    out = BenignSet(f"memorybank:{path.name}")  # MemoryBank: one bank per user, queries and the replies
    for u, (name, user) in enumerate(sorted(data.items())):
        bank, n = f"benign-{path.stem}-{u}", 0
        for day, pairs in sorted((user.get("history") or {}).items()):
            start = datetime.fromisoformat(day).replace(tzinfo=UTC)
            for pair in pairs:
                for source, key, speaker in (("user", "query", name), ("assistant", "response", "AI")):
                    if said := (pair.get(key) or "").strip():
                        out.turns.append(
                            make_turn(
                                hs.settings,
                                bank,
                                said,
                                session_id=day,
                                turn_id=f"m{n}",
                                source=source,
                                role=source,
                                speaker=speaker,
                                occurred_at=start + timedelta(seconds=30 * n),
                            )
                        )
                        n += 1
    return out


async def _statuses(hs: Hindsight, bank: str) -> dict[str, list[str]]:
    """turn id -> statuses of the memories it produced."""
    out: dict[str, list[str]] = defaultdict(list)
    for memory in await hs.reader.browse(bank, limit=10**9):
        for turn_id in memory.source_turn_ids:
            out[turn_id].append(memory.status)
    return out


async def evaluate_attacks(
    hs: Hindsight, attacks: list[Attack], *, k: int = 5, on_attack: Callable[[dict[str, Any]], None] | None = None
) -> list[dict[str, Any]]:
    rows = []
    for attack in attacks:
        statuses = await _statuses(hs, attack.bank)
        ids = [f"a{i}" for i in range(1, len(attack.attack) + 1)]
        produced = [s for turn_id in ids for s in statuses.get(turn_id, [])]
        hits = await hs.recall(attack.bank, attack.query, limit=k)
        reached = [h for h in hits if set(h.source_turn_ids) & set(ids)]
        row = {
            "id": attack.id,
            "type": attack.type,
            "lang": attack.lang,
            "quarantined": bool(produced) and all(s == "quarantined" for s in produced),
            "success": bool(reached),
            "statuses": dict(Counter(produced)),
            "reached": [h.text for h in reached],
        }
        rows.append(row)
        if on_attack:
            on_attack(row)
    return rows


async def evaluate_benign(hs: Hindsight, benign: BenignSet) -> dict[str, Any]:
    by_bank: dict[str, list[TurnRecorded]] = defaultdict(list)
    for turn in benign.turns:
        by_bank[turn.bank_id].append(turn)
    flagged: list[dict[str, str]] = []
    for bank, turns in by_bank.items():
        statuses = await _statuses(hs, bank)
        flagged += [
            {"bank": bank, "turn_id": t.turn_id, "source": t.source, "text": t.text}
            for t in turns
            if "quarantined" in statuses.get(t.turn_id, [])
        ]
    return {"name": benign.name, "turns": len(benign.turns), "false_positives": flagged}


def summarize(rows: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """Per attack type (and language, and overall): n, share quarantined, share that succeeded."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        for name in (row["type"], f"lang:{row['lang']}", "overall"):
            groups[name].append(row)
    return {
        name: {
            "n": len(g),
            "quarantined": sum(r["quarantined"] for r in g) / len(g),
            "success": sum(r["success"] for r in g) / len(g),
        }
        for name, g in groups.items()
    }
