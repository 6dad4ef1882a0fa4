"""How ``replay`` results are shown: rich tables for people; ``to_json`` for tools (``--json``)."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from dataclasses import asdict, is_dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from hindsight_es.app.cli.common import console, err_console
from hindsight_es.memory import MemoryInfo
from hindsight_es.memory.trust import is_trusted
from hindsight_es.recall.context import source_label
from hindsight_es.text import plural

if TYPE_CHECKING:
    from projections.replay import Verdict

STATUSES = ("active", "superseded", "forgotten", "archived", "quarantined", "retracted", "erased")


def to_json(value: Any) -> str:
    def plain(v: Any) -> Any:
        if is_dataclass(v) and not isinstance(v, type):
            return asdict(v)
        return v.isoformat() if isinstance(v, datetime) else str(v)

    return json.dumps(value, ensure_ascii=False, indent=2, default=plain)


def when(value: datetime | None) -> str:
    """A time in this machine's zone, with the zone's name (stored times are UTC)."""
    if not value:
        return ""
    moment = value if value.tzinfo else value.replace(tzinfo=UTC)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M:%S %Z")


# ------------------------------------------------------------------ progress


class _Rate(ProgressColumn):
    def render(self, task: Task) -> Text:
        return Text(f"{task.speed:,.0f} events/s" if task.speed else "- events/s", style="progress.data.speed")


class Bar:
    """A rich progress bar on stderr with events/s; a ``projections.replay.Progress``."""

    def __init__(self, label: str) -> None:
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            _Rate(),
            TimeElapsedColumn(),
            console=err_console.real,
        )
        self._label = label
        self._task = self._progress.add_task(label, total=None)

    def __enter__(self) -> Bar:
        self._progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._progress.stop()

    def start(self, total: int) -> None:
        self._progress.update(self._task, total=total)

    def advance(self, n: int) -> None:
        self._progress.advance(self._task, n)

    def stage(self, what: str) -> None:
        self._progress.update(self._task, description=f"{self._label}: {what}")


# ------------------------------------------------------------------ verify


def show_verdict(verdict: Verdict) -> None:
    table = Table(title="content hashes, live vs rebuilt", title_justify="left")
    for column in ("table", "bank", "rows", "live", "rebuilt", ""):
        table.add_column(column)
    for c in verdict.checks:
        table.add_row(
            c.table,
            c.bank or "(no bank)",
            str(c.rows),
            c.live[:16],
            c.rebuilt[:16],
            "ok" if c.ok else "[red]MISMATCH[/red]",
        )
    console.print(table)
    same = sum(c.ok for c in verdict.rankings)
    if verdict.rankings:
        console.print(f"rankings of probe queries, live vs rebuilt: {same} of {len(verdict.rankings)} the same")
    elif verdict.rankings_skipped:
        console.print(f"rankings not compared: {verdict.rankings_skipped}")
    for key, why in sorted(verdict.damaged.items()):
        console.print(f"[red]damaged archive file[/red] {key}: {why}")
    lag = ", ".join(f"{name} {n:,}" for name, n in verdict.behind.items() if n)
    console.print(f"live stores behind the log (not compared): {lag}" if lag else "live stores are at the log end")


# ------------------------------------------------------------------ memories (state, rollback plans)


WIDE = 140  # columns from which a memory table shows session, turns and time apart (below, its text gets them)


def memory_table(title: str, memories: list[MemoryInfo], *, status: bool = True) -> Table:
    """Memories, their full ids kept whole (they are what ``replay audit`` takes). On a terminal narrower
    than ``WIDE`` the key, session, turns and time go under the text, which would otherwise get a few
    characters a line."""
    wide = console.width >= WIDE
    table = Table(title=title, title_justify="left")
    columns = ["memory", "kind", *(["status"] if status else [])]
    columns += ["key = value", "session", "turns", "valid from", "text"] if wide else ["text"]
    for column in columns:
        table.add_column(
            column,
            overflow="fold",
            no_wrap=column in ("memory", "kind", "status"),
            min_width=36 if column == "memory" else None,
            ratio=1 if column == "text" and not wide else None,
        )
    for m in memories:
        key = f"{m.key} = {m.value}" if m.key else ""
        turns = ",".join(m.source_turn_ids)
        # Not the user's word (a document's, a tool's, another user's): said under the text, as recall says it
        whose = "" if is_trusted(m.provenance, m.confirmed) else f"{source_label(m.provenance)}, unverified"
        rest: list[str | Text]
        if wide:
            text = Text(m.text).append(f"\n{whose}", style="dim") if whose else Text(m.text)
            rest = [key, m.session_id or "", turns, when(m.valid_from), text]
        else:  # the text first, then where it came from, dimmed
            about = " · ".join(x for x in (whose, key, f"session {m.session_id}" if m.session_id else "", turns) if x)
            rest = [Text(m.text).append(f"\n{about}, {when(m.valid_from)}", style="dim")]
        # Text, not markup: a placeholder "[erased by …]" or a user's "[b]" reads as written
        table.add_row(str(m.memory_id), m.kind, *([m.shown_status] if status else []), *rest)
    return table


def review_table(title: str, columns: list[str], rows: list[list[str]], *, text: str = "text") -> Table:
    """Memories waiting for an operator (quarantined, disputed): the id whole, then ``columns``. Below
    ``WIDE`` columns of terminal every column but the id and ``text`` goes under the text, each as
    "name: value", so no column is folded to a few characters a line."""
    wide = console.width >= WIDE
    table = Table(title=title, title_justify="left", show_lines=True)
    table.add_column("memory id", no_wrap=True, min_width=36)
    for column in columns if wide else [text]:
        table.add_column(column, overflow="fold", ratio=1 if column == text else None)
    at = columns.index(text)
    for memory_id, *values in rows:
        if wide:
            table.add_row(memory_id, *(Text(v) for v in values))
            continue
        cell = Text(values[at])
        for name, value in zip(columns, values, strict=True):
            if name != text and value:
                cell.append(f"\n{name}: {value}", style="dim")
        table.add_row(memory_id, cell)
    return table


def show_plan(retract: list[MemoryInfo], restore: list[MemoryInfo], *, done: bool) -> None:
    verb = ("retracted", "restored") if done else ("to retract", "to restore")
    retracted, restored = (plural(len(ms), "memory", "memories") for ms in (retract, restore))
    console.print(memory_table(f"{retracted} {verb[0]}", retract))
    console.print(memory_table(f"{restored} {verb[1]} (what the retracted ones had displaced)", restore))


# ------------------------------------------------------------------ audit


def show_lineage(lineage: dict[str, Any]) -> None:
    retained = lineage["retained"]
    mid = lineage["memory_id"]
    value = f" = {retained['value']}" if retained.get("value") is not None else ""  # a correction's key has none
    key = f"   key {retained['key']}{value}" if retained.get("key") else ""
    console.print(
        f"[bold]memory {mid}[/bold]  {retained['kind']}, [bold]{lineage['status']}[/bold], bank {lineage['bank_id']!r}"
    )
    console.print(Text(f"  {retained['text']}{key}"))  # text, never markup: a placeholder reads "[erased by …]"
    console.print(
        f"  source {retained.get('source')} ({retained.get('trust')}), "
        f"extractor {retained.get('extractor')}, embedder {retained.get('embedder')}"
    )
    turns = Table(title="from turns", title_justify="left")
    for column in ("time", "session", "turn", "speaker", "source", "text"):
        turns.add_column(column, overflow="fold")
    for t in lineage["source_turns"]:
        turns.add_row(
            when(t["occurred_at"]),
            t["session_id"],
            t["turn_id"],
            t.get("speaker") or t.get("role") or "",
            t.get("source") or "",
            Text(t["text"] or ""),
        )
    if lineage["source_turns"]:
        console.print(turns)
    elif str(retained.get("extractor")).startswith("correction"):  # its words are the command's, said in no turn
        words = f": {retained['quote']}" if retained.get("quote") else ""  # read as a statement, its words
        console.print(Text(f"  said in no turn: the words of a correction{words}"))
    else:
        console.print("  no source turn in this log")
    texts = {m["memory_id"]: m["text"] for m in lineage["named"]}  # every memory its events name
    history = Table(title="history", title_justify="left")
    for column in ("time", "event", "by", "what", "event id"):
        history.add_column(column, overflow="fold")
    # An event's name is one word: it keeps its whole width (the "what" column wraps instead), never
    # "MemoryRetaine d" in a narrow terminal.
    names = history.columns[1]
    names.no_wrap, names.min_width = True, max((len(e["type"]) for e in lineage["events"]), default=5)
    for e in lineage["events"]:
        history.add_row(
            when(e["occurred_at"]), e["type"], e["actor"] or "", Text(describe(e, mid, texts)), e["event_id"]
        )
    console.print(history)


def describe(event: dict[str, Any], mid: str, texts: dict[str, str]) -> str:
    """What one memory event did to memory ``mid``, in words."""
    payload = json.loads(event["payload"] or "{}")
    reason = f" ({payload['reason']})" if payload.get("reason") else ""
    match event["type"]:
        case "MemoryRetained":
            how = _how(str(payload.get("extractor")))
            turns = ", ".join(payload.get("source_turn_ids") or [])
            return f"retained {how}" + (f" from turns {turns}" if turns else f" by {event['actor'] or 'unknown'}")
        case "MemorySuperseded" if event["memory_id"] == mid:
            other = event["superseded_by"]
            return f"superseded by {other} {texts.get(other, '')!r}{reason}"
        case "MemorySuperseded":
            other = event["memory_id"]
            return f"superseded {other} {texts.get(other, '')!r}{reason}"
        case "SourceRetracted" if mid in (event["retracted_memory_ids"] or []):
            return f"retracted: derived from retracted turns {', '.join(payload.get('turn_ids', []))}{reason}"
        case "SourceRetracted":
            return f"restored: the memory that had displaced it was retracted{reason}"
        case "ContentErased":
            return f"erased: its content is destroyed, for good{reason}"
    return event["type"].removeprefix("Memory").lower() + reason


def show_session(bank: str, session: str, turns: list[dict[str, Any]], memories: list[dict[str, Any]]) -> None:
    table = Table(title=f"bank {bank!r}, session {session!r}: {plural(len(turns), 'turn')}", title_justify="left")
    for column in ("time", "turn", "by", "speaker", "source", "text"):
        table.add_column(column, overflow="fold")
    for t in turns:
        # Who published it (the actor), who said it and where it came from, as the lineage view shows them:
        # a document's text published by a user's client is the document's, not the user's word.
        turn = json.loads(t["payload"] or "{}")
        table.add_row(
            when(t["occurred_at"]),
            t["turn_id"],
            t["actor"] or "",
            turn.get("speaker") or turn.get("role") or "",
            turn.get("source") or "",
            Text(t["text"] or ""),
        )
    console.print(table)
    console.print(archived_memories(f"{plural(len(memories), 'memory', 'memories')} it produced", memories))


def archived_memories(title: str, memories: list[dict[str, Any]]) -> Table:
    table = Table(title=title, title_justify="left")
    for column in ("memory", "kind", "status", "turns", "time", "text"):
        table.add_column(
            column, overflow="fold", no_wrap=column == "memory", min_width=36 if column == "memory" else None
        )
    for m in memories:
        table.add_row(
            m["memory_id"],
            m["kind"],
            m["status"],
            ",".join(m["source_turn_ids"] or []),
            when(m["occurred_at"]),
            Text(m["text"] or ""),
        )
    return table


def bank_summary(turns: list[dict[str, Any]], memories: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per session: turns, first and last turn time, memories by status."""
    sessions: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"turns": 0, "first": None, "last": None, "memories": Counter()}
    )
    for t in turns:
        s = sessions[t["session_id"]]
        s["turns"] += 1
        s["first"] = min(filter(None, (s["first"], t["occurred_at"])))
        s["last"] = max(filter(None, (s["last"], t["occurred_at"])))
    for m in memories:
        sessions[m["session_id"] or ""]["memories"][m["status"]] += 1
    ordered = sorted(sessions.items(), key=lambda kv: str(kv[1]["first"]))
    return [
        {
            "session": name,
            "turns": s["turns"],
            "first_turn": s["first"],
            "last_turn": s["last"],
            "memories": dict(s["memories"]),
        }
        for name, s in ordered
    ]


def show_bank(bank: str, summary: list[dict[str, Any]]) -> None:
    table = Table(
        title=f"bank {bank!r}: {plural(len(summary), 'session')} (audit --session S for one)", title_justify="left"
    )
    # Folded, never cut: the title asks for a session's id (`audit --session S`); every column stays on screen.
    for column in ("session", "turns", "first turn", "last turn", *STATUSES):
        table.add_column(
            column, justify="right" if column in STATUSES or column == "turns" else "left", overflow="fold"
        )
    for s in summary:
        table.add_row(
            s["session"],
            str(s["turns"]),
            when(s["first_turn"]),
            when(s["last_turn"]),
            *(str(s["memories"].get(status, 0)) for status in STATUSES),
        )
    console.print(table)


def _how(extractor: str) -> str:
    """How a memory was retained: by an extractor, or as a correction (in its words, or as the rules read them:
    ``memory.corrections``)."""
    if extractor == "correction":
        return "as a correction"
    if extractor.startswith("correction:"):
        return f"as a correction, read by {extractor.removeprefix('correction:')}"
    return f"by {extractor}"
