"""Regex sources of the rule extractor's patterns, compiled case-insensitively by ``rules.py``; kept as
written (one alternative group per line), which the formatter leaves be."""

from __future__ import annotations

import re

from hindsight_es.extraction import jobs
from hindsight_es.extraction import lexicon as lx

# fmt: off
# Patterns run on a matching copy with contractions expanded ("I'm" -> "i am", "don't" -> "do not",
# "let's" -> "let us"). Group "v" is the value, "a" an attribute name, "n" a negation.
# A value stops at a clause boundary, a conjunction, or a trailing past time ("a standing desk last year"):
# when something was done is not part of what it is (a plan's future time is: "visit Tokyo next week").
MONTHS_EN = "january|february|march|april|may|june|july|august|september|october|november|december"
# A title's dot before a name ("Dr. Lee", "St. Louis") does not end a value.
_TITLE_DOT = "(?:" + "|".join(rf"(?<=\b{t}\.)" for t in "dr mr mrs ms mt st jr sr prof".split()) + ")"
_TITLE_DOT += r"(?=\s+(?!(?:he|she|it|they|we|i|the|this|that|there|my|our|you|but|and|so)\b)(?-i:[A-Z]))"  # a name
_STOP_EN = (
    rf"(?=\s*(?:[,;!?。，；！？\n—–(（]|[.:](?!\w)(?!{_TITLE_DOT})|$)|\s+(?:and|but|because|since|so|although|though|while|which|who"
    r"|or|if|when|unless|until|from now on|bc|cos|cuz|coz)\b"
    r"|\s+(?:last\s+(?:year|month|week|summer|winter|spring|fall|autumn|weekend)|yesterday|recently|lately"
    rf"|in\s+(?:the\s+)?(?:spring|summer|fall|autumn|winter)|in\s+(?:19|20)\d\d|in\s+(?:{MONTHS_EN})"
    r"|(?:a\s+)?(?:few\s+)?(?:\w+\s+)?(?:days|weeks|months|years)\s+ago)\b)"
)
_BODY_EN = rf"(?:[^,;!?。，；！？\n.:—–(（]|[.:](?=\w)|\.{_TITLE_DOT})"
V = rf"(?P<v>{_BODY_EN}+?){_STOP_EN}"
_STOP_ZH = r"(?=[，。！？；,!?;\n]|$|因为|但是|不过|所以|而且|然后|并且|可是|因此)"
VZ = rf"(?P<v>[^，。！？；,!?;\n]+?){_STOP_ZH}"
ADV = (
    r"(?:(?:really|also|still|just|absolutely|totally|truly|definitely|actually|always|usually|generally"
    r"|mostly|mainly|currently|now|personally|do|kind of|kinda|sort of|quite|especially|certainly|honestly"
    r"|only|already|even|all|both|finally|recently|officially|since)\s+)*"
)
_ZADV_WORDS = (
    "也 还 都 就 真的 真 很 非常 特别 挺 比较 最 一直 现在 目前 已经 其实 实在 最近 本来 一点也 一点都 越来越 超"
    " 蛮 好 向来 平时 一般 通常 主要 经常 总是 确实 去年 今年 前年 上个月 刚刚 刚 早就 早已 每天早上 每天晚上"
    " 每天 早上 晚上 居然 竟然 开始 又 基本上 上周 上星期 上礼拜 这周 前几天 前阵子 昨天 前天 上个星期"
    " 年初 年底 年中 月初 月底 今年初 去年初 去年底 上半年 春天 夏天 秋天 冬天 前段时间 这个月 上周末"
    " 这人 这个人 下午 中午 这阵子 这段时间 如今 平常 一般都 终于 总算"
).split()
# Possessive, so the longest adverb must come first ("最近" before "最"): a taken "最" is never given back.
ZADV = "(?:" + "|".join(sorted(_ZADV_WORDS, key=len, reverse=True)) + ")*+"
_ZPRE = r"(?:现在|目前|一直|还是|也|最近)*"  # before 最喜欢: ZADV would take the 最
ZI = r"(?:我们|咱们|咱|本人|我)"
ZCL = r"(?:^|(?<=[，,；;：:\s]))"  # the start of a clause: a statement after a comma needs no 我 again
_FROM_ZH = r"(?:从[^，。！？；,!?;\n]{1,12}?)?"  # the place or employer left: "我从北京搬到了上海"
_GAP = r"(?:(?!喜欢|爱|想|要|不|没|别|每次)[^，。！？；,!?;\n]){0,8}?"  # words between 我 and the verb, no negation
# the relatives and friends ``lexicon.RELATIONS`` knows, and the animals (and breeds) of ``lexicon.PETS``, longest first
_REL_EN = "|".join(sorted((w for w in lx.RELATIONS if w.isascii()), key=len, reverse=True))
_REL_ZH = "|".join(sorted((w for w in lx.RELATIONS if not w.isascii()), key=len, reverse=True))
_PET_EN = "|".join(sorted((re.escape(w) for w in lx.PETS if w.isascii()), key=len, reverse=True))
_PET_ZH = "|".join(sorted((w for w in lx.PETS if not w.isascii()), key=len, reverse=True))
_EMAIL = r"(?P<v>[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)"
_TIME_EN = (
    r"(?:tomorrow|tonight|next\s+(?:week|month|year|weekend|time|summer|winter|spring|fall|monday|tuesday"
    r"|wednesday|thursday|friday|saturday|sunday)|this\s+(?:weekend|week|month|year|summer|winter|evening"
    r"|afternoon)|on\s+(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)|in\s+(?:a|two|three|a few"
    r"|\d+)\s+(?:days?|weeks?|months?|years?)|later\s+today|soon)"
)
_TIME_ZH = (
    r"(?:明天|后天|大后天|下周末|下周[一二三四五六日天]?|下个?星期[一二三四五六日天]?|下个?礼拜[一二三四五六日天]?|下个月"
    r"|明年|今晚|今天晚上|今天下午|这周末|这个周末|周末|过几天|月底|年底|下半年|国庆|春节|过年|五一|中秋|端午|元旦|清明"
    r"|寒假|暑假)"
)
_LANG_EN = (r"english|chinese|mandarin|cantonese|spanish|french|german|japanese|korean|russian|italian|portuguese"
            r"|arabic|hindi|dutch|vietnamese|thai|turkish|polish|swedish")
