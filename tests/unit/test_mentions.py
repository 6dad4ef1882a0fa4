"""Whether a memory mentions a person a query names, in the same script and across the two."""

from __future__ import annotations

import pytest

from hindsight_es.recall.mentions import chinese_names, mentions_chinese, mentions_latin
from hindsight_es.recall.query import entities, parse_query, unmentioned


@pytest.mark.parametrize(
    ("query", "named"),
    [
        ("王磊的老家在哪里？", {"王磊"}),
        ("陈医生什么时候出门诊？", {"陈医生"}),
        ("赵先生开什么车？", {"赵先生"}),  # in jieba's dictionary, as a name with a title
        ("小雯从哪里飞回来？", {"小雯"}),
        ("张国强的孩子多大了？", {"张国强"}),
        ("叶医生的门诊时间是什么时候？", {"叶医生"}),  # a surname and a title, which jieba splits
        ("张阿姨做的红烧肉好吃吗？", {"张阿姨"}),
        ("王总的秘书是谁？", {"王总"}),
        ("我和老师去哪里了？", set()),  # 和: "with", not the surname
        ("数学老师叫什么？", set()),
        ("小米手环的续航怎么样？", set()),  # a word: 米 is a surname too
        ("陳醫生什麼時候出門診？", {"陈医生"}),  # Traditional Chinese, read in Simplified
        # words jieba's dictionary tags as names but holds as words, or that open with no surname
        ("新车的续航是多少？", set()),
        ("龟背竹的叶子为什么发黄？", set()),
        ("马拉松起点在哪里？", set()),
        ("我回送了老公什么礼物？", set()),
        ("我住在哪里？", set()),
        ("Where does Wang Lei work?", set()),  # Latin names are entities(), not these
        # characters jieba joins into a "name" that the sentence reads otherwise
        ("麻醉费和检查费哪个更贵？", set()),  # 费 + 和: "fee and"
        ("份子钱加伴娘服我一共要出多少？", set()),  # 钱 + 加: "plus"
        ("车在修的时候我怎么去上班？", set()),  # "while the car is being fixed"
        ("浦发那张卡每月几号出账单？", set()),  # 那张: a measure word
        ("我和张伟去哪吃饭了？", {"张伟"}),
        ("张老师那张表格填了吗？", {"张老师"}),
    ],
)
def test_the_people_a_chinese_question_names(query: str, named: set[str]) -> None:
    assert chinese_names(query) == named


@pytest.mark.parametrize(
    "transcript",
    [
        "Bart: Hey, did you know? I'm nervous.\nAssistant: Oh, that's normal.\nBart: Yes, I know.",
        "I told Mom and Dad about the trip.",
    ],
)
def test_a_transcript_s_speakers_interjections_and_parents_are_not_entities(transcript: str) -> None:
    assert entities(transcript) == set()


def test_a_latin_name_in_a_chinese_question_is_an_entity_wherever_it_stands() -> None:
    assert entities("Caroline喜欢什么音乐？") == {"caroline"}
    assert parse_query("Lin喜欢什么茶？").names == {"lin"}  # a speaker the query names
    assert entities("Priya 每周二做什么？") == {"priya"}


