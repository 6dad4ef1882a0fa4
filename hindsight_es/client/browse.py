"""Browsing a bank for people and dashboards: filtered pages of memories, banks with counts, sessions, and
why a recall hit came back.

Reads the current generation's stores only. Filters the hot table's rows of a bank (any status, archived
ones from the cold archive when asked) by kind, status, source, session, time range and importance.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from hindsight_es.client.connection import Connection
from hindsight_es.client.reader import Reader
from hindsight_es.client.rows import SCORE_COLUMNS, MemoryRow, stored_score
from hindsight_es.embedding.base import CrossScript
from hindsight_es.errors import NotFoundError
from hindsight_es.recall.amounts import says_amount
from hindsight_es.recall.answertype import says_change, says_when
from hindsight_es.recall.models import MEMORY_COLUMNS, RecallHit
from hindsight_es.recall.query import parse_query
from hindsight_es.recall.search import query_vector
from hindsight_es.stores.filters import MemoryFilter, TurnFilter
from hindsight_es.text import flattened, is_cjk

EXTRA_COLUMNS = tuple(c for c in ("importance", "confidence", "trust") if c not in MEMORY_COLUMNS)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
STOP = frozenset("a an and are as at be by do did does for from has have i in is it me my of on or our the to we what"
                 " when where which who why with you your".split())  # fmt: skip


@dataclass(frozen=True, slots=True)
class Browse:
    """What a page of a bank's memories shows: every field narrows it (ANDed)."""

    kinds: Sequence[str] | None = None
    statuses: Sequence[str] | None = None  # None: every status in the hot store
    source: str | None = None
    session_id: str | None = None
    since: datetime | None = None  # valid_from in [since, until)
    until: datetime | None = None
    min_importance: float | None = None
    text: str | None = None  # a substring of the text (case-insensitive)


