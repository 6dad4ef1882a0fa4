"""Regex sources of the rule extractor's patterns for the language the assistant is to reply in ("answer me in
French", "use English instead", "以后用中文回答我"). The conventions of ``patterns``: group "v" the language.
"""

from __future__ import annotations

from hindsight_es.extraction.patterns import _LANG_EN, _LANG_ZH

# fmt: off
REPLY_LANGUAGE = (
    rf"\b(?:reply|respond|answer|talk|speak|write|communicate|chat)\s+(?:to me\s+|with me\s+|back\s+|me\s+)?"
    rf"(?:in|using)\s+(?P<v>{_LANG_EN})\b",
    # "以后用中文写" (写 at the end), not "用英文写论文"
    rf"用(?P<v>{_LANG_ZH})(?:来)?(?:跟我|和我|给我|与我)?(?:回答|回复|回我|交流|沟通|说话|说|写(?=$|[，。！？；,!?;\s]|给我)|聊天|聊)",
    rf"\bswitch\s+(?:your\s+|the\s+)?(?:replies|answers|responses)\s+(?:back\s+)?(?:to|into)\s+(?P<v>{_LANG_EN})\b",
    rf"(?:跟我|和我|与我|给我)(?:说话|交流|沟通|聊天|回复|回答)[，,]?(?:请你?|麻烦你?)?(?:都|就)?用(?P<v>{_LANG_ZH})",
    # "回复我的时候用英文", "以后回复我请用中文"
    rf"(?:回答|回复)我?(?:的时候|时)?[，,]?(?:请你?|就|都|还是|一律)*用(?P<v>{_LANG_ZH})",
    rf"(?:换回|改回|换成|改成|改用|换用)(?P<v>{_LANG_ZH})(?:来)?(?:跟我|和我|给我)?(?:回答|回复|交流|沟通|说话|聊)",
    # "use English instead", "switch to Chinese from now on" said to the assistant (a request: ``speech``)
    rf"^(?:please\s+)?(?:use|switch\s+(?:back\s+)?to|go\s+back\s+to|stick\s+(?:to|with))\s+(?P<v>{_LANG_EN})"
    r"(?=(?:\s+(?:instead|again|from\s+now\s+on|now|only|please|for\s+now|going\s+forward))*\s*[.!]?\s*$)",
    # "use Italian for your answers", "go back to English for replies": a language for the replies
    rf"\b(?:use|switch\s+(?:back\s+)?to|go\s+back\s+to|back\s+to|stick\s+(?:to|with))\s+(?P<v>{_LANG_EN})\s+(?:for|in|with)\s+"
    r"(?:your\s+|the\s+|my\s+|all\s+)?(?:repl(?:y|ies)|answers?|responses?)\b",
    # "replies in English are easier for my team", "I'd prefer answers in French": the replies' language judged
    rf"\b(?:prefer|want|like|need)\s+(?:all\s+)?(?:of\s+)?(?:your\s+)?(?:repl(?:y|ies)|answers?|responses?)\s+in\s+(?P<v>{_LANG_EN})\b",
    rf"\b(?:repl(?:y|ies)|answers?|responses?)\s+in\s+(?P<v>{_LANG_EN})\s+(?:are|is|would be|work|works)\s+"
    r"(?:much\s+|a lot\s+|far\s+)?(?:easier|better|best|preferred|clearer|simpler)\b",
    rf"^(?P<v>{_LANG_EN})\s+(?:is|'s)\s+(?:fine|ok(?:ay)?|good|great|better)"
    r"(?:\s+(?:again|now|too|(?:for|with) me))*\s*(?:[,.!]|$)",  # "English is fine again": accepted for the talk
    # "以后还是用中文吧": a language alone, as the close of a request, is the one to answer in
    rf"(?:^|[，,]|以后|今后|之后|接下来)(?:还是|还|就|都|也|请|统一|一律)*(?:用|说)(?P<v>{_LANG_ZH})(?:吧|就行|就好|就可以)",
    # "回中文就行": a reply in a language, as the close of a request
    rf"(?:^|[，,]|以后|今后|之后|接下来)(?:还是|还|就|都|也|请|统一|一律)*(?:回|回复|回答)我?(?P<v>{_LANG_ZH})(?:吧|就行|就好|就可以|即可)",
)
# fmt: on
