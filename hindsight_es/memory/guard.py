"""Write-time poisoning guard: every candidate is screened before it becomes an active memory.

Pure and deterministic (``decide`` calls it), so a verdict is a function of the text, its speaker's
trust and the bank state. The text is normalized first (``normalize``: markup parsed, hidden and
encoded payloads decoded, look-alike letters mapped); content signals are bilingual patterns in
``guard_rules.py``, each weighed in its context (``guard_context``); a turn scores the sum, over
signal categories, of the strongest matching rule of each (one category counts once):

    score = sum(max(weight · context share of the category's matching rules))   quarantine at score >= threshold[trust]

Signals found only in hidden or decoded text add ``hidden``; signals that only the confusable skeleton,
the leetspeak reading or removing split-word invisibles revealed add ``obfuscation``.

Thresholds are per trust level (``Settings.guard_threshold_*``): a trusted user's "from now on you
must reply in English" (a directive, 0.5) passes; the same sentence in a retrieved document does not.
Besides content, conflict rules use the bank state, for untrusted sources only: repeating a quarantined
claim is quarantined too (corroboration spam), and so is whatever an untrusted channel (a source kind
within a session) delivers after it delivered quarantined content (taint). Contradicting a more trusted
memory is not quarantined but disputed (``disputes``), and only the owner writes facts about the owner
(``trust.own_keys``).
One quarantined candidate quarantines its whole turn: the turn is one unit of provenance.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from hindsight_es.extraction.schema import Candidate
from hindsight_es.memory import guard_rules as rules
from hindsight_es.memory.guard_context import weigh
from hindsight_es.memory.normalize import normalize_for_scan
from hindsight_es.memory.state import BankState, text_key, where

TRUST_RANK = {"untrusted": 0, "normal": 1, "trusted": 2}
DEFAULT_THRESHOLDS: Mapping[str, float] = {"trusted": 1.0, "normal": 0.6, "untrusted": 0.5}
_CJK = re.compile(r"[\u3400-\u9fff]")
#: The speaker a source implies when nothing else is known (``trust.provenance`` knows the principal).
SPEAKER_OF_SOURCE = {"user": "user", "assistant": "assistant", "tool": "tool", "document": "document"}


@dataclass(frozen=True, slots=True)
class Signal:
    category: str
    weight: float
    evidence: str  # the matched text, shortened


@dataclass(frozen=True, slots=True)
class Verdict:
    quarantine: bool
    score: float = 0.0
    signals: tuple[Signal, ...] = ()
    reason: str = ""


PASS = Verdict(False)


@dataclass(frozen=True, slots=True)
class GuardPolicy:
    """How strict the guard is; built from ``Settings`` by the bank actor."""

    enabled: bool = True
    thresholds: Mapping[str, float] = field(default_factory=lambda: dict(DEFAULT_THRESHOLDS))

    @classmethod
    def from_settings(cls, settings: Any) -> GuardPolicy:
        return cls(
            settings.guard_enabled,
            {
                "trusted": settings.guard_threshold_trusted,
                "normal": settings.guard_threshold_normal,
                "untrusted": settings.guard_threshold_untrusted,
            },
        )


DEFAULT_POLICY = GuardPolicy()


def normalize(text: str) -> str:
    """The visible text as the rules read it (see ``normalize.normalize_for_scan``)."""
    return normalize_for_scan(text).text


def _match(norm: str, trust: str, speaker: str) -> dict[str, Signal]:
    """The strongest signal per category in one normalized text."""
    found: dict[str, Signal] = {}
    for rule in rules.RULES:
        if rule.untrusted_only and trust != "untrusted":
            continue
        if rule.category in found and found[rule.category].weight >= rule.weight:
            continue
        if (m := rule.pattern.search(norm)) is not None:
            weight = round(rule.weight * weigh(rule.check, m, norm, speaker), 3)
            if weight > 0 and (rule.category not in found or found[rule.category].weight < weight):
                found[rule.category] = Signal(rule.category, weight, _short(m[0]))
    return found


def _merge(into: dict[str, Signal], other: dict[str, Signal]) -> list[Signal]:
    """Adds ``other``'s signals where stronger; returns those that were new or stronger."""
    gained = []
    for category, signal in other.items():
        if category not in into or into[category].weight < signal.weight:
            into[category] = signal
            gained.append(signal)
    return gained


