"""Retention: how much an active memory is still worth keeping hot, and what a janitor tick archives. Pure.

    strength(m)  = (w_imp·importance + w_conf·confidence + w_rec·use(m)) / (w_imp + w_conf + w_rec)
    use(m)       = min(1, ln(1 + recalls) / ln(1 + recall_saturation))
    age(m, now)  = now − max(valid_from, last used: recalled, restored or promoted), in days, ≥ 0
    freshness    = 0.5 ** (age / half_life[kind])           (half-life None: never fades)
    retention(m) = strength(m) · freshness(m, now)           in [0, 1]

A tick at ``now`` archives, in this order: session-scoped memories of sessions idle for longer than
``session_idle_hours``; every memory older than ``grace_days`` whose retention is below ``threshold``;
then, while more than ``capacity`` active memories are left, the lowest-retention ones (ties: the
older first, then by id). ``now`` is the tick's ``occurred_at``, so deciding it again gives the same.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from hindsight_es.events import RetentionPolicy
from hindsight_es.memory.state import BankState, MemoryInfo

DAY_S = 86_400.0


@dataclass(frozen=True, slots=True)
class Archival:
    memory: MemoryInfo
    retention: float
    reason: str


def touched_at(memory: MemoryInfo) -> datetime:
    last = memory.last_used_at
    return memory.valid_from if last is None or last < memory.valid_from else last


def half_life(kind: str, policy: RetentionPolicy) -> float | None:
    lives = policy.half_life_days
    return lives[kind] if kind in lives else lives.get("default")


def strength(memory: MemoryInfo, policy: RetentionPolicy) -> float:
    w = policy.weights
    w_imp, w_conf, w_rec = w.get("importance", 0.0), w.get("confidence", 0.0), w.get("recalls", 0.0)
    total = w_imp + w_conf + w_rec
    if total <= 0:
        return 1.0
    use = min(1.0, math.log1p(memory.recalls) / math.log1p(policy.recall_saturation))
    return (w_imp * memory.importance + w_conf * memory.confidence + w_rec * use) / total


def freshness(memory: MemoryInfo, now: datetime, policy: RetentionPolicy) -> float:
    life = half_life(memory.kind, policy)
    if life is None or life <= 0:
        return 1.0
    age_days = max(0.0, (now - touched_at(memory)).total_seconds() / DAY_S)
    fresh: float = 0.5 ** (age_days / life)  # typeshed: a float power may be complex
    return fresh


def retention(memory: MemoryInfo, now: datetime, policy: RetentionPolicy) -> float:
    return strength(memory, policy) * freshness(memory, now, policy)


def plan_archive(state: BankState, now: datetime, policy: RetentionPolicy) -> list[Archival]:
    """The active memories a tick at ``now`` archives, in the order above."""
    out: list[Archival] = []
    taken: set[UUID] = set()
    active = sorted(state.active(), key=lambda m: (m.valid_from, str(m.memory_id)))
    if policy.session_idle_hours is not None:
        idle = timedelta(hours=policy.session_idle_hours)
        for memory in active:
            seen = state.session_seen.get(memory.session_id or "")
            if memory.scope == "session" and seen is not None and now - seen >= idle:
                out.append(
                    Archival(
                        memory,
                        retention(memory, now, policy),
                        f"session {memory.session_id} idle since {seen.isoformat()}",
                    )
                )
                taken.add(memory.memory_id)
    grace = timedelta(days=policy.grace_days)
    scored = [(retention(m, now, policy), m) for m in active if m.memory_id not in taken]
    kept: list[tuple[float, MemoryInfo]] = []
    for score, memory in scored:
        if score < policy.threshold and now - touched_at(memory) >= grace:
            out.append(Archival(memory, score, f"retention {score:.3f} below {policy.threshold:g}"))
        else:
            kept.append((score, memory))
    if policy.capacity is not None and len(kept) > policy.capacity:
        kept.sort(key=lambda sm: (sm[0], sm[1].valid_from, str(sm[1].memory_id)))
        for score, memory in kept[: len(kept) - policy.capacity]:
            out.append(Archival(memory, score, f"bank over capacity {policy.capacity}, retention {score:.3f}"))
    return out
