"""A batch's extraction and embedding, before the bank actor decides it: the CPU-bound half of a
batch, run in a thread (``BankActor.handle``) while the previous piece is appended."""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

import numpy as np

from hindsight_es.embedding import Embedder
from hindsight_es.events import CorrectionRequested, Event, TurnRecorded
from hindsight_es.events.candidates import GuardJudgement
from hindsight_es.events.memory import is_erased_turn
from hindsight_es.extraction import Candidate, Extractor, slots
from hindsight_es.memory import BankState, Prepared, trust
from hindsight_es.memory.indexing import CONVERSATION, LastTurn, index_text, reply_context, unindexed
from hindsight_es.text import flattened

# turn -> its extraction, handed over by the extraction actor: candidates, extractor, failure, the LLM
# guard judge's verdict
Given = dict[UUID, tuple[list[Candidate], str, tuple[str, str] | None, GuardJudgement | None]]


def prepare(
    events: list[Event],
    state: Callable[[str], BankState],
    rules: Extractor,
    embedder: Embedder,
    handed: Given,
) -> list[Prepared | None]:
    """Extraction and one batched embedding call for every text the batch may retain."""
    texts: list[list[str]] = []
    candidates: list[list[Candidate]] = []
    contexts: list[str | None] = []
    extractors: list[tuple[str, tuple[str, str] | None]] = []
    judged: list[GuardJudgement | None] = []
    last_turn: dict[tuple[str, str], LastTurn] = {}  # turns earlier in this batch, not yet in the state
    owners: dict[str, tuple[str, ...]] = {}  # each bank's owners, the batch's first user turn's if none yet
    for event in events:
        context: str | None = None
        extractor: tuple[str, tuple[str, str] | None] = (rules.id, None)
        verdict: GuardJudgement | None = None
        if (
            isinstance(event, TurnRecorded)
            and event.event_id not in state(event.bank_id).handled
            and not is_erased_turn(event.text, event.metadata)  # nothing to extract: decided as nothing
        ):
            given = handed.pop(event.event_id, None)
            speaker = event.speaker or _another_user(event, state(event.bank_id), owners)
            found = given[0] if given else rules.extract(event.text, speaker=speaker, source=event.source)
            extractor = (given[1], given[2]) if given else extractor
            verdict = given[3] if given else None
            session = (event.bank_id, event.session_id)
            who = event.speaker or event.source
            last = last_turn.get(session, state(event.bank_id).last_turn.get(event.session_id))
            context = reply_context(last, who, event.source)
            # the rules' reading only: an LLM's extraction reads corrections itself, and only rules are resolved
            if found and not given and event.source in CONVERSATION and last is not None and last.who == who:
                found = _slip(found, event.text, last.text, event.speaker, rules)
            if found and event.source in CONVERSATION:
                last_turn[session] = LastTurn(who, index_text(found[0].text, event.speaker), context)
            candidates.append(found)
            texts.append([index_text(c.text, event.speaker, context, c.quote) for c in found])
        elif isinstance(event, CorrectionRequested) and event.event_id not in state(event.bank_id).handled:
            # The corrected words read as the owner's turn (``memory.corrections``): one vector per typed
            # candidate, indexed as the memory it would be (its statement, the words as its quote), then the
            # words' own, last, for when they stand as given. An episode is the words themselves.
            typed = [c for c in rules.extract(event.text, source="user") if c.kind != "episode"]
            candidates.append(typed)
            texts.append([index_text(c.text, quote=event.text if event.text != c.text else None) for c in typed])
            texts[-1].append(event.text)
        else:
            candidates.append([])
            texts.append([])
        contexts.append(context)
        extractors.append(extractor)
        judged.append(verdict)
    flat = [t for group in texts for t in group]
    unique = list(dict.fromkeys(flat))  # a fact often repeats its turn's text: embed it once
    found_vectors = embedder.embed(unique) if unique else np.zeros((0, embedder.dim), np.float32)
    row = {text: i for i, text in enumerate(unique)}
    vectors = found_vectors[[row[t] for t in flat]] if flat else found_vectors
    out: list[Prepared | None] = []
    start = 0
    for found, group, context, (extractor_id, failure), verdict in zip(
        candidates, texts, contexts, extractors, judged, strict=True
    ):
        if not group:
            out.append(None)
            continue
        out.append(
            Prepared(
                found,
                vectors[start : start + len(group)],
                embedder.id,
                extractor_id,
                context,
                failure,
                verdict,
            )
        )
        start += len(group)
    return out


def _slip(found: list[Candidate], text: str, last: str, speaker: str | None, rules: Extractor) -> list[Candidate]:
    """A slip corrected in the next message of the same speaker ("Sorry, make that July 14." after "My flight to
    Denver is on July 12."): the earlier statement with the value corrected, as a memory of its own, quoting the
    message (``extraction.slots``; ``memory.revisions`` supersedes what it corrects). A keyed statement is
    corrected by its key instead (``extraction.anchors``), so the message is left to the rules."""
    if (slip := slots.corrected(flattened(text))) is None:
        return found
    previous = flattened(unindexed(last, speaker))
    earlier = rules.extract(previous, speaker=speaker)
    # a keyed value is corrected by its key; a slip of another value of a keyed statement is read here ("Sorry,
    # 2:45" after "a dentist appointment at 2:15 with Dr. Okafor", whose key holds the dentist)
    held = [c.value.casefold() for c in earlier if c.key and c.value]
    old = (slots.replaced(previous, slip) or "").casefold()
    if held and (not old or any(old in v or v in old for v in held)):
        return found
    if (statement := slots.statement(previous, slip)) is None:
        return found
    revised = Candidate(
        kind="correction",
        text=statement,
        quote=text,
        entities=earlier[0].entities if earlier else (),
        importance=0.8,
        confidence=0.9,
        is_correction=True,
    )
    # the rules' reading of the bare value ("I meant the 14th" -> 14th) gives way to the statement it corrects
    return [c for c in found if c.kind != "correction" or c.key is not None] + [revised]


def _another_user(turn: TurnRecorded, state: BankState, owners: dict[str, tuple[str, ...]]) -> str | None:
    """Whose words a statement names, for a turn without a speaker: another user's principal, so that "我住在
    马德里" from a second user of the bank reads "token-ab12住在马德里", never "用户住在马德里" (the user's own word:
    ``trust``); None for the owner's, whose statements say "the user"."""
    said = trust.as_said(turn)
    if not owners.get(turn.bank_id):
        owners[turn.bank_id] = trust.owners(state, said)
    if trust.provenance(said, owners[turn.bank_id]) != "other_user":
        return None
    return trust.principal(turn.actor)
