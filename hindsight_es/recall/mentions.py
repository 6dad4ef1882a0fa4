"""Whether a memory mentions a person a query names, within a script and across the two: a Chinese name
in a Chinese query (王磊, 小王, 陈医生), a Latin one in any query ("Lin", "Caroline"); a memory mentions it in
its own words (王磊, 老王), in pinyin ("Wang Lei", "Lin" for 林), by a transliteration (卡罗琳), or as a
speaker. Used to leave a question about someone the bank never mentions without an answer
(``recall.search``). A wrong "mentions" costs only that abstention, a wrong "does not mention" costs an
answer, so every test here errs towards "mentions": any reading of a character counts, a short form
counts, and a memory in the other script that does not name the person is taken for one about them
unless it is plainly about someone else (its speaker, "我", "I"; or another person it names).
"""

from __future__ import annotations

import importlib.util
import json
import re
import unicodedata
from collections.abc import Mapping
from functools import lru_cache
from itertools import product
from pathlib import Path
from typing import Any

from hindsight_es.extraction.names_zh import tagger
from hindsight_es.text import CJK_RUN, has_cjk, simplified

# The most common Chinese surnames (about 85% of people in China): a person's name opens with one. Used
# to tell a name from a word jieba tags as one, and whose name a given name in a text is (梁思远, 思远).
SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林高罗郑梁谢宋唐许韩冯邓曹彭曾肖萧田董袁潘于蒋蔡余杜叶程苏魏吕丁任"
    "沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付傅方白邹孟熊秦邱江尹薛闫阎段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫"
    "孔向汤常温康施文牛樊葛邢安齐易乔伍庞颜倪庄聂章鲁岳翟殷詹申欧耿关兰焦俞左柳甘祝包宁尚符舒阮柯纪梅童凌"
    "毕单季裴霍涂成苗谷盛曲翁冉骆蓝路游辛靳管柴蒙鲍华喻祁蒲房滕屈饶解牟艾尤阳时穆农司卓古吉缪简车项连芦麦"
    "褚娄窦戚岑景党宫费卜冷晏席卫米柏宗瞿桂全佟应臧闵苟邬边卞姬师和仇栾隋商刁沙荣巫寇桑郎甄丛仲虞敖巩明佘"
    "池查麻苑迟邝"
)
# The characters foreign names are transliterated in (the common ones of the Xinhua naming tables): a
# name written only in them may be a Latin name's transliteration (卡罗琳, 汤姆, 梅兰妮), while a Chinese
# one mostly is not (王俊杰, 黄杰).
TRANSLITERATION = frozenset(
    "阿埃艾爱安昂奥巴拜班邦保鲍贝本比彼毕宾波伯博布查达黛戴丹道德登迪蒂丁东杜顿多厄恩尔法范菲费芬丰冯"
    "弗福盖甘冈高戈哥格根古瓜哈海汉豪赫黑亨胡华怀霍基吉济加贾杰捷金卡凯坎康柯科克肯库夸奎昆拉莱赖兰朗"
    "劳勒雷蕾里理利莉丽连林琳留卢鲁路伦罗洛马玛迈麦曼梅美门蒙米密敏明莫姆穆纳娜奈南内尼妮涅宁努诺欧帕"
    "潘庞佩皮珀普齐奇恰乔切琴丘屈萨塞赛桑瑟森沙莎尚舍什圣施史斯松苏索塔泰坦汤唐特提廷图托瓦万威韦维温"
    "文沃乌伍西希锡谢辛休雅亚扬耶伊易因英尤于约扎泽詹佐翰卫露得治廉白丝勃姆夫茨兹芙薇娅琪娃茜迦斐嘉黛"
)
_TITLES = tuple("老师 医生 大夫 先生 女士 小姐 太太 阿姨 叔叔 师傅 教授 博士 律师 经理 总".split())
_SHORT = ("小", "老", "阿")
_SURNAME_CLASS = "[" + "".join(sorted(SURNAMES)) + "]"
_ADDRESSED = re.compile(f"{_SURNAME_CLASS}(?:{'|'.join(_TITLES)})|[老小]{_SURNAME_CLASS}")  # 叶医生, 老张
# A word jieba's dictionary holds more often than this is a word (叶子, 马拉松, 过敏), whatever its tag.
_COMMON = 20
_MID_SENTENCE_NAME = re.compile(r"(?<![.!?:]\s)(?<=[ \t])[A-Z][a-z]+")
_FIRST_PERSON_EN = re.compile(r"\b(?:I|my|me|we|our|us|user)\b", re.IGNORECASE)  # "The user …": a short statement
_CAPITALISED = re.compile(r"(?<![A-Za-z])[A-Z][a-z]+")
_LATIN_WORD = re.compile(r"[a-zà-öø-ÿ]+")


