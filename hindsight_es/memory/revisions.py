"""What a turn moves to another time: the earlier keyless memory it revises, superseded by the turn. Pure.

An appointment, a visit, a trip, a meeting has no key ("I have a dentist appointment on Tuesday", "周六约了
看房"), so when the owner moves it ("Actually the dentist moved my appointment to Thursday", "看房改到周日
了", "体检推迟到下下周一了") no key says which memory is replaced, and both were recalled as current. A sentence
of the owner's that says something was moved (a verb of moving to a time: moved, rescheduled, postponed,
pushed, 改到, 推迟, 提前, …), about the same thing as an active keyless memory of the owner (an episode, a plan,
a decision), with a time of one kind (weekday, month, number) that differs on the two sides
(``contradiction.contradicts``), revises it: the turn's first keyless candidate (a plan, else its episode)
is judged to update it, so deciding it supersedes that memory and keeps it in history. So does a sentence
that gives up a word of such a memory for another ("we'll rent an apartment instead of the hotel", "我们不去杭州
了，去苏州", "算了，徐汇太贵了": an update cue on the word, ``anchors.given_up``, and a new side in the turn).
Said of a relative the earlier memory did not name ("my sister's appointment moved to Friday"; "动物园改到周日了"
does move "下周六带孩子去动物园"), or of someone else ("Tariq drinks ginger tea instead of coffee"), it is another
thing.
"""

from __future__ import annotations

import re
from dataclasses import replace
from uuid import UUID

from hindsight_es.events import TurnRecorded
from hindsight_es.events.candidates import Candidate
from hindsight_es.extraction import anchors
from hindsight_es.extraction import patterns as px
from hindsight_es.extraction import updates as ux
from hindsight_es.extraction.speech import one_off
from hindsight_es.memory import contradiction
from hindsight_es.memory.indexing import unindexed
from hindsight_es.memory.prepared import Prepared
from hindsight_es.memory.state import BankState, MemoryInfo
from hindsight_es.types import MemoryKind

COMMON = 400  # a word this many memories share says nothing about which one a sentence is about
# ... nor a word most of a bank's memories share, once they are a few: the owner's name in a diary of third-person
# entries ("Lisa在操场上…", "Lisa帮忙…"), given up in one of them, superseded another.
MOST, FEW = 0.5, 5
COMPARED = 50  # memories a sentence is compared with, those sharing most of its words first
_KEYLESS: frozenset[MemoryKind] = frozenset({"episode", "plan", "decision"})
# A verb of moving a thing in time, then (within its clause) where to: "moved my appointment to Thursday",
# "pushed the call back to 3pm", "rescheduled for Friday", "got postponed until May"; 改到, 推迟到, 提前, 延期, 挪到.
_MOVING = (
    r"\b(?:mov(?:e|ed|es|ing)|re-?schedul\w*|postpon\w*|push(?:ed|es|ing)?|delay\w*|bump(?:ed|s)?|shift(?:ed|s)?"
    r"|chang(?:e|ed|es)|brought|bring)\b"
)
_MOVED = re.compile(
    rf"{_MOVING}[^,;.!?]{{0,40}}?\b(?:to|until|till|for)\b|\b(?:is|are)\s+now\b"
    r"|改到|改在|改成|改为|推迟|推后|延期|延后|延到|提前|挪到|换到|调到|顺延|改期|现在(?:是|定在|约在|改在)",
    re.I,
)
_VERB = re.compile(_MOVING, re.I)
_TIMES = ("weekday", "month", "number")
# Moved for one occasion ("the release got moved to Friday this sprint only", "这周的钢琴课改到周日"): the
# standing time stands.
_ONCE = re.compile(
    r"\bthis\s+\w+\s+only\b|\bonly\s+(?:for\s+)?this\s+\w+\b|这一?(?:周|星期|礼拜)|仅此一次|就这一次", re.I
)
# Something given up for another, said in the turn: "we'll rent an apartment instead of the hotel", "I'd rather
# take the train", "算了，徐汇太贵了", "我们不去杭州了，去苏州" (the verb again, with another place).
_INSTEAD = re.compile(
    r"\binstead\b|\brather\b|\bscratch\s+that\b|\bchange\s+of\s+plans?\b|算了|改成|改在|换成|换到|而是"
    r"|改(?:去|吃|喝|用|买|租|住|穿|学|坐|开|骑|报|订|选)|不再?([去租买住订选用约找看吃喝])[^，。！？；,!?;]{1,8}?了[，,]\s*(?:改|就|还是)?\1",
    re.I,
)
_SENTENCES = re.compile(r"(?<=[.!?。！？；;\n])\s*")
_CLAUSES = re.compile(r"[,，;；]|\s+(?:because|since|as|but|so)\s+|因为|但是|所以")
# Words of a time of day or a calendar, shared by two sentences about different things: "早上实在起不来，改成下班
# 后晚上8点去了" moves the user's visits, not the gym's hours "营业时间早上6点到晚上11点".
_WHEN = re.compile(
    r"早上|晚上|上午|下午|中午|凌晨|傍晚|夜里|今天|明天|昨天|每天|天天|周末|下周|上周|本周|这周|星期|礼拜|时间|点[到去半]"
    r"|morning\w*|evening\w*|night\w*|afternoon\w*|today|tomorrow|tonight|week\w*|day\w*|time\w*|hour\w*",
    re.I,
)
_KIN = re.compile(rf"\b(?:{px._REL_EN})\b|{px._REL_ZH}", re.I)


