"""Extraction quality on a labelled set: the extractor and the bank's decisions, scored per turn.

Each labelled turn (``data/extraction_*.jsonl``) says whether it is filler (nothing retained), which
typed memories it yields (key, value, short statement; plans and decisions keyless) and which earlier
turns of its sequence it supersedes. A sequence is one bank: its turns are extracted and decided in
order by the real ``decide``/``evolve`` (the guard included), with placeholder vectors (no model); a turn's
typed memories are its candidates as the bank resolves them (``extraction.anchors``).

- filler: precision and recall of "the turn left no memory at all";
- key+value: precision, recall and F1 of the (key, value) pairs of the keyed typed memories;
  keyless plans and decisions are counted by kind;
- supersession accuracy: over the turns that supersede something or should, the share whose
  superseded earlier turns are exactly the labelled ones;
- statement: token F1 (characters for Chinese) of a matched memory's text with the labelled statement,
  and its length against the turn's.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID, uuid5

import numpy as np

from hindsight_es.events import Event, MemoryRetained, MemorySuperseded, TurnRecorded
from hindsight_es.extraction import Extractor
from hindsight_es.memory import BankState, Prepared, decide, evolve, trust
from hindsight_es.memory.decide import resolved

T0 = datetime(2026, 1, 1, tzinfo=UTC)
_NS = UUID("6f1d3c2a-9e55-4d8e-a0c1-2b7e4f6a8d90")
_TOKENS = re.compile(r"[0-9a-z]+|[\u3400-\u9fff]")


def load(path: Path) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        missing = {"id", "seq", "lang", "text", "filler", "memories", "supersedes"} - set(row)
        if missing:
            raise ValueError(f"{path}: turn {row.get('id')!r} lacks {sorted(missing)}")
    return rows


def run(extractor: Extractor, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each labelled turn with what the pipeline made of it: ``typed`` (kind, key, value, text) and
    ``superseded`` (ids of earlier labelled turns whose memories it superseded), ``retained`` (count)."""
    by_seq: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_seq[row["seq"]].append(row)
    out = []
    for seq, turns in by_seq.items():
        state = BankState(f"extraction-{seq}")
        turn_of: dict[UUID, str] = {}  # memory id -> the labelled turn that retained it
        for n, row in enumerate(turns):
            event = TurnRecorded(
                event_id=uuid5(_NS, row["id"]),
                bank_id=state.bank_id,
                session_id=seq,
                turn_id=row["id"],
                text=row["text"],
                speaker=row.get("speaker"),
                source=row.get("source", "user"),
                occurred_at=T0 + timedelta(minutes=n),
            )
            found = extractor.extract(row["text"], speaker=row.get("speaker"), source=row.get("source", "user"))
            prepared = Prepared(found, np.zeros((len(found), 4), np.float32), "none", extractor.id) if found else None
            if prepared is not None:  # what the bank makes of the candidates: updates resolved against it
                prov = trust.provenance(event, trust.owners(state, event))
                found = list(resolved(state, event, prepared, prov).candidates)
            events: list[Event] = decide(state, event, prepared)
            for produced in events:
                evolve(state, produced)
            retained = [e for e in events if isinstance(e, MemoryRetained)]
            turn_of.update({e.memory_id: row["id"] for e in retained})
            superseded = {turn_of[e.memory_id] for e in events if isinstance(e, MemorySuperseded)}
            typed = [(c.kind, c.key, c.value, c.text) for c in found if c.kind != "episode"]
            superseded.discard(row["id"])
            out.append({**row, "typed": typed, "retained": len(retained), "superseded": sorted(superseded)})
    return out


def _f1(p: float, r: float) -> float:
    return 2 * p * r / (p + r) if p + r else 0.0


def _tokens(text: str) -> list[str]:
    return _TOKENS.findall(text.casefold())


def _overlap(a: str, b: str) -> float:
    x, y = _tokens(a), _tokens(b)
    if not x or not y:
        return 0.0
    common = sum(min(x.count(t), y.count(t)) for t in set(x))
    return _f1(common / len(x), common / len(y))


def score(results: Iterable[dict[str, Any]]) -> dict[str, float]:
    tp = fp = fn = 0
    key_tp = 0
    filler_tp = filler_fp = filler_fn = 0
    keyless_expected = keyless_found = 0
    sup_n = sup_right = 0
    statement_f1: list[float] = []
    statement_ratio: list[float] = []
    turns = 0
    for r in results:
        turns += 1
        predicted_filler = r["retained"] == 0
        filler_tp += predicted_filler and r["filler"]
        filler_fp += predicted_filler and not r["filler"]
        filler_fn += r["filler"] and not predicted_filler
        want = {(m["key"], m["value"]): m for m in r["memories"] if m.get("key")}
        got = {(key, value): text for _, key, value, text in r["typed"] if key}
        tp += len(want.keys() & got.keys())
        fp += len(got.keys() - want.keys())
        fn += len(want.keys() - got.keys())
        key_tp += len({k for k, _ in want} & {k for k, _ in got})
        for pair in want.keys() & got.keys():
            statement_f1.append(_overlap(got[pair], want[pair]["statement"]))
            statement_ratio.append(len(got[pair]) / max(1, len(r["text"])))
        wanted_kinds = [m["kind"] for m in r["memories"] if not m.get("key")]
        got_kinds = [kind for kind, key, _, _ in r["typed"] if not key]
        keyless_expected += len(wanted_kinds)
        keyless_found += sum(min(wanted_kinds.count(k), got_kinds.count(k)) for k in set(wanted_kinds))
        if r["supersedes"] or r["superseded"]:
            sup_n += 1
            sup_right += sorted(r["supersedes"]) == r["superseded"]
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    filler_p = filler_tp / (filler_tp + filler_fp) if filler_tp + filler_fp else 0.0
    filler_r = filler_tp / (filler_tp + filler_fn) if filler_tp + filler_fn else 0.0
    return {
        "turns": turns,
        "kv_precision": precision,
        "kv_recall": recall,
        "kv_f1": _f1(precision, recall),
        "key_recall": key_tp / (tp + fn) if tp + fn else 0.0,
        "keyless_recall": keyless_found / keyless_expected if keyless_expected else 0.0,
        "supersession_accuracy": sup_right / sup_n if sup_n else 0.0,
        "supersession_turns": sup_n,
        "filler_precision": filler_p,
        "filler_recall": filler_r,
        "statement_f1": float(np.mean(statement_f1)) if statement_f1 else 0.0,
        "statement_length": float(np.mean(statement_ratio)) if statement_ratio else 0.0,
    }


def by_language(results: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    out = {lang: score(r for r in results if r["lang"] == lang) for lang in sorted({r["lang"] for r in results})}
    out["all"] = score(results)
    return out


def errors(results: list[dict[str, Any]]) -> Iterable[dict[str, Any]]:
    """The turns the pipeline got wrong, with what it made of them (for ``--errors``)."""
    for r in results:
        want = sorted((m["key"], m["value"]) if m.get("key") else (m["kind"], "") for m in r["memories"])
        got = sorted((key, value or "") if key else (kind, "") for kind, key, value, _ in r["typed"])
        wrong_filler = r["filler"] != (r["retained"] == 0)
        if want != got or sorted(r["supersedes"]) != r["superseded"] or wrong_filler:
            yield {
                "id": r["id"],
                "text": r["text"],
                "want": want,
                "got": got,
                "supersedes": r["supersedes"],
                "superseded": r["superseded"],
                "filler": r["filler"],
                "retained": r["retained"],
                "statements": [t for _, key, _, t in r["typed"]],
            }