_LANG_ZH = r"中文|汉语|普通话|粤语|英文|英语|日语|日文|韩语|法语|德语|西班牙语|俄语|意大利语|葡萄牙语|阿拉伯语"
_JOBS_EN = jobs.JOBS_EN
_JOBS_ZH = jobs.JOBS_ZH

ALLERGY = (
    rf"\bi\s+am\s+{ADV}(?P<n>not\s+|no longer\s+)?(?:very\s+|severely\s+|highly\s+|deathly\s+)?allergic\s+to\s+{V}",
    r"\bi\s+have\s+(?:an?\s+)?(?:severe\s+|serious\s+)?(?P<v>[a-z]+(?:\s+[a-z]+)?)\s+allergy(?P<n>(?!))?",
    rf"(?:我|{ZCL}(?:而是|是|而且|并且|另外)?){ZADV}对(?P<v>[^，。！？；,!?;\n我]{{1,20}}?)(?:也|还|都|特别|有点|比较|非常|很|严重)*(?P<n>不)?过敏",
)
_DIETS = r"vegetarian|vegan|pescatarian|lactose[- ]intolerant|gluten[- ]free|halal|kosher|veggie|plant[- ]based"
_DEGREE = r"(?:(?:fully|completely|strictly|totally|entirely|full|full-on|basically|pretty\s+much|mostly|now)\s+)*"
DIET = (
    rf"\bi\s+(?:am|have\s+been)\s+{ADV}(?:an?\s+)?{_DEGREE}(?P<v>{_DIETS})\b",
    rf"^(?:(?:just|recently|finally|so|and|now|officially)\s+)*(?:went|gone|turned)\s+{_DEGREE}(?P<v>{_DIETS})\b",
    rf"\bi\s+(?:have\s+)?{ADV}(?:went|gone|became|become|turned|switched to being|am going)\s+{_DEGREE}"
    rf"(?P<v>{_DIETS})\b",
)
DIET_ZH = (rf"我{ZADV}(?:从[^，。！？；,!?;\n]{{1,8}}?(?:开始|起))?(?:吃素|是素食主义者|是素食者|是素食)",)
DIET_OK = (rf"我{ZADV}(?:能吃|可以吃|敢吃|又能吃|又吃){VZ}",)
DIET_AVOID = (
    rf"\bi\s+{ADV}(?:do not|cannot|never|no longer|can not)\s+(?:eat|drink|have)\s+{V}",
    rf"(?:我|{ZCL}){ZADV}(?:不能吃|不可以吃|不吃|不能喝|不喝|忌口)(?!没|不|就|会|也|都|还|再){VZ}",  # not "不喝没精神"
)
BUDGET = (
    r"\b(?:cut|raised|increased|reduced|lowered|bumped|trimmed)\s+(?:the\s+|our\s+|my\s+)budget\s+(?:down\s+|up\s+)?to\s+"
    r"(?P<v>[$€£¥]?\s?\d[\d,.]*\s*(?:k|m|thousand|million|dollars|usd|euros?|eur|rmb|yuan|bucks|pounds|gbp)?)(?!\w)",
    r"\bbudget\s+(?:(?:for|on)\s+(?:the\s+|our\s+|this\s+)?[a-z]+(?:\s+[a-z]+)?\s+)?(?:is\s+|was\s+|of\s+|will be\s+"
    r"|stays?\s+|(?:has\s+been\s+|was\s+|got\s+|went\s+|goes\s+|has\s+gone\s+)?(?:cut|raised|increased|reduced|lowered"
    r"|bumped|trimmed|dropped|down|up|rose|grew|jumped|climbed|fell)\s+|is\s+(?:now\s+)?(?:down|up)\s+)?(?:now\s+|still\s+)?(?:"
    r"(?:to|under|below|less than|at most|up to|no more than|max(?:imum)?|around|about|roughly|only|just|within)\s+)*"
    r"(?P<v>[$€£¥]?\s?\d[\d,.]*\s*(?:k|m|thousand|million|dollars|usd|euros?|eur|rmb|yuan|bucks|pounds|gbp)?)(?!\w)",
    r"(?:(?:我们|咱们|我)的?)?预算(?:可以|能|要)?(?:是|在|为|只有|大概|大约|有|改成|改为|调整为|调到|提高到|降到|追加到|增加到|涨到|提到|减到"
    r"|砍到|压到)?(?:不超过|不能超过|不要超过|不高于|控制在|最多|低于|上限是)?\s*(?P<v>(?:每个?月|一个月)?(?:\d[\d,.]*\s*(?:万|千|百|k)?"
    r"|[一二两三四五六七八九十]{1,3}[百千万][一二两三四五六七八九]?)\s*(?:元|块钱|块|美元|美金|人民币|rmb|刀)?)",
)
_WHEN_ZH = (r"(?:(?:周|星期|礼拜)[一二三四五六日天])?(?:周末|工作日|节假日|假期|休息日|上班时间|下班后|晚上|夜里"
            r"|深夜|半夜|凌晨|早上|上午|中午|下午|午休时间?)|(?:周|星期|礼拜)[一二三四五六日天]")