class Browser:
    def __init__(self, conn: Connection, reader: Reader) -> None:
        self.conn, self.reader = conn, reader

    async def memories(
        self, bank_id: str, where: Browse, *, limit: int = 50, offset: int = 0
    ) -> tuple[list[dict[str, Any]], int]:
        """A page of the bank's memories (newest first) and how many match; rows carry importance and trust."""

        def collect() -> tuple[list[dict[str, Any]], int]:
            self.reader.require_bank(bank_id)
            hot_statuses = None if where.statuses is None else [s for s in where.statuses if s != "archived"]
            rows: list[dict[str, Any]] = []
            if hot_statuses is None or hot_statuses:
                found = MemoryFilter(
                    bank_id,
                    statuses=hot_statuses,
                    kinds=where.kinds,
                    since=where.since,
                    until=where.until,
                    session_id=where.session_id,
                )
                rows = self.conn.lance().scan("memories", found, [*MEMORY_COLUMNS, *EXTRA_COLUMNS]).to_pylist()
            if where.statuses is not None and "archived" in where.statuses:
                rows += self._archived(bank_id, where)
            rows = [r for r in rows if _keeps(r, where)]
            rows.sort(key=lambda r: (r["valid_from"], r["memory_id"]), reverse=True)
            page = [r | {k: stored_score(r.get(k)) for k in SCORE_COLUMNS} for r in rows[offset : offset + limit]]
            return page, len(rows)

        return await self.conn.read(collect)

    def _archived(self, bank_id: str, where: Browse) -> list[dict[str, Any]]:
        archive = self.conn.archive()
        cold = {r["memory_id"] for r in archive.cold_memories(bank_id) if r["status"] == "archived"}
        out = []
        for row in archive.memories(bank_id):
            if row["memory_id"] not in cold:
                continue
            retained = archive.lineage(bank_id, row["memory_id"])["retained"] or {}
            fields = {k: retained[k] for k in (*MEMORY_COLUMNS, *EXTRA_COLUMNS) if k in retained}
            fields.update(memory_id=row["memory_id"], status="archived", valid_to=None)
            if where.kinds and fields.get("kind") not in where.kinds:
                continue
            if where.session_id and fields.get("session_id") != where.session_id:
                continue
            # The event's JSON holds times as strings: read it as a hot row is (datetimes, lists), so a page
            # mixing both sorts and answers with one type per field.
            out.append(MemoryRow(**fields).model_dump(include={*MEMORY_COLUMNS, *EXTRA_COLUMNS}))
        return [r for r in out if _in_range(r.get("valid_from"), where.since, where.until)]

    async def banks(self) -> list[dict[str, Any]]:
        """Every bank with its memory counts (by status), turns and last activity."""

        def collect() -> list[dict[str, Any]]:
            lance = self.conn.lance()
            memories = lance.scan("memories", MemoryFilter(statuses=None), ["bank_id", "status"]).to_pylist()
            turns = lance.scan("turns", TurnFilter(), ["bank_id", "occurred_at"]).to_pylist()
            by_bank: dict[str, Counter[str]] = defaultdict(Counter)
            for m in memories:
                by_bank[m["bank_id"]][m["status"]] += 1
            turned: Counter[str] = Counter(t["bank_id"] for t in turns)
            last: dict[str, datetime] = {}
            for t in turns:
                if t["bank_id"] not in last or t["occurred_at"] > last[t["bank_id"]]:
                    last[t["bank_id"]] = t["occurred_at"]
            return [
                {
                    "bank_id": bank,
                    "active": by_bank[bank]["active"],
                    "quarantined": by_bank[bank]["quarantined"],
                    "memories": sum(by_bank[bank].values()),
                    "turns": turned[bank],
                    "last_turn_at": last.get(bank),
                }
                for bank in sorted(set(by_bank) | set(turned))
            ]

        return await self.conn.read(collect)

    async def sessions(self, bank_id: str) -> list[dict[str, Any]]:
        """The bank's sessions, oldest first: turns, first and last turn, memories by status."""

        def collect() -> list[dict[str, Any]]:
            self.reader.require_bank(bank_id)
            archive = self.conn.archive()
            turns = archive.events(bank_id, types=["TurnRecorded"])
            sessions: dict[str, dict[str, Any]] = {}
            for t in turns:
                s = sessions.setdefault(
                    t["session_id"] or "", {"turns": 0, "first": None, "last": None, "memories": Counter()}
                )
                s["turns"] += 1
                s["first"] = min(filter(None, (s["first"], t["occurred_at"])))
                s["last"] = max(filter(None, (s["last"], t["occurred_at"])))
            for m in archive.memories(bank_id):
                sessions.setdefault(
                    m["session_id"] or "", {"turns": 0, "first": None, "last": None, "memories": Counter()}
                )["memories"][m["status"]] += 1
            ordered = sorted(sessions.items(), key=lambda kv: str(kv[1]["first"]))
            return [
                {
                    "session_id": name,
                    "turns": s["turns"],
                    "first_turn_at": s["first"],
                    "last_turn_at": s["last"],
                    "memories": dict(s["memories"]),
                }
                for name, s in ordered
            ]

        return await self.conn.read(collect)

    async def has_session(self, bank_id: str, session_id: str) -> bool:
        """Whether the bank ever had the session: a turn of it (hot, or in the archive, erased ones included as
        their placeholders) or a memory from it."""

        def look() -> bool:
            lance, session = self.conn.lance(), MemoryFilter(bank_id, statuses=None, session_id=session_id)
            return bool(
                lance.scan("turns", TurnFilter(bank_id, session_id), ["bank_id"], limit=1).num_rows
                or lance.scan("memories", session, ["bank_id"], limit=1).num_rows
                or self.conn.archive().events(bank_id, types=["TurnRecorded"], session_id=session_id, limit=1)
            )

        return await self.conn.read(look)

    async def session(self, bank_id: str, session_id: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """A session's turns (in time order, with speaker, role and source) and the memories it produced."""

        def collect() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
            import json

            self.reader.require_bank(bank_id)
            archive = self.conn.archive()
            turns = archive.events(bank_id, types=["TurnRecorded"], session_id=session_id)
            for t in turns:
                payload = json.loads(t.get("payload") or "{}")
                t.update(text=payload.get("text", t.get("text")), speaker=payload.get("speaker"))
                t.update(role=payload.get("role"), source=payload.get("source"))
            memories = archive.session_memories(bank_id, session_id)
            if not turns and not memories:  # a misspelt session is told, not answered with an empty timeline
                raise NotFoundError(
                    f"no session {session_id!r} in bank {bank_id!r}: check the session id and the bank (or it is "
                    "not archived yet)"
                )
            return turns, memories

        return await self.conn.read(collect)

    async def explain(self, bank_id: str, query: str, hits: Sequence[RecallHit]) -> dict[str, list[str]]:
        """Why each hit came back, in words: the query's words it contains, how close its meaning is (cosine
        of the query's and the memory's vectors, from the hot store), the time range or speaker the query
        named. Computed after recall, from the same inputs; it does not change the ranking."""
        query = flattened(query)  # as recall read it

        def collect() -> dict[str, list[str]]:
            parsed = parse_query(query)
            words = _words(query)
            vectors = self._vectors(hits)
            embedder = self.conn.embedder()
            qv = np.asarray(query_vector(embedder, query), dtype=np.float32)
            cross, query_cjk = embedder.cross_script, is_cjk(query)
            out: dict[str, list[str]] = {}
            for hit in hits:
                reasons = []
                shared = sorted(words & _words(hit.text))
                if shared:
                    reasons.append("matched words: " + ", ".join(shared[:8]))
                vector = vectors.get(hit.memory_id)
                if vector is not None and vector.shape == qv.shape:
                    reasons.append(_meaning(qv, vector, cross, query_cjk, is_cjk(hit.text)))
                if parsed.since is not None and _in_range(hit.valid_from, parsed.since, parsed.until):
                    reasons.append("in the time the query names")
                if parsed.asks_when and says_when(hit.text):
                    reasons.append("says when, which the query asks")
                if parsed.asks_amounts and says_amount(parsed.asks_amounts, hit.text):
                    reasons.append(f"states {' or '.join(sorted(parsed.asks_amounts))}, which the query asks")
                if parsed.asks_current and says_change(hit.text):
                    reasons.append("says what changed, and the query asks how things stand now")
                if hit.speaker and any(n.lower() in hit.speaker.lower() for n in parsed.names):
                    reasons.append(f"said by {hit.speaker}, whom the query names")
                if hit.status == "archived":
                    reasons.append("from the cold archive (include_archived)")
                elif hit.bank_id not in (None, bank_id):
                    reasons.append(f"from the shared bank {hit.bank_id}")
                if hit.owner is not None:
                    reasons.append(f"private to agent {hit.owner}")
                out[hit.memory_id] = reasons
            return out

        return await self.conn.read(collect)

    def _vectors(self, hits: Sequence[RecallHit]) -> dict[str, np.ndarray]:
        by_bank: dict[str | None, list[str]] = defaultdict(list)
        for hit in hits:
            by_bank[hit.bank_id].append(hit.memory_id)
        out: dict[str, np.ndarray] = {}
        for bank, ids in by_bank.items():
            where = MemoryFilter(bank, statuses=None, memory_ids=ids)
            for row in self.conn.lance().scan("memories", where, ["memory_id", "vector"], len(ids)).to_pylist():
                out[row["memory_id"]] = np.asarray(row["vector"], dtype=np.float32)
        return out


def _meaning(query: np.ndarray, vector: np.ndarray, cross: CrossScript | None, query_cjk: bool, cjk: bool) -> str:
    """How close a memory's meaning is to the query's. A memory in the other script (Chinese for an English
    query) is compared as recall's cross-script list compares it, with the part of the vectors both
    scripts share: the whole vector's cosine says little there (its English half is zero for Chinese)."""

    def cosine(q: np.ndarray) -> float:
        return float(vector @ q / ((np.linalg.norm(vector) * np.linalg.norm(q)) or 1.0))

    if cross is not None and cjk != query_cjk:
        similar = cross.similarity(1.0 - cosine(cross.query(query)), memory_cjk=cjk)
        return f"meaning across languages: similarity {similar:.2f}"
    return f"meaning: cosine {cosine(query):.2f} to the query"


def _words(text: str) -> set[str]:
    """Lower-cased words (and the CJK characters' bigrams) of a text, stop words left out."""
    lowered = text.lower()
    words = {w for w in _WORD.findall(lowered) if w not in STOP and not _CJK.search(w) and len(w) > 1}
    cjk = "".join(_CJK.findall(lowered))
    return words | {cjk[i : i + 2] for i in range(len(cjk) - 1)}


def _in_range(value: Any, since: datetime | None, until: datetime | None) -> bool:
    if value is None:
        return since is None and until is None
    return (since is None or value >= since) and (until is None or value < until)


def _keeps(row: dict[str, Any], where: Browse) -> bool:
    if where.source is not None and row.get("source") != where.source:
        return False
    if where.min_importance is not None and (row.get("importance") or 0.0) < where.min_importance:
        return False
    return not (where.text and where.text.lower() not in (row.get("text") or "").lower())
