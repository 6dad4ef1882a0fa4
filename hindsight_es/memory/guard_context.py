"""Context checks for the guard's rules: a phrase is an attack only in some contexts.

A rule that names a check here has its weight scaled by what surrounds the match (``weigh``): who is
addressed (the agent, or a reader of a manual), whether a secret *value* follows, whether the speaker
withdraws their own earlier words (a correction, not an override), whether a shell command is asked
of the agent or shown to a reader. Each check returns the share of the rule's weight that counts.
"""

from __future__ import annotations

import re
from collections.abc import Callable

#: The agent itself addressed or named: the one an injection wants to steer.
AGENT = re.compile(
    r"\b(?:the |an? |any |all )?(?:assistant|ai|a\.i\.|chatbot|bot|agent|model|llm|gpt|claude|chatgpt|copilot)s?\b"
    r"|ai助手|人工智能|助手|智能体|机器人|大模型|模型"
)
#: The bank's user as the target of an action (not "users" of a product in general).
USER_TARGET = re.compile(
    r"\bthe user'?s?\b|\bthis user\b|该用户|这位用户|此用户|用户的(?:账户|账号|数据|信息|资料|文件)"
)
#: Pressure to act unseen.
STEALTH = re.compile(
    r"\bwithout (?:asking|telling|confirming|notifying|informing)\b|\bsilently\b|\bsecretly\b|\bquietly\b"
    r"|\bdo(?:n'?t| not) (?:tell|mention|inform|ask)\b|\bimmediately\b"
    r"|不要告诉|别告诉|悄悄|偷偷|立即|马上|无需确认|不用确认|不要询问"
)
_DEVICE = re.compile(
    r"\b(?:phone|android|iphone|ios|ipad|pixel|samsung|settings|device|game|games|gaming|console|playstation|xbox"
    r"|switch|steam|minecraft|level|player|cheat|app|browser|chrome|firefox|router|bios|uefi|firmware|printer"
    r"|laptop|windows|macos|linux|server|cluster|database|site|website|wordpress|camera|tv|car|tesla|watch"
    r"|bluetooth|wifi|usb)\b|手机|设置|游戏|设备|浏览器|路由器|电脑|笔记本|系统设置|安卓|苹果|相机|电视|汽车|服务器|网站|玩家|关卡"
)
_SELF = re.compile(
    r"\b(?:my|mine|what i (?:said|wrote|told|asked|meant|mentioned)|i (?:said|wrote|told you|asked|mentioned|meant))\b"
    r"|我(?:之前|刚才|刚刚|上次|先前)?(?:说|讲|提|写|问|发)的|我的|我刚才|我之前"
)
_AGENT_RULES = re.compile(
    r"system|guideline|guardrail|safety|programming|polic(?:y|ies)|rules|restriction|filter|developer|prompt"
    r"|系统|安全|规则|限制|提示词|开发者|设定的?规则"
)
_DESCRIPTOR = re.compile(
    r"^(?:a |an |the )?\d+[- ]?(?:digits?|chars?|characters?|letters?|numbers?|位|个字符|位数字|位数)"
    r"|^(?:required|optional|sent|needed|case[- ]sensitive|valid|expired|invalid)"
)
_DANGEROUS_SHELL = re.compile(
    r"rm\s+-rf\s+(?:/|~|\*|\$home)|\|\s*(?:ba|z)?sh\b|nc\s+-e|/bin/(?:ba)?sh\s+-i|base64\s+-d[^|\n]*\|"
    r"|powershell\s+-e|mkfifo|/dev/tcp/|chmod\s+\+x[^\n]{0,60}&&"
)
_API_DOC = re.compile(
    r"\w\s*\(|\breturns?\b|\btakes\b|\baccepts\b|\bparameters?\b|\barguments?\b|\bendpoint\b|\bmethod\b"
    r"|\bsdk\b|\bapi\b(?! key)|\brequest\b|\bresponse\b|\bexample\b|返回|参数|接口文档|示例|方法"
)
_MEMORY_WORDS = re.compile(r"记录|记忆|用户|说法|信息|设定|偏好|资料|数据|以前|之前|此前|先前")

Check = Callable[[re.Match[str], str, str], float]


def _mode(match: re.Match[str], text: str, speaker: str) -> float:
    """ "developer mode" is a jailbreak when the agent is put into it, a phone setting otherwise."""
    agent = bool(AGENT.search(text)) or bool(re.search(r"\byou(?:'re| are) now\b|你现在|你已|你将", text))
    if agent:
        return 1.0
    return 0.0 if _DEVICE.search(text) else 0.3


def _withdrawal(match: re.Match[str], text: str, speaker: str) -> float:
    """ "forget what I said before" is a correction: the speaker withdraws their own words. The owner may
    also drop their own earlier settings; only the agent's rules and instructions are an override target."""
    own = bool(_SELF.search(match[0]))
    if speaker in ("user", "other_user") and own:
        return 0.0
    if speaker == "user" and not _AGENT_RULES.search(match[0]) and not re.search(r"instruction|指令|指示", match[0]):
        return 0.0
    return 0.5 if own else 1.0


def _secret_value(match: re.Match[str], text: str, speaker: str) -> float:
    """A secret's name followed by a value: not when the "value" describes it ("a 6-digit code")."""
    tail = re.split(r"(?:is|was|=|:|：|是|为)\s*", match[0], maxsplit=1)
    value = tail[-1].strip(" \"'`“") if len(tail) > 1 else ""
    return 0.0 if _DESCRIPTOR.match(value) else 1.0


def _shell(match: re.Match[str], text: str, speaker: str) -> float:
    """Shell in a document is an install guide unless it is asked of the agent or pipes the web into a shell."""
    if _DANGEROUS_SHELL.search(text):
        return 1.0
    return 1.0 if AGENT.search(text) or USER_TARGET.search(text) or STEALTH.search(text) else 0.3


def _tool_name(match: re.Match[str], text: str, speaker: str) -> float:
    """A function name in API documentation is not a directive; one the agent is told to call is."""
    if AGENT.search(text) or USER_TARGET.search(text) or STEALTH.search(text):
        return 1.0
    return 0.3 if _API_DOC.search(text) else 1.0


def _framing_zh(match: re.Match[str], text: str, speaker: str) -> float:
    """ "以本通知为准" closes many notices; it is framing when it is about what was recorded or said."""
    return 1.0 if _MEMORY_WORDS.search(text) else 0.4


def _addressed(match: re.Match[str], text: str, speaker: str) -> float:
    """An authority header or an exec request counts fully only when it speaks to the agent or about the user."""
    return 1.0 if AGENT.search(text) or USER_TARGET.search(text) or STEALTH.search(text) else 0.5


CHECKS: dict[str, Check] = {
    "mode": _mode,
    "withdrawal": _withdrawal,
    "secret_value": _secret_value,
    "shell": _shell,
    "tool_name": _tool_name,
    "framing_zh": _framing_zh,
    "addressed": _addressed,
}


def weigh(check: str | None, match: re.Match[str], text: str, speaker: str) -> float:
    """The share of a rule's weight that counts for this match (1.0 for rules without a check)."""
    return 1.0 if check is None else CHECKS[check](match, text, speaker)
