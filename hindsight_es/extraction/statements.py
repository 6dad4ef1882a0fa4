"""A typed memory's text: a short, conclusion-style statement (结论式的短句) built from its key and value.

"I no longer like sushi, ramen is my favourite now." (speaker Ann) gives "Ann's favourite food: ramen"
and "Ann does not like sushi"; "我以后寄快递都用顺丰，别用别的。" gives "Lin的快递：顺丰". The statement is
in the language of the sentence it came from and names its subject (the speaker, the team, a relative);
the sentence itself stays linked as the memory's ``quote`` and its turn as its source. Pure.
"""

from __future__ import annotations

import re

from hindsight_es.extraction import lexicon as lx
from hindsight_es.extraction import values as vx
from hindsight_es.text import is_cjk

_GENERIC_SPEAKERS = frozenset({"user", "assistant", "system", "tool", "document", "agent", "ai", "me", "i"})
_DISPLAY = {canonical: display for items in lx.CATEGORIES.values() for canonical, (display, _) in items.items()}
_ZH_LANGUAGES = {"english": "英文", "chinese": "中文", "spanish": "西班牙语", "french": "法语", "german": "德语"}
_ZH_LANGUAGES |= {"japanese": "日语", "korean": "韩语"}


def _subject(subject: str, speaker: str | None, zh: bool) -> str:
    if subject == "team":
        return "团队" if zh else "The team"
    person = speaker.strip() if speaker and speaker.strip().lower() not in _GENERIC_SPEAKERS else None
    me = person or ("用户" if zh else "The user")
    if subject == "user":
        return me
    relation = lx.RELATION_NAMES.get(subject, (subject.replace("_", " "), subject))
    return f"{me}的{relation[1]}" if zh else f"{_possessive(me)} {relation[0]}"


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


def _shown(value: str, sentence: str) -> str:
    """The value as the sentence wrote it (its case), a category's display name, or the value. A Chinese
    sentence's statement keeps the Chinese name it used ("改喝绿茶" is "用户的饮品：绿茶", not "green tea")."""
    if value in _DISPLAY:
        if is_cjk(sentence):
            said = [m[0] for m in vx.ALIAS_RE.finditer(sentence) if vx.ALIASES[m[0].lower()][1] == value]
            if said and is_cjk(said[0]):
                return said[0]
        return _DISPLAY[value]
    found = re.search(re.escape(value), sentence, re.I) if value else None
    return found.group(0) if found else value


def _article(noun: str) -> str:
    return f"an {noun}" if noun[:1].lower() in "aeiou" else f"a {noun}"


def statement(key: str | None, value: str | None, sentence: str, speaker: str | None, kind: str) -> str:
    """The statement of a typed candidate; the sentence itself when nothing better can be said."""
    zh = is_cjk(sentence)
    if not value:
        return sentence
    if key is None:
        return _keyless(kind, _shown(value, sentence), speaker, zh, sentence) or sentence
    subject, _, attribute = key.partition("/")
    who = _subject(subject, speaker, zh)
    negated = value.startswith("not:")
    v = _shown(value.removeprefix("not:"), sentence)
    attr, _, facet = attribute.partition(":")
    drunk = attr == "diet" and _drunk(v, sentence)
    if attr == "instruction" and not zh:
        facet = _as_said(facet, sentence)
    made = _keyed(attr, facet, value if attr == "instruction" else v, negated, who, zh, drunk)
    return made or sentence


def _as_said(slug: str, sentence: str) -> str:
    """An instruction's slug with its words as the sentence says them: a name's capitals ("on Fridays"), and
    the last word whole where the key's slug stopped at ``SLUG_MAX`` characters ("…in your summaries")."""
    said = {w.lower(): w for w in re.findall(r"[\w'-]+", sentence)[1:] if w[:1].isupper()}
    words = [said.get(w, w) for w in slug.split("_")]
    if len(slug) >= vx.SLUG_MAX - 1 and (whole := re.search(rf"\b{re.escape(words[-1])}[\w'-]*", sentence, re.I)):
        words[-1] = said.get(whole[0].lower(), whole[0].lower())
    return "_".join(words)


def _keyless(kind: str, v: str, speaker: str | None, zh: bool, sentence: str = "") -> str | None:
    who = _subject("user", speaker, zh)
    if kind == "plan":
        return f"{who}打算{v}" if zh else _plan_en(who, v, sentence)
    if kind == "decision":
        return f"{who}决定{v}" if zh else f"{who} decided: {v}"
    return None


_ARTICLE = frozenset({"a", "an", "the", "my", "our", "his", "her", "their", "some"})


def _plan_en(who: str, v: str, sentence: str) -> str:
    """An English plan as a sentence: "plans to visit Rome", "is planning on flying to Tokyo" (the value a
    gerund), "is planning a trip to Lisbon" (a noun phrase, its article as said), "is going to Paris" (a place,
    from "I'm going to Paris", whose "going to" the value left out)."""
    first = v.split(maxsplit=1)[0] if v.strip() else ""
    if first.lower().endswith("ing") and len(first) > 4:
        return f"{who} is planning on {v}"
    if first.lower() in _ARTICLE:
        return f"{who} is planning {v}"
    if v and (said := re.search(rf"\bplanning\s+((?:a|an|the|my|our)\s+){re.escape(v)}", sentence, re.I)):
        return f"{who} is planning {said[1]}{v}"
    if first[:1].isupper() and first != "I":
        return f"{who} is going to {v}"
    return f"{who} plans to {v}"