# A condition said first is part of what is asked ("开会的时候别给我打电话" is not "never call me")
DONT_GIVE_ME = (
    r"(?P<g>[^，。！？；,!?;\n请你我]{1,10}?(?:的时候|时候|以后|之后|以前|之前)"
    rf"|{_WHEN_ZH})?(?:请|你)?(?:以后)?(?:别再|不要再|别|不要)给我{VZ}",
)
STOP = (rf"^(?:please\s+)?(?:stop|quit)\s+(?P<v>[a-z]+ing\b{_BODY_EN}*?){_STOP_EN}",)
NEVER = (
    rf"(?:^|\bplease\s+|\byou\s+(?:should|must)\s+|,\s*so\s+)(?:never|do not ever)\s+(?!had|been|was|were|did"
    rf"|thought|knew|heard|seen|got|mind|fails?|stops?\b){V}",
    rf"(?:^|(?<=,\s)|(?<=,))do not\s+(?!worry|mind|forget|hesitate|be\b|think|know|get me wrong|you\b|have\b|care\b"
    rf"|like\b|want\b){V}",
    rf"\bplease\s+do not\s+(?!worry|mind|forget|hesitate|be\b){V}",
    rf"\b(?:must\s+not|must\s+never|should\s+never|may\s+not|(?:is|are)\s+not\s+allowed\s+to|can\s+never)\s+{V}",
    rf"(?:永远不要|永远别|绝对不要|绝对不能|千万不要|千万别|一定不要|务必不要|绝不要|绝不能|禁止|不许|不准){VZ}",
    rf"(?:^|(?<=[，,])|请你?|你以后)(?P<g>{_WHEN_ZH})?(?:以后)?(?:不能|不可以|不得|别再|不要再|不要|别){VZ}",
)
FAVORITE = (
    rf"\b(?:my|our)\s+(?:new\s+)?(?:all-time\s+|all time\s+|absolute\s+)?favou?rite\s+(?P<a>[a-z][a-z -]{{0,25}}?)"
    rf"\s+(?:is|are|has to be|would be|has been|have been|became|has become)\s+(?:now\s+)?{V}",
    rf"\b(?:my|our)\s+(?:new\s+)?favou?rite\s+(?:is|are)\s+(?:now\s+)?{V}",
    r"(?:^|(?<=,\s)|(?<=;\s))(?:(?:so|but|and|then)\s+)?(?P<v>[^,;.!?]{1,40}?)\s+(?:is|are)\s+(?:now\s+)?(?:my|our)\s+"
    r"(?:new\s+)?(?:all-time\s+)?favou?rites?(?:\s+(?!now\b|these days|nowadays|again\b)(?P<a>[a-z][a-z -]{0,25}?))?"
    r"(?=\s*(?:now|these days|nowadays|again)?\s*(?:[,.;!?]|$|(?:now\s+that|because|since|as)\b))",
    rf"{ZI}{_ZPRE}最(?:喜欢|爱)的(?P<a>[^，。！？；,!?;是的]{{1,8}}?)(?:就是|是|换成了|换成|变成了|变成|改成了|改成){VZ}",
    rf"{ZI}{_ZPRE}最(?:喜欢|爱)的(?:就)?是{VZ}",
)
PREFER = (
    rf"\bi(?:\s+would)?\s+{ADV}(?:prefer|rather\s+(?:have|use|drink))\s+(?:to\s+)?{V}",
    rf"(?:{ZI}|{ZCL}){ZADV}(?:更喜欢|更倾向于|更倾向|倾向于|偏好|偏爱|更愿意|宁愿|首选)(?:用|使用|喝|吃)?{VZ}",
)
FROM_NOW_ON_USE = (
    rf"\bfrom now on[\s,]*(?:please\s+)?(?:(?:i|we)\s+(?:will\s+)?|let us\s+)?(?:always\s+)?(?:use|ship with|ship via"
    rf"|send (?:it |them |everything |packages |orders )?(?:with|via)|go with|switch to|stick with)\s+{V}",
    # A 都 later in the clause ends the topic ("以后发票都寄到…"): the verb is after it, and 发 here began
    # the noun 发票 (FROM_NOW_ON_USE_GAP takes that shape).
    rf"(?:{ZI}{ZADV})?(?:以后|今后|往后|从现在开始|从现在起|从今以后|从今往后)[，,\s]*{ZI}?{ZADV}"
    rf"(?:用|使用|改用|换成|换用|选|选用|走|改成|改为|改发|改寄|发|寄)(?![^，。！？；,!?;\n]*都){VZ}",
)
FROM_NOW_ON_USE_GAP = (  # "我以后寄快递都用顺丰": the words between (``g``, the activity) may be anything
    rf"(?:以后|今后|往后|从现在开始|从现在起|从今以后|从今往后)(?P<g>{_GAP})"
    rf"(?P<verb>用|使用|改用|换成|换用|选|选用|走|改成|改为|改发|改寄|发|寄){VZ}",
)
FROM_NOW_ON = (
    rf"\bfrom now on[\s,]*+(?!i\s+(?!will\b|want\b|would\b))"
    rf"(?!(?:it|this|that|which|my\s+\w+)\s+(?:is|are|was|makes)\b){V}",  # "…, it is easier for me" says
    rf"(?:^|(?<=[,;，；]))(?=[^,;，；]*from now on)\s*{V}\s*,?\s*\bfrom now on\b",  # "use FedEx from now on"
)
_PLACE_ZH = "|".join(sorted(lx.ZH_PLACES, key=len, reverse=True))  # the places the lexicon knows
LOCATION = (
    rf"\b(?:i|we)\s+{ADV}(?:live|reside|(?:am|are)\s+{ADV}(?:living|based|staying|located)|have\s+(?:been\s+living"
    rf"|lived)|settled\s+down)\s+(?:in|at|near|out\s+of|(?:just\s+)?outside(?:\s+of)?|close\s+to|on\s+the\s+outskirts\s+of)\s+{V}",
    rf"\b(?:i|we)\s+(?:have\s+)?{ADV}(?:moved|relocated)\s+(?:back\s+|over\s+|out\s+|down\s+|up\s+)?to\s+{V}",
    rf"\b(?:i|we)\s+(?:[a-z]+\s+){{1,3}}?and\s+(?:then\s+|finally\s+)?(?:moved|relocated)\s+(?:back\s+|over\s+|out\s+|down\s+|up\s+)?to\s+{V}",
    # no subject: "just moved to Porto for work"
    rf"^(?:(?:just|recently|finally|so|and|have|already|officially)\s+)*(?:moved|relocated)\s+(?:back\s+|over\s+)?"
    rf"to\s+{V}",
    # "relocated from Berlin to Munich" (a bare "moved from X to Y" may be a job or a tool: ``UPDATED``)
    rf"\b(?:i|we)\s+(?:have\s+)?{ADV}relocated\s+from\s+{_BODY_EN}{{1,40}}?\s+to\s+{V}",
    rf"\b(?:i|we)\s+(?:am|are|have|got)\s+{ADV}(?:settled|based|living)\s+(?:down\s+)?in\s+{V}",
    r"\b(?:i\s+am|we\s+are)\s+now\s+(?:living\s+|based\s+)?in\s+(?-i:(?P<v>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*))",
    r"\b(?:i\s+am|we\s+are)\s+(?:living\s+|based\s+)?in\s+(?-i:(?P<v>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*))\s+now\b",
    r"\bhome\s+(?:for\s+(?:me|us)\s+)?is\s+(?:now\s+)?(?:in\s+)?(?-i:(?P<v>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*))",
    r"(?<![\w'-])(?-i:(?P<v>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*){0,4}))\s+is\s+(?:now\s+)?(?:my\s+|our\s+)?home(?:\s+now)?\s*(?:[,.;!]|$)",
    rf"{ZI}(?:全家|一家人|一家|家)?{ZADV}{_FROM_ZH}(?:现居住在|现居于|现居|常住在|常住|搬回了|搬回到|搬回|住在|居住在|定居在|定居于|生活在|搬到了|搬到|搬去了|搬去|搬家到了|搬家到|迁居到|迁到){VZ}",
    rf"{ZI}家{ZADV}在{VZ}",
    rf"{ZI}(?:全家|一家人|一家)?{ZADV}在(?P<v>[^，。！？；,!?;\n]{{1,12}}?)(?:生活|居住|定居|安家)",
    # "我在广州住了五年了": 在 a known place, then 住 (not "在酒店住了一晚")
    rf"{ZI}(?:全家|一家人|一家)?{ZADV}在(?P<v>{_PLACE_ZH})(?:已经)?住(?:了|过|着)",
    rf"(?:^|(?<=[，,])){ZADV}(?:住在|居住在|定居在|生活在|搬到了|搬到|搬去了|搬去|搬家到了|搬家到){VZ}",
)
HOMETOWN = (
    rf"\bi\s+(?:am|come|came)\s+(?:originally\s+)?from\s+{V}",
    rf"\bi\s+(?:was born and raised|was born|grew up)\s+in\s+{V}",
    rf"我{ZADV}(?:来自|出生在|出生于|老家在|老家是|是从){VZ}",
    # a clause that carries the sentence's subject: "I'm 41 and originally from Aberdeen", "我今年28，老家在潍坊"
    # (whose subject it is: ``rules._owned``)
    rf"\band\s+originally\s+from\s+{V}",
    rf"(?<=[，,])(?:我的?)?老家(?:在|是){VZ}",
)
NAME_CAPITAL = (rf"\bcall\s+me\s+{V}", rf"\bi\s+(?:usually\s+|just\s+|mostly\s+|prefer\s+to\s+)?go\s+by\s+{V}")
# "I'm Sam", "Hi, I'm Sam and I work as a nurse": a capitalized word or two after "I am" that end the clause
# (contractions are expanded before matching); what someone is ("I'm Chinese") is not a name.
_NOT_GIVEN = "|".join(sorted(lx.NOT_GIVEN_NAMES))
NAME_INTRO = (
    r"^(?:(?:hi|hey|hello)\b[\s,!]*)?(?-i:(?P<v>[A-Z][a-z]+))\s+here(?=\s*(?:[,.!;]|$))",  # "hey, Siobhan here"
    r"^(?:(?:hi|hey|hello)\b[\s,!]*)?it\s+is\s+(?-i:(?P<v>[A-Z][a-z]+))\s+(?:again|here)\b",  # "hey it's Anika again"
    rf"\bi\s+am\s+(?:(?:dr|mr|mrs|ms|prof)\.?\s+)?(?!(?:{_NOT_GIVEN})\b)(?-i:(?P<v>[A-Z][a-z]+(?:\s+[A-Z][a-z]+)?))"
    r"(?=\s*(?:[,;!?—–]|\.(?!\w)|$)|\s+(?:and|from|here|again|by\s+the\s+way|btw|fyi)\b)",
)
# "我是许晴": the word after 我是 is a name when jieba tags it a person's name alone (``builders.name``)
NAME_INTRO_ZH = (r"(?:^|(?<=[，,：:]))(?:我是|本人(?:是|叫)?)(?P<v>[\u4e00-\u9fff]{2,3})(?=[，。！？；,!?;\s]|$)",)
NAME = (
    rf"\b(?:i\s+am\s+called|the\s+name\s+is|(?:everyone|everybody|people|(?:my\s+)?friends)\s+calls?\s+me)\s+{V}",
    r"我(?:的名字)?叫(?!了|过|他|她|你|醒|车|外卖)(?P<v>[^，。！？；,!?;\s]{1,12}?)(?=[，。！？；,!?;\s]|$|吧|就好|就行)",
    r"(?:叫|喊)我(?P<v>[^，。！？；,!?;\s]{1,12}?)(?=就好|就行|就可以|吧)",
    r"(?:你可以|可以|请|你就)叫我(?P<v>[^，。！？；,!?;\s]{1,6}?)(?=[，。！？；,!?;\s]|$)",
    r"(?:大家|朋友们|朋友|别人|他们|家里人|同事们|同事)都?(?:叫我|喊我|管我叫)(?P<v>[^，。！？；,!?;\s]{1,6}?)(?=[，。！？；,!?;\s]|$)",
)
# A company named as it is written: capitalized words or a domain ("Siemens", "Acme Corp", "Booking.com")
_COMPANY = r"(?-i:(?P<v>[A-Z0-9][\w&'-]*(?:\.\w[\w&'-]*)*(?:\s+[A-Z0-9][\w&'-]*)*))"
_NAMED_E = r"(?-i:(?P<e>[A-Z][\w&'-]*(?:\.?\s+[A-Z][\w&'-]*)*))"  # "St. Mary's", "Kaiser Permanente"
EMPLOYMENT = (
    rf"\bi\s+{ADV}(?:work|am working|have worked|have been working)\s+(?:at|for)\s+(?P<e>{_BODY_EN}+?)\s+as\s+"
    rf"(?:an?\s+)?{V}",
    # "我在华为做测试工程师": where a job is done is its employer (a city is a location: builders.employment)
    # "I'm a nurse at St Mary's Hospital", "I work as a nurse for Kaiser": a named employer after the job
    rf"\bi\s+(?:am|have\s+been)\s+{ADV}(?:an?\s+)(?P<v>(?:[a-z-]+\s+){{0,2}}?(?:{_JOBS_EN}))\s+(?:over\s+|down\s+)?(?:at|for|with)\s+"
    rf"{_NAMED_E}",
    rf"\bi\s+{ADV}work\s+as\s+(?:an?\s+)?(?P<v>[a-z-]+(?:\s+[a-z-]+){{0,2}}?)\s+(?:at|for|with)\s+{_NAMED_E}",
    rf"(?:{ZI}|{ZCL}){ZADV}在(?P<e>[^，。！？；,!?;\n做当干]{{1,12}}?)(?:做|当|担任|干)了?(?:[\d一二三四五六七八九十两几多]+年的?)?(?:一名|一位|一个|名)?"
    # greedy: 测试工程师, not 测试; at a workplace a word ending in a role's suffix is the role (柜员, 店长, 技工)
    rf"(?P<v>[^，。！？；,!?;\s]{{0,6}}(?:{_JOBS_ZH}|开发|测试|运营|研发|前端|后端|全栈|运维|产品|设计|行政|财务|人事|客服|市场|销售)|[\u4e00-\u9fff]{{1,4}}(?:员|长|官|工)(?={_STOP_ZH})|(?:HR|PM|QA|UI|UX|BD|SRE|DBA|CEO|CTO|CFO|COO)[A-Z]{{0,3}}(?![A-Za-z]))",
)
EMPLOYER = (
    rf"\b(?:i|and)\s+(?:have\s+)?{ADV}(?:joined|started at|started working (?:at|for)|went to work for"
    rf"|now work (?:at|for))\s+{_COMPANY}",
    rf"(?<=离职|辞职|跳槽)了?[，,]\s*(?:然后|现在|后来|之后|又)?(?:去了|到了|进了|加入了|在(?![家外路找休准考]))(?P<v>[^，。！？；,!?;\n]{{1,12}}?)"
    rf"(?:工作|上班)?了?{_STOP_ZH}",
    rf"(?:{ZI}|{ZCL}){ZADV}(?:换到了|换到|调到了|调到|去了|去)(?P<v>[^，。！？；,!?;\n]{{1,12}}?)"
    r"(?:工作|上班|报到)",
    rf"\bi\s+(?:have\s+)?{ADV}been\s+(?:at|with)\s+(?-i:(?P<v>[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)*))",
    rf"\bi\s+(?:am|have\s+been|was)\s+{ADV}(?:employed|hired)\s+(?:at|by)\s+{_COMPANY}",
    rf"\bi\s+(?:have\s+)?{ADV}(?:started|got|took|landed|accepted|began)\s+(?:a\s+|my\s+)?(?:new\s+)?(?:job|position|role)"
    rf"\s+(?:at|with)\s+{_COMPANY}",
    r"\bfirst\s+day\s+at\s+(?-i:(?P<v>[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)*))",
    rf"(?:{ZI}|{ZCL}){ZADV}{_FROM_ZH}(?:跳槽到了|跳槽到|跳槽去了|跳槽去|入职了|入职)(?P<v>[^，。！？；,!?;\n]{{1,20}}?)(?:工作|上班)?了?{_STOP_ZH}",
    rf"\bi\s+{ADV}(?:work|am working|have worked|have been working)\s+(?:at|for)\s+{V}",
    rf"(?:{ZI}|{ZCL}){ZADV}在(?!找|寻找|换|准备|考虑|家)(?P<v>[^，。！？；,!?;\n]{{1,20}}?)(?:工作|上班|任职|实习)",
)
# The employer left: "not:<employer>" on the employer's key, so it supersedes the held one.
EMPLOYER_LEFT = (
    rf"\bi\s+(?:have\s+)?{ADV}(?:quit|left)\s+my\s+(?:job|position|role)\s+(?:at|with)\s+"
    rf"{_COMPANY}",
    rf"(?:{ZI}|{ZCL}){ZADV}从(?P<v>[^，。！？；,!?;\n]{{1,12}}?)(?:离职|辞职)",
)
OCCUPATION = (
    # "I work as", "I've been working as", "I've worked as … since/for" (still so), not "I worked as" (no longer)
    rf"(?:\bi|\band)\s+{ADV}(?:work|am\s+{ADV}working|have\s+{ADV}been\s+working|have\s+{ADV}worked(?=[^,;.!?]*\b(?:since|for)\b))"
    rf"\s+(?:(?:freelance|full[- ]time|part[- ]time|remotely|mostly|now|nights|days|weekends|shifts)\s+)*as\s+"
    rf"(?:an?\s+)?(?P<v>{_BODY_EN}+?)"
    rf"(?:(?=\s+(?:at|for|in|with|on|since)\s+\S)|{_STOP_EN})",
    # "I've been a nurse for ten years"
    rf"\bi\s+have\s+{ADV}been\s+(?:an?\s+)(?P<v>(?:[a-z-]+\s+){{0,2}}?(?:{_JOBS_EN}))\b(?=\s+(?:for|since|now)\b)",
    rf"\bi\s+am\s+{ADV}(?:an?\s+)(?P<v>(?:[a-z-]+\s+){{0,2}}?(?:{_JOBS_EN}))\b",
    rf"(?:\bi\s+(?:have\s+)?|\band\s+){ADV}(?:became|become|turned into)\s+(?:an?\s+)"
    rf"(?P<v>(?:[a-z-]+\s+){{0,2}}?(?:{_JOBS_EN}))\b",
    rf"(?:我|本人|{ZCL}|(?<=[，,])){ZADV}(?:在[^，。！？；,!?;\n]{{1,12}}?)?(?:改行|转行)?在?(?:是|当了|成为了|成了|做了|干了|做|当|干)(?:[\d一二三四五六七八九十两几]+多?年多?的?)?(?:一名|一位|一个|名)?(?P<v>[^，。！？；,!?;\s]{{0,6}}?(?:{_JOBS_ZH}))",
)
AGE = (
    r"\bi\s+am\s+(?:now\s+)?(?P<v>\d{1,3})(?=\s*(?:years?\s+old|yo\b|y/o)|\s*[,.!;]|\s*$|\s+(?:now|and)\b)",
    r"\bi\s+(?:just\s+|recently\s+|have\s+just\s+)?turned\s+(?P<v>\d{1,3})\b",
    rf"我{ZADV}(?:今年)?(?P<v>\d{{1,3}}|[一二三四五六七八九十]{{1,3}})(?:周)?岁",
    # "我今年28，老家在潍坊", "今年29，东北人"
    r"(?:我|^)今年(?P<v>\d{1,3}|[一二三四五六七八九十]{1,3})(?:岁)?(?:了)?(?=[，。！？；,!?;\s]|$)",
    # "29, born and raised in Belfast": an age opening the sentence, before what it says of the speaker
    r"^(?P<v>[1-9]\d)(?=,\s+(?:i\s+am\s+|i\s+)?(?:born|from|living|based|grew|single|married|divorced|male|female"
    r"|mom|dad|and)\b)",
)
ATTRIBUTE = (
    rf"\b(?:my|our)\s+(?-i:(?P<a>[a-z][a-z' -]{{0,30}}?))\s+"
    rf"(?:(?:is|are)\s+(?:now\s+)?|(?:has\s+|have\s+)?changed\s+to\s+){V}",
    # "I switched my phone carrier (from AT&T) to Verizon": the match starts at "my", as the possessive above.
    # Only a value named (capitalized, a number): "switched my phone to silent" sets a mode, not a phone.
    rf"(?:(?<=\bswitched\s)|(?<=\bchanged\s))my\s+(?-i:(?P<a>[a-z][a-z' -]{{0,30}}?))\s+"
    rf"(?:from\s+[^,.;!?]{{1,30}}?\s+)?(?:over\s+)?to\s+(?=(?-i:[A-Z0-9\u4e00-\u9fff])){V}",
    # an adverb of time before the verb is not part of the attribute: "我的会计现在是小王" (会计, not 会计现在)
    rf"(?:{ZI}(?:现在|目前|如今)?的|{ZCL})(?P<a>[^，。！？；,!?;是的换改变]{{1,8}}?)(?:现在|目前|如今|已经|早就|也|都)*"
    rf"(?:是|叫|为|(?:换|改|变)(?:成|为)了?){VZ}",
)
EMAIL = (
    rf"\b(?:use|reach me at|contact me at|email me at|write to me at|send (?:it|them|everything|mail) to)\s+{_EMAIL}",
    rf"(?:邮箱|邮件|email)[^，。！？；]{{0,8}}?(?:用|是|发到|发给|改成|换成)了?\s*{_EMAIL}",
)
USES = (
    rf"\b(?:i|we)\s+{ADV}(?:use|are using|am using|run on|are on|am on|rely on|work with|code in|write in|program in"
    rf"|develop in|build with|deploy (?:on|to)|host on|drink|ship with|ship via|write|code)\s+{V}",
    rf"\b(?:i|we)\s+{ADV}(?:(?:start|begin)\s+(?:every|each|my|the)\s+(?:morning|day)\s+(?:off\s+)?with"
    rf"|cannot\s+(?:function|live|survive|start\s+the\s+day)\s+without)\s+(?:my\s+)?(?:morning\s+|daily\s+)?{V}",
    rf"\b(?:i|we)\s+{ADV}(?:host|run|deploy|keep|store|put)\s+(?:everything|it|things|(?:our|the|all)\s+\w+)\s+"
    rf"(?:on|in|with)\s+{V}",
    rf"\b(?:and|then|so|but)\s+(?:(?:i|we)\s+)?{ADV}(?:went with|switched to|moved to|migrated to|chose|picked"
    rf"|settled on)\s+{V}",
    rf"^(?:please\s+)?(?:switch|change|move)\s+(?:[\w -]{{0,30}}?\s+)?(?:to|over to)\s+{V}",
    rf"\b(?:my|our)\s+(?:team|company|project|app|stack|backend|service|startup|code)\s+{ADV}(?:uses|is using"
    rf"|runs on|is built (?:with|on)|is written in|is hosted on|relies on)\s+{V}",
    rf"{ZI}{_GAP}{ZADV}(?:用的是|使用的是|采用的是|用的|在用|使用|采用|用|喝|寄){VZ}",
    rf"{ZCL}(?:[^，。！？；,!?;\n]{{0,4}}?)(?:快递|快递公司|数据库|编辑器|云服务|操作系统|服务器)(?:[^，。！？；,!?;\n]{{0,4}}?)"
    rf"(?:用的是|用|选|走|改用)(?P<v>[^，。！？；,!?;\n]+?){_STOP_ZH}",
    rf"{ZCL}{ZADV}(?:改喝|改泡|改吃|改为|改成了|改成|换成了|换成|换用|改用了|改用|(?:都|就|只|全)?(?:发|寄))(?P<v>[^，。！？；,!?;\n]+?)"
    rf"{_STOP_ZH}",
    rf"(?:(?:每天|天天|每日)(?:早上|上午|下午|晚上|早晨)?|(?:每天|天天)?(?:早上|上午|下午|晚上|早晨))(?:都|就)?(?:来|要)?"
    rf"(?:一|1)(?:杯|瓶|罐)(?P<v>[^，。！？；,!?;\n]+?){_STOP_ZH}",  # a daily drink without a verb, not a price
)
# "I no longer drink coffee, only green tea now": the clause after a use given up names the new value (its
# builder checks the given-up clause before it; the match starts at the comma, past that clause's own rule)
ONLY_NOW = (
    rf"[,;]\s*(?:only|just|mostly)\s+{V}",
    rf"[,;]\s*(?P<v>{_BODY_EN}{{1,30}}?)\s+(?:only|alone)(?:\s+now)?\s*{_STOP_EN}",  # "…; coffee only now"
)
SWITCHED = (
    rf"\b(?:i|we)\s+(?:have\s+)?{ADV}(?:switched|migrated|moved over|changed|converted)\s+(?:over\s+)?"
    rf"(?:from\s+{_BODY_EN}+?\s+)?to\s+{V}",
    rf"\b(?:i|we)\s+(?:have\s+)?{ADV}(?:finished\s+|completed\s+)?(?:moving|migrating|moved|migrated|switching)\s+"
    rf"(?:[\w -]{{1,25}}?\s+)?(?:off|away from|out of)\s+{_BODY_EN}+?\s+(?:and\s+)?(?:onto|over to|to|into)\s+{V}",
    rf"{ZI}{ZADV}(?:换成了|换成|改用了|改用|切换到了|切换到|迁移到了|迁移到|转到了|换到了|换到){VZ}",
    rf"(?:^|(?<=[，,]))(?:现在|已经|后来|目前|最近)+(?:换成了|换成|改用了|改用|切换到了|切换到|换到了|换到){VZ}",
    rf"{ZI}?{ZADV}(?:决定)?把[^，。！？；,!?;\n]{{1,15}}?(?:换成了|换成|改成了|改成|改为|换为|迁移到|迁到){VZ}",
)
DISLIKE = (
    rf"\bi\s+{ADV}(?:do\s+not|no\s+longer|never|did\s+not)\s+(?:really\s+|much\s+)?"
    rf"(?:like|love|enjoy|care\s+for)\s+{V}",
    rf"\bi\s+(?:have\s+)?{ADV}(?:quit|stopped|gave up|given up)\s+(?:drinking|eating|using|playing|watching)\s+{V}",
    rf"\bi\s+{ADV}(?:hate|dislike|detest|cannot\s+(?:stand|handle|bear)|can\s+not\s+(?:stand|handle|bear))\s+{V}",
    rf"\bi\s+am\s+(?:no\s+longer|not)\s+(?:a\s+(?:big\s+|huge\s+)?fan\s+of|into|fond\s+of)\s+{V}",
    rf"\bi\s+(?:have\s+)?{ADV}(?:stopped|quit)\s+(?:liking|enjoying|loving)\s+{V}",
    rf"\bi\s+(?:have\s+)?{ADV}lost\s+(?:all\s+|my\s+)?interest\s+in\s+{V}",
    rf"(?:{ZI}|{ZCL}){ZADV}对(?P<v>[^，。！？；,!?;\n]{{1,12}}?)(?:已经|早就|都|也|真的?|实在|一点|根本)*(?:没有?|不再感?|不感|失去了?)兴趣",
    rf"(?:{ZI}|{ZCL}){ZADV}(?:不再喜欢|不(?:怎么|太|是很|再那么|那么|大)?喜欢|不再爱|不爱|讨厌|受不了){VZ}",
)
LIKE = (
    rf"\bi\s+{ADV}(?:like|love|enjoy|adore)\s+{V}",
    rf"\bi\s+(?:have\s+)?{ADV}(?:started|begun|begin|start|come|came|grown|grew)\s+to\s+(?:like|love|enjoy)\s+{V}",
    rf"\bi\s+am\s+{ADV}(?:a\s+(?:big\s+|huge\s+)?fan\s+of|into|fond\s+of|obsessed\s+with|passionate\s+about)\s+{V}",
    rf"{ZI}{ZADV}(?:喜欢上了|喜欢上|爱上了|爱上|迷上了|迷上|喜欢|热爱|喜爱|爱(?!喝)){VZ}",
    rf"^{ZADV}(?:喜欢上了|爱上了|迷上了){VZ}",
)
AGREED = (
    rf"\bwe\s+(?:have\s+)?{ADV}(?:decided|agreed)\s+(?:to\s+|on\s+|that\s+|upon\s+)?{V}",
    rf"(?:我们|咱们){ZADV}(?:决定|商定|商量好|说好)了?[，,：:\s]*{VZ}",
)
DECIDED = (
    rf"\bi\s+(?:have\s+)?{ADV}(?:decided|chose|chosen)\s+(?:to\s+|on\s+|that\s+)?{V}",
    rf"\bwe\s+(?:have\s+|are\s+|will\s+)?{ADV}(?:settled on|chose|chosen|went with|going with|go with)\s+{V}",
    rf"\blet us\s+(?:just\s+)?(?:go with|use|pick|choose|stick with|switch to|ship with|ship via|settle on"
    rf"|ship (?:it|them|everything|orders) (?:with|via))\s+{V}",
    rf"(?:^|我){ZADV}决定了?[，,：:\s]*{VZ}",
    r"就(?:用|选|定|走|按)(?P<v>[^，。！？；,!?;\n]+?)吧",
)
PLAN = (
    rf"\b(?:i|we)\s+(?:am|are)\s+{ADV}(?:going\s+to|gonna|planning\s+to|planning\s+on|planning(?=\s+(?:a|an|our|my)\s)|about\s+to"
    rf"|thinking\s+(?:about|of))\s+{V}",
    rf"\b(?:i|we)\s+{ADV}(?:plan\s+to|intend\s+to|aim\s+to)\s+{V}",
    rf"\b(?:i|we)\s+(?:am|are)\s+{ADV}(?P<v>(?:moving|relocating|traveling|travelling|flying|heading|leaving)\b"
    rf"{_BODY_EN}*?){_STOP_EN}",
    rf"{_TIME_EN}[\s,]*(?:i|we)\s+(?:will|want\s+to|am\s+going\s+to|are\s+going\s+to|plan\s+to|need\s+to"
    rf"|have\s+to|gonna)\s+{V}",
    rf"\b(?:i|we)\s+(?:will|want\s+to|need\s+to|have\s+to)\s+(?=[^.!?。！？]*?\b{_TIME_EN}){V}",
    rf"(?<![帮给替让叫请]){ZI}{ZADV}(?:{_TIME_ZH})?{ZADV}(?:打算|计划|准备(?!好)|规划){VZ}",
    rf"{_TIME_ZH}[，,\s]*{ZI}{ZADV}(?:要|会|将|得|想要|想){VZ}",
    rf"{ZI}{_TIME_ZH}{ZADV}(?:要|会|将|得|想要|想){VZ}",
)
# A prohibition lifted: "you can call me before 9am now", "feel free to schedule meetings on Friday again",
# "现在可以在周末给我发消息了" (the same instruction key as the "never" it reverses, value "always").
ALLOWED = (
    rf"\b(?:you\s+(?:can|may|could)|feel\s+free\s+to|it\s+is\s+(?:fine|ok|okay|alright)\s+(?:now\s+|again\s+)?to"
    rf"|go\s+ahead\s+and)\s+(?:now\s+|again\s+)?(?=[^,;.!?]*\b(?:again|now|from now on|once more)\b){V}",
    r"(?:^|(?<=[，,])|你)(?:现在|以后|今后|又|也)*(?:可以|能)(?:再|继续)?(?P<v>[^，。！？；,!?;\n]{2,}?)了(?=[，。！？；,!?;\n]|$)",
)
# The new side of an update whose attribute the sentence does not name: "it's green now", "Mochi is now
# called Momo", "make it Thursday", "现在是绿色了", "改成周四了". Its key is the one of the value the sentence
# gives up (``anchors``); nothing given up, nothing kept.
UPDATED = (
    rf"(?:^|(?<=[,;]\s)|(?<=[,;]))\s*(?:(?:so|and|but|now)\s+)?(?:it\s+is|that\s+is|now\s+it\s+is|it\s+has\s+been)"
    rf"\s+(?:now\s+|actually\s+|just\s+)?{V}",
    rf"\b(?:is|are)\s+now\s+(?:called|named|known\s+as)\s+{V}",
    rf"\b(?:has|have)\s+been\s+renamed(?:\s+to)?\s+{V}",
    rf"\brenamed\s+(?:him|her|it|them)\s+(?:to\s+)?{V}",
    rf"(?:^|(?<=[,;]\s)|(?<=[,;]))\s*(?:(?:so|but|now)\s+)?(?:make\s+it|go\s+with|change\s+(?:it|that)\s+to"
    rf"|it\s+should\s+be|should\s+be|put)\s+{V}",
    rf"\bfrom\s+{_BODY_EN}{{1,40}}?\s+(?:to|into)\s+{V}",  # "moved from Siemens to Bosch"
    rf"\b(?:replac|swapp|trad|exchang|substitut)(?:e|es|ed|ing)\s+{_BODY_EN}{{1,40}}?\s+(?:with|for|by)\s+{V}",
    # "not X any more, just Y" (not "…, but I would like more")
    rf"(?:^|(?<=[,;]\s)|(?<=[,;]))\s*(?:(?:just|only|rather|but|now|these\s+days)\s+)+(?!i\s|we\s){V}",
    rf"(?:^|(?<=[,;]\s)|(?<=[,;]))\s*(?:(?:so|but|now)\s+)?(?:use|try|pick|choose|take)\s+{V}",
    rf"\b(?:new|updated|changed)\s+[a-z]+(?:\s+[a-z]+)?\s*:\s*{V}",  # "new email: …"
    rf"{ZCL}(?:现在|如今|目前|后来|已经)+(?:是|叫|改成了|改成|换成了|换成|改为|变成了|变成|成了|改叫){VZ}",
    rf"{ZCL}(?:现在|如今|目前|后来)?(?:改|转)(?:当|做|行做|行当|学|去|住|到|在|读|教)了?{VZ}",  # "不做建筑了，改当老师"
    rf"从[^，。！？；,!?;\n]{{1,12}}?(?:换到了|换到|换成了|换成|改成了|改成|转到了|转到|搬到了|搬到|跳到了|跳到|变成了|变成){VZ}",
    rf"{ZCL}(?:改成了|改成|换成了|换成|改为|变成了|变成|改叫|改名叫|改名为|更名为){VZ}",
    rf"(?:改名叫|改名为|更名为|改叫|现在叫){VZ}",
)
ALWAYS = (
    rf"^(?:你|请你?)?(?:回答|回复|答复|总结|翻译|解释|推荐|写)[^，。！？；,!?;\n]{{0,4}}?的时候[，,]?(?:请你?)?(?:都要|都|一律|总是|记得){VZ}",
    rf"(?:^|\bplease\s+)(?:always|make sure to|remember to)\s+(?!here|there|been|be\b|a\b|the\b|so\b|on\b|in\b){V}",
    rf"^please\s+(?P<v>(?:use|keep|format|answer|write)\b{_BODY_EN}*?){_STOP_EN}",
    rf"(?:^|请你?|麻烦你?)(?:以后|今后)(?P<g>[^，。！？；,!?;\n]{{1,6}}?)(?:记得|一定要|都要|务必){VZ}",
    rf"(?:^|请你?|麻烦你?)(?:以后|今后|从现在开始|从现在起)?[，,]?(?:请你?)?(?:一直|总是|始终|永远|每次都|都要|务必|一定要|记得){VZ}",
)
# fmt: on
