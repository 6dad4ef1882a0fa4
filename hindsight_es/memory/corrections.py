"""The decision on a correction (``CorrectionRequested``): a new memory supersedes the one it names.

The corrected words are read the way a turn of the bank's owner is (``reading``): the actor runs the rule
extractor over them before deciding (``streams.preparing``), and when that yields one typed memory about what
the named memory was about, the correction is stored as that statement and key, like any extracted memory.
Otherwise the words stand as given, under the old key. The command keeps the words either way, and so does the
new memory (its text, or its quote). Pure, like ``decide``: ids derive from the command's id. What was decided
is in the ``MemoryRetained`` (statement, key, extractor ``correction:rules/N``), so a rebuild or a state folded
from the log never reads the words again: an old log replays as it was decided.
"""

from __future__ import annotations

from collections.abc import Sequence
from uuid import UUID

from hindsight_es.events import CorrectionRequested, Event, MemoryQuarantined, MemoryRetained, MemorySuperseded
from hindsight_es.extraction import anchors, extract
from hindsight_es.extraction.schema import Candidate
from hindsight_es.memory import guard, ids
from hindsight_es.memory.guard import DEFAULT_POLICY, GuardPolicy
from hindsight_es.memory.ids import derive_id
from hindsight_es.memory.prepared import Prepared, caused
from hindsight_es.memory.state import BankState, MemoryInfo

AS_GIVEN = "correction"  # the extractor id of a correction stored in its own words
READ_BY = "correction:"  # + the rules' id ("correction:rules/44"): a correction stored as the rules read it
_PLACEHOLDER = "memory/"  # the key a correction of a keyless memory takes: ``memory/<its id>``


def corrected_value(text: str, key: str) -> str | None:
    """The value a correction gives its key, as the rule extractor reads it in the correction's words ("We use
    PostgreSQL for billing." -> ``postgresql`` for ``team/database``), so the same value said again later is a
    restatement, not a new value that supersedes it; None when the words state none for that key."""
    return next((c.value for c in extract(text, source="user") if c.key == key and c.value), None)


def _subject(key: str) -> str:
    return key.partition("/")[0]


def reading(old: MemoryInfo, text: str, prepared: Prepared) -> tuple[int, Candidate] | None:
    """The typed memory the corrected words state, and its index in ``prepared`` (for its vector); None when the
    words stand as given.

    ``prepared`` holds the rule extractor's typed candidates for the words (its id, ``rules/N``, recorded on the
    new memory, as on a turn's), resolved here against the corrected memory as a turn's are against the bank
    (``extraction.anchors``): a bare "No, it's Bremen" takes the key it corrects. A prepared of any other
    extractor is no reading of the words: such corrections decide as they did before they were read. The reading
    is taken only when it is unambiguous and says what the caller asked to change:

    - exactly one typed, keyed candidate: several would each carry a part of the words, and one memory holds one;
    - about the same subject ("user/…" for "user/…"; for a memory with no key of its own, only the owner's word,
      whose "I" is the bank's user): the words never move a memory to someone else (another user's ``member:…``);
    - of a compatible kind: the same kind, the same key, or either side a correction (the rules' label for an
      "actually …" sentence, which says nothing of the kind) or an episode (whose words had no kind yet);
    - not the corrected memory's own key and value: that the caller asked to change, so the words say what the
      rules do not read ("allergic to peanuts and cashews" read as peanuts alone), and stand as given.
    """
    if not prepared.extractor.startswith("rules/"):
        return None
    held = (
        [anchors.Held(old.memory_id, old.key, old.value, old.session_id)]
        if old.key and old.value and old.provenance == "user"
        else []
    )
    found = anchors.resolve(prepared.candidates, held, text=text, session_id=old.session_id, speaker=None)
    typed = [(i, c) for i, c in enumerate(found) if c is not None and c.kind != "episode" and c.key]
    if len(typed) != 1:
        return None
    i, cand = typed[0]
    assert cand.key is not None
    own = old.key if old.key and not old.key.startswith(_PLACEHOLDER) else None
    same_subject = _subject(cand.key) == _subject(own) if own else old.provenance == "user"
    kinds = {cand.kind, old.kind}
    compatible = cand.kind == old.kind or cand.key == own or bool(kinds & {"correction", "episode"})
    restated = cand.key == own and cand.value == old.value
    return (i, cand) if same_subject and compatible and not restated else None


