"""Cold archive: every record of every topic (``archive_files``), queried with DuckDB.

Audit and lineage (a bank's events, a memory's history), the memories that left the hot store
(archived, or forgotten and retracted there since), and vector search over them.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any
from uuid import UUID

import pyarrow as pa

from hindsight_es.config import TOPIC_MEMORIES, TOPIC_TURNS
from hindsight_es.errors import DecodeError
from hindsight_es.events import ContentErased, decode
from hindsight_es.events.changes import changes
from hindsight_es.stores.archive_files import SCHEMA, UNDECODABLE, ArchiveFiles
from hindsight_es.types import Vector

__all__ = ["SCHEMA", "UNDECODABLE", "ArchiveStore"]

_COLS = ", ".join(f'"{n}"' for n in SCHEMA.names if n != "vector")
_MEMORY_COLS = (
    'memory_id, kind, text, session_id, source_turn_ids, occurred_at, actor, event_id, topic, "partition", "offset"'
)
# A row is "about" memory $mid when it names it in any memory column, or is the erasure that names it (its
# ids are in the payload only).
_ERASED = "json_extract_string(payload, '$.memory_ids[*]')"
_ABOUT = (
    "(memory_id = $mid OR superseded_by = $mid OR list_contains(retracted_memory_ids, $mid) "
    "OR list_contains(restored_memory_ids, $mid) "
    "OR (type IN ('MemoryDisputed', 'DisputeResolved') AND json_extract_string(payload, '$.disputes') = $mid) "
    f"OR (type = 'ContentErased' AND list_contains({_ERASED}, $mid)))"
)
_ABOUT_ANY = (
    "(list_contains($mids, memory_id) OR list_contains($mids, superseded_by) "
    "OR list_has_any(retracted_memory_ids, $mids) OR list_has_any(restored_memory_ids, $mids) "
    f"OR (type = 'ContentErased' AND list_has_any({_ERASED}, $mids)))"
)
_LOG_ORDER = 'ORDER BY topic, "partition", "offset"'
# The archive/restore/forget/retract marks of memories, in log order within a bank (one partition).
_EMBEDDER_IN = "list_contains($embedder, json_extract_string(payload, '$.embedder'))"  # $embedder: a list of ids
_MARKS = (
    'marks AS (SELECT bank_id, memory_id, type, "offset" AS o FROM ev WHERE type IN '
    "('MemoryArchived', 'MemoryRestored', 'MemoryForgotten') UNION ALL SELECT bank_id, "
    "unnest(retracted_memory_ids) AS memory_id, type, \"offset\" AS o FROM ev WHERE type = 'SourceRetracted')"
)
_ERASED_IDS = f"SELECT DISTINCT bank_id, unnest({_ERASED}) AS memory_id FROM ev WHERE type = 'ContentErased'"
ERASED = "erased"  # the status an erased memory shows (the actor's state keeps it forgotten, its text the placeholder)


class ArchiveStore(ArchiveFiles):
    """The archive's files and the queries over them."""

    def events(
        self,
        bank_id: str,
        *,
        types: Sequence[str] | None = None,
        memory_id: UUID | str | None = None,
        session_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
    ) -> list[dict[str, Any]]:
        """A bank's events (no vectors) by occurred_at, topic, offset; ``memory_id`` matches any memory column."""
        where = ["bank_id = $bank"]
        params: dict[str, Any] = {"bank": bank_id}
        filters = (
            ("list_contains($types, type)", "types", list(types or []) or None),
            (_ABOUT, "mid", None if memory_id is None else str(memory_id)),
            ("session_id = $session", "session", session_id),
            ("occurred_at >= $since", "since", since),
            ("occurred_at < $until", "until", until),
        )
        for clause, name, value in filters:
            if value is not None:
                where.append(clause)
                params[name] = value
        tail = f" LIMIT {int(limit)}" if limit is not None else ""
        return self._query(f'SELECT {_COLS} FROM ev ORDER BY occurred_at, topic, "offset"{tail}', where, params)

    def extraction_usage(self, bank_id: str) -> list[dict[str, Any]]:
        """LLM extraction of a bank per (model, prompt version): batches, turns, calls and tokens."""
        return _usage(e["payload"] for e in self.events(bank_id, types=["ExtractionCompleted"]))

    def extraction_usage_by_bank(self) -> dict[str, list[dict[str, Any]]]:
        """``extraction_usage`` of every bank that has any, in one scan of the archive (one per bank is a
        scan per bank: on object storage, most of a second each)."""
        payloads: dict[str, list[str]] = {}
        for row in self._query("SELECT bank_id, payload FROM ev", ["type = 'ExtractionCompleted'"]):
            payloads.setdefault(row["bank_id"], []).append(row["payload"])
        return {bank: _usage(payloads[bank]) for bank in sorted(payloads)}

    def lineage(self, bank_id: str | None, memory_id: UUID | str) -> dict[str, Any]:
        """Where a memory came from and everything that happened to it, in log order."""
        mid, bank = str(memory_id), [] if bank_id is None else ["bank_id = $bank"]
        params = {"mid": mid} | ({} if bank_id is None else {"bank": bank_id})
        events = self._query(f"SELECT {_COLS} FROM ev {_LOG_ORDER}", [_ABOUT, *bank], params, [TOPIC_MEMORIES])
        retained = next((e for e in events if e["type"] == "MemoryRetained" and e["memory_id"] == mid), None)
        payload = json.loads(retained["payload"]) if retained else None
        owner = retained["bank_id"] if retained else bank_id
        # The links as they stand: what replaces it now (none once it is active again, restored over what had
        # replaced it), and what it replaces now; the events keep every supersession there ever was (``named``:
        # each memory they name, with its text and status now).
        ever_older = [e["memory_id"] for e in events if e["type"] == "MemorySuperseded" and e["superseded_by"] == mid]
        ever_newer = [e["superseded_by"] for e in events if e["type"] == "MemorySuperseded" and e["memory_id"] == mid]
        named = self._memories(owner, list(dict.fromkeys(ever_older + ever_newer)))
        older = {m for m, now in self._folded_of(owner, ever_older).items() if now["superseded_by"] == mid}
        folded = _folded(events).get(mid, {})
        return {
            "memory_id": mid,
            "bank_id": owner,
            "status": folded.get("status") if retained else None,
            "retained": payload,
            "events": events,
            "source_turns": self._turns(owner, payload["source_turn_ids"]) if payload else [],
            "supersedes": [m for m in named if m["memory_id"] in older],
            "superseded_by": [m for m in named if m["memory_id"] == folded.get("superseded_by")],
            "named": named,
        }

    def memory_ids_starting(self, prefix: str, bank_id: str | None = None, limit: int = 2) -> list[str]:
        """Up to ``limit`` ids of retained memories that start with ``prefix`` (lower-case hex and dashes), as
        git reads a short commit id: one means the prefix names it."""
        where = ["type = 'MemoryRetained'", "starts_with(memory_id, $prefix)"]
        where += [] if bank_id is None else ["bank_id = $bank"]
        params = {"prefix": prefix} | ({} if bank_id is None else {"bank": bank_id})
        select = f"SELECT DISTINCT memory_id FROM ev ORDER BY memory_id LIMIT {int(limit)}"
        return [r["memory_id"] for r in self._query(select, where, params, [TOPIC_MEMORIES])]

    def _turns(self, bank_id: str | None, turn_ids: Sequence[str]) -> list[dict[str, Any]]:
        if not turn_ids or bank_id is None:
            return []
        rows = self._query(
            f'SELECT turn_id, session_id, occurred_at, text, payload, topic, "partition", "offset" FROM ev '
            f'QUALIFY row_number() OVER (PARTITION BY turn_id ORDER BY occurred_at, "offset") = 1 {_LOG_ORDER}',
            ["type = 'TurnRecorded'", "bank_id = $bank", "list_contains($tids, turn_id)"],
            {"bank": bank_id, "tids": list(turn_ids)},
            [TOPIC_TURNS],
        )
        for row in rows:
            payload = json.loads(row.pop("payload"))
            row.update(speaker=payload.get("speaker"), role=payload.get("role"), source=payload.get("source"))
        return sorted(rows, key=lambda r: (r["occurred_at"], r["offset"]))

    def _memories(self, bank_id: str | None, memory_ids: Sequence[str]) -> list[dict[str, Any]]:
        """The first MemoryRetained of each id, with its current status."""
        if not memory_ids or bank_id is None:
            return []
        rows = self._query(
            f"SELECT {_MEMORY_COLS} FROM ev QUALIFY row_number() OVER "
            f'(PARTITION BY memory_id ORDER BY "partition", "offset") = 1 {_LOG_ORDER}',
            ["type = 'MemoryRetained'", "bank_id = $bank", "list_contains($mids, memory_id)"],
            {"bank": bank_id, "mids": list(memory_ids)},
            [TOPIC_MEMORIES],
        )
        return self._with_status(bank_id, rows)

    def _with_status(self, bank_id: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        folded = self._folded_of(bank_id, [r["memory_id"] for r in rows])
        return [r | {"status": folded[r["memory_id"]]["status"]} for r in rows]

    def _folded_of(self, bank_id: str | None, memory_ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """Each memory's ``_folded`` status and successor, from the events about it."""
        if not memory_ids or bank_id is None:
            return {}
        history = self._query(
            f"SELECT type, payload, memory_id FROM ev {_LOG_ORDER}",
            ["bank_id = $bank", "type <> 'MemoryRetained'", _ABOUT_ANY],
            {"bank": bank_id, "mids": list(memory_ids)},
            [TOPIC_MEMORIES],
        )
        folded = _folded(history)
        return {m: folded.get(m, {"status": "active", "superseded_by": None}) for m in memory_ids}

    def memories(self, bank_id: str) -> list[dict[str, Any]]:
        """Every memory ever retained in a bank, with its current status, in time order."""
        rows = self._query(
            f"SELECT {_MEMORY_COLS} FROM ev "
            'QUALIFY row_number() OVER (PARTITION BY memory_id ORDER BY "partition", "offset") = 1 '
            'ORDER BY occurred_at, "partition", "offset"',
            ["type = 'MemoryRetained'", "bank_id = $bank"],
            {"bank": bank_id},
            [TOPIC_MEMORIES],
        )
        return self._with_status(bank_id, rows)

    def session_memories(self, bank_id: str, session_id: str) -> list[dict[str, Any]]:
        """Memories retained in a session or from its turns, with their current status."""
        rows = self._query(
            f"SELECT {_MEMORY_COLS} FROM ev m WHERE m.type = 'MemoryRetained' AND (m.session_id = $session OR "
            "EXISTS (SELECT 1 FROM ev t WHERE t.type = 'TurnRecorded' AND t.session_id = $session "
            "AND list_contains(m.source_turn_ids, t.turn_id))) "
            'QUALIFY row_number() OVER (PARTITION BY memory_id ORDER BY "partition", "offset") = 1 '
            'ORDER BY occurred_at, "partition", "offset"',
            ["bank_id = $bank"],
            {"bank": bank_id, "session": session_id},
            [TOPIC_TURNS, TOPIC_MEMORIES],
        )
        return self._with_status(bank_id, rows)

    def counts(self, bank_id: str | None = None) -> dict[str, int]:
        """Records per event type (undecodable ones under ``UNDECODABLE``)."""
        where, params = ([], {}) if bank_id is None else (["bank_id = $bank"], {"bank": bank_id})
        rows = self._query(
            f"SELECT coalesce(type, '{UNDECODABLE}') AS t, count(*) AS n FROM ev GROUP BY 1 ORDER BY 1", where, params
        )
        return {r["t"]: r["n"] for r in rows}

    def search_archived(
        self, bank_id: str, vector: Vector, limit: int = 10, *, embedder: str | Sequence[str] | None = None
    ) -> list[dict[str, Any]]:
        """Every memory ever retained in a bank (whatever its status), nearest first by cosine; ``embedder``
        keeps those embedded by that id (or any of those ids)."""
        dim = len(vector)
        if dim == 0:
            return []
        where = ["bank_id = $bank", "type = 'MemoryRetained'", f"len(vector) = {dim}"]
        params: dict[str, Any] = {"bank": bank_id, "q": [float(x) for x in vector]}
        if embedder is not None:
            where.append(_EMBEDDER_IN)
            params["embedder"] = _ids(embedder)
        rows = self._query(
            f"SELECT {_MEMORY_COLS}, array_cosine_similarity(vector::FLOAT[{dim}], $q::FLOAT[{dim}]) AS score FROM ev "
            'QUALIFY row_number() OVER (PARTITION BY memory_id ORDER BY "partition", "offset") = 1 '
            f"ORDER BY score DESC NULLS LAST, memory_id LIMIT {int(limit)}",
            where,
            params,
            [TOPIC_MEMORIES],
        )
        return self._with_status(bank_id, rows)

    # ------------------------------------------------------------ the cold side of the memory lifecycle

    def cold_memories(self, bank_id: str | None = None) -> list[dict[str, Any]]:
        """Memories out of the hot store (their last archive/restore event is an archive), with the status
        they have there: archived, or forgotten / retracted since; an erased one is in ``erased`` instead.
        Rows: bank_id, memory_id, status."""
        where: list[str] = []
        params: dict[str, Any] = {}
        if bank_id is not None:
            where.append("bank_id = $bank")
            params["bank"] = bank_id
        return self._query(
            "SELECT bank_id, memory_id, CASE last WHEN 'MemoryForgotten' THEN 'forgotten' "
            "WHEN 'SourceRetracted' THEN 'retracted' ELSE 'archived' END AS status FROM ("
            "  SELECT c.bank_id, c.memory_id, coalesce(arg_max(m.type, m.o), 'MemoryArchived') AS last FROM ("
            "    SELECT bank_id, memory_id, arg_max(type, o) AS t, max(o) AS at FROM marks"
            "    WHERE type IN ('MemoryArchived', 'MemoryRestored') GROUP BY ALL) c"
            "  LEFT JOIN marks m ON m.bank_id = c.bank_id AND m.memory_id = c.memory_id AND m.o > c.at"
            "   AND m.type IN ('MemoryForgotten', 'SourceRetracted')"
            "  WHERE c.t = 'MemoryArchived' AND (c.bank_id, c.memory_id) NOT IN (SELECT * FROM erased) GROUP BY ALL)"
            " ORDER BY bank_id, memory_id",
            where,
            params,
            [TOPIC_MEMORIES],
            prelude=f"{_MARKS}, erased AS ({_ERASED_IDS})",
        )

    def erased_counts(self, bank_id: str | None = None) -> dict[str, int]:
        """Banks with an erasure -> how many of their memories were erased (0: turns only). An erased memory is
        out of the hot store and the cold side both; its history stays."""
        where, params = (
            (["type = 'ContentErased'"], {})
            if bank_id is None
            else (
                ["type = 'ContentErased'", "bank_id = $bank"],
                {"bank": bank_id},
            )
        )
        rows = self._query(
            f"SELECT bank_id, count(DISTINCT m) AS n FROM (SELECT bank_id, unnest(list_concat({_ERASED}, [NULL])) "
            "AS m FROM ev) GROUP BY bank_id ORDER BY bank_id",
            where,
            params,
            [TOPIC_MEMORIES],
        )
        return {r["bank_id"]: r["n"] for r in rows}

    def search_cold(
        self,
        bank_id: str,
        vector: Vector,
        limit: int = 10,
        *,
        embedder: str | Sequence[str] | None = None,
        agent: str | None = "*",
        kinds: Sequence[str] | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[dict[str, Any]]:
        """Archived memories of a bank (cold, status archived) nearest ``vector`` by cosine, best first, with
        the fields of their ``MemoryRetained`` (``payload``); ``agent`` filters owners as recall does."""
        cold = [r["memory_id"] for r in self.cold_memories(bank_id) if r["status"] == "archived"]
        dim = len(vector)
        if not cold or dim == 0:
            return []
        where = [
            "bank_id = $bank",
            "type = 'MemoryRetained'",
            f"len(vector) = {dim}",
            "memory_id IN (SELECT unnest($cold))",
        ]
        params: dict[str, Any] = {"bank": bank_id, "q": [float(x) for x in vector], "cold": cold}
        owner = "json_extract_string(payload, '$.owner')"
        optional = (
            (_EMBEDDER_IN, "embedder", None if embedder is None else _ids(embedder)),
            (f"({owner} IS NULL OR {owner} = $agent)", "agent", agent if agent not in ("*", None) else None),
            ("list_contains($kinds, kind)", "kinds", list(kinds) if kinds else None),
            ("json_extract_string(payload, '$.valid_from')::TIMESTAMPTZ >= $since", "since", since),
            ("json_extract_string(payload, '$.valid_from')::TIMESTAMPTZ < $until", "until", until),
        )
        for clause, name, value in optional:
            if value is not None:
                where.append(clause)
                params[name] = value
        if agent is None:
            where.append(f"{owner} IS NULL")
        return self._query(
            f"SELECT {_MEMORY_COLS}, payload, array_cosine_similarity(vector::FLOAT[{dim}], $q::FLOAT[{dim}]) AS score "
            'FROM ev QUALIFY row_number() OVER (PARTITION BY memory_id ORDER BY "partition", "offset") = 1 '
            f"ORDER BY score DESC NULLS LAST, memory_id LIMIT {int(limit)}",
            where,
            params,
            [TOPIC_MEMORIES],
        )

    def table_rows(self, bank_id: str | None = None) -> list[dict[str, Any]]:
        """Every archived row (vectors included) by (topic, partition, offset): rebuild == live."""
        where, params = ([], {}) if bank_id is None else (["bank_id = $bank"], {"bank": bank_id})
        return self._query(f"SELECT * FROM ev {_LOG_ORDER}", where, params)

    def table(self, bank_id: str | None = None) -> pa.Table:
        """``table_rows`` as one Arrow table (vectors stay float32 arrays): for hashing a whole archive."""
        where, params = ([], {}) if bank_id is None else (["bank_id = $bank"], {"bank": bank_id})
        return self._query(f"SELECT * FROM ev {_LOG_ORDER}", where, params, arrow=True)


def _ids(embedder: str | Sequence[str]) -> list[str]:
    return [embedder] if isinstance(embedder, str) else list(embedder)


def _folded(rows: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Fold memory events (log order) through ``lifecycle.changes``: memory_id -> its ``status`` and
    ``superseded_by`` (what replaces it now, or None). An erased memory shows ``erased`` for good (``changes``
    makes it forgotten, as the actor's state keeps it: nothing it said is left to bring back)."""
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        if row["type"] == "MemoryRetained":
            out.setdefault(row["memory_id"], {"status": "active", "superseded_by": None})
            continue
        try:
            event = decode(row["payload"].encode("utf-8"))
        except DecodeError:
            continue
        for memory_id, fields in changes(event):
            memory = out.setdefault(str(memory_id), {"status": "active", "superseded_by": None})
            if memory["status"] == ERASED:
                continue
            if "status" in fields:
                memory["status"] = ERASED if isinstance(event, ContentErased) else fields["status"]
            if "superseded_by" in fields:
                memory["superseded_by"] = None if fields["superseded_by"] is None else str(fields["superseded_by"])
    return out


def _usage(payloads: Iterable[str]) -> list[dict[str, Any]]:
    """ExtractionCompleted payloads summed per (model, prompt version)."""
    usage: dict[tuple[str, str], dict[str, Any]] = {}
    for payload in payloads:
        body = json.loads(payload)
        key = (body.get("model") or body.get("extractor", "?"), body.get("prompt_version") or "-")
        row = usage.setdefault(
            key,
            {
                "model": key[0],
                "prompt_version": key[1],
                "batches": 0,
                "turns": 0,
                "calls": 0,
                "prompt_tokens": 0,
                "completion_tokens": 0,
                "failed": 0,
            },
        )
        row["batches"] += 1
        row["turns"] += len(body.get("extractions", []))
        row["failed"] += int(bool(body.get("error")))
        for name in ("calls", "prompt_tokens", "completion_tokens"):
            row[name] += int(body.get("usage", {}).get(name, 0))
    return list(usage.values())
