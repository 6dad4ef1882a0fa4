"""Regex sources for facts said in passing, the way people write to an assistant rather than the way a form
asks: a pet named beside its kind ("my parrot Kiwi finally learned …", "一只叫年糕的橘猫"), a subject left out
after the first clause ("I'm 35, grew up in Galway"), a place of origin said as belonging ("老家延边的",
"我是东北人"), a duration between the verb and the job ("当了二十多年出租车司机"), a budget for a thing
("my budget for a new laptop is $1,500"), a daily drink inside a longer clause ("每天早上到工位第一件事就是
来杯冰美式"), a birthday ("我是腊月初八生的").

The conventions of ``patterns``: group "v" the value, "a" the attribute (an animal here); ownership is the
rule table's (``rules._owned``: a clause without its own subject is the sentence's).
"""

from __future__ import annotations

import re

from hindsight_es.extraction import builders as b
from hindsight_es.extraction import values as vx
from hindsight_es.extraction.builders import Built, KeyValue
from hindsight_es.extraction.patterns import (
    _BODY_EN,
    _JOBS_EN,
    _JOBS_ZH,
    _PET_EN,
    _PET_ZH,
    _PLACE_ZH,
    _REL_ZH,
    _STOP_ZH,
    _TIME_ZH,
    ADV,
    MONTHS_EN,
    ZADV,
    ZCL,
    ZI,
    V,
)