def _drunk(value: str, sentence: str) -> bool:
    """A diet's value is drunk, not eaten: a drink of the lexicon, or the sentence drinks it ("I don't
    drink alcohol", "我不喝酒")."""
    if (vx.category(value) or ("",))[0] == "drink":
        return True
    v = re.escape(value)
    return re.search(rf"\bdrink(?:s|ing)?\s+(?:\w+\s+){{0,2}}{v}|喝.{{0,3}}{v}", sentence, re.I) is not None


def _keyed(attr: str, facet: str, v: str, negated: bool, who: str, zh: bool, drunk: bool = False) -> str | None:
    if attr in lx.CATEGORIES or attr in lx.ATTRIBUTE_NAMES:
        name = lx.ATTRIBUTE_NAMES.get(attr, (attr.replace("_", " "), attr))
        region = lx.REGION_NAMES.get(facet)
        if zh:
            label = f"{region[1]}{name[1]}" if region else name[1]
            return f"{who}的{label}：{'不用' if negated else ''}{v}"
        label = f"{name[0]} for {region[0]}" if region else name[0]
        return f"{_possessive(who)} {label}: {'not ' if negated else ''}{v}"
    match attr:
        case "location":
            return f"{who}住在{v}" if zh else f"{who} lives in {v}"
        case "hometown":
            return f"{who}的老家是{v}" if zh else f"{who} is from {v}"  # 老家: the word it is asked by
        case "employer":
            if negated:
                return f"{who}不再在{v}工作" if zh else f"{who} no longer works at {v}"
            return f"{who}在{v}工作" if zh else f"{who} works at {v}"
        case "occupation" if v in ("retired", "退休"):  # no job any more, said as the state it is
            return f"{who}已退休" if zh else f"{who} is retired"
        case "occupation":  # the statement names the attribute: "what do I do for work?" finds it by its words
            return f"{who}的工作是{v}" if zh else f"{who} works as {_article(v)}"
        case "age":
            return f"{who}{v}岁" if zh else f"{who} is {v} years old"
        case "favorite":
            names = lx.FACET_NAMES.get(facet, (facet.replace("_", " "), facet))
            if zh:
                return f"{who}最喜欢的{names[1]}：{v}" if facet else f"{who}最喜欢{v}"
            return f"{_possessive(who)} favourite {names[0]}: {v}" if facet else f"{_possessive(who)} favourite: {v}"
        case "preference":
            if zh:
                return f"{who}不喜欢{v}" if negated else f"{who}喜欢{v}"
            return f"{who} does not like {v}" if negated else f"{who} likes {v}"
        case "allergy":
            if zh:
                return f"{who}对{v}不过敏" if negated else f"{who}对{v}过敏"
            return f"{who} is not allergic to {v}" if negated else f"{who} is allergic to {v}"
        case "diet":
            if facet:
                if zh:
                    verb = "喝" if drunk else "吃"
                    return f"{who}不{verb}{v}" if negated else f"{who}{verb}{v}"
                verb = "drink" if drunk else "eat"
                return f"{who} does not {verb} {v}" if negated else f"{who} {verb}s {v}"
            return f"{who}{'吃素' if v == 'vegetarian' else v}" if zh else f"{who} is {v}"
        case "health":  # a condition: "The user has celiac disease", "用户有糖尿病", "用户乳糖不耐受"
            if zh:
                return (
                    f"{who}{'不' if negated else ''}{v}"
                    if v.endswith("不耐受")
                    else f"{who}{'没' if negated else ''}有{v}"
                )
            return f"{who} does not have {v}" if negated else f"{who} has {v}"
        case "reply_language":
            language = _ZH_LANGUAGES.get(v.lower(), v) if zh else v.capitalize()
            if who in ("用户", "The user"):
                return f"用{language}回答" if zh else f"Reply in {language}"
            return f"用{language}回答{who}" if zh else f"Reply to {who} in {language}"
        case "instruction":
            action = facet.replace("_", " ") if not zh else facet.replace("_", "")
            if zh:
                return f"不要{action}" if v == "never" else f"总是{action}"
            return f"Never {action}" if v == "never" else f"Always {action}"
        case "pet":
            animal = lx.PET_NAMES.get(facet, (facet, facet))
            return f"{who}的{animal[1]}叫{v}" if zh else f"{who} has {_article(animal[0])} named {v.title()}"
        case "name":
            return f"{who}叫{v}" if zh else f"{_possessive(who)} name: {v.title()}"
        case "choice":
            activity = facet.replace("_", " ") if not zh else facet.replace("_", "")
            return f"{who}{activity}用{v}" if zh else f"{who} uses {v} for {activity}"
    if attr.endswith("_name"):
        return f"{who}的{attr[:-5]}叫{v}" if zh else f"{_possessive(who)} {attr[:-5].replace('_', ' ')}'s name: {v}"
    if not facet:  # an attribute named by the speaker's own noun ("my car is a Tesla")
        return f"{who}的{attr}：{v}" if zh else f"{_possessive(who)} {attr.replace('_', ' ')}: {v}"
    return None