def decide_correction(
    state: BankState, command: CorrectionRequested, prepared: Prepared, policy: GuardPolicy = DEFAULT_POLICY
) -> list[Event]:
    old = state.memories.get(command.memory_id)
    if old is None or old.status in ("forgotten", "retracted"):
        return []
    new_id = ids.memory_id(command.event_id, 0)
    verdict = guard.assess(command.text, trust="trusted", source="user", policy=policy)
    read = reading(old, command.text, prepared)
    if read is not None:
        i, cand = read
        # The rules' "correction" kind says only that the words corrected something: the memory they correct
        # says what kind of thing it is (an allergy stays a constraint, which never fades).
        kind = old.kind if cand.kind == "correction" and old.kind != "episode" else cand.kind
        text, key, value, entities = cand.text, cand.key, cand.value, cand.entities
        quote = command.text if command.text != cand.text else None
        importance, vector, extractor = max(old.importance, cand.importance, 0.6), prepared.vectors[i], READ_BY
        valid_from, valid_until, extractor = cand.valid_from, cand.valid_to, extractor + prepared.extractor
    else:
        kind = "correction" if old.kind == "episode" else old.kind
        text, key, quote = command.text, old.key or f"{_PLACEHOLDER}{old.memory_id}", None
        value = old.value if old.key is None else corrected_value(command.text, old.key)
        # Only the entities the words say: the old memory's others may be what the correction took back.
        entities = tuple(e for e in old.entities if e.casefold() in command.text.casefold())
        importance, valid_from, valid_until, extractor = max(old.importance, 0.6), None, None, AS_GIVEN
        vector = prepared.vectors[-1]  # the words' own vector comes after the candidates' (``streams.preparing``)
    retained = MemoryRetained(
        event_id=derive_id(command.event_id, "retained/0"),
        **caused(command),
        memory_id=new_id,
        kind=kind,
        text=text,
        quote=quote,
        key=key,
        value=value,
        entities=entities,
        importance=importance,
        confidence=0.95,
        session_id=old.session_id,
        source="user",
        trust="trusted",
        # The correction's words are the command's, said in no turn: it names no source turn (an erase or a
        # retraction of the corrected memory's turn leaves it).
        source_turn_ids=(),
        valid_from=valid_from or command.occurred_at,
        valid_until=valid_until,
        vector=vector,
        embedder=prepared.embedder,
        extractor=extractor,
    )
    if verdict.quarantine:
        return [
            retained,
            MemoryQuarantined(
                event_id=derive_id(command.event_id, "quarantined/0"),
                **caused(command),
                memory_id=new_id,
                reason=verdict.reason,
            ),
        ]
    return [retained, *_superseded(state, command, old, key, new_id)]


def _superseded(
    state: BankState, command: CorrectionRequested, old: MemoryInfo, key: str | None, new_id: UUID
) -> Sequence[MemorySuperseded]:
    """The corrected memory, and the active holder of the new memory's key when that is another one: a key has one
    active holder, and a correction wins over what was said before, as a turn's correction does (``decide``)."""
    head = state.heads.get(key) if key else None
    out = [(old.memory_id, command.reason or "corrected")]
    out += [(head, "correction")] if head is not None and head != old.memory_id else []
    return [
        MemorySuperseded(
            event_id=derive_id(command.event_id, f"superseded/{j}"),
            **caused(command),
            memory_id=memory_id,
            superseded_by=new_id,
            valid_to=command.occurred_at,
            reason=reason,
        )
        for j, (memory_id, reason) in enumerate(out)
    ]