# fmt: off
# A name starts a word ("xMax" holds none): unanchored, every capital inside a long token would be tried.
_NAME_EN = r"(?<![\w'-])(?-i:(?P<v>[A-Z][a-z][\w'-]*))"
PET = (
    # "my parrot Kiwi finally learned …", "our dog, Max, hates the vacuum"
    rf"\b(?:my|our)\s+(?:(?:new|little|old|rescue|senior)\s+)?(?P<a>{_PET_EN}),?\s+{_NAME_EN}\b",
    # "we adopted a beagle last week, his name's Biscuit"
    rf"\b(?:i|we)\s+(?:have\s+|just\s+|recently\s+|finally\s+)*(?:adopted|got|have|own|rescued|bought|brought home)\s+"
    rf"(?:a|an|one)\s+(?:[a-z]+\s+){{0,2}}?(?P<a>{_PET_EN})\b[^.;!?]{{0,40}}?\b(?:(?:his|her|its|their)\s+name\s+is"
    rf"|(?:named|called)\s+(?:him|her|it|them))\s+{_NAME_EN}",  # "… and named her Mochi" (rules/28)
    # "walking Luna (my husky)", "我家布丁（英短）": the name, the kind in brackets
    rf"{_NAME_EN}\s*\((?:my|our)\s+(?:[a-z]+\s+)?(?P<a>{_PET_EN})\)",
    rf"(?:我家|我的|咱家|我们家)的?(?P<v>[^（(，。！？；,!?;\s]{{1,6}})[（(](?P<a>{_PET_ZH})[）)]",
    rf"(?:我家|我的|咱家|我们家)(?:那|这)?(?:只|条)(?P<a>{_PET_ZH})(?:叫|名叫|名字叫)(?P<v>[^，。！？；,!?;\s]{{1,8}})",
    # "我家二哈，它叫土豆": the animal, then its name after a comma
    rf"(?:我家|我的|咱家|我们家)的?(?P<a>{_PET_ZH})[，,]\s*(?:它|他|她)(?:叫|名叫|名字叫)(?P<v>[^，。！？；,!?;\s]{{1,8}})",
    # "身边就一只叫年糕的橘猫陪着", "我养了只叫豆豆的柯基": named before its kind, in a clause of the speaker's
    rf"(?:我(?!的?(?:{_REL_ZH}))|咱|身边)[^，。！？；,!?;\n]{{0,8}}?(?:一只|只|一条|条|一个)?(?:叫|名叫|叫做)(?P<v>[^，。！？；,!?;\s的]{{1,6}})的"
    rf"[\u4e00-\u9fff]{{0,2}}?(?P<a>{_PET_ZH})",
    rf"咱(?:家里?)?的?(?P<a>{_PET_ZH})(?:叫|名叫|的名字是|名字叫)(?P<v>[^，。！？；,!?;\s]{{1,8}})",
    # "我们新养了一只猫，取名叫团团", "我给新买的狗起名叫豆豆": named when it came (rules/28)
    rf"(?:{ZI}|{ZCL}){ZADV}(?:新|刚)?(?:养了|买了|领养了|收养了|捡了|接回了|带回了)(?:一)?(?:只|条)?[\u4e00-\u9fff]{{0,3}}?"
    rf"(?P<a>{_PET_ZH})[，,]?\s*(?:给它|给他|给她)?(?:取名|起名|起了个名字?)(?:叫|为)?(?P<v>[^，。！？；,!?;\s了]{{1,6}})",
    rf"{ZI}给(?:新买的|新养的|刚买的|刚养的|家里的|我家的|新来的)?(?P<a>{_PET_ZH})(?:取名|起名|起了个名字?)(?:叫|为)?"
    rf"(?P<v>[^，。！？；,!?;\s了]{{1,6}})",
)
HOMETOWN = (
    # "I'm 35, grew up in Galway", "born and raised in Leeds, moved south for work", "I live in Sacramento but grew
    # up in El Paso": no subject of its own (whose it is: ``rules._owned``)
    rf"(?:^|(?<=,\s)|(?<=,)|(?<=\sbut\s)|(?<=\sand\s))\s*(?:(?:and|but|originally)\s+)?(?:was\s+)?(?:born\s+and\s+raised|born\s+and\s+bred|grew\s+up"
    rf"|raised)\s+in\s+{V}",
    # "老家延边的", "我老家是延边的"
    r"(?:^|(?<=[，,])|我)(?:的)?老家(?:是|在)?(?P<v>[^，。！？；,!?;\n的]{2,8}?)的(?=[，。！？；,!?;\s]|$)",
    # "我是东北人": a known place, or a province or region, then 人
    # (the look-ahead after 我, not before it: tried at every character it scans to the sentence's end)
    rf"我(?![^。！？]*老家){ZADV}是(?P<v>{_PLACE_ZH}|东北|西北|西南|华北|华南|江南|[\u4e00-\u9fff]{{1,4}}?[省市县])人(?!员|士|物|才|家|们)",
)
BUDGET = (
    r"\bbudget'?s\s+(?:about|around|roughly|under|max|only|just|up to|at most)?\s*"
    r"(?P<v>[$€£¥]\s?\d[\d,.]*\s*(?:k|m|thousand|million)?)(?!\w)",
    r"\bbudget\s+(?:for|on)\s+(?:a|an|the|my|our|this|that)?\s*(?:[a-z-]+\s+){0,3}?[a-z-]+\s+(?:is|was|will be)\s+"
    r"(?:now\s+|still\s+)?"
    r"(?:(?:under|below|at most|up to|no more than|max(?:imum)?|around|about|roughly|only|just)\s+)*"
    r"(?P<v>[$€£¥]?\s?\d[\d,.]*\s*(?:k|m|thousand|million|dollars|usd|euros?|eur|rmb|yuan|bucks|pounds|gbp)?)(?!\w)",
    r"\bi\s+(?:can|could)\s+(?:only\s+)?(?:spend|afford|put\s+in)\s+(?:(?:up to|about|around|roughly|at most|max)\s+)?"
    r"(?P<v>[$€£¥]?\s?\d[\d,.]*\s*(?:k|m|thousand|million|dollars|usd|euros?|eur|rmb|yuan|bucks|pounds|gbp)?)(?!\w)",
)
# "living in Berlin now", "been living in Leeds since May", "we've been in Toronto since 2019": no verb of living,
# or no subject; "I'm in Leeds and looking for…": a place, capitalized, that ends its clause ("I'm in Rome for the
# weekend", "I'm in IT and…", "I'm in Year 9 so…" are no place one lives)
LOCATION_EN = (
    r"(?:^|(?<=,\s)|(?<=,))\s*(?:(?:currently|now|still|happily|been)\s+)?(?:living|based|settled)\s+(?:in|out\s+of)\s+"
    r"(?-i:(?P<v>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*))",
    r"\b(?:i|we)\s+(?:have\s+been\s+|am\s+|are\s+)?(?:renting|staying|living)\s+(?:in|out\s+of)\s+"
    r"(?-i:(?P<v>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*))",
    r"\b(?:i|we)\s+have\s+(?:been|lived)\s+in\s+(?-i:(?P<v>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*))\s+(?:since|for)\b",
    r"\b(?:i\s+am|we\s+are)\s+(?:(?:based|living|now|currently)\s+)?in\s+(?!(?:Year|Grade|Class|Form|Team|Group)\b)"
    r"(?-i:(?P<v>[A-Z][a-z][\w'-]*(?:\s+[A-Z][\w'-]*)*))(?=\s+(?:and|so)\b|\s*(?:[.;!—–]|$))",
)
# "just started at Shopify": a new employer without a subject (not "joined": a club, a network)
EMPLOYER = (
    r"^(?:(?:just|recently|finally|so|and|officially)\s+)*(?:started\s+(?:at|with)|started\s+working\s+(?:at|for))\s+"
    r"(?-i:(?P<v>[A-Z0-9][\w&'-]*(?:\.\w[\w&'-]*)*(?:\s+[A-Z0-9][\w&'-]*)*))",
    # "I'm at Stripe now, two weeks in", "I'm at KPMG as of this week": a named place one is at since a time
    r"\bi\s+am\s+(?:now\s+)?at\s+(?-i:(?P<v>[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*)*))"
    r"(?=\s+(?:as\s+of\b|now\b[^.?!]*?\b(?:days?|weeks?|months?)\s+in\b))",
    # "我是后端，在杭州云栈科技写Java": an organisation, by its name's ending, where one does the work
    rf"(?:{ZI}|{ZCL}){ZADV}在(?!找|家)(?P<v>[^，。！？；,!?;\n的]{{1,12}}?(?:科技|公司|集团|银行|医院|事务所|研究院|研究所|工作室))"
    r"(?:写|做|搞|负责|当|干|带)",
    # "我换工作了，现在在腾讯", "I changed jobs, now I'm at Stripe": where one is after saying the job changed
    rf"(?:换工作|换了(?:一?[份个])?(?:新)?工作|找了(?:一?[份个])?新工作|找到(?:了)?(?:一?[份个])?新工作)了?[，,]\s*"
    r"(?:然后|现在|目前|如今|后来|之后)?(?:去了|到了|进了|加入了|在(?![家外路找休准考]))(?P<v>[^，。！？；,!?;\n]{1,12}?)"
    rf"(?:工作|上班)?了?{_STOP_ZH}",
    r"\b(?:changed|switched)\s+jobs?\s*[,;.]?\s*(?:and\s+)?(?:now\s+)?i\s+am\s+(?:now\s+)?(?:at|with)\s+"
    r"(?-i:(?P<v>[A-Z0-9][\w&'-]*(?:\.\w[\w&'-]*)*(?:\s+[A-Z0-9][\w&'-]*)*))",
)
# "I'm retired now", "我已经退休了": no occupation any more, said as one
RETIRED = (
    r"\bi\s+am\s+(?:now\s+|finally\s+|officially\s+|happily\s+|semi-?)*(?P<v>retired)\b",
    rf"(?:^|我){ZADV}(?P<v>退休)了",
)
# "I teach biology": a biology teacher (a subject of one word, not whom or where: "I teach my kids")
TEACHES = (
    r"\bi\s+(?:now\s+|also\s+|still\s+|currently\s+|have\s+been\s+|am\s+)?teach(?:ing)?\s+(?:(?:high|middle|primary|elementary|secondary|grade)\s+school\s+"
    r"|(?:college|university|undergrad|kindergarten)\s+|(?:year|grade|form|class)\s+\d+\s+)?(?P<v>(?!(?:my|our|the|a|an|them|him|her|it|kids|school|year|grade|form|class"
    r"|children|people|students|myself|online|at|in|for|on|part|full|from|remotely|classes|courses|lessons)\b)[a-z]+)\b",
)
_TEACHES = re.compile(TEACHES[0], re.I)