@pytest.mark.parametrize(
    ("name", "text", "speaker", "mentioned"),
    [
        ("王磊", "王磊在招商银行做程序员。", None, True),
        ("王磊", "老王说明天下雨。", None, True),  # a short form of the surname
        ("林嘉原", "我们部门新来了个同事，叫林嘉。", None, True),  # jieba ran 林嘉 into 原计划
        ("王磊", "磊磊今天发烧了。", None, False),  # one character of the given name is not enough
        ("王磊", "Wang Lei works at a bank.", None, True),  # pinyin
        ("王磊", "I met Lei at the gym.", None, True),
        ("王磊", "张伟喜欢喝茶。", None, False),
        ("王磊", "好的", "王磊", True),  # the speaker
        ("陈医生", "陈大夫说要做胃镜。", None, True),
        ("小周", "周敏的猫叫年糕。", None, True),
        ("周敏", "Zhou Min's cat is called Niangao.", None, True),
        ("曾华", "Zeng Hua moved to Chengdu.", None, True),  # 曾 read "zeng" as a surname, "ceng" otherwise
        ("曾华", "Priya moved to Chengdu.", None, False),  # an English memory about someone else
        ("陈医生", "陳醫生說要做胃鏡。", None, True),  # a memory in Traditional Chinese
        ("曾华", "she moved to a new flat.", None, True),  # one that names nobody may be about her
        ("曾华", "I moved to a new flat.", None, False),  # one about its speaker is not
        ("曾华", "I moved to a new flat.", "曾华", True),
    ],
)
def test_a_chinese_name_is_mentioned_whole_short_in_pinyin_or_as_the_speaker(
    name: str, text: str, speaker: str | None, mentioned: bool
) -> None:
    assert mentions_chinese(name, {"text": text, "speaker": speaker}) is mentioned


@pytest.mark.parametrize(
    ("name", "text", "mentioned"),
    [
        ("lin", "林对花生过敏。", True),  # pinyin of 林
        ("wang", "王磊在招商银行做程序员。", True),
        ("wanglei", "王磊在招商银行做程序员。", True),
        ("tom", "我和Tom去爬山了。", True),  # a Latin word inside Chinese
        ("postgres", "我们用的是PostgreSQL。", True),
        ("caroline", "卡罗琳下个月要去冰岛看极光。", True),  # a transliteration: 卡 opens no Chinese surname
        ("john", "约翰在谷歌工作。", True),
        ("bram", "卡罗琳下个月要去冰岛看极光。", False),  # "Bram" opens with no "k"
        ("bram", "张伟喜欢喝茶。", False),  # a Chinese name is matched in pinyin only
        ("okafor", "她最喜欢的茶是龙井。", True),  # it names nobody: it may be about them
        ("okafor", "我最喜欢的茶是龙井。", False),  # it is about its speaker
        ("okafor", "我和Tom去爬山了。", False),  # it names someone else
        ("okafor", "何秀英的女儿刚刚上中学。", False),  # someone whose name jieba splits (何 "what" + 秀英)
    ],
)
def test_a_latin_name_is_mentioned_in_chinese_by_its_letters_its_pinyin_or_a_transliteration(
    name: str, text: str, mentioned: bool
) -> None:
    assert mentions_latin(name, {"text": text}) is mentioned


def test_unmentioned_reads_chinese_memories_for_latin_names() -> None:
    rows = [{"text": "林晓雯对花生过敏。"}, {"text": "张伟喜欢喝茶。"}, {"text": "I like sushi."}]
    assert unmentioned(frozenset({"lin", "bram", "zhang"}), rows) == ["bram"]


def test_the_name_tables_are_loaded_by_warm() -> None:
    from hindsight_es.extraction import names_zh
    from hindsight_es.recall import mentions

    mentions.warm()
    assert names_zh._TAGGER is not None  # jieba's dictionary is loaded
    assert mentions._readings.cache_info().currsize > 0  # and pypinyin's readings are read


def test_a_traditional_question_also_asks_for_its_simplified_n_grams() -> None:
    from hindsight_es.recall.lexical import holds
    from hindsight_es.recall.query import in_both_scripts

    assert in_both_scripts("我的體檢報告呢？") == "我的體檢報告呢？ 我的体检报告呢？"
    assert in_both_scripts("我的体检报告呢？") == "我的体检报告呢？"  # Simplified as it is
    assert in_both_scripts("what about my check-up?") == "what about my check-up?"
    assert not holds("體檢", "text_ngram")("明天去体检")  # as written, no n-gram in common
    assert holds(in_both_scripts("體檢"), "text_ngram")("明天去体检")
