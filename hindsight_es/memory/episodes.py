"""An episode follows its turn's typed memories, when it says nothing else. Pure.

A turn yields an episode (the utterance) and typed memories (facts, preferences, ...), retained or
restating active ones. The episode *says nothing else* when every word of it, but for at most
``SLACK`` words of greeting or filler (a CJK character counts as a word), is a word of the words those
typed memories were drawn from (their ``quote``, else their text), each of its quantities (numbers,
dates) is kept by their statements (a quote may span a date its statement dropped), and fewer words are
left over than are covered. Such an episode:

- is retired with the first of them to go: when a decision supersedes or forgets one of them, the
  episode is superseded by the same new memory, or forgotten, by an event naming that typed memory in
  ``along_with``. What the others said stays in them; kept, the episode would go on saying the
  replaced or forgotten words ("I live in Berlin and work at Siemens." after a move to Lisbon, or
  after "lives in Berlin" was forgotten);
- comes back with them: once all of them are active again (restored, released, a rollback), a
  ``MemoryRestored`` brings it back, and a rollback lists it among the memories it restores. While
  one of them stays replaced or forgotten, so does the episode.
- is resolved with them when they are disputed (a less trusted turn is disputed whole): rejected with
  the first of them the owner rejects (a ``DisputeResolved`` naming it in ``along_with``: forgotten, and
  back with them as above), accepted once all of them are active. Left disputed, it would go on
  claiming what the owner rejected, or wait on what the owner accepted.

An episode with content of its own stays as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, cast
from uuid import UUID

from hindsight_es.events import (
    ContentErased,
    DisputeResolved,
    Event,
    MemoryDisputed,
    MemoryForgotten,
    MemorySuperseded,
)
from hindsight_es.events.changes import changes
from hindsight_es.memory.forgetting import restored
from hindsight_es.memory.ids import derive_id
from hindsight_es.memory.prepared import Envelope, caused
from hindsight_es.memory.state import BankState, MemoryInfo

SLACK = 2  # words an episode may say beyond its typed memories ("hi", "thanks", "好的") and still follow them
RETIRED = ("superseded", "forgotten", "retracted")
TAKEN_ALONG = ("superseded", "forgotten")  # the statuses an episode follows its memories into
_DISPUTING = (DisputeResolved, MemoryDisputed)  # the events that say which disputes of a memory are open
_WORDS = re.compile(r"[0-9a-z]+|[^\W_]")  # Latin words and digit runs; any other letter (CJK) on its own
#: A quantity: digits, an English number word, a CJK numeral (一 left out: 一下, 一起 are no quantity).
_NUMBER = re.compile(
    r"\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen"
    r"|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|hundred|thousand|million"
    r"|dozen|half|[零两二三四五六七八九十百千万亿半]"
)
_SMALL = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
_EN = (
    {w: n for n, w in enumerate((_SMALL + " seventeen eighteen nineteen").split())}
    | {w: 10 * n for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
    | {"dozen": 12, "hundred": 100, "thousand": 1000, "million": 10**6}
)
_ZH_DIGIT = {c: n for n, c in enumerate("零一二三四五六七八九")} | {"〇": 0, "两": 2}
_EN_WORD = rf"(?:{'|'.join(sorted(_EN, key=len, reverse=True))})"
_QUANTITY = re.compile(
    rf"(?P<digits>\d+)|(?<![a-z])(?P<en>{_EN_WORD}(?:[\s-]+{_EN_WORD})*)(?![a-z])|(?P<zh>[零〇一两二三四五六七八九十百千万亿]+)"
)


class _Along(Envelope):
    event_id: UUID
    memory_id: UUID
    along_with: UUID


def words(text: str) -> list[str]:
    return _WORDS.findall(text.casefold())


def says_nothing_else(episode: str, said: Iterable[str], stated: Iterable[str]) -> bool:
    """Whether the typed memories of its turn say all the episode says, but ``SLACK`` words of greeting or
    filler: ``said``, the words they were drawn from (their quotes, else their texts), cover its words, and
    ``stated``, their statements (texts), keep each of its quantities.

    A number is never filler: "My daughter is called Mia, she is six." says the age the daughter's name
    does not. Nor is it covered by a quote alone: a quote is the clause a memory was drawn from, and its
    statement may keep only part of it ("Please remember: my daughter Mia was born on 2019-05-03." quoted
    whole by "The user's daughter's name: Mia"); hidden, the episode would take the date out of recall.
    Quantities are the part checked against the statements because a statement keeps a number's value
    however it rewords the rest of its clause ("my daughter" -> "The user's daughter's name")."""
    covered = {w for text in said for w in words(text)}
    own = words(episode)
    extra = [w for w in own if w not in covered]
    if any(_NUMBER.fullmatch(w) for w in extra) or not _quantities(episode) <= _kept(stated):
        return False
    return len(extra) <= SLACK and len(extra) < len(own) - len(extra)


def _quantities(text: str) -> set[int]:
    """The values of the numbers a text says: digit runs ("2019-05-03": 2019, 5, 3; "7pm": 7), English
    number words ("twenty-five": 25), CJK numerals ("八十五": 85, "二零一九": 2019). Left out: "one" and a
    lone "一", which "a" says as well ("one cat", "一只猫", and "一下", "一起" are no quantity), and a CJK run
    with no digit in it ("零食", "万州", "千万别"): a word, not a number."""
    out = set()
    for m in _QUANTITY.finditer(text.casefold()):
        if m["digits"]:
            out.add(int(m["digits"]))
        elif m["en"] and m["en"] != "one":
            out.add(_en_value(re.split(r"[\s-]+", m["en"])))
        elif m["zh"] and m["zh"] != "一" and (m["zh"][0] == "十" or re.search("[一二三四五六七八九两〇]", m["zh"])):
            out.add(_zh_value(m["zh"]))
    return out


def _kept(stated: Iterable[str]) -> set[int]:
    """The quantities the statements keep, with a two-digit year's ("92年", "'02") as statements write it."""
    values = {n for text in stated for n in _quantities(text)}
    return values | {n % 100 for n in values if 1900 <= n < 2100}