def taught(said: str) -> KeyValue | None:
    """The occupation a subject taught names, if ``said`` names one ("I teach Year 7 maths at …": maths teacher)."""
    found = b.teacher(m) if (m := _TEACHES.search(said)) else None
    return found if isinstance(found, tuple) else None


# "been teaching year 6 for a decade", "I teach primary": a teacher, the subject unsaid
TEACHER = (
    r"\bi\s+(?:have\s+been\s+|am\s+|still\s+|now\s+)?teach(?:ing)?\s+(?:year|grade|form|class|primary|secondary"
    r"|kindergarten|elementary|middle\s+school|high\s+school|ks[1-4])\b",
)
# "I eat vegetarian", "we cook vegan at home"
DIET_EAT = (
    rf"\b(?:i|we)\s+{ADV}(?:eat|cook|live)\s+(?:mostly\s+|fully\s+|strictly\s+)?"
    r"(?P<v>vegetarian|vegan|pescatarian|gluten[- ]free|halal|kosher)\b",
)
# "彻底吃纯素": 纯素 and 全素 are vegan (吃素 alone is vegetarian: ``patterns.DIET_ZH``)
DIET_VEGAN_ZH = (rf"(?:{ZI}|{ZCL})[^，。！？；,!?;\n他她]{{0,6}}?(?<!不)(?:改吃|吃|是|改成|只吃)(?:全素|纯素)",)
# "本人硬件工程师一枚": a job said with a measure word
JOB_ONE = (
    rf"(?:我|本人)(?:是)?(?:一名|一个)?(?P<v>[^，。！？；,!?;\s]{{0,6}}?(?:{_JOBS_ZH}))(?:一枚|一只)",
    # "We're dairy farmers", "we are both nurses": the job the speaker shares, said in the plural
    rf"\bwe\s+are\s+(?:both\s+|all\s+)?(?P<v>(?:[a-z-]+\s+){{0,2}}?(?:{_JOBS_EN}))s\b",
)
# "我姓唐，全名唐思远": the full name said as such
FULL_NAME_SAID = (
    r"(?:^|(?<=[，,]))(?:我的)?(?:全名|大名|本名)(?:是|叫)?(?P<v>[\u4e00-\u9fff]{2,4})(?=[，。！？；,!?;\s]|$)",
)
# "我姓王，叫王思琪", "Morning — Dominic here": a name said after a surname or a greeting
NAME = (
    r"^(?:(?:hi|hey|hello)\b[\s,!]*)?this\s+is\s+(?-i:(?P<v>[A-Z][a-z]+))(?=\s*(?:[,.!—–-]|$)|\s+(?:btw|here|again|speaking)\b)",
    r"我姓[\u4e00-\u9fff]{1,2}[，,]\s*(?:名字)?叫(?P<v>[\u4e00-\u9fff]{2,4}?)(?=[，。！？；,!?;\s]|$)",
    r"^(?:(?:good\s+)?(?:morning|evening|afternoon)|hiya|yo|howdy)\b[\s,!—–-]*(?-i:(?P<v>[A-Z][a-z]+))\s+here\b",
)
# "我姓欧阳，单名一个菲字", "我姓王，名叫思琪": the surname, then the given name
FULL_NAME_ZH = (
    r"(?:^|(?<=[，,]))(?:我)?姓(?P<s>[\u4e00-\u9fff]{1,2}?)名(?P<g>[\u4e00-\u9fff]{1,2}?)(?=[，。！？；,!?;\s]|$)",
    r"我姓(?P<s>[\u4e00-\u9fff]{1,2})[，,]\s*(?:单名一个|单名|名叫|名字叫|名)(?P<g>[\u4e00-\u9fff]{1,2}?)字?(?=[，。！？；,!?;\s]|$)",
)
# "我是土生土长的汕头人": born and bred there, whatever the place
BRED = (rf"我{ZADV}是土生土长的(?P<v>[\u4e00-\u9fff]{{2,4}}?)人",)
# "兔子改名了，现在叫雪球": the animal renamed, its new name
PET_RENAMED = (
    rf"(?:我家|我们家|咱家|我的)?的?(?P<a>{_PET_ZH})(?:改名了|改了名|改名字了|换了名字|换了个名字)[，,]?\s*(?:现在|以后|从此)?(?:它)?"
    rf"(?:叫|改叫)(?P<v>[^，。！？；,!?;\s了]{{1,8}})",
)
# "现在在小米干了快一个月了": where one has worked for a while is the employer (a city: the location)
WORKED_ZH = (
    rf"(?:{ZI}|{ZCL}){ZADV}在(?P<v>[^，。！？；,!?;\n]{{1,12}}?)(?:干了|待了|做了)(?:快|有|将近|差不多|整整)?"
    r"(?:[\d一二三四五六七八九十两几半]+多?个?(?:年|月))",
)
# "我是奶茶重度爱好者": a drink one is a lover of (``builders.categorical``: a value the drinks lexicon knows)
DRINK_LOVER = (
    rf"我{ZADV}是(?:个|一个|一名)?(?P<v>[^，。！？；,!?;\n]{{1,6}}?)(?:的)?(?:重度|忠实|资深|铁杆)?(?:爱好者|控|党|迷)",
)
# "我住厦门思明区那边": 住 with the place straight after it
LIVES_ZH = (rf"(?:{ZI}|{ZCL}){ZADV}(?:住|住在|定居|常住|落户)(?P<v>{_PLACE_ZH})",)
# "我是开网约车的": a driver of what one drives
DRIVES_ZH = (r"我(?:是)?开(?P<v>出租车|出租|网约车|货车|卡车|公交车|公交|大巴|滴滴|专车)的",)
# "I drive the school bus now", "I drive a taxi for a living": the driver of a vehicle one drives for others
DRIVES_EN = (
    r"\bi\s+(?:now\s+|also\s+|currently\s+|still\s+)?drive\s+(?:a|an|the)\s+"
    r"(?P<v>(?:[a-z-]+\s+)?(?:bus|coach|taxi|cab|lorry|forklift|ambulance|tram|train|delivery\s+van))\b",
)

