"""Questions that ask for an amount of money or an age, and texts that state one; pure.

The *when* answer type (``recall.answertype``) in two more kinds, each narrow on both sides: "新车多少钱？"
is answered by "落地价是二十四万元", which names neither the car nor the word 钱, and "柠檬树多大了？" by
"它已经三岁了". In a bank about one thing (a purchase, a neighbour, a plant) every memory shares the
question's subject, so the subject's words pick the memories that name it, not the one that gives the
attribute asked for; the kind of value the attribute takes is what tells them apart.

Only a kind of value is matched, never a bare number: a question with 多少 or "how many" boosting every
text with a digit was tried and dropped (docs/benchmarks.md), since most messages about a purchase or a
trip hold some number. Money is a number with a currency (元, 块, 万元, $, dollars…), an age a number of
years old (三岁, 95年的, "6 years old", "turned 40"). Like *when*, this only reorders candidates.
"""

from __future__ import annotations

import re

_NUM_ZH = r"[\d零〇一二两三四五六七八九十百千万亿几]"
_NUM_EN = r"(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+few|several)"

# Money: a price, cost, fee, rent, salary or budget asked for: "多少钱", "花了多少", "租金是多少", "how much did it
# cost", "what's the rent". The amount's word alone is a topic, not the question ("邱志刚几号收房租？" asks when,
# "工资存在哪？" where): it counts with 多少 / 几 or "what is the". "How much" alone is not money ("how much
# do you sleep").
# The words an amount is stated after ("租金每月6500") and, with a few more, asked for by ("门票多少？").
_ZH_PRICE_WORD = r"租金|房租|月租|价格|价钱|售价|报价|工资|月薪|年薪|预算|学费|费用|首付|落地价"
_ZH_AMOUNT_WORD = rf"{_ZH_PRICE_WORD}|价位|花费|开销|薪水|门票|票价"
_ASKS_MONEY = re.compile(
    rf"多少钱|几块钱|多少块|多少元|多少万|(?:{_ZH_AMOUNT_WORD})[^，。？?]{{0,4}}(?:多少|几(?:千|百|万|块))|"
    r"(?:花|用|付|交|赚|挣|卖|收|退|省|补|贵|便宜)了?多少|"
    r"\bhow\s+much\b[^?]*\b(?:cost|costs|pay|paid|spend|spent|charge[ds]?|earn|earns|earned|make|made|save|saved|sell|sold"
    r"|owe|owed|budget|fee|rent|price)\b|"
    r"\bhow\s+much\s+(?:money|cash)\b|"
    r"\bwhat(?:'s|\s+is|\s+was|\s+were|\s+are)\s+(?:the|my|our|his|her|their|its)?\s*(?:\w+\s+)?"
    r"(?:price|prices|cost|rent|fee|fees|fare|salary|wage|budget|deposit|tuition)\b",
    re.I,
)
_SAYS_MONEY = re.compile(
    rf"{_NUM_ZH}+(?:\.\d+)?\s*(?:块钱|块|元|万元|美元|美金|欧元|日元|港币|英镑|刀(?![子具])|毛)|"
    rf"{_NUM_ZH}+万(?=$|[，。！？；,.!?;\s）)]|左右|多|出头|不到|以内|的|了|吧|呢)|"
    r"[¥￥$£€]\s?\d|"
    rf"\b{_NUM_EN}\s*(?:k\s+)?(?:dollars?|bucks|euros?|pounds?|quid|yuan|rmb|usd|eur|gbp|cents?)\b|"
    # an amount named by its word, without a currency: "租金每月6500", "每月7200", "rent is 1,800 a month"
    rf"(?:{_ZH_PRICE_WORD})[^，。！？,.!?\d]{{0,6}}{_NUM_ZH}{{2,}}|"
    r"(?:每个?月|一个月|每年|一年)\s*\d{3,}(?![\d.]*\s*(?:[次号日天个人趟回遍步米]|公里|小时|分钟))|"
    r"\b(?:rent|price|cost|costs|salary|fee|fees|budget|paid|pay|pays|spent|spend|earn|earns|makes)\b[^.?!\d]{0,20}\d[\d,.]*\d\b|"
    r"\b\d+(?:\.\d+)?\s*(?:k|grand)\b(?=\s*(?:(?:a|per|for|on|in|to|budget|salary|deposit|rent)\b|[/,.]|$))",
    re.I,
)

# Age: "多大了", "几岁", "年龄", "how old", "what age".
_ASKS_AGE = re.compile(
    r"多大了|多大年纪|几岁|多少岁|年龄|年纪|岁数|\bhow\s+old\b|\bwhat\s+age\b|\bage\b",
    re.I,
)
_SAYS_AGE = re.compile(
    rf"{_NUM_ZH}+\s*(?:周)?岁|[\d零〇一二三四五六七八九]{{2}}年(?:生|的|出生)|属[鼠牛虎兔龙蛇马羊猴鸡狗猪]|"
    r"\b\d{1,3}\s*(?:-|\s)?(?:years?|yrs?|months?|weeks?)(?:-|\s)old\b|\baged?\s+\d{1,3}\b|"
    r"\b(?:i'?m|i\s+am|i\s+will\s+be|i'll\s+be|(?:he|she)\s+(?:is|was|will\s+be)|(?:he|she)'s)\s+\d{1,3}\b(?!\s*[\w%])|"
    r"\b\d{1,3}(?:st|nd|rd|th)\s+birthday\b|\bturn(?:s|ed|ing)?\s+\d{1,3}\b|\bborn\s+in\s+(?:19|20)\d{2}\b",
    re.I,
)

_KINDS = {"money": (_ASKS_MONEY, _SAYS_MONEY), "age": (_ASKS_AGE, _SAYS_AGE)}


def asks_amounts(question: str) -> frozenset[str]:
    """The kinds of amount (``money``, ``age``) the question asks for; ``question`` is its last line."""
    return frozenset(kind for kind, (asks, _) in _KINDS.items() if asks.search(question))


def says_amount(kinds: frozenset[str], text: str) -> bool:
    """The text states an amount of one of these kinds."""
    return any(_KINDS[kind][1].search(text) for kind in kinds)
