"""The poisoning guard's content rules: bilingual patterns per signal category, with their weights.

Plain data; ``guard.py`` scores them. Patterns run on the normalized text (``normalize``: markup
comments and hidden elements apart, invisible characters removed, NFKC, lowercase, Simplified Chinese,
look-alike letters mapped to Latin). Each pattern names what an attack does, not a topic, so that
ordinary look-alikes pass ("ignore the noise", "my password manager", "from now on use FedEx"); a rule
with a ``check`` is weighed in its context (``guard_context``: who is addressed, whether a value follows,
whether speakers withdraw their own words).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

WEIGHTS: dict[str, float] = {
    "override": 1.0,  # "ignore previous instructions", jailbreak modes
    "credential": 1.0,  # a secret value: API keys, "password: hunter2"
    "exfiltration": 0.9,  # send conversations / data / secrets to an outside address
    "framing": 0.7,  # "this supersedes all earlier entries", "之前的记录作废"
    "tool": 0.6,  # tool, function or shell directives
    "directive": 0.5,  # instructions aimed at the agent: "from now on you must …", "每当用户问…就回答…"
    "authority": 0.5,  # "as your administrator", "[SYSTEM]:", "官方通知"
    "hidden": 0.5,  # what the normalizer found hidden (markup, tag characters, encoded) carries a signal
    "obfuscation": 0.5,  # a signal that only look-alike letters, leetspeak or split words kept from plain sight
    "phishing": 0.5,  # asks for a password, an ID number or a card to be given in the conversation
    "user_claim": 0.5,  # an untrusted source asserting who the user is or what they want
    "memory_write": 0.5,  # "store this in your long-term memory"
    "corroboration": 0.5,  # "confirmed by multiple sources", one claim repeated three times
}
LABELS: dict[str, str] = {
    "override": "instruction override",
    "credential": "credential",
    "exfiltration": "exfiltration request",
    "framing": "supersedes-earlier framing",
    "tool": "tool directive",
    "directive": "directive aimed at the agent",
    "authority": "authority claim",
    "hidden": "hidden content",
    "obfuscation": "obfuscated text",
    "phishing": "request for sensitive data",
    "user_claim": "claim about the user",
    "memory_write": "memory-write request",
    "corroboration": "corroboration claim",
}


@dataclass(frozen=True, slots=True)
class Rule:
    category: str
    weight: float
    pattern: re.Pattern[str]
    untrusted_only: bool = False
    check: str | None = None  # a context check of ``guard_context`` that scales the weight


def _r(
    category: str, *sources: str, weight: float | None = None, untrusted_only: bool = False, check: str | None = None
) -> list[Rule]:
    w = WEIGHTS[category] if weight is None else weight
    return [Rule(category, w, re.compile(s), untrusted_only, check) for s in sources]


_S = r"[^.!?\n。！？]"  # within one sentence
_EMAIL = r"[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}"
_DEST = (
    rf"(?:https?://|www\.|{_EMAIL}|webhook|pastebin|ngrok|discord\.gg|t\.me/|telegram"
    r"|(?:external|remote|partner|third[- ]party|outside) (?:server|storage|endpoint|service))"
)
_PRIOR = r"(?:previous|prior|above|earlier|preceding|existing|original|old|older|past|all|any|other)"
_ZH_PRIOR = r"(?:之前|此前|先前|以前|上面|以上|前面|原来|原有|原先|旧|所有|全部|一切|其他|其它)"
_SECRET_VALUE = r"[\"'`“]?(?=[^\s\"'`”,;，；。]*[\d!@#$%^&*_\-+=])[^\s\"'`”,;，；。]{4,}"
_DATA = (
    r"(?:conversations?|chats?|chat (?:logs?|history)|messages?|history|transcripts?|memor(?:y|ies)|data|logs?"
    r"|passwords?|credentials?|api keys?|keys|tokens?|secrets?|personal (?:info|information|details|data)"
    r"|contacts?|files?|documents?|everything|all (?:of )?(?:the |their |the user'?s? |my )?(?:info|information|data|details))"
)
_ZH_DATA = (
    r"(?:对话|聊天记录|聊天内容|历史记录|历史|记忆|数据|密码|密钥|凭证|凭据|个人信息|隐私|通讯录|联系人|文件|所有信息"
    r"|全部信息|用户信息|资料|位置|定位|住址|行踪)"
)
_ZH_SEND = r"(?:共享给|分享给|提供给|发送|发到|转发|上传|同步|导出|泄露|提交|抄送|传到|发给|备份到|复制到|推送|存到|存储到|保存到|转存到)"

RULES: tuple[Rule, ...] = tuple(
    rule
    for group in (
        # -- instruction override / jailbreak
        _r(
            "override",
            rf"\b(?:ignore|disregard|forget|override|bypass|discard|abandon|drop)\b{_S}{{0,30}}\b{_PRIOR}\b{_S}{{0,30}}"
            r"\b(?:instructions?|prompts?|directives?|guidelines?|guardrails?|programming|system messages?|safety rules"
            r"|rules (?:above|before)|your rules)\b",
            r"\b(?:ignore|disregard|forget|override|bypass)\s+(?:your|the)\s+(?:instructions|system prompt|guidelines"
            r"|programming|safety (?:rules|guidelines|policies)|rules)\b",
            rf"(?:忽略|无视|忘记|忘掉|不要理会|不用理会|抛开|覆盖|绕过|跳过)(?:你|您|我)?{_ZH_PRIOR}?的?(?:所有|全部|任何)?的?"
            r"(?:指令|指示|提示词|系统提示|规则|设定|安全限制|安全规则|系统消息)",
            check="withdrawal",
        ),
        _r(
            "override",
            r"\b(?:developer|god|debug|maintenance|admin|test|sudo|root) mode\b",
            r"(?:进入|开启|切换到|切换为|启用|激活)(?:开发者|管理员|上帝|调试|维护)模式",
            check="mode",
        ),
        _r(
            "override",
            r"\b(?:new|updated|real|actual|true|revised)\s+(?:system\s+)?instructions?\s*:",
            r"\b(?:dan|jailbreak|unrestricted|unfiltered|unlocked|uncensored) mode\b",
            r"\bdo anything now\b|\bjailbreak(?:ed|ing)?\b",
            r"\byou (?:are|'re) (?:now )?no longer (?:an? )?(?:ai|assistant|bound|restricted|required)\b",
            r"\bpretend (?:that )?(?:you have|there are) no (?:rules|restrictions|guidelines|filters)\b",
            r"(?:进入|开启|切换到|切换为|启用|激活)(?:越狱|无限制|无审查)模式",
            r"你(?:现在)?不再是(?:一个)?(?:ai|人工智能|助手|受限)",
            r"(?:新的|真正的|最新的|更新后的)(?:系统)?(?:指令|指示)[:：]",
        ),
        # -- credentials: a secret value, not the word
        _r(
            "credential",
            r"\bsk-(?:proj-|live-|test-)?[a-z0-9_\-]{16,}",
            r"\bakia[0-9a-z]{16}\b",
            r"\bgh[pousr]_[a-z0-9]{30,}",
            r"\bxox[abpr]-[a-z0-9\-]{10,}",
            r"-----begin [a-z ]*private key-----",
            r"\beyj[a-z0-9_\-]{10,}\.[a-z0-9_\-]{10,}\.",
            r"\baiza[0-9a-z_\-]{35}\b",
            r"\b(?:password|passwd|pwd|passcode|passphrase|pin(?: code)?|api[ _-]?key|secret(?:[ _-]?key)?|access[ _-]?token"
            r"|auth[ _-]?token|bearer token|private key|client secret|otp|one[- ]time code|verification code|2fa code"
            r"|security code|cvv)\b(?: (?:for|at|of|on|to) [\w .@-]{1,30}?)?\s*(?:is|was|=|:|：)\s*" + _SECRET_VALUE,
            r"(?:密码|口令|密钥|秘钥|令牌|验证码|动态码|pin码|支付密码|登录密码|api\s*key|token)\s*(?:是|为|:|：|=)\s*"
            + _SECRET_VALUE,
            check="secret_value",
        ),
        # -- exfiltration
        _r(
            "exfiltration",
            rf"\b(?:send|forward|email|e-mail|mail|post|upload|transmit|leak|share|export|copy|sync|exfiltrate|report|submit"
            rf"|deliver|cc|bcc|relay|mirror|back up|backup|keep|store|save|move)\b{_S}{{0,80}}\b{_DATA}\b{_S}{{0,80}}{_DEST}",
            rf"\b{_DATA}\b{_S}{{0,60}}\b(?:sent|forwarded|emailed|posted|uploaded|copied|shared|mirrored|synced|backed up"
            rf"|relayed|cc'?d|bcc'?d)\b{_S}{{0,40}}{_DEST}",
            r"!\[[^\]]*\]\(https?://[^)]*[?=&{]",
            r"\b(?:append|add|include|embed|encode|put)\b[^.\n]{0,60}\b(?:to|in|into)\b[^.\n]{0,25}"
            r"\b(?:url|link|image|query string|query parameters?|markdown image)\b[^.\n]{0,30}(?:https?://|the (?:user|chat|conversation))",
            r"\b(?:reveal|print|show|repeat|output|display|leak|dump|disclose|expose)\b[^.\n]{0,30}"
            r"\b(?:system prompt|initial instructions|hidden instructions|your (?:instructions|prompt)|developer message"
            r"|api keys?|environment variables|secrets|stored credentials)\b",
            rf"{_ZH_SEND}[^。\n]{{0,40}}{_ZH_DATA}[^。\n]{{0,40}}(?:{_DEST}|邮箱|服务器|网址|链接|外部|第三方|合作方|合作伙伴)",
            rf"(?:把|将)[^。\n]{{0,30}}{_ZH_DATA}[^。\n]{{0,20}}{_ZH_SEND}[^。\n]{{0,40}}(?:{_DEST}|邮箱|服务器|网址|链接|外部|第三方|合作方|合作伙伴)",
            rf"{_ZH_DATA}[^。\n]{{0,12}}{_ZH_SEND}(?:{_DEST}|外部|第三方|合作方|合作伙伴|广告商)",
            r"(?:泄露|透露|输出|打印|显示|复述|公开)[^。\n]{0,15}(?:系统提示|系统提示词|初始指令|隐藏指令|你的指令|提示词|密钥|环境变量)",
        ),
        # -- "this supersedes earlier entries"
        _r(
            "framing",
            rf"\b(?:supersedes?|overrides?|replaces?|invalidates?|takes precedence over|cancels?|voids?|trumps)\b{_S}{{0,30}}"
            r"\b(?:all |any )?(?:earlier|previous|prior|older|past|existing|other|conflicting|stored|saved)\b"
            rf"{_S}{{0,20}}\b(?:entries|entry|memor(?:y|ies)|instructions?|information|records?|notes?|facts?|data|statements?"
            r"|preferences)\b",
            r"\b(?:earlier|previous|prior|older|old|existing|all other|stored|saved|conflicting)\s+(?:entries|entry|memor(?:y|ies)"
            r"|records?|notes?|information|facts?|data|statements?|preferences)\s+(?:is|are|were|was)\s+(?:now\s+)?(?:outdated"
            r"|obsolete|wrong|incorrect|invalid|void|false|deprecated|no longer valid|superseded|fake|corrupted)",
            r"\b(?:discard|delete|erase|purge|remove|overwrite|wipe|invalidate)\b[^.\n]{0,20}\b(?:all |any )?(?:earlier|previous|prior"
            r"|older|old|existing|stored|saved|other)\s+(?:entries|entry|memor(?:y|ies)|records?|notes?|information|facts?|data)\b",
            r"\b(?:this is|treat this as) (?:the )?(?:only |sole )?(?:correct|valid|authoritative|official|true|canonical)"
            r" (?:version|information|record|source|entry|fact)\b",
        ),
        _r(
            "framing",
            r"(?:以此为准|以本条为准|以这条为准|以下内容为准|以本消息为准|以此条为准|以最新为准|以新为准|以本通知为准)",
            r"(?:唯一|最新|官方)(?:正确|有效|权威)的?(?:版本|信息|记录|说法)",
            check="framing_zh",
        ),
        _r(
            "framing",
            rf"{_ZH_PRIOR}的?(?:记录|记忆|信息|说法|内容|条目|数据|资料|设定|偏好)[^。\n]{{0,6}}(?:全部|都|均|一律)?"
            r"(?:作废|无效|失效|过时|错误|不再有效|被取代|已废弃|不算数|是假的)",
            rf"(?:覆盖|取代|替换|推翻|删除|清除|清空|废除)[^。\n]{{0,6}}{_ZH_PRIOR}的?(?:记录|记忆|信息|说法|条目|数据|设定|偏好)",
        ),
        # -- tool, function and shell directives
        _r(
            "tool",
            r"\b(?:call|invoke|execute|trigger|run)\s+(?:the\s+)?[`'\"]?(?!(?:this|that|a|an|any|each|every|some|your|my|our|its"
            r"|their|one|another|same|other|following)\b)[a-z][a-z0-9_.]*[`'\"]?\s+(?:tool|function|plugin|api|endpoint|action"
            r"|command)\b",
            r"\b(?:use|call|invoke)\s+(?:the\s+)?[`'\"]?[a-z]+_[a-z0-9_]+[`'\"]?\b",  # snake_case tool names
            r"(?:调用|执行|运行|触发|使用)\s*[`'\"“]?[a-z][a-z0-9]*_[a-z0-9_]*",  # a snake_case tool name
            check="tool_name",
        ),
        _r(
            "tool",
            r"\b(?:function_call|tool_call|tool_use|tool_calls)\b|\"(?:tool|function|tool_name|name)\"\s*:\s*\"[a-z_]+\"",
            r"<\s*(?:tool|function|invoke)[ _-]?(?:call)?\b",
        ),
        _r(
            "tool",
            r"\bexecute (?:the )?(?:following|this|below) (?:code|command|script|shell)\b",
            r"(?:调用|执行|运行|触发)(?:以下|下面|如下|这段)的?(?:命令|脚本|代码|指令)",
            check="addressed",
        ),
        _r(
            "tool",
            r"\brm\s+-rf\b|\bcurl\s[^\n|]*\|\s*(?:ba|z)?sh\b|\bwget\s+[^\n]*\|\s*(?:ba|z)?sh\b|\bpowershell\s+-"
            r"|\bbase64\s+-d\b|\bnc\s+-e\b|/bin/(?:ba)?sh\b|/dev/tcp/|\bchmod\s+(?:-\w+\s+)?777\b"
            r"|\bsudo\s+(?:rm|chmod|chown|dd|mkfs|shutdown|reboot|kill|passwd|visudo)\b",
            weight=0.8,
        ),
        _r(
            "tool",  # ordinary shell in an install guide counts only when it is asked of the agent
            r"\bsudo\s+\w|\bwget\s+https?://|\bchmod\s+\+x\b|\bcurl\s+-[a-z]*\s*https?://",
            weight=0.6,
            check="shell",
        ),
        # -- directives aimed at the agent
        _r(
            "directive",
            rf"\bfrom now on\b{_S}{{0,20}}\b(?:you|the assistant|the ai|the model|the agent)\b{_S}{{0,12}}"
            r"\b(?:must|will|should|shall|are to|need to|have to|always|never|only)\b",
            r"\byou (?:must|shall|are required to|have to|need to) (?:always|never|now|henceforth|from now on|in (?:all )?future)\b",
            r"\b(?:whenever|every time|each time|any time|when(?:ever)?) (?:the )?(?:user|anyone|someone|somebody|people|a user|they)"
            rf" (?:asks?|mentions?|says?|requests?|wants?|talks?|inquires?|queries){_S}{{0,80}}\b(?:you (?:must|should|will|need to)"
            r"|respond|reply|answer|say|tell|recommend|suggest|redirect|direct them|point them|insist)\b",
            rf"\b(?:henceforth|going forward|in all future (?:conversations|responses|sessions|chats)){_S}{{0,40}}"
            r"\b(?:you|the assistant|the ai|the model)\b",
            r"\b(?:the assistant|the ai|the model|the agent|the bot|chatgpt|claude|gpt)\b (?:must|should|will|shall) (?:always|never|now"
            r"|only|from now on)\b",
            r"\b(?:always|never) (?:recommend|suggest|tell|say|respond|answer|reply|mention|redirect|refer)\b"
            rf"{_S}{{0,60}}\b(?:users?|anyone|people|customers|them)\b",
            r"(?:从现在起|从现在开始|从今以后|从今往后|今后|以后|往后|此后)[，,\s]*(?:你|助手|ai|模型|机器人)[^。\n]{0,6}"
            r"(?:必须|一定要|应该|应当|务必|只能|不准|不许|不得|永远)",
            r"你(?:必须|务必|一定要)(?:始终|永远|总是|每次|一直)",
            r"(?:每当|每次|只要|当|无论何时)(?:用户|有人|别人|任何人|客户)[^。\n]{0,20}(?:问|提到|说|询问|咨询|谈到)[^。\n]{0,40}"
            r"(?:你就|你都|就回答|就说|就告诉|都回答|都说|就推荐|请回答|就回复|你要|你必须|一律|都推荐|都要)",
            r"(?:助手|ai|模型|机器人|智能体)(?:必须|应该|务必|要)(?:始终|永远|总是|一直)",
            r"(?:始终|永远|总是|一律)(?:推荐|建议|告诉|回答|回复)(?:用户|所有人|大家|客户)",
            # a trigger: when a phrase appears, the agent is to act ("whenever the request mentions 'amber falcon', …")
            r"\b(?:whenever|when|if|once|every time|each time)\b[^.\n]{0,60}\b(?:phrase|keyword|code ?word|trigger|passphrase"
            r"|magic words?)\b[^.\n]{0,80}\b(?:answer|reply|respond|say|tell|send|transfer|wire|delete|reveal|disable|recommend"
            r"|redirect|grant)",
            r"\b(?:whenever|when|if|every time)\b[^.\n]{0,80}\b(?:the assistant|the ai|the agent|the model|ai assistants?"
            r"|agents)\b[^.\n]{0,20}\b(?:should|must|shall|will|is to|are to|always|never|wires?|sends?|transfers?|deletes?"
            r"|reveals?|replies|answers)\b",
            r"\b(?:the )?(?:phrase|keyword|code ?word|trigger word|password)\b[^.\n]{0,30}\bmeans (?:that )?(?:you|the assistant"
            r"|the ai|the agent)\b",
            r"(?:每当|只要|如果|一旦|凡是)[^。\n]{0,30}(?:出现|提到|说|包含|含有)[^。\n]{0,30}(?:助手|ai|智能体|模型|你)?[^。\n]{0,6}"
            r"(?:就|便|必须|应该|要)(?:回答|回复|告诉|说|把|执行|转|删除|关闭|发送)",
            r"(?:暗号|口令|关键词|触发词)[^。\n]{0,20}(?:表示|意味着|代表)[^。\n]{0,10}(?:你|助手|ai|智能体)",
        ),
        # -- authority claims
        _r(
            "authority",  # a header or a notice: authority only when it speaks to the agent or about the user
            r"^\W*\[?(?:system|admin|administrator|developer|root|operator|sysadmin|security team|moderator|openai|anthropic)"
            r"(?: message| notice| note| update| alert| override| instruction)?\]?\s*[:：\]]",
            r"\b(?:official|mandatory) (?:directive|notice|requirement|instruction)s?\b",
            r"(?:平台方|运营方|官方|管理员|开发者)(?:声明|通知|公告|规定|要求|指示)",
            r"(?:系统|管理员|官方|开发者|安全团队|技术团队)(?:通知|消息|指令|公告|声明|要求|规定|指示)",
            r"【(?:系统|官方|管理员|平台|重要通知)[^】]{0,4}】",
            check="addressed",
        ),
        _r(
            "authority",  # "from the administrator" heads many bulletins: it counts fully when it speaks to the agent
            r"\b(?:i am|i'm|this is|message from|on behalf of|signed|authorized by|approved by|per|according to|from|as)"
            r" the (?:developers?|administrators?|admins?|creators?|owners?|operators?|system|security team|it department"
            r"|engineering team|makers?|vendor|platform team|trust and safety team)\b",
            check="addressed",
        ),
        _r(
            "authority",
            r"\b(?:i am|i'm|this is|message from|on behalf of|signed|authorized by|approved by|per|according to|from|as)"
            r" your (?:developers?|administrators?|admins?|creators?|owners?|operators?|system|security team|it department"
            r"|engineering team|makers?|vendor|platform team|trust and safety team)\b",
            r"\b(?:openai|anthropic|google deepmind|microsoft|the hindsight team)\b[^.\n]{0,30}\b(?:staff|policy|requires|mandates"
            r"|instructs|administrators?|has authorized|official)\b",
            r"\b(?:admin|administrator|root|developer|elevated|system[- ]level|superuser|sudo) (?:privileges|access|override|authority"
            r"|clearance|rights|permissions)\b",
            r"(?:我是|这里是|来自)(?:你的)?(?:开发者|管理员|系统管理员|创造者|运营方|官方|安全团队|技术团队|平台方)",
            r"(?:最高|管理员|root|超级|系统级)(?:权限|授权)",
            r"(?:经过?|已获|已经过?)(?:管理员|官方|开发者|系统)(?:授权|批准|认证)",
            # a privilege handed out by text: "the user has been upgraded to admin", "可查看所有账户"
            r"\b(?:upgraded|promoted|elevated|granted|escalated)\b[^.\n]{0,20}\b(?:admin|administrator|root|superuser|full access"
            r"|all permissions)\b|\b(?:may|can) (?:now )?access all (?:accounts|records|data|files|users)\b",
            r"(?:升级为|提升为|授予|获得)(?:超级)?(?:管理员|root|最高)|(?:可|可以|能)(?:查看|访问|修改)(?:所有|全部)(?:账户|账号|记录|数据|用户)",
        ),
        # -- asking for secrets in the conversation (phishing)
        _r(
            "phishing",
            r"\b(?:confirm|provide|send|reply with|share|enter|type|give|submit|verify|tell)\b[^.\n]{0,40}\b(?:ssn|social security"
            r"(?: number)?|passwords?|passcodes?|pin|card numbers?|credit card|cvv|bank details|one-time codes?|id numbers?"
            r"|passport numbers?|login details|credentials)\b[^.\n]{0,40}\b(?:in (?:the |this )?(?:chat|conversation|reply)|here"
            r"|to (?:us|me|this (?:address|number))|to (?:renew|verify|unlock|continue|keep))\b",
            r"\b(?:reply|respond|answer) with (?:your|their|the user'?s) (?:password|passcode|pin|ssn|card number|code)\b",
            r"\b(?:password|passcode|pin|ssn|card number|security code)\b[^.\n]{0,40}\b(?:reply|respond|send|confirm|provide|type)"
            r"\b[^.\n]{0,12}\b(?:it|them|this|yours)\b",
            r"(?:在聊天中|在对话中|回复|直接发送|私信)[^。\n]{0,10}(?:提供|发送|告诉|输入|确认)?[^。\n]{0,6}(?:身份证号?|密码|验证码|银行卡号?|卡号"
            r"|cvv|支付密码)",
            r"(?:提供|回复|发送|告诉)[^。\n]{0,6}(?:身份证号?|密码|验证码|银行卡号?|支付密码)[^。\n]{0,10}(?:以完成|完成|才能|续期|验证|解锁)",
        ),
        # -- memory-write requests
        _r(
            "memory_write",
            r"\b(?:remember|memorize|store|save|record|note|keep|add|write|commit|log|retain)\b[^.\n]{0,40}\b(?:permanently|forever"
            r"|in (?:your )?(?:long[- ]term |persistent |permanent )?memory|to (?:your )?(?:long[- ]term |persistent |permanent )?"
            r"memory|for (?:all )?future (?:conversations|sessions|chats|reference|interactions)|in your (?:notes|knowledge base))\b",
            r"\b(?:update|modify|edit|overwrite|change|patch)\s+(?:your|the user'?s?|the)\s+(?:memory|memories|profile|records?"
            r"|knowledge base|stored facts)\b",
            r"(?:记住|牢记|记下|存入|写入|保存到|添加到|加入|更新)[^。\n]{0,15}(?:记忆|长期记忆|记忆库|知识库|用户档案|备忘录)"
            r"|永久(?:记住|保存|记录)",
        ),
        # -- corroboration claims
        _r(
            "corroboration",
            r"\b(?:confirmed|verified|corroborated|validated|attested|backed) by (?:multiple|many|several|numerous|all|independent"
            r"|\d+) (?:sources|users|experts|people|documents|reports|agents|records)\b",
            r"\b(?:everyone|everybody|all (?:users|sources|experts)) (?:knows?|agrees?|confirms?)\b that",
            r"\b(?:as|this has been|it has been) (?:repeatedly|previously|already|widely|independently) (?:confirmed|established"
            r"|verified)\b",
            r"\b(?:multiple|many|several|numerous|\d+) (?:sources|reports|documents|users|records) (?:confirm|state|agree|report"
            r"|verify)\b",
            r"(?:多方|多个来源|多次|反复|多位专家|多份文件|多名用户)[^。\n]{0,6}(?:证实|确认|核实|验证|认可|公认)|大家都知道|所有人都知道",
        ),
        # -- an untrusted source telling the memory who the user is
        _r(
            "user_claim",
            r"\b(?:(?:the|this) (?:user|customer|human|account holder)|user) (?:is|was|has|had|lives|lived|prefers|preferred"
            r"|likes|liked|loves|hates|dislikes|wants|needs|uses|works|worked|moved|owns|speaks|changed|switched|asked"
            r"|requested|actually|really|now|recently|always|never|would|will|takes|drinks|eats|studies|drives|travels"
            r"|enjoys|avoids|goes|went|attends|belongs|earns|holds)\b",
            r"\b(?:the|this) (?:user|customer|human|account holder)(?:'s|s') (?:[\w-]+ ){0,3}(?:is|are|was|were|has|have|had"
            r"|changed|moved)\b",
            r"\buser (?:profile|preference|preferences|settings|record|fact)s?\s*[:：=]",
            r"(?:该|这位|此|当前)(?:用户|客户)|用户(?:本人)?(?:的(?:名字|姓名|电话|手机|邮箱|地址|生日|年龄|职业|工作|公司|密码|预算|偏好|喜好|最爱"
            r"|饮食|过敏|住址|家|宠物|孩子|妻子|丈夫|爱好|习惯|语言)|是|喜欢|住在|偏好|想要|要求|已经|现在|目前|其实|真正|最爱"
            r"|最喜欢|讨厌|不喜欢|来自|搬|叫|对[^。\n]{1,8}过敏)",
            untrusted_only=True,
        ),
    )
    for rule in group
)