def warm() -> None:
    """Load jieba's dictionary and pypinyin's table now (about 0.6 s and 0.15 s of CPU), at start, so
    that no recall waits for them: loaded on a thread beside the first recalls instead, they took the
    interpreter from them (first recall 33 -> 80 ms, p99 264 -> 653 ms on the 10k layout)."""
    _tagged("王磊喜欢喝茶")
    _readings("林")


def chinese_names(query: str) -> frozenset[str]:
    """The people a Chinese query names: words jieba tags as a person's name (``nr``) that open with a
    common surname (王磊, 小王, 陈医生), not words its dictionary tags so but holds as words (续航, 叶子);
    and a surname with a title or 老/小 (叶医生, 张阿姨, 老张), which jieba splits."""
    if not has_cjk(query):
        return frozenset()
    query = simplified(query)  # 陳醫生 is 陈医生: the surnames and jieba's dictionary are Simplified
    tagged, at = set(), 0
    for word, flag in _tagged(query):
        if flag.startswith("nr") and _is_chinese_name(word) and not _misread(word, query[:at]):
            tagged.add(word)
        at += len(word)
    return frozenset(tagged | {m[0] for m in _ADDRESSED.finditer(query) if _is_chinese_name(m[0])})


def _misread(word: str, before: str) -> bool:
    """jieba joined characters it does not know into a "name" that the sentence reads otherwise: a given
    name opening with a word that links or places (麻醉费和检查费 is "fee and", 车在修 "the car is being
    fixed", 份子钱加伴娘服 "plus"), or a surname character counted after a demonstrative or a number (那张卡,
    两张票: a measure word). A question naming someone the bank never mentions gets no answer (``search``), so
    each of these would cost one."""
    surname, given = _parts(word)
    if given and given[0] in _LINKS:
        return True
    return len(surname) == 1 and bool(before) and before[-1] in _COUNTING


def mentions_chinese(name: str, row: Mapping[str, Any]) -> bool:
    """``row`` mentions the Chinese ``name``: in its text or speaker, whole, by the given name (思远 of
    邝思远) or a short form (小王, 老王, 王老师 of 王磊); an English row in pinyin ("Wang", "Lei",
    "Wanglei") or by naming nobody (it may be about them)."""
    text = simplified(f"{row.get('speaker') or ''} {row.get('text') or ''}")
    surname, given = _parts(name)
    if name in text or (len(given) >= 2 and _given_alone(given, surname, text)):
        return True
    if len(name) == 3 and not name.endswith(_TITLES) and name[:2] in text:
        return True  # jieba ran a two-character name into the next word (林嘉原计划: 林嘉 + 原计划)
    if not given:  # 小王, 王老师: the surname is all the name says
        return surname in text
    if any(short + surname in text for short in _SHORT) or any(surname + title in text for title in _TITLES):
        return True
    if has_cjk(text):
        return False
    words = set(_LATIN_WORD.findall(text.lower()))
    if any(spelled in words for spelled in _spellings(surname, given)):
        return True
    # one about its speaker ("I …") or someone named is not about them; one that names nobody may be
    return _MID_SENTENCE_NAME.search(text) is None and _FIRST_PERSON_EN.search(text) is None


def mentions_latin(name: str, row: Mapping[str, Any]) -> bool:
    """A Chinese ``row`` mentions the Latin ``name`` (lower-cased): as a Latin word in it ("我和Tom"), by a
    run of characters that reads it in pinyin (林 for "lin", 王磊 for "wanglei"), by a person it names
    in what may be a transliteration (卡罗琳 may be "Caroline", 王磊 is not), or by naming nobody."""
    text = simplified(str(row.get("text") or ""))
    if any(word_names(word, name) for word in _LATIN_WORD.findall(text.lower())):
        return True
    if any(_reads(name, run) for run in CJK_RUN.findall(text[:TAGGED_CHARS])):
        return True
    # one that names nobody may be about them ("她下个月去冰岛"); one about its speaker (whose name
    # ``query.unmentioned`` compares) or someone else is not
    return _named_by_sound(name, text) or not _names_someone(text)


def _given_alone(given: str, surname: str, text: str) -> bool:
    """``given`` is in ``text`` as this person's given name (思远 for 邝思远), not as someone else's (梁思远):
    not right after another surname, unless that character is a word of its own there (和思远, 跟思远)."""
    at = text.find(given)
    while at >= 0:
        before = text[at - 1] if at > 0 else ""
        if before == surname or before not in SURNAMES or before in _BETWEEN:
            return True
        at = text.find(given, at + 1)
    return False


