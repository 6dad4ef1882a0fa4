"""What a sentence asserts: a question asks and a condition supposes (neither is remembered as said),
a request put as a question ("Can you answer in Mandarin from now on?") is the imperative it asks for,
and a choice made for one occasion ("use DHL this time") is not the standing one.
"""

from __future__ import annotations

import re

__all__ = ["EMOJI_END", "asserted", "one_off"]

# An emoji before English words ends a sentence as "!" does ("… recipes I'll never cook 😂 what's a polite way
# to …?" states, then asks); in Chinese, whose clauses run on, it does not.
EMOJI_END = r"(?<=[\u2600-\u27bf\U0001f300-\U0001faff])(?=\s*[A-Za-z])"

_QUESTION_START = re.compile(
    r"^(?:do|does|did|are|is|am|can|could|would|will|should|shall|have|has|what|where|when|why|how|who|whom"
    r"|which|whose|may|might)\b",
    re.I,
)
# "伤不伤胃", "要不要" (A-not-A) ask as 吗 does
_ZH_QUESTION = re.compile(
    r"哪里|哪儿|哪个|哪家|什么|谁|(?<!不)怎么|为什么|多少|是不是|有没有|几点|几岁|(?:吗|么)\s*$|([\u4e00-\u9fff])不\1"
)
# A Chinese sentence runs on through commas: a clause that asks ("…，里面有没有要换掉的") is dropped, not the
# clauses beside it that state ("我对花生过敏的"). An English "if"/"whether" clause inside a sentence supposes or
# asks what it says ("I no longer remember if I'm allergic to penicillin"): dropped up to its clause's end.
_ZH_CLAUSE = re.compile(r"[，,；;]")
# A speaker supposed, not stated, inside a sentence: "explain it like I'm 12", "act as if we were landlords".
_EMBEDDED_IF = re.compile(
    r"\b(?:if|whether)\b[^,;.!?]*|\b(?:like|as\s+if|as\s+though)\s+(?:i\s*['’]?\s*m|i\s+am|i\s+was|i\s+were|we\s*['’]re"
    r"|we\s+are|we\s+were)\b[^,;.!?]*",
    re.I,
)
# A sentence that supposes: a condition, a role to play, a case put ("Pretend I'm 70…", "Say I went vegan…")
_CONDITIONAL = re.compile(
    r"^(?:if|unless|suppose|supposing|imagine|pretend|assume|assuming|hypothetically|what\s+if"
    r"|(?:let['’]?s|let\s+us)\s+say|say(?=\s+(?:i|we)\b))\b|^(?:如果|要是|假如|假设|万一|倘若)",
    re.I,
)
# A request put as a question is an imperative ("Can you answer in Mandarin from now on?", "你能不能以后用中文
# 回答我？"), unless what it asks for is itself an answer ("could you tell me …", "能告诉我…在哪里吗").
_REQUEST = re.compile(
    r"^(?:please\s+)?(?:can|could|would|will)\s+you\s+(?:please\s+|kindly\s+|just\s+)?"
    r"(?P<rest>(?!(?:tell|remind|explain|show|help|recommend|suggest|check|find|look|see|guess|believe|imagine|like"
    r"|mind|be|have|do|know|think|say|confirm)\b)[^?]+?)(?:[,\s]+please)?\s*\?\s*$"
    r"|^(?:请问)?(?:你|您)(?:能不能|能否|可不可以|可以|能|会不会)(?:请你?)?(?P<zh>[^？?]+?)(?:(?:吗|么|呢)\s*[？?]?|[？?])\s*$",
    re.I,
)


# Words that open a turn without being part of what it asks ("Actually, could you use English instead?",
# "So, where do we live now?"): a request or a question is read after them.
_LEAD = re.compile(
    r"^(?:(?:actually|oh|ok|okay|so|well|hmm+|hey|also|and|but|btw|by the way|one more thing|wait|sorry|alright"
    r"|anyway|right)\b[,\s]*)+|^(?:对了|其实|哦|噢|嗯|那个|还有|另外|话说)[，,\s]*",
    re.I,
)