def revised(state: BankState, turn: TurnRecorded, prepared: Prepared) -> Prepared:
    """``prepared`` with its first keyless candidate judged to update the memory the turn moves or gives up for
    another, if any; a slip corrected (``extraction.slots``) updates what it corrects in the session."""
    if (slip := _slip(state, prepared, turn)) is not None:
        return slip
    text, turn_id = turn.text, turn.turn_id
    taker = next(
        (i for i, c in enumerate(prepared.candidates) if c.key is None and c.judgement is None and c.kind in _KEYLESS),
        None,
    )
    moved, instead = _MOVED.search(text) is not None, _INSTEAD.search(text) is not None
    if taker is None or not (moved or instead) or contradiction.is_question(text):
        return prepared
    for sentence in (s for s in _SENTENCES.split(text) if s.strip()):
        if contradiction.is_question(sentence) or one_off(sentence) or _ONCE.search(sentence):
            continue
        common = _common(state, sentence)
        for older in _nearest(state, sentence, turn_id, common):
            # what is moved may be moved by anyone ("they pushed the offsite back"); what is given up for another is
            # the chooser's: "Tariq drinks ginger tea instead of coffee" gives up nothing of the owner's
            why = (_moves(sentence, older.said, common) if _MOVED.search(sentence) else None) or (
                _gives_up(sentence, older, common) if instead and ux.owner(sentence) is not None else None
            )
            if why is not None:
                candidates = list(prepared.candidates)
                candidates[taker] = anchors.updating(candidates[taker], _held(older), why)
                return replace(prepared, candidates=candidates)
    return prepared


SLIP = "corrects a slip: "  # the reason a slip's correction updates what it corrects (``drawn_from``)


def _slip(state: BankState, prepared: Prepared, turn: TurnRecorded) -> Prepared | None:
    """The statement a slip's correction gives ("My flight to Denver is on July 14.", quoting "Sorry, make that
    July 14."; ``extraction.slots``) judged to update the memory of the session's turn before, which it corrects
    (the preparing step read that turn's words from the same ``last_turn``), or None."""
    for i, c in enumerate(prepared.candidates):
        if c.kind != "correction" or c.key is not None or c.value is not None or not c.quote or c.judgement:
            continue
        if (last := state.last_turn.get(turn.session_id)) is None:
            return None
        # the turn's speaker is the one it corrects (``streams.preparing`` reads a slip of the same speaker only)
        said = unindexed(last.text, turn.speaker)
        for older in _nearest(state, said, turn.turn_id, frozenset()):
            if older.session_id == turn.session_id and older.said == said:
                candidates = list(prepared.candidates)
                candidates[i] = anchors.updating(c, _held(older), SLIP + c.quote)
                return replace(prepared, candidates=candidates)
    return None


def drawn_from(state: BankState, cand: Candidate) -> tuple[str, ...]:
    """The turns a candidate's statement also took its words from: a slip's correction restates the turn it
    corrects, so erasing that turn erases the statement too."""
    judged = cand.judgement
    if judged is None or not judged.reason.startswith(SLIP) or judged.memory_id is None:
        return ()
    older = state.memories.get(judged.memory_id)
    return older.source_turn_ids if older is not None else ()