# Characters in SURNAMES that more often stand alone before a name: "和思远", "向思远", "于思远".
_BETWEEN = frozenset("和向于时跟与同给对被把让叫是的了在说找见请问及或也都还就又")
# What opens no given name: conjunctions, prepositions and the like (费和 is "fee and"); what a measure word
# follows (那张卡, 两张票), where no surname stands.
_LINKS = _BETWEEN | frozenset("加并从比")
_COUNTING = frozenset("这那哪每几一二两三四五六七八九十百千万0123456789")


def word_names(word: str, name: str) -> bool:
    """``word`` is ``name``, a longer form of it ("postgresql" for "postgres"), or a short form of 3
    letters or more ("mel")."""
    return word.startswith(name) or (len(word) >= 3 and name.startswith(word))


def _parts(name: str) -> tuple[str, str]:
    """(surname, given name) of a Chinese name; a short form (小王, 王老师) has no given name."""
    if name[0] in _SHORT and len(name) == 2:
        return name[1], ""
    for title in _TITLES:
        if name.endswith(title) and len(name) > len(title):
            return name[: -len(title)], ""
    return name[0], name[1:]


def _is_chinese_name(word: str) -> bool:
    """A surname and a given name (王磊), a surname and a title (陈医生, 王总), or 小/老/阿 and one character
    (小王, 小雯); not a word the dictionary holds as a word (老公, 小孩, 马拉松, 小米)."""
    if not 2 <= len(word) <= 4:
        return False
    if word[1:] in _TITLES:  # 赵先生 is in the dictionary; 和老师 is "with the teacher"
        return word[0] in SURNAMES and word[0] not in _BETWEEN
    if _frequency(word) > _COMMON:  # 老李 and 周杰伦 are lost with 叶子 and 马拉松 (all tagged nr)
        return False
    surname, given = _parts(word)
    return (surname[0] in SURNAMES and surname[0] not in _BETWEEN) or (not given and word[0] in "小阿")


def _spellings(surname: str, given: str) -> set[str]:
    """The pinyin a Latin text may write the name in: surname, given name, both run together."""
    first = set(_readings(surname))
    rest = {"".join(p) for p in product(*(_readings(c) for c in given))} if len(given) <= 3 else set()
    return first | rest | {f + r for f in first for r in rest} | {r + f for f in first for r in rest}


def _reads(name: str, run: str) -> bool:
    """Some consecutive characters of ``run`` read ``name`` in pinyin (any reading of each)."""
    for start in range(len(run)):
        at = {0}
        for char in run[start:]:
            at = {i + len(r) for i in at for r in _readings(char) if name.startswith(r, i)}
            if len(name) in at:
                return True
            if not at:
                break
    return False


@lru_cache(maxsize=8192)
def _readings(char: str) -> frozenset[str]:
    """Every pinyin reading of a character, without tones: 曾 "ceng" and "zeng", 吕 "lu", "lv" and "lyu"."""
    out: set[str] = set()
    for marked in _pinyin_table().get(str(ord(char)), "").split(","):
        plain = "".join(c for c in unicodedata.normalize("NFD", marked) if not unicodedata.combining(c))
        if plain.isascii() and plain.isalpha():
            out.add(plain)
            if "\u0308" in unicodedata.normalize("NFD", marked):  # ü: written u, v or yu
                out |= {plain.replace("u", "v"), plain.replace("u", "yu")}
    return frozenset(out)


@lru_cache(maxsize=1)
def _pinyin_table() -> dict[str, str]:
    """pypinyin's table of single characters (codepoint -> readings with tones), read from its data file
    without importing pypinyin, whose import also loads its phrase tables (about 50 MB against 8)."""
    spec = importlib.util.find_spec("pypinyin")
    if spec is None or spec.origin is None:
        raise ImportError("pypinyin is not installed (pip install -e .)")
    table: dict[str, str] = json.loads((Path(spec.origin).parent / "pinyin_dict.json").read_text(encoding="utf-8"))
    return table


def _named_by_sound(name: str, text: str) -> bool:
    """The text names a person (a word jieba tags as a name) who may be ``name`` in transliteration: a
    name written only in the characters transliterations are written in, whose first two sounds are ones
    a transliteration of ``name`` may have there (卡罗琳 "ka-luo" for "Caroline", 约翰 "yue-han" for "John";
    not 卡罗琳 for "Bram", not 马娜 "ma-na" for "Marisol"). A Chinese name (张伟) is matched in pinyin only
    (``_reads``); jieba's other "names" (乌龟, 养老院, 俊杰 of 王俊杰) have characters no transliteration uses."""
    return any(
        flag.startswith(("nr", "nz")) and len(word) >= 2 and set(word) <= TRANSLITERATION and _sounds_like(name, word)
        for word, flag in _tagged(text)
    )


