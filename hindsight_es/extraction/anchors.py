"""Updates resolved against what the bank holds: the new side of an update takes the key of what it replaces.

The rule extractor sees one turn; whether "it's Bremen now" or "不喝奶茶了" updates something depends on what
the bank already holds. Given the bank's active keyed memories (``Held``, oldest first), each rule
candidate of a turn is resolved:

- a value the sentence gives up ("from X", "not X any more", "X is now called …", "不再X", "把X换成…")
  anchors the update: a candidate whose attribute the rules could not name (key ``<subject>/?``, or a
  bare correction) takes the anchored memory's key, and so does one whose own key nothing holds yet;
- a negation of a held value ("I don't drink coffee any more" after "I drink coffee") is that value's
  key with the value ``not:<x>``, unless another candidate of the turn takes the key with a new value;
- a bare correction with nothing given up ("Actually, go with Liz.") corrects the session's latest
  keyed memory;
- a statement with no pronoun about a pronoun-scoped attribute ("the budget is now $15k") is about
  whoever holds it; an instruction is the held one whose action contains it or it contains
  ("别再用表格了" and "用表格总结");
- a held instruction whose action the turn gives up ("I no longer want window seats", "instead of window
  seats") is superseded by the turn's first candidate, an instruction first, which keeps its own key;
- a held value the owner has stopped holding, said with no new one ("I don't want window seats anymore",
  "my sister doesn't live in Boston anymore", "我已经戒咖啡了"), is ``retired``: the turn's episode supersedes it.

A placeholder key nothing anchors is dropped (its turn's episode keeps the words). Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from uuid import UUID

from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction import updates as ux
from hindsight_es.extraction import values as vx
from hindsight_es.extraction.schema import Candidate, Judgement
from hindsight_es.extraction.statements import statement

UNKNOWN = "?"  # the attribute of a ``<subject>/?`` key: the one of the memory the update replaces


@dataclass(frozen=True, slots=True)
class Held:
    """An active keyed memory of the bank, as resolution needs it."""

    memory_id: UUID
    key: str
    value: str
    session_id: str | None


# A value given up after it is said: "X is not my favourite any more", "X is no longer …", "X is now
# called Y", "花生不过敏了", "奶茶不喝了".
_GONE_AFTER_EN = re.compile(
    r"^\s*(?:is|are|was|were)\s+(?:not|no\s+longer)\b|^[^,;.!?]{0,40}\bany\s*more\b"
    r"|^\s*(?:is|are)\s+now\s+(?:called|named)\b|^\s*(?:has|have)\s+been\s+(?:renamed|replaced)\b",
    re.I,
)
_GONE_AFTER_ZH = re.compile(r"^[^，。！？；,!?;]{0,3}?(?:不再|不|没有?|改名|换成|改成|现在叫|改叫)")
_NEGATED_BEFORE_ZH = re.compile(r"(?:不|没|别)[^，。！？；,!?;]{0,3}$")


class _Said:
    """A sentence, read once for every held value it is checked against: a bank holds thousands of
    values, and reading the sentence's lexicon mentions again for each cost seconds per turn."""

    def __init__(self, sentence: str) -> None:
        self.sentence, self.folded = sentence, sentence.casefold()
        self.aliases = vx.ALIAS_RE.search(sentence) is not None
        self._mentions: dict[str, list[tuple[int, str]]] | None = None

    def mentions(self, value: str) -> list[tuple[int, str]]:
        if self._mentions is None:
            self._mentions = {}
            for at, said, _, canonical in ux.mentions(self.sentence):
                self._mentions.setdefault(canonical, []).append((at, said))
        return self._mentions.get(value, [])

    def occurrences(self, value: str) -> list[tuple[int, str]]:
        """Where the sentence says the held value: its lexicon aliases, else the value's words."""
        contained = value.casefold() in self.folded
        if not contained and not self.aliases:
            return []
        found = self.mentions(value)
        if found or not value or not contained:  # a value's words match only where the sentence holds them
            return found
        bound = r"(?<![a-z0-9])" if value[:1].isascii() else ""
        tail = r"(?![a-z0-9])" if value[-1:].isascii() else ""
        return [(m.start(), m[0]) for m in re.finditer(bound + re.escape(value) + tail, self.sentence, re.I)]


def _things(h: Held) -> list[str]:
    """What a held memory is about, as a sentence names it: its value; for an instruction (whose value is only
    "always" or "never"), its action and, past two words, the action without its verb ("book_window_seats":
    "book window seats", "window seats"), the words "I no longer want window seats" gives up."""
    if not _is_instruction(h.key):
        value = h.value.removeprefix("not:")
        return [] if h.value.startswith("not:") or len(value) < 2 else [value]
    action = _action(h.key)
    if not _attribute(h.key).isascii() or len(action) < 2:
        return []  # a CJK action has no word bounds to take its verb off
    return [" ".join(action), *([" ".join(action[1:])] if len(action) > 2 else [])]


