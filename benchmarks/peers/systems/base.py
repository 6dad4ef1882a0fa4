"""What every adapter implements, and the item every system ingests.

An item is one memory: its id (a corpus memory id or a LoCoMo dia_id), its text, and what a conversation
turn also has (speaker, time, session). Systems that store only text get ``plain_text`` (time and speaker
written into the text, as LoCoMo's own baselines do); hindsight gets the fields as fields.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any


@dataclass(frozen=True, slots=True)
class Item:
    id: str
    text: str
    speaker: str | None = None
    time: datetime | None = None
    session: str | None = None
    date_label: str | None = None  # the time as the dataset wrote it (LoCoMo's "1:56 pm on 8 May, 2023")

    @property
    def plain_text(self) -> str:
        text = f"{self.speaker}: {self.text}" if self.speaker else self.text
        return f"[{self.date_label}] {text}" if self.date_label else text


class System:
    """An adapter; calls come from one asyncio loop, ``query`` concurrently."""

    name = "system"

    def __init__(self, data_dir: Path, options: dict[str, Any]) -> None:
        self.data_dir = data_dir
        self.options = options

    async def start(self) -> None:
        """Load models, start helper processes; not timed."""

    async def ingest(self, bank: str, items: list[Item]) -> None:
        raise NotImplementedError

    async def finish(self) -> None:
        """Make everything ingested so far searchable (index builds, draining a pipeline)."""

    async def query(self, bank: str, question: str, k: int) -> list[str]:
        """Item ids, best first."""
        raise NotImplementedError

    def pids(self) -> list[int]:
        """Processes of this system beyond the server process and its children (a database server)."""
        return []

    def disk_bytes(self) -> int:
        """What the system stores for the memories ingested (its data, indexes and log)."""
        return tree_bytes(self.data_dir)

    def config_notes(self) -> list[str]:
        """How this system is configured, in words (printed with the results)."""
        return []

    async def details(self) -> dict[str, Any]:
        """What the system made of the items (e.g. memory rows by kind), for the report."""
        return {}

    async def close(self) -> None:
        pass


def tree_bytes(path: Path) -> int:
    """Bytes allocated on disk under ``path`` (``du``: sparse and preallocated files count as allocated)."""
    if not path.exists():
        return 0
    total = 0
    for p in [path, *path.rglob("*")]:
        try:
            st = p.lstat()
        except FileNotFoundError:
            continue
        total += st.st_blocks * 512
    return total


_LOCOMO_TIME = re.compile(r"\d{1,2}:\d{2} [ap]m on \d{1,2} \w+, \d{4}", re.I)


def items_from_body(body: dict[str, Any]) -> list[Item]:
    """Items from an ``/ingest`` body: LoCoMo's harness (``turns`` with dia_id, date_time, blip_caption)
    or the peers' driver (``turns`` with dia_id, text, time ISO, session)."""
    out = []
    position: dict[Any, int] = {}
    for t in body.get("turns", []):
        text = t["text"] + (f" [shares image: {t['blip_caption']}]" if t.get("blip_caption") else "")
        label = t.get("date_time") or None
        when: datetime | None = None
        if t.get("time"):
            when = datetime.fromisoformat(t["time"])
        elif label and _LOCOMO_TIME.fullmatch(label.strip()):
            start = datetime.strptime(label.strip(), "%I:%M %p on %d %B, %Y").replace(tzinfo=UTC)
            i = position[t.get("session")] = position.get(t.get("session"), -1) + 1
            when = start + timedelta(seconds=30 * i)  # turns of a session 30 s apart, as hindsight's bench does
        session = t.get("session")
        out.append(
            Item(
                id=str(t["dia_id"]),
                text=text,
                speaker=t.get("speaker"),
                time=when,
                session=None if session is None else str(session),
                date_label=label,
            )
        )
    return out