# "改成生酮饮食了": a diet by its Chinese name
DIET_NAMED_ZH = (r"(?:改成|改吃|开始|在|坚持)?(?P<v>生酮饮食|生酮|低碳饮食|轻断食|断食)",)
PLAN = (
    rf"\b(?:i|we)\s+(?:am|are)\s+(?P<v>(?:starting|beginning|running|doing|taking|attending|visiting|hosting|getting|sitting)"
    rf"\s+{_BODY_EN}+?\s+(?:in\s+(?:{MONTHS_EN})|(?:this|next)\s+(?:{MONTHS_EN}|week|month|year|weekend|summer|winter|spring|fall"
    r"|autumn)|next\s+\w+|tomorrow|on\s+\w+day))\b",
    r"^(?:(?:so|and)\s+)?(?:i\s+am\s+)?off\s+to\s+(?-i:(?P<v>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)*))"
    r"(?=\s+(?:for|next|in|on|this|tomorrow)\b)",
    rf"^{_TIME_ZH}{ZADV}(?:打算|计划|准备)(?P<v>[^，。！？；,!?;\n]+?){_STOP_ZH}",
    rf"^(?:打算|计划)(?P<v>[^，。！？；,!?;\n]+?){_STOP_ZH}",
)
# "Primary school teacher here, …": a job introducing the speaker
JOB_HERE = (rf"^(?:(?:hi|hey|hello)\b[\s,!]*)?(?P<v>(?:[a-z-]+\s+){{0,3}}?(?:{_JOBS_EN}))\s+here\b",)
# "sign it with my name, Marguerite Olsen", "落款用我的名字：欧阳倩"
NAME_SAID = (
    r"\bmy\s+(?:full\s+)?name[,:]\s*(?-i:(?P<v>[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,2}))",
    r"我的(?:名字|全名|姓名)[：:]\s*(?P<v>[\u4e00-\u9fff]{2,4})(?=[，。！？；,!?;\s]|$)",
)
AGE = (
    r"^我(?:今年|都|已经|也)*(?P<v>[1-9]\d|[一二三四五六七八九]?十[一二三四五六七八九]?)(?:岁)?了(?=[，。！？；,!?;\s还]|$)",
    r"\b(?:as|i\s+am)\s+an?\s+(?P<v>[1-9]\d)[- ]year[- ]old\b",
)
# "我是东北人，现在在深圳": where the speaker is now, a place named as one (not "现在在开会")
LOCATION = (
    rf"(?:^|(?<=[，,])|我)(?:现在|目前|如今|眼下)(?:人)?(?:在|住在|待在)(?P<v>{_PLACE_ZH}|[\u4e00-\u9fff]{{1,4}}?[省市县])"
    r"(?=[，。！？；,!?;\s]|$|工作|上班|生活|住|定居|发展)",
    # "我在杭州，平时在阿里上班": the speaker's clause is only a known place ("我在杭州出差" is not)
    rf"(?:^|(?<=[，,。！？]))我{ZADV}在(?P<v>{_PLACE_ZH})(?=[，,])",
)
# "每天早上到工位第一件事就是来杯冰美式": a daily drink with words between the time and the cup; "最近迷上了冷萃",
# "I'm hooked on cold brew": a drink taken up (``builders.categorical``: only a value the drinks lexicon knows)
DAILY_DRINK = (
    rf"(?:{ZI}|^){ZADV}(?:迷上了|迷上|爱上了|爱上|喜欢上了|喝上了)(?:喝)?(?P<v>[^，。！？；,!?;\n]+?){_STOP_ZH}",
    rf"\bi\s+am\s+{ADV}(?:hooked\s+on|addicted\s+to|obsessed\s+with)\s+{V}",
    rf"(?:每天|天天|每日|每个?早上|每个?工作日)[^，。！？；,!?;\n]{{0,12}}?(?:来|喝|灌|点|泡)(?:一|1|上一?)?(?:杯|瓶|罐|壶)?(?P<v>[^，。！？；,!?;\n]+?){_STOP_ZH}",
    rf"\bi\s+(?:start|begin)\s+(?:every|each|my)\s+(?:morning|day|workday)\s+with\s+(?:a|an|my)\s+{V}",
)
# "我是腊月初八生的", "我生日是三月五号", "born on July 4th" ("my birthday is …" is ``patterns.ATTRIBUTE``)
_DATE_ZH = (
    r"(?:[\d一二三四五六七八九十]{1,3}月(?:[\d一二三四五六七八九十]{1,3}[日号]?|初[一二三四五六七八九十])"
    r"|(?:正|腊|冬)月(?:初[一二三四五六七八九十]|十[一二三四五六七八九]?|二十[一二三四五六七八九]?"
    r"|廿[一二三四五六七八九]?|三十)|七夕|元旦|除夕|大年初[一二三四五六七八九十]|春节|元宵节?|端午节?|中秋节?|国庆节?|情人节|圣诞节?|平安夜)"
)
BIRTHDAY = (
    rf"我{ZADV}是(?P<v>{_DATE_ZH})(?:出?生的|的生日)",
    rf"我的?生日{ZADV}(?:是|在|就是)(?P<v>(?:农历|阴历|公历|阳历)?{_DATE_ZH})(?:那天|当天)?",
    rf"(?:^|\bi\s+was\s+)born\s+on\s+(?:the\s+)?(?P<v>(?:\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:{MONTHS_EN})|(?:{MONTHS_EN})"
    rf"\s+\d{{1,2}}(?:st|nd|rd|th)?))\b",
)
# fmt: on