def given_up(sentence: str, held: Sequence[Held]) -> list[Held]:
    """The held memories whose value (an instruction: its action) the sentence gives up, most recent first."""

    def gives_up(_: Held, before: str, after: str) -> bool:
        return bool(
            ux.is_old(before, after)
            or _GONE_AFTER_EN.match(after)
            or _GONE_AFTER_ZH.match(after)
            or _NEGATED_BEFORE_ZH.search(before)
        )

    return _named(sentence, held, gives_up)


def _named(sentence: str, held: Sequence[Held], where: Callable[[Held, str, str], bool]) -> list[Held]:
    """The held memories, most recent first, that the sentence names (``_things``) somewhere ``where`` holds of:
    the memory, and the rest of that mention's clause before it and after it."""
    said_once = _Said(sentence)
    out = []
    for h in reversed(held):
        for at, said in (o for thing in _things(h) for o in said_once.occurrences(thing)):
            before, after = ux.clause_of(sentence, at)
            if where(h, before, after[len(said) :]):
                out.append(h)
                break
    return out


# A value stopped without a new one: "no longer", "quit", "gave up" before it, or a negation before it and
# "anymore" after it; in Chinese a negation or 戒 just before it (or 不 just after: "咖啡不喝了") with the
# clause saying it is over (了, 再, 已经).
_STOPPED_BEFORE_EN = re.compile(
    r"\b(?:no\s+longer|quit|quitting|stopped|gave\s+up|given\s+up|giving\s+up|done\s+with|cut\s+out)\s+(?:\S+\s+){0,3}$",
    re.I,
)
_NOT_EN = re.compile(r"\b(?:not|never)\b|n't\b", re.I)
_ANYMORE_EN = re.compile(r"^[^,;.!?]{0,30}\b(?:any\s*more|no\s+more)\b", re.I)
_STOPPED_BEFORE_ZH = re.compile(r"(?:不|没|别|戒)[^，。！？；,!?;]{0,3}$")
_OVER_ZH = re.compile(r"了|再|已经|戒")
# The value ends its phrase, so it is what was stopped, not a word of another thing ("no longer remember my old
# Ubuntu password"): the clause ends, or goes on with when, how far, or "anymore".
_ENDS_PHRASE = re.compile(
    r"^\s*(?:$|[.!?…]|any\s*more\b|no\s+more\b|(?:at\s+all|altogether|completely|entirely|either|now|for\s+good"
    r"|last|this|since|in|on|after|a\s+(?:few|couple)|\d|(?:one|two|three|four|five|six|seven|eight|nine|ten)\b|about"
    r"|over|months?|years?|weeks?|days?)\b)"
    r"|^(?:了|啦|咯|不|也|都|已经|好久|很久|几|[一二三两]|[，。！？；,.!?;]|$)",
    re.I,
)
# Not a statement of the speaker's own: a question, a condition, a wish, someone's words relayed.
_NOT_SAID_AS_SO = re.compile(
    r"[?？]|\b(?:if|whether|unless|would|might|maybe|should|wish|hope)\b|如果|要是|万一|是否|吗|呢|也许|可能|希望",
    re.I,
)


# Some word that can end a value: without one a sentence retires nothing, and the bank's held values (100k and
# more in a large bank) are not read for it.
_MAY_STOP_EN = re.compile(
    r"no\s+longer|\bquit|\bstopped\b|\bg[ai]ve[n]?\s+up|\bgiving\s+up|\bdone\s+with|\bcut\s+out|any\s*more|no\s+more",
    re.I,
)
_NEGATION_ZH = re.compile(r"[不没别戒]")


def may_retire(sentence: str) -> bool:
    """The sentence has a word that can end a value (``retired`` can find one only then)."""
    if _MAY_STOP_EN.search(sentence):
        return True
    return _NEGATION_ZH.search(sentence) is not None and _OVER_ZH.search(sentence) is not None