def _gives_up(sentence: str, older: MemoryInfo, common: frozenset[str] = frozenset()) -> str | None:
    """Why ``sentence`` gives up what ``older`` is about ("instead of the hotel", "不去杭州了", "徐汇太贵了"): a word
    of both that the sentence says under an update cue (``anchors.given_up``), or None."""
    if not _kin(sentence) <= _kin(older.said) or ux.owner(older.said) is None:
        return None  # another person's, or what someone else said of themselves ("谢梓轩…从来不喝咖啡")
    both = contradiction.content(sentence) & contradiction.content(older.said)
    shared = sorted(w for w in both - common if not _WHEN.fullmatch(w))
    if not shared:
        return None
    # its words, and its values (a time, a number, a name: "book the 6:30 class instead of the 7:30")
    values = sorted({v for found in contradiction.values(older.said).values() for v in found})
    for token in [*shared, *values]:
        said = re.search(rf"(?<![a-z0-9]){re.escape(token)}[a-z]*", sentence, re.I) if token.isascii() else None
        word = said[0] if said else token
        if anchors.given_up(sentence, [anchors.Held(older.memory_id, "", word, None)]):
            return f"gives up what it is about ({word})"
    return None


def _moves(newer: str, older: str, common: frozenset[str] = frozenset()) -> str | None:
    """Why ``newer`` moves what ``older`` says to another time, or None."""
    if not _kin(newer) <= _kin(older):  # a person the earlier one did not name: another thing
        return None
    # The time it is moved to is the one in the clause that moves it ("动物园改到周日去了，周六要加班": 周日, not
    # 周六); what it is about, in that clause or the sentence. The verb of moving is the cue, not what it is about
    # ("Swimming moved to Thursdays": swimming).
    clauses = [c for c in _CLAUSES.split(newer) if _MOVED.search(c)]
    moved = next((c for c in clauses if set(contradiction.values(c)) & set(_TIMES)), newer)
    mine, theirs = contradiction.values(moved), contradiction.values(older)
    # another time: each side has one the other lacks ("4月18号" and "4月25号" share the month, not the day)
    if not any(
        kind in mine and kind in theirs and mine[kind] - theirs[kind] and theirs[kind] - mine[kind] for kind in _TIMES
    ):
        return None
    for said in dict.fromkeys((moved, newer)):
        said = _VERB.sub(" ", said)
        about = contradiction.content(said) & contradiction.content(older) - common
        # a word of two letters or characters at least: a lone 月 or 次 is no thing
        thing = any(len(word) > 1 and not _WHEN.fullmatch(word) for word in about)
        if thing and (why := contradiction.contradicts(said, older)) is not None:
            return f"moves it to another time: {why}"
    return None


def _kin(text: str) -> frozenset[str]:
    return frozenset(m[0].lower() for m in _KIN.finditer(text))


def _common(state: BankState, sentence: str) -> frozenset[str]:
    """The words of ``sentence`` too common in the bank to say which memory it is about (``COMMON``, ``MOST``)."""
    held = len(state.memories)
    return frozenset(
        token
        for token in contradiction.content(sentence)
        if (n := len(state.anchors.get(token, ()))) > COMMON or (n >= FEW and n > MOST * held)
    )


def _nearest(state: BankState, sentence: str, turn_id: str, common: frozenset[str]) -> list[MemoryInfo]:
    """Active keyless memories of the owner's word sharing content words with ``sentence``, most shared first,
    then the most recent; never the turn's own."""
    counts: dict[UUID, int] = {}
    for token in contradiction.content(sentence):
        if token in common:
            continue
        ids = state.anchors.get(token, ())
        for memory_id in ids:
            counts[memory_id] = counts.get(memory_id, 0) + 1
    found = [state.memories[m] for m in counts if m in state.memories]
    found = [
        m
        for m in found
        if m.status == "active"
        and m.key is None
        and m.kind in _KEYLESS
        and m.provenance == "user"
        and turn_id not in m.source_turn_ids
    ]
    # a plan before its turn's episode on a tie: the episode follows the plan it says nothing beside (``episodes``)
    found.sort(key=lambda m: (-counts[m.memory_id], m.kind == "episode", -m.valid_from.timestamp(), str(m.memory_id)))
    return found[:COMPARED]


def _held(m: MemoryInfo) -> anchors.Held:
    return anchors.Held(m.memory_id, m.key or "", m.value or "", m.session_id)