def scan(text: str, *, trust: str = "trusted", speaker: str | None = None) -> list[Signal]:
    """Every content signal in ``text``, the strongest per category; some only count for untrusted sources.

    ``speaker``: the provenance of the text (``user`` for the bank's owner, ``other_user``, ``assistant``,
    ``tool``, ``document``); it decides, e.g., whether "forget what I said" is a correction."""
    who = speaker or ("user" if trust == "trusted" else "document" if trust == "untrusted" else "assistant")
    norm = normalize_for_scan(text)
    found = _match(norm.text, trust, who)
    if norm.flags.get("confusable_words") or norm.flags.get("invisible_in_words"):
        plain = _match(norm.plain, trust, who)
        revealed = [s for c, s in found.items() if c not in plain]
        if revealed:
            found.setdefault("obfuscation", Signal("obfuscation", rules.WEIGHTS["obfuscation"], revealed[0].evidence))
    if norm.leet is not None and (gained := _merge(found, _match(norm.leet, trust, who))):
        found.setdefault("obfuscation", Signal("obfuscation", rules.WEIGHTS["obfuscation"], gained[0].evidence))
    for segment in norm.hidden:
        if gained := _merge(found, _match(segment, trust, who)):
            found.setdefault("hidden", Signal("hidden", rules.WEIGHTS["hidden"], f"hidden: {gained[0].evidence}"))
    if norm.flags.get("tag_characters") and any(len(h) >= 3 for h in norm.hidden):
        found.setdefault("hidden", Signal("hidden", rules.WEIGHTS["hidden"], "text in Unicode tag characters"))
    if norm.flags.get("invisible_in_words", 0) >= 2 or norm.flags.get("invisible", 0) >= 3:
        weight = rules.WEIGHTS["hidden"] if norm.flags.get("invisible_in_words", 0) >= 2 else 0.3
        found.setdefault("hidden", Signal("hidden", weight, f"{norm.flags['invisible']} invisible characters"))
    if norm.flags.get("variation_selectors", 0) >= 4:
        found.setdefault("hidden", Signal("hidden", rules.WEIGHTS["hidden"], "text in variation selectors"))
    if (repeated := _repeated(norm.text)) is not None:
        found.setdefault("corroboration", Signal("corroboration", rules.WEIGHTS["corroboration"], repeated))
    return sorted(found.values(), key=lambda s: (-s.weight, s.category))


def assess(
    text: str, *, trust: str, source: str, policy: GuardPolicy = DEFAULT_POLICY, speaker: str | None = None
) -> Verdict:
    """The content verdict for one text from a speaker of this trust."""
    if not policy.enabled:
        return PASS
    signals = scan(text, trust=trust, speaker=speaker or SPEAKER_OF_SOURCE.get(source))
    score = round(sum(s.weight for s in signals), 3)
    threshold = policy.thresholds.get(trust, DEFAULT_THRESHOLDS["untrusted"])
    if not signals or score < threshold:
        return Verdict(False, score, tuple(signals))
    named = " + ".join(f"{rules.LABELS[s.category]} ({s.weight:g})" for s in signals)
    reason = f"guard: {named} = {score:g} >= {threshold:g} (source {source}, {trust}); matched {signals[0].evidence!r}"
    return Verdict(True, score, tuple(signals), reason)


def screen(
    state: BankState,
    text: str,
    candidates: Sequence[Candidate],
    *,
    trust: str,
    source: str,
    session_id: str | None = None,
    policy: GuardPolicy = DEFAULT_POLICY,
    speaker: str | None = None,
) -> Verdict:
    """The verdict for a whole turn: its text, each candidate's text, and the conflicts with the bank.
    A contradiction of a more trusted memory is not the guard's: it is a dispute (``disputes``)."""
    if not policy.enabled:
        return PASS
    who = speaker or SPEAKER_OF_SOURCE.get(source)
    verdicts = [assess(text, trust=trust, source=source, policy=policy, speaker=who)]
    # A candidate is read in the words it was drawn from: a rule statement ("The user likes …") is our own
    # template around them, whose wording is no claim of the speaker's; an LLM's candidate (no quote) is
    # read as it will be stored.
    said = {w for c in candidates if (w := c.said) != text}
    verdicts += [assess(w, trust=trust, source=source, policy=policy, speaker=who) for w in sorted(said)]
    if (flagged := next((v for v in verdicts if v.quarantine), None)) is not None:
        return flagged
    for candidate in candidates:
        if (reason := conflict(state, candidate, trust=trust, source=source, session_id=session_id)) is not None:
            return Verdict(True, reason=reason)
    return PASS


#: Every untrusted candidate is compared with every quarantined memory: their keys are computed once.
_text_key = lru_cache(maxsize=1 << 16)(text_key)


def conflict(
    state: BankState, candidate: Candidate, *, trust: str, source: str, session_id: str | None = None
) -> str | None:
    """Why an untrusted candidate may not enter the bank: it repeats a quarantined claim (corroboration
    spam), or its channel (a source kind within a session) already delivered quarantined content (taint)."""
    if TRUST_RANK.get(trust, 0) > 0:
        return None
    same = _text_key(candidate.kind, candidate.text)
    for memory in where(state, "status", "quarantined"):
        if memory.status != "quarantined":
            continue
        if _text_key(memory.kind, memory.text) == same or (
            candidate.key is not None and (memory.key, memory.value) == (candidate.key, candidate.value)
        ):
            return f"guard: repeats the quarantined claim {memory.memory_id} (corroboration, source {source}, {trust})"
        if session_id is not None and (memory.session_id, memory.source, memory.trust) == (session_id, source, trust):
            return (
                f"guard: this {source} channel already delivered quarantined content in session {session_id} "
                f"({memory.memory_id}); what follows from it is held too"
            )
    return None


def _repeated(norm: str) -> str | None:
    """A sentence said three times or more in one text (spam that tries to win by repetition)."""
    counts: dict[str, int] = {}
    for sentence in re.split(r"[.!?。！？\n;；]+", norm):
        sentence = sentence.strip(" ,，")
        if len(sentence) >= (6 if _CJK.search(sentence) else 12):
            counts[sentence] = counts.get(sentence, 0) + 1
            if counts[sentence] >= 3:
                return _short(sentence)
    return None


def _short(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