def retired(sentence: str, held: Sequence[Held]) -> list[Held]:
    """The held values (an instruction: its action) the sentence says its owner stopped holding, most recent
    first: "I don't want window seats anymore", "I quit coffee", "my sister doesn't live in Boston anymore",
    "我已经戒咖啡了", "我现在不吃辣了". Stricter than ``given_up``, which reads a value as the old one beside a new
    one ("from X", "instead of X"): said alone, only an explicit end of it counts, by the value's owner."""
    if not may_retire(sentence) or _NOT_SAID_AS_SO.search(sentence) or ux.reported(sentence):
        return []

    def ends(h: Held, before: str, after: str) -> bool:
        stopped = (
            _STOPPED_BEFORE_EN.search(before) is not None
            or (_NOT_EN.search(before) is not None and _ANYMORE_EN.match(after) is not None)
            or (
                (_STOPPED_BEFORE_ZH.search(before) is not None or _GONE_AFTER_ZH.match(after) is not None)
                and _OVER_ZH.search(before + after) is not None
            )
        )
        owner = ux.owner(before) if stopped and _ENDS_PHRASE.match(after) else None
        return owner is not None and _same_owner(owner, h.key)

    return _named(sentence, held, ends)


# A value that can be a name: up to three words of letters; in Chinese up to four characters, none of them a verb
# or a particle ("国庆回去" is a plan's words, not a son's name)
_NAME_EN = re.compile(r"[a-z][\w'.-]*(?:\s+[a-z][\w'.-]*){0,2}", re.I)
_NOT_IN_A_NAME_ZH = re.compile(r"[去回来到了改在是的和把被就要想会过着吧呢吗]")


def _fits(value: str, key: str) -> bool:
    """A bare corrected value can be the value of the held ``key``: of its lexicon category, a name where a name is
    held (a relative's, a pet's), a number where an age is; anything where the attribute is free. A value of
    another kind corrects something else ("其实改成国庆回去了" after "我儿子叫Max" is no son's name)."""
    attribute = _attribute(key).partition(":")[0]
    if attribute in lx.CATEGORIES:
        found = vx.category(value)
        return found is not None and found[0] == attribute
    if attribute in ("name", "pet"):
        if value.isascii():
            return _NAME_EN.fullmatch(value) is not None
        return len(value) <= 4 and _NOT_IN_A_NAME_ZH.search(value) is None
    if attribute == "age":
        return value.isdigit()
    return True


def _subject(key: str) -> str:
    return key.partition("/")[0]


def _attribute(key: str) -> str:
    return key.partition("/")[2]


def _same_owner(subject: str, held_key: str) -> bool:
    return subject == _subject(held_key) or {subject, _subject(held_key)} <= {"user", "team"}


def _rekeyed(c: Candidate, key: str, speaker: str | None, value: str | None = None) -> Candidate:
    value = c.value if value is None else value
    attribute = _attribute(key).partition(":")[0]
    if value and attribute in lx.CATEGORIES and not value.startswith("not:") and (found := vx.category(value)):
        value = found[1]
    text = statement(key, value, c.said, speaker, c.kind)
    return c.model_copy(update={"key": key, "value": value, "text": text, "quote": c.said if text != c.said else None})


_PRONOUN = re.compile(rf"{vx.WE.pattern}|{vx.ME.pattern}", re.I)


def _action(key: str) -> list[str]:
    facet = _attribute(key).partition(":")[2]
    return facet.split("_") if facet.isascii() else list(facet.replace("_", ""))


def _contains(outer: list[str], inner: list[str]) -> bool:
    n = len(inner)
    return n >= 2 and any(outer[i : i + n] == inner for i in range(len(outer) - n + 1))


def _is_instruction(key: str) -> bool:
    return _attribute(key).startswith("instruction:")


def _instruction(key: str, held: Sequence[Held]) -> str | None:
    """The held instruction of the same subject whose action contains this one's, or the other way."""
    mine = _action(key)
    for h in reversed(held):
        if _subject(h.key) != _subject(key) or not _is_instruction(h.key):
            continue
        theirs = _action(h.key)
        if _contains(theirs, mine) or _contains(mine, theirs):
            return h.key
    return None


def _about(h: Held) -> bool:
    """A key about its value itself ("preference:coffee", "allergy:花生"): a new value is not its update."""
    facet = _attribute(h.key).partition(":")[2]
    return bool(facet) and facet == vx.slug(h.value.removeprefix("not:"))


def _scoped(key: str, sentence: str, held: Sequence[Held]) -> str | None:
    """A pronoun-scoped attribute said without a pronoun: the subject that holds it."""
    attribute = _attribute(key)
    if attribute.partition(":")[0] not in lx.PRONOUN_SCOPED or _PRONOUN.search(sentence):
        return None
    return next((h.key for h in reversed(held) if _attribute(h.key) == attribute and h.key != key), None)


def resolve(
    candidates: Sequence[Candidate],
    held: Sequence[Held],
    *,
    text: str,
    session_id: str | None,
    speaker: str | None,
) -> list[Candidate | None]:
    """The turn's candidates resolved against ``held`` (one per candidate; None: dropped). ``text``: the turn,
    where a placeholder's given-up value may be said in a sentence before it ("I gave up X; it's Y now")."""
    holders = {h.key for h in held}
    out: list[Candidate | None] = []
    for c in candidates:
        if c.kind == "episode":
            out.append(c)
            continue
        out.append(_resolved(c, candidates, held, holders, text, session_id, speaker))
    return _retiring(out, held, text)