@lru_cache(maxsize=4096)
def _names_someone(text: str) -> bool:
    """The Chinese text is about someone known: its speaker (我, 我们, 用户), a capitalised Latin word
    ("Lin: 好的", "我和Tom"), a name jieba finds (王磊, 卡罗琳) or splits (何 + 秀英), or a clause that opens
    with a surname and no common word (许洋在读…, 谢俊杰…; not 周末…, 高兴…), where jieba's tags are least
    sure."""
    if "我" in text or "用户" in text or _CAPITALISED.search(text):  # 用户: a typed memory's short statement
        return True
    tagged = _tagged(text)
    for i, (word, flag) in enumerate(tagged):
        if flag.startswith("nr") and len(word) >= 2 and (_is_chinese_name(word) or set(word) <= TRANSLITERATION):
            return True
        # a name jieba split: 何 + 秀英, 徐海 + 燕 (何 tagged "what", 秀英 a given name it knows)
        split = len(word) <= 2 and word[0] in SURNAMES and word[0] not in _BETWEEN and i + 1 < len(tagged)
        if split and tagged[i + 1][1].startswith("nr"):
            return True
    return any(_opens_with_a_surname(clause) for clause in CJK_RUN.findall(text[:TAGGED_CHARS]))


def _opens_with_a_surname(clause: str) -> bool:
    if clause[0] not in SURNAMES or len(clause) < 2:
        return False
    word, flag = _tagged(clause)[0]
    if len(word) == 1:
        return flag[0] not in "pcur"  # 向他借钱, 和朋友: a word of its own
    return flag.startswith("nr") or _frequency(word) <= _COMMON


def _sounds_like(name: str, word: str) -> bool:
    """``word``'s first syllable opens with a sound ``name``'s first letter may stand for, and its second
    opens with no consonant or with one of the next two consonants of ``name`` ("caroline": r, l)."""
    if not any(_onset(r) in _ONSETS.get(name[0], ()) for r in _readings(word[0])):
        return False
    consonants = [c for i, c in enumerate(name[1:]) if c not in "aeiou" and c != name[i]][:2]
    second = {_onset(r) for r in _readings(word[1])}
    return bool(second & _VOWEL) or any(second & _ONSETS.get(c, set()) for c in consonants)


def _onset(reading: str) -> str:
    """A pinyin syllable's initial ("zh", "k", "y"; "" for "an", "ou")."""
    if reading[:2] in ("zh", "ch", "sh"):
        return reading[:2]
    return "" if reading[0] in "aeo" else reading[0]


# The first sounds a transliteration of a name that opens with a Latin letter may open with, loosely
# (Latin letters name several sounds; a looser table only leaves more questions answered).
_VOWEL = {"", "y", "w"}
_ONSETS: dict[str, set[str]] = {
    **dict.fromkeys("aeiou", _VOWEL),
    "y": _VOWEL | {"j"},
    "b": {"b", "p"},
    "p": {"b", "p", "f"},  # "ph"
    **dict.fromkeys("dt", {"d", "t"}),
    **dict.fromkeys("kq", {"k", "g", "q"}),
    "c": {"k", "g", "q", "s", "x", "c", "ch", "sh", "z"},
    "g": {"g", "k", "j", "q", "zh"},
    "j": {"j", "q", "zh", "ch", "y", "g"},
    **dict.fromkeys("fvw", {"f", "w", "h"}),
    "h": {"h", "x"},
    **dict.fromkeys("lr", {"l"}),
    "m": {"m"},
    "n": {"n"},
    **dict.fromkeys("sz", {"s", "sh", "x", "z", "zh", "c", "ch", "q"}),
    "x": {"s", "sh", "x", "k"},
}


@lru_cache(maxsize=4096)
def _tagged(text: str) -> tuple[tuple[str, str], ...]:
    """jieba's words and tags of the text's first ``TAGGED_CHARS`` characters (where a memory names whom it
    is about; a whole 16,000-character turn would take jieba about 200 ms)."""
    return tuple((pair.word, pair.flag) for pair in tagger().cut(text[:TAGGED_CHARS]))


TAGGED_CHARS = 1000


def _frequency(word: str) -> int:
    import jieba

    return int(jieba.dt.FREQ.get(word, 0))