# "美团的数据分析师": an employer, then the job (not "资深的工程师", a kind of one)
_EMPLOYER_JOB_ZH = re.compile(rf"^(?P<e>[^的\s]{{2,10}})的(?P<j>[^的\s]{{0,4}}?(?:{_JOBS_ZH}))$")
_DOES = re.compile(r"^(?:做|干|搞)(.{2,})$")
_KIND_OF = re.compile(
    r"^(?:送|跑|开|做|干|搞|卖|修|带|教)[\u4e00-\u9fff]{1,3}$|^(?:资深|高级|中级|初级|首席|普通|专业|全职|兼职|实习|临时|正式|优秀|年轻|新来|唯一|主要|主力|一线|基层|小|老|新)$"
)


def occupation(m: re.Match[str]) -> Built:
    """The job said; said as a named employer's ("我现在是美团的数据分析师"), the employer too."""
    built = b.fixed("occupation")(m)
    if isinstance(built, tuple) and built[1] and (bare := _DOES.match(built[1])):  # "我是做会计的"
        built = built[0], bare[1]
    if not isinstance(built, tuple) or built[1] is None or (said := _EMPLOYER_JOB_ZH.match(built[1])) is None:
        return built
    if _KIND_OF.match(said["e"]):
        return built[0], vx.clean(said["j"])
    at = vx.workplace(said["e"])
    job = (built[0], vx.clean(said["j"]))
    return [at, job] if at and at[0] == "user/employer" and built[0] == "user/occupation" else job