def _retiring(found: list[Candidate | None], held: Sequence[Held], text: str) -> list[Candidate | None]:
    """The turn's candidates, the first of them (an instruction first) judged to update each held instruction
    the turn gives up ("I no longer want window seats; book aisle seats from now on"): decided, it supersedes
    that instruction. Not by taking its key, as a value's update does: an instruction's key is its action, and
    the new one ("book aisle seats") is another action. Not when a candidate of the turn takes its key."""
    keyed = {i: c for i, c in enumerate(found) if c is not None and c.key and c.kind != "episode"}
    keys = {c.key for c in keyed.values()}
    gone = [h for h in given_up(text, held) if _is_instruction(h.key) and h.key not in keys]
    takers = sorted(keyed, key=lambda i: not _is_instruction(keyed[i].key or ""))
    out = list(found)
    for i, h in zip(takers, gone, strict=False):
        c = keyed[i]
        if c.judgement is None and _same_owner(_subject(c.key or ""), h.key):
            out[i] = updating(c, h, f"gives up what it says ({' '.join(_action(h.key))})")
    return _switched(out, held, text, keys)


def updating(c: Candidate, h: Held, why: str) -> Candidate:
    """``c`` judged by the rules to update ``h``: decided, it supersedes ``h`` and keeps its own key."""
    return c.model_copy(
        update={"judgement": Judgement(relation="updates", memory_id=h.memory_id, reason=why, model="the rules")}
    )


def _switched(
    found: list[Candidate | None], held: Sequence[Held], text: str, keys: set[str | None]
) -> list[Candidate | None]:
    """A held memory about a value itself ("preference:coffee", from "I love coffee") that the turn gives up for
    another value of its category ("I switched from coffee to tea": ``drink`` tea) is updated by that choice, which
    keeps its own key; else "The user likes coffee" stayed beside "The user's drink: tea"."""
    out = list(found)
    for h in given_up(text, held):
        kind = vx.category(h.value) if _about(h) and h.key not in keys and not h.value.startswith("not:") else None
        for i, c in enumerate(out):
            if kind is None or c is None or not c.key or c.judgement is not None or not c.value:
                continue
            if _attribute(c.key).partition(":")[0] == kind[0] and _same_owner(_subject(c.key), h.key):
                out[i] = updating(c, h, f"gives up {h.value} for {c.value}")
                break
    return out


def _resolved(
    c: Candidate,
    turn: Sequence[Candidate],
    held: Sequence[Held],
    holders: set[str],
    text: str,
    session_id: str | None,
    speaker: str | None,
) -> Candidate | None:
    placeholder = c.key is not None and _attribute(c.key) == UNKNOWN
    # a revised plan or decision (keyless by kind) is no bare value: it names no attribute to take the key of
    bare = (c.key is None or placeholder) and c.is_correction and bool(c.value) and c.kind not in ("plan", "decision")
    if c.key is None and not bare:
        return c
    subject = _subject(c.key) if c.key else "user"
    said = text if placeholder or bare else c.said
    olds = [  # an instruction given up is retired by the turn's candidates (``_retiring``), never rekeyed into
        h for h in given_up(said, held) if _same_owner(subject, h.key) and h.key != c.key and not _is_instruction(h.key)
    ]
    if placeholder or bare:
        if olds:
            return _rekeyed(c, olds[0].key, speaker)
        if bare:
            latest = next((h for h in reversed(held) if h.session_id == session_id), None)
            return _rekeyed(c, latest.key, speaker) if latest and _fits(c.value or "", latest.key) else c
        return None
    assert c.key is not None
    negated = c.value.removeprefix("not:") if c.value and c.value.startswith("not:") else None
    if negated and c.key not in holders:
        for h in reversed(held):
            if h.value == negated and _same_owner(subject, h.key):
                taken = any(o.key == h.key and o.value and not o.value.startswith("not:") for o in turn)
                return c if taken else _rekeyed(c, h.key, speaker)
    if c.key in holders:
        return c
    olds = [h for h in olds if not _about(h)]
    if olds and not negated and not any(o.key == olds[0].key for o in turn):
        return _rekeyed(c, olds[0].key, speaker)
    if _is_instruction(c.key) and (found := _instruction(c.key, held)):
        return _rekeyed(c, found, speaker)
    if found := _scoped(c.key, c.said, held):
        return _rekeyed(c, found, speaker)
    return c