# A story, poem or joke asked for: what it tells is nobody's fact ("Write me a short story about a nurse called Ellen
# who lives in Oslo", "帮我编个故事，主角住在北京")
_FICTION = re.compile(
    r"^(?:please\s+)?(?:can\s+you\s+)?(?:write|tell|make|create|compose|generate|draft)\s+(?:me\s+|us\s+)?(?:a|an|some)\s+"
    r"(?:\w+\s+){0,2}?(?:story|stories|poem|song|joke|tale|script|scene|dialogue|limerick|haiku|fable)\b"
    r"|^(?:请|帮我|给我)*(?:写|编|讲)(?:一个|一篇|一首|一段|个|篇|首|段)?[^，。]{0,6}?(?:故事|小说|诗|笑话|段子|剧本)",
    re.I,
)


def asserted(sentence: str) -> str | None:
    """The asserted part of a sentence: a trailing question clause is dropped, questions give None."""
    s = sentence.strip()
    if _FICTION.match(s):
        return None
    bare = _LEAD.sub("", s, count=1)
    if bare != s and (_REQUEST.match(bare) or _QUESTION_START.match(bare)):
        s = bare
    if asked := _REQUEST.match(s):
        s = (asked["rest"] or asked["zh"]).strip()
    elif s.endswith(("?", "？")):
        cut = max(s.rfind(","), s.rfind("，"), s.rfind(" — "), s.rfind(" – "), s.rfind(" - "), s.rfind(";"))
        s = s[:cut].strip() if cut > 0 else ""
    if not s or _CONDITIONAL.match(s) or _QUESTION_START.match(s):
        return None
    if _ZH_QUESTION.search(s):  # every question form lies within one clause, so at least one clause goes
        stated = [c for c in _ZH_CLAUSE.split(s) if c.strip() and not _ZH_QUESTION.search(c)]
        if not stated or _CONDITIONAL.match(stated[0]):
            return None
        s = "，".join(stated)
    s = _EMBEDDED_IF.sub("", s).strip(" ,")
    return s or None


# One occasion, not a standing choice: "use DHL this time", "ship this order with UPS", "这次用圆通寄" ("for now",
# "暂时" are the standing one, if for a while).
_ONE_OFF = re.compile(
    r"\b(?:this\s+(?:time|once|one|order|shipment|package|parcel|delivery|trip|message|reply|answer|email|response"
    r"|draft|chat|conversation)|just\s+(?:this\s+)?once"
    r"|today\s+only|one[- ]off)\b|这一?(?:次|回|单|票|批|趟|条|封|段|篇)|这个订单",
    re.I,
)


def one_off(sentence: str) -> bool:
    """Whether a choice in ``sentence`` is made for one occasion only."""
    return _ONE_OFF.search(sentence) is not None


# A plan meant once and no more, in its clause: "我本来打算买特斯拉，现在决定不买了", "原本计划五月去日本，后来取消了"
_MEANT_ONCE = re.compile(r"(?:本来|原本|原来|当初|之前|以前)(?:是|都|还)?(?:打算|计划|准备|规划|想)")
_CLAUSE_ENDS = "，,；;"


def meant_once(sentence: str) -> str:
    """The clause of ``sentence`` that says a plan the speaker had, not has ("" when none). The clause is
    found from the cue outwards: a pattern that opened on the clause's text would be tried at every
    character of it, quadratic in a long clause."""
    found = _MEANT_ONCE.search(sentence)
    if found is None:
        return ""
    start = max(sentence.rfind(mark, 0, found.start()) for mark in _CLAUSE_ENDS) + 1
    ends = [at for mark in _CLAUSE_ENDS if (at := sentence.find(mark, found.end())) >= 0]
    return sentence[start : min(ends, default=len(sentence))]