def _en_value(parts: Sequence[str]) -> int:
    total = part = 0
    for word in parts:
        n = _EN[word]
        if n >= 1000:
            total, part = total + (part or 1) * n, 0
        elif n == 100:
            part = (part or 1) * n
        else:
            part += n
    return total + part


def _zh_value(run: str) -> int:
    if not any(c in "十百千万亿" for c in run):
        return int("".join(str(_ZH_DIGIT[c]) for c in run))  # digit by digit: 二零一九
    total = part = digit = 0
    for c in run:
        if c in _ZH_DIGIT:
            digit = _ZH_DIGIT[c]
        elif c in "十百千":
            part, digit = part + (digit or 1) * (10, 100, 1000)["十百千".index(c)], 0
        else:
            total, part, digit = total + (part + digit) * (10_000 if c == "万" else 10**8), 0, 0
    return total + part + digit


def repeated(rows: Iterable[Mapping[str, Any]]) -> dict[str, str]:
    """The episodes among ``rows`` (memory rows: ``memory_id``, ``kind``, ``text``, ``quote``,
    ``source_turn_ids``) that say nothing but what the typed rows of their turn among them say, each with the
    id of the first of those typed rows (in the order given): one thing said, shown once, as that typed row."""
    typed: dict[tuple[str, ...], list[Mapping[str, Any]]] = {}
    episodes = []
    for row in rows:
        turns = tuple(row.get("source_turn_ids") or ())
        if row["kind"] == "episode":
            episodes.append((row, turns))
        elif turns:
            # a statement drawn from several turns (a slip's correction cites the turn it corrects and its own)
            # stands for the episode of each of them that says nothing else
            for key in dict.fromkeys([turns, *((t,) for t in turns)]):  # one key for a statement of one turn
                typed.setdefault(key, []).append(row)
    return {
        row["memory_id"]: typed[turns][0]["memory_id"]
        for row, turns in episodes
        if turns in typed
        and says_nothing_else(
            row["text"], [t.get("quote") or t["text"] for t in typed[turns]], [t["text"] for t in typed[turns]]
        )
    }


def follow(state: BankState, cause: Event, decided: Sequence[Event]) -> list[Event]:
    """The events that retire or bring back the episodes whose typed memories ``decided`` changed."""
    status, last = _after(decided)
    out: list[Event] = []
    for episode in _episodes(state, status):
        typed = _typed(state, episode)
        if not typed or episode.memory_id in status:
            continue  # a turn with an episode only, or an episode this decision already changed
        now = [status.get(m.memory_id, m.status) for m in typed]
        if episode.status == "active":
            changed = [m for m in typed if m.memory_id in last and status[m.memory_id] in TAKEN_ALONG]
            if changed and says_nothing_else(episode.text, (m.said for m in typed), (m.text for m in typed)):
                out.append(_retired(cause, episode, changed[-1].memory_id, last[changed[-1].memory_id]))
        elif episode.status == "disputed":
            if (resolved := _resolved(state, cause, episode, status, last, [*decided, *out])) is not None:
                out.append(resolved)
        elif episode.along_with is not None and episode.status in TAKEN_ALONG and all(s == "active" for s in now):
            again = next(m.memory_id for m in typed if m.memory_id in status)
            if (back := restored(cause, episode, {}, f"back with {again}, its turn's memory")) is not None:
                out.append(back)
    return out