def birthday(m: re.Match[str]) -> Built:
    """A birthday as ``patterns.ATTRIBUTE`` keeps one ("the 2nd of June" -> "june 2nd")."""
    v = vx.attribute_value("birthday", vx.clean(m["v"]))
    return None if vx.vague(v) else ("user/birthday", v)


_DIET_NAMES = {
    "veggie": "vegetarian",
    "plant-based": "vegan",
    "plant based": "vegan",
    "生酮饮食": "keto",
    "生酮": "keto",
    "低碳饮食": "low carb",
    "轻断食": "intermittent fasting",
    "断食": "intermittent fasting",
}


def diet(m: re.Match[str]) -> Built:
    """A diet by its common name ("veggie" is vegetarian, "plant-based" vegan)."""
    v = vx.clean(m["v"])
    return "user/diet", _DIET_NAMES.get(v, v)


def full_name(m: re.Match[str]) -> Built:
    """A name said as surname and given name ("我姓欧阳，单名一个菲字" -> 欧阳菲)."""
    return "user/name", m["s"] + m["g"]


def driver(m: re.Match[str]) -> Built:
    """ "我是开网约车的": the driver of it (出租 is 出租车; 滴滴 is its own name); "I drive the school bus": a school
    bus driver."""
    if m["v"].isascii():
        return "user/occupation", f"{vx.clean(m['v'])} driver"
    vehicle = m["v"] if m["v"].endswith("车") or m["v"] == "滴滴" else m["v"] + "车"
    return "user/occupation", f"{vehicle}司机"