def _resolved(
    state: BankState,
    cause: Event,
    episode: MemoryInfo,
    status: dict[UUID, str],
    last: dict[UUID, Event],
    so_far: Sequence[Event],
) -> DisputeResolved | None:
    """A disputed episode that says nothing else goes the way its turn's disputed memories went: rejected with
    the first of them to be rejected (and back with them, as a forgotten one), accepted once all of them are
    active. Kept disputed, it would go on claiming what the owner rejected, or wait on what the owner accepted."""
    target, typed = episode.disputes, _typed(state, episode)
    ruled = [m for m in typed if isinstance(last.get(m.memory_id), DisputeResolved)]
    if (
        target is None
        or not ruled
        or not says_nothing_else(episode.text, (m.said for m in typed), (m.text for m in typed))
    ):
        return None
    rejected = [m for m in ruled if status[m.memory_id] != "active"]
    if rejected:
        with_ = rejected[0]
    elif all(status.get(m.memory_id, m.status) == "active" for m in typed):
        with_ = ruled[-1]
    else:
        return None  # accepted in part: it says what is still disputed too
    how = cast(DisputeResolved, last[with_.memory_id])
    # the disputes of its target still open after what was decided before it, but for this one
    held = state.memories.get(target)
    before = next(
        (e.open_disputes for e in reversed(so_far) if isinstance(e, _DISPUTING) and e.disputes == target),
        held.disputed_by if held is not None else (),
    )
    return DisputeResolved(
        **_along(cause, episode, with_.memory_id),
        disputes=target,
        outcome=how.outcome,
        reason=f"says only what {with_.memory_id} said, {how.outcome}: {how.reason or '-'}",
        open_disputes=tuple(m for m in before if m != episode.memory_id),
    )


def revived_with(state: BankState, memories: Iterable[MemoryInfo], gone: set[UUID]) -> list[MemoryInfo]:
    """The episodes retired along with ``memories`` that come back when they do (a rollback's plan): those
    whose typed memories are then all active (brought back, or active and not in ``gone``), except those
    in ``gone``."""
    back = list(memories)
    active = {m.memory_id for m in back}
    out: dict[UUID, MemoryInfo] = {}
    for memory in back:
        for episode in _episodes_of(state, memory):
            if episode.along_with is None or episode.status not in TAKEN_ALONG or episode.memory_id in gone:
                continue
            typed = _typed(state, episode)
            if all(m.memory_id in active or (m.status == "active" and m.memory_id not in gone) for m in typed):
                out[episode.memory_id] = episode
    return list(out.values())


def _after(decided: Sequence[Event]) -> tuple[dict[UUID, str], dict[UUID, Event]]:
    """The status each memory ``decided`` changes ends in, and the event that set it."""
    status: dict[UUID, str] = {}
    last: dict[UUID, Event] = {}
    for event in decided:
        for memory_id, fields in changes(event):
            if "status" in fields:
                status[memory_id], last[memory_id] = fields["status"], event
    return status, last


def _episodes(state: BankState, changed: Iterable[UUID]) -> Iterator[MemoryInfo]:
    """The episodes of the turns that yielded the changed memories, each once, in the order met."""
    seen: set[UUID] = set()
    for memory_id in changed:
        memory = state.memories.get(memory_id)
        if memory is None or memory.kind == "episode":
            continue
        for episode in _episodes_of(state, memory):
            if episode.memory_id not in seen:
                seen.add(episode.memory_id)
                yield episode


def _episodes_of(state: BankState, memory: MemoryInfo) -> Iterator[MemoryInfo]:
    """The episodes retained by the inputs that retained or restated ``memory``."""
    for cause in (memory.retained_by, *memory.restated_by):
        for memory_id in state.yields.get(cause, ()) if cause is not None else ():
            other = state.memories.get(memory_id)
            if other is not None and other.kind == "episode" and other.retained_by == cause:
                yield other


def _typed(state: BankState, episode: MemoryInfo) -> list[MemoryInfo]:
    """The typed memories the episode's turn retained or restated."""
    ids = state.yields.get(episode.retained_by, ()) if episode.retained_by is not None else ()
    return [m for m in (state.memories.get(i) for i in dict.fromkeys(ids)) if m is not None and m.kind != "episode"]


def _along(cause: Event, episode: MemoryInfo, typed: UUID) -> _Along:
    """The envelope of an event that takes ``episode`` along with its turn's typed memory ``typed``."""
    return {
        **caused(cause),
        "event_id": derive_id(cause.event_id, f"along/{episode.memory_id}"),
        "memory_id": episode.memory_id,
        "along_with": typed,
    }


def _retired(cause: Event, episode: MemoryInfo, typed: UUID, how: Event) -> Event:
    """The episode goes the way ``how`` sent its turn's last typed memory ``typed``."""
    envelope = _along(cause, episode, typed)
    if isinstance(how, MemorySuperseded):
        return MemorySuperseded(
            **envelope,
            superseded_by=how.superseded_by,
            valid_to=how.valid_to,
            reason=f"says only what {typed} said, superseded: {how.reason or '-'}",
        )
    reason = how.reason if isinstance(how, (MemoryForgotten, ContentErased)) else ""
    gone = "erased" if isinstance(how, ContentErased) else "forgotten"  # the episode is forgotten: its words stay
    return MemoryForgotten(**envelope, reason=f"says only what {typed} said, {gone}: {reason or '-'}")


__all__ = ["SLACK", "follow", "repeated", "revived_with", "says_nothing_else", "words"]
