"""The rule extractor: given one turn of text, then these candidates (kinds, keys, values)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

import hindsight_es.extraction as extraction
from hindsight_es.extraction import Candidate, Extractor, RuleExtractor, extract


def typed(text: str, **kw) -> list[Candidate]:
    """The candidates after the episode; the episode itself is checked separately."""
    out = extract(text, **kw)
    assert out[0].kind == "episode"
    return out[1:]


def one(text: str, **kw) -> Candidate:
    cands = typed(text, **kw)
    assert len(cands) == 1, [(c.kind, c.key, c.value) for c in cands]
    return cands[0]


# ---- the public surface ---------------------------------------------------------------------


def test_public_api_is_pinned():
    assert sorted(extraction.__all__) == ["Candidate", "Extractor", "RuleExtractor", "extract", "warm"]


def test_rule_extractor_satisfies_the_protocol_and_has_a_versioned_id():
    ex: Extractor = RuleExtractor()
    assert ex.id == "rules/47"
    assert ex.extract("I live in Berlin") == extract("I live in Berlin")


def test_candidates_are_frozen():
    cand = extract("I live in Berlin")[0]
    with pytest.raises(ValidationError):
        cand.text = "changed"  # type: ignore[misc]


# ---- the episode ----------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["", "   ", "\n\t "])
def test_empty_text_gives_nothing(text):
    assert extract(text) == []


def test_every_turn_with_content_starts_with_exactly_one_trimmed_episode():
    out = extract("  I live in Berlin and I work at Google.  ")
    assert [c.kind for c in out].count("episode") == 1
    assert out[0].kind == "episode"
    assert out[0].text == "I live in Berlin and I work at Google."
    assert out[0].key is None and out[0].value is None
    assert out[0].importance == pytest.approx(0.3)
    assert out[0].entities == ("Berlin", "Google")


@pytest.mark.parametrize("text", ["好的", "嗯嗯", "thanks", "ok", "哈哈", "Good morning!", "No, thanks", "👍👍"])
def test_chit_chat_gives_nothing(text):
    """Filler stays in the log and in working memory, not in long-term memory (``test_filler``)."""
    assert extract(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Do you like coffee?",
        "你住在哪里？",
        "Where do I live?",
        "What's my name?",
        "我叫什么名字？",
        "你喜欢咖啡吗",
        "Are we using MySQL?",
        "我喜欢什么？",
    ],
)
def test_questions_give_only_the_episode(text):
    assert typed(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "I love it!",
        "I love you",
        "我爱你",
        "call me tomorrow",
        "I'd like a refund",
        "If I lived in Paris I would be happy",
        "Don't worry about it",
        "I'm gonna make it happen!",
    ],
)
def test_vague_or_hypothetical_statements_give_no_typed_memory(text):
    assert [c for c in extract(text) if c.kind != "episode"] == []  # "I love it!" is filler: not even an episode


@pytest.mark.parametrize(
    "text",
    [
        "Tariq Petrov drinks ginger tea every afternoon instead of coffee.",
        "Grace Novak's team migrated the billing service from MySQL to PostgreSQL.",
        "Tom Becker's startup switched to Google Cloud.",
        "Dana Whitfield uses VS Code for everything.",
        "谢梓轩每天下午都喝普洱茶，从来不喝咖啡。",
        "王伟的团队把支付系统从MySQL迁移到了PostgreSQL。",
        "张晓东寄东西一直用京东物流。",
    ],
)
def test_a_choice_of_someone_named_is_not_the_speakers(text):
    assert typed(text) == []  # their choice, not the speaker's nor the speaker's team's: nothing to supersede


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("Finally moved the shop from AWS to Azure.", "team/cloud_provider", "azure"),
        ("Honestly switched to oolong tea.", "user/drink", "oolong tea"),
        ("Yesterday we migrated the billing service from MySQL to PostgreSQL.", "team/database", "postgresql"),
        ("每天下午都喝普洱茶，从来不喝咖啡。", "user/drink", "pu'er tea"),  # no subject said: the speaker
        ("周末我喝咖啡。", "user/drink", "coffee"),
    ],
)
def test_a_sentence_opening_with_an_adverb_or_no_subject_is_still_the_speakers(text, key, value):
    assert [(c.key, c.value) for c in typed(text)] == [(key, value)]


# ---- facts ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("I live in Berlin", "user/location", "berlin"),
        ("we moved to Paris last year", "user/location", "paris"),
        ("我搬到上海了", "user/location", "上海"),
        ("我住在北京", "user/location", "北京"),
        ("I've been living in Seattle for five years.", "user/location", "seattle"),
        ("my name is Ann", "user/name", "ann"),
        ("我叫小王", "user/name", "小王"),
        ("call me Bob", "user/name", "bob"),
        ("I work at Google", "user/employer", "google"),
        ("我在腾讯工作", "user/employer", "腾讯"),
        ("我在上海工作", "user/location", "上海"),
        ("we use MySQL", "team/database", "mysql"),
        ("我们用的是 PostgreSQL", "team/database", "postgresql"),
        ("Our database is PostgreSQL", "team/database", "postgresql"),
        ("I use Vim", "user/editor", "vim"),
        ("我们用阿里云", "team/cloud_provider", "阿里云"),
        ("I'm from Canada", "user/hometown", "canada"),
        ("我来自成都", "user/hometown", "成都"),
        ("I'm 32 years old", "user/age", "32"),
        ("我今年30岁", "user/age", "30"),
        ("I'm a software engineer", "user/occupation", "software engineer"),
        ("我是一名医生", "user/occupation", "医生"),
        ("My email is ann@example.com", "user/email", "ann@example.com"),
        ("我的生日是5月3日", "user/birthday", "5月3日"),
        ("my dog's name is Rex", "user/pet:dog", "rex"),
    ],
)
def test_facts(text, key, value):
    cand = one(text)
    assert (cand.kind, cand.key, cand.value) == ("fact", key, value)
    assert cand.is_correction is False


def test_a_fact_is_a_short_statement_quoting_the_speakers_sentence():
    cand = one("Sure. I live in Berlin.")
    assert (cand.text, cand.quote) == ("The user lives in Berlin", "I live in Berlin.")
    cand = one("我以后寄快递都用顺丰，别用别的。", speaker="Lin")
    assert (cand.key, cand.value, cand.text) == ("user/shipping_carrier", "顺丰", "Lin的快递：顺丰")


@pytest.mark.parametrize(
    ("text", "key", "statement"),
    [
        ("I do not drink alcohol.", "user/diet:alcohol", "The user does not drink alcohol"),
        ("I no longer drink coffee.", "user/diet:coffee", "The user does not drink coffee"),
        ("I can't drink milk or eat cheese.", "user/diet:milk", "The user does not drink milk"),
        ("I don't eat pork.", "user/diet:pork", "The user does not eat pork"),
        ("我不喝酒。", "user/diet:酒", "用户不喝酒"),
        ("我不吃香菜", "user/diet:香菜", "用户不吃香菜"),
    ],
)
def test_a_diet_says_drink_for_what_is_drunk_and_eat_for_the_rest(text, key, statement):
    cand = one(text)
    assert (cand.key, cand.text) == (key, statement)


def test_a_chinese_statement_names_the_value_as_the_sentence_did():
    cand = one("我现在不喝咖啡了，改喝绿茶")
    assert (cand.key, cand.value, cand.text) == ("user/drink", "green tea", "用户的饮品：绿茶")
    assert one("I drink green tea every morning.").text == "The user's drink: green tea"


@pytest.mark.parametrize(
    "text", ["Hi! I'm Lin, I run a small tea shop in Hangzhou.", "我开了一家奶茶店", "We met at a coffee house."]
)
def test_a_drink_naming_a_place_is_no_drink(text):
    assert [c.key for c in typed(text) if "drink" in (c.key or "")] == []


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("Ship with DHL from now on instead of UPS.", "user/shipping_carrier", "dhl"),  # was UPS, the one given up
        ("以后快递都发顺丰，不要用圆通了。", "user/shipping_carrier", "顺丰"),  # was only "never 用圆通"
        ("I no longer drink coffee, only green tea now.", "user/drink", "green tea"),  # was only "no coffee"
        ("We no longer use MySQL, only PostgreSQL.", "team/database", "postgresql"),
        ("我的手机号换成了13800138000。", "user/phone", "13800138000"),
        ("My phone number changed to 555-0199.", "user/phone", "555-0199"),
    ],
)
def test_an_update_states_the_new_value_only(text, key, value):
    cand = one(text)
    assert (cand.key, cand.value) == (key, value)


@pytest.mark.parametrize(
    ("text", "gone"),
    [
        ("我以前喝咖啡，现在只喝茶。", "coffee"),  # was the drink coffee: 以前 gives it up
        ("My favourite food is no longer pizza, it's sushi now.", "no longer pizza"),
        ("我最喜欢的颜色不是红色了，是蓝色。", "红色"),
    ],
)
def test_a_value_given_up_is_never_the_value(text, gone):
    assert all(c.value != gone for c in typed(text))


@pytest.mark.parametrize(
    "text", ["Our competitor moved to Azure.", "Our biggest client uses Oracle.", "我们的客户都用阿里云。"]
)
def test_another_partys_choice_is_not_the_teams(text):
    assert typed(text) == []


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("We replaced MongoDB with PostgreSQL in the spring.", "team/database", "postgresql"),  # was nothing
        ("I swapped Emacs for Vim.", "user/editor", "vim"),
        ("We swapped out AWS for GCP last year.", "team/cloud_provider", "gcp"),
    ],
)
def test_what_replaced_the_old_value_is_the_new_one(text, key, value):
    cand = one(text)
    assert (cand.key, cand.value) == (key, value)


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [("我上周搬去无锡了。", "user/location", "无锡"), ("我最喜欢的水果现在是榴莲。", "user/favorite:fruit", "榴莲")],
)
def test_a_time_word_is_not_part_of_the_attribute_or_in_the_way(text, key, value):
    cand = one(text)
    assert (cand.key, cand.value) == (key, value)


@pytest.mark.parametrize("text", ["My mind changed to yes.", "我的计划变成了下周出发"])
def test_a_change_of_mind_or_plan_is_no_attribute(text):
    assert [c for c in typed(text) if c.kind == "fact"] == []


def test_several_statements_in_one_turn_come_out_in_order():
    out = typed("I really love hiking and I live in Denver. 我叫张伟，住在深圳。")
    assert [(c.kind, c.key, c.value) for c in out] == [
        ("preference", "user/preference:hiking", "hiking"),
        ("fact", "user/location", "denver"),
        ("fact", "user/name", "张伟"),
        ("fact", "user/location", "深圳"),
    ]


def test_a_statement_before_a_trailing_question_is_kept():
    assert [(c.key, c.value) for c in typed("I live in Berlin, where do you live?")] == [("user/location", "berlin")]
    assert [(c.key, c.value) for c in typed("我住在北京，你住在哪里？")] == [("user/location", "北京")]


# ---- preferences ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("From now on use FedEx for all international orders.", "user/shipping_carrier:international"),
        ("For overseas parcels, from now on use FedEx.", "user/shipping_carrier:international"),
        ("国际快递以后都用联邦快递。", "user/shipping_carrier:international"),
        ("Domestic orders: from now on use FedEx.", "user/shipping_carrier:domestic"),
        ("国内快递我以后都用顺丰。", "user/shipping_carrier:domestic"),
        ("From now on use FedEx for domestic and international orders.", "user/shipping_carrier"),  # both: one choice
        ("We use MySQL for international orders.", "team/database"),  # only carriers are chosen per region
    ],
)
def test_a_carrier_chosen_for_one_region_is_keyed_by_it(text, key):
    """Domestic and international carriers are two choices: one does not supersede the other."""
    assert one(text).key == key


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("from now on use FedEx", "user/shipping_carrier", "fedex"),
        ("Use FedEx from now on", "user/shipping_carrier", "fedex"),
        ("我以后都用顺丰", "user/shipping_carrier", "顺丰"),
        ("以后用顺丰", "user/shipping_carrier", "顺丰"),
        ("I prefer tea over coffee", "user/drink", "tea"),
        ("我更喜欢Python", "user/programming_language", "python"),
        ("I like coffee", "user/preference:coffee", "coffee"),
        ("我喜欢喝咖啡", "user/preference:coffee", "coffee"),
        ("I prefer window seats", "user/preference:seats", "window seats"),
        ("please always reply in English", "user/reply_language", "english"),
        ("请用中文回答", "user/reply_language", "chinese"),
        ("my favorite color is blue", "user/favorite:color", "blue"),
        ("我最喜欢的颜色是红色", "user/favorite:color", "红色"),
        ("Please always cc my manager", "user/instruction:cc_my_manager", "always"),
    ],
)
def test_preferences(text, key, value):
    cand = one(text)
    assert (cand.kind, cand.key, cand.value) == ("preference", key, value)


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("I don't like coffee anymore", "user/preference:coffee", "not:coffee"),
        ("I hate cilantro", "user/preference:cilantro", "not:cilantro"),
        ("I can't stand jazz", "user/preference:jazz", "not:jazz"),
        ("我不喜欢咖啡了", "user/preference:coffee", "not:coffee"),
    ],
)
def test_negated_preferences_keep_the_key_and_negate_the_value(text, key, value):
    cand = one(text)
    assert (cand.kind, cand.key, cand.value) == ("preference", key, value)


def test_a_negated_preference_supersedes_the_positive_one_in_either_language():
    liked, unliked, zh_unliked = one("I like coffee"), one("I don't like coffee anymore"), one("我不喜欢咖啡了")
    assert liked.key == unliked.key == zh_unliked.key
    assert liked.value == "coffee" and unliked.value == zh_unliked.value == "not:coffee"


# ---- plans and decisions ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("I'm going to visit Tokyo next week", "visit tokyo next week"),
        ("I plan to learn Rust", "learn rust"),
        ("next week I will start the new job", "start the new job"),
        ("我打算明年去日本", "明年去日本"),
        ("下周我要去北京出差", "去北京出差"),
        ("我明天要去上海开会", "去上海开会"),
    ],
)
def test_plans(text, value):
    cand = one(text)
    assert (cand.kind, cand.key, cand.value) == ("plan", None, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("下个月我们全家去杭州旅游。", "去杭州旅游"),
        ("我下周去上海出差，帮我订个酒店。", "去上海出差"),
        ("我们下周五去医院体检。", "去医院体检"),
        ("明天回老家过年。", "回老家过年"),
    ],
)
def test_a_chinese_trip_said_with_a_time_to_come_and_no_verb_of_intent_is_a_plan(text, value):
    plans = [c for c in typed(text) if c.kind == "plan"]
    assert [(c.key, c.value) for c in plans] == [(None, value)]


@pytest.mark.parametrize("text", ["周末去爬山了。", "我周末一般去爬山。", "上周去杭州旅游，玩得很开心。"])
def test_a_trip_gone_on_or_a_habit_is_no_plan(text):
    assert not [c for c in typed(text) if c.kind == "plan"]


@pytest.mark.parametrize(
    ("text", "statement"),
    [
        ("I plan to visit Rome next year.", "The user plans to visit Rome next year"),
        ("We are thinking of going to Japan in October.", "The user is planning on going to Japan"),
        ("Next month I'm flying to Tokyo.", "The user is planning on flying to Tokyo"),
        ("I'm going to Paris next week.", "The user is going to Paris next week"),
        ("I'm planning a trip to Lisbon in May.", "The user is planning a trip to Lisbon"),
    ],
)
def test_a_plan_is_stated_as_a_sentence(text, statement):
    """Not "plans to going to Japan" or "plans to Paris next week": the verb the value starts with, or lacks."""
    assert [c.text for c in extract(text) if c.kind == "plan"] == [statement]


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("we decided to use PostgreSQL", "team/database", "postgresql"),
        ("let's ship with UPS", "user/shipping_carrier", "ups"),
        ("Let's use Rust for the backend.", "team/programming_language", "rust"),
        ("let's go with the blue design", None, "blue design"),
        ("我们决定下个月上线", None, "下个月上线"),
        ("就用顺丰吧", "user/shipping_carrier", "顺丰"),
        ("我们决定了，用阿里云", "team/cloud_provider", "阿里云"),
    ],
)
def test_decisions(text, key, value):
    cand = one(text)
    assert (cand.kind, cand.key, cand.value) == ("decision", key, value)


# ---- constraints ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("I'm allergic to peanuts", "user/allergy:peanuts", "peanuts"),
        ("I'm not allergic to peanuts anymore", "user/allergy:peanuts", "not:peanuts"),
        ("我对花生过敏", "user/allergy:花生", "花生"),
        ("never ship with UPS", "user/instruction:ship_with_ups", "never"),
        ("You must not share my email", "user/instruction:share_my_email", "never"),
        ("不能用微信联系我", "user/instruction:用微信联系我", "never"),
        ("别再给我推荐咖啡了", "user/instruction:推荐咖啡", "never"),
        ("the budget is under $500", "user/budget", "$500"),
        ("Our budget is $10k", "team/budget", "$10k"),
        ("预算不超过5000元", "user/budget", "5000元"),
        ("I'm vegetarian", "user/diet", "vegetarian"),
        ("我吃素", "user/diet", "vegetarian"),
        ("我不吃辣", "user/diet:辣", "not:辣"),
    ],
)
def test_constraints(text, key, value):
    cand = one(text)
    assert (cand.kind, cand.key, cand.value) == ("constraint", key, value)


@pytest.mark.parametrize(
    ("text", "allergies"),
    [
        ("I am allergic to peanuts and cashews.", [("peanuts", "peanuts"), ("cashews", "cashews")]),
        (
            "I'm allergic to peanuts, shellfish, and penicillin.",
            [("peanuts", "peanuts"), ("shellfish", "shellfish"), ("penicillin", "penicillin")],
        ),
        ("I'm not allergic to peanuts or cashews.", [("peanuts", "not:peanuts"), ("cashews", "not:cashews")]),
        ("allergic to cats and dogs, sadly", [("cats", "cats"), ("dogs", "dogs")]),
        ("I'm allergic to peanuts and I'd like a cake without them.", [("peanuts", "peanuts")]),  # a new clause
        ("I'm allergic to peanuts, tree nuts are fine though.", [("peanuts", "peanuts")]),  # said of the next
        ("我对花生和腰果都过敏", [("花生和腰果", "花生和腰果")]),  # one value, as said
    ],
)
def test_each_allergen_of_a_list_is_an_allergy(text, allergies):
    found = [(c.key, c.value) for c in extract(text) if c.kind == "constraint"]
    assert found == [(f"user/allergy:{slug}", value) for slug, value in allergies]


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("My manager is Tom.", "boss/name", "tom"),
        ("My manager is Priya now, Tom left the company.", "boss/name", "priya"),
        ("My wife is Maria.", "wife/name", "maria"),
        ("我的新领导是李姐。", "boss/name", "李姐"),
        ("我老公是李明。", "husband/name", "李明"),
        ("我换工作了，现在在腾讯。", "user/employer", "腾讯"),
        ("I changed jobs, now I'm at Google.", "user/employer", "google"),
    ],
)
def test_a_name_or_an_employer_said_plainly(text, key, value):
    """ "my manager is Tom" names whom one has one of at a time, so "my manager is Priya now" updates it; a job
    change names the new employer in the clause after it."""
    assert [(c.key, c.value) for c in extract(text) if c.kind != "episode"] == [(key, value)]


@pytest.mark.parametrize(
    "text",
    [
        "My boss is German.",  # a nationality
        "My wife is Catholic.",  # a faith
        "My friend is Sam.",  # one of several friends: a second would not replace him
        "我的老板是北京人。",  # where from, not who
        "我换工作了，现在在找。",  # still looking
    ],
)
def test_no_name_or_employer_where_the_words_say_something_else(text):
    assert [c.key for c in extract(text) if c.kind != "episode"] == []


def test_always_and_never_of_one_instruction_share_a_key():
    assert one("Please always cc my manager").key == one("Never cc my manager").key


# ---- corrections ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("不对，我们用的是 PostgreSQL", "team/database", "postgresql"),
        ("更正：我们用的是 MySQL", "team/database", "mysql"),
        ("不对，是 PostgreSQL", "team/database", "postgresql"),
        ("No, it's PostgreSQL, not MySQL.", "team/database", "postgresql"),
        ("Actually, I live in Munich now.", "user/location", "munich"),
        ("Correction: I work at Microsoft now.", "user/employer", "microsoft"),
        ("actually, it's Paris", None, "paris"),
        ("no, I meant Berlin", None, "berlin"),
        ("其实是上海", None, "上海"),
    ],
)
def test_corrections(text, key, value):
    cand = one(text)
    assert (cand.kind, cand.key, cand.value, cand.is_correction) == ("correction", key, value, True)
    assert cand.confidence == pytest.approx(0.9)


def test_a_correction_targets_the_key_of_the_statement_it_corrects():
    before, after = one("we use MySQL"), one("不对，我们用的是 PostgreSQL")
    assert before.key == after.key == "team/database"
    assert (before.value, after.value) == ("mysql", "postgresql")
    assert after.confidence > before.confidence


@pytest.mark.parametrize(
    "text",
    ["I live in Berlin. 我们用的是 PostgreSQL", "No problem, I live in Berlin", "Sorry I'm late, I work at Google"],
)
def test_a_plain_statement_is_not_a_correction(text):
    cands = typed(text)
    assert cands and not any(c.is_correction or c.kind == "correction" for c in cands)


# ---- keys collide across phrasings and languages ----------------------------------------------


@pytest.mark.parametrize(
    "texts",
    [
        ("from now on use FedEx", "以后用顺丰", "let's ship with UPS", "I will use DHL from now on."),
        ("we use MySQL", "不对，我们用的是 PostgreSQL", "we switched to MariaDB last year", "Our database is SQLite"),
        ("I live in Berlin", "we moved to Paris", "我搬到上海了", "我家在杭州"),
        ("my name is Ann", "我叫小王", "call me Bob", "叫我小李就好"),
        ("my favorite color is blue", "我最喜欢的颜色是红色", "My favourite colour is green."),
    ],
)
def test_the_same_attribute_gets_the_same_key(texts):
    cands = [one(t) for t in texts]
    assert len({c.key for c in cands}) == 1, [(c.key, c.value) for c in cands]
    assert len({c.value for c in cands}) == len(texts)  # different values: the later one supersedes


# ---- entities, speaker, source, determinism ---------------------------------------------------


def test_entities_are_names_lexicon_items_and_chinese_places():
    assert extract("Hi Caroline! I went to New York with Melanie last week.")[0].entities == (
        "Caroline",
        "New York",
        "Melanie",
    )
    assert extract("The Eiffel Tower was lovely")[0].entities == ("Eiffel Tower",)
    assert extract("我们用顺丰把货从深圳寄到北京")[0].entities == ("顺丰", "深圳", "北京")
    assert extract("we moved from postgres to MySQL")[0].entities == ("PostgreSQL", "MySQL")
    assert extract("I'm tired today. Thanks!")[0].entities == ()


def test_speaker_is_added_to_entities_and_i_is_still_keyed_as_user():
    out = extract("I live in Boston", speaker="Caroline")
    assert out[0].entities == ("Boston", "Caroline")
    assert (out[1].key, out[1].value) == ("user/location", "boston")
    assert "Caroline" in out[1].entities


def test_assistant_turns_only_yield_agreed_decisions():
    assert typed("I live in Berlin and I prefer tea", source="assistant") == []
    assert typed("You should use FedEx from now on", source="assistant") == []
    agreed = one("OK, we decided to use PostgreSQL.", source="assistant")
    assert (agreed.kind, agreed.key, agreed.value) == ("decision", "team/database", "postgresql")
    assert one("我们决定用顺丰", source="assistant").key == "user/shipping_carrier"


def test_documents_and_tools_are_extracted_like_user_text():
    assert one("I live in Berlin", source="document").key == "user/location"


def test_extraction_is_deterministic():
    text = "不对，我们用的是 PostgreSQL。From now on use FedEx! I'm allergic to peanuts; 下周我要去北京出差"
    first = extract(text, speaker="Ann")
    assert [extract(text, speaker="Ann") for _ in range(3)] == [first] * 3
    assert [c.kind for c in first] == ["episode", "correction", "preference", "constraint", "plan"]


def test_scores_stay_in_range_and_typed_memories_outrank_the_episode():
    out = extract("I'm allergic to peanuts. I like jazz. I'm going to Rome next week.")
    assert all(0 <= c.importance <= 1 and 0 <= c.confidence <= 1 for c in out)
    assert all(c.importance > out[0].importance for c in out[1:])
    assert max(out[1:], key=lambda c: c.importance).kind == "constraint"


# ---- updates, negations and the entity a key names --------------------------------------------


def test_an_update_keys_the_attribute_it_changes_and_states_the_conclusion():
    said = typed("I no longer like sushi, ramen is my favourite now.", speaker="Ann")
    found = {(c.key, c.value): c.text for c in said}
    assert found == {
        ("user/preference:sushi", "not:sushi"): "Ann does not like sushi",
        ("user/favorite:food", "ramen"): "Ann's favourite food: ramen",
    }
    assert one("My favourite food is sushi.").key == "user/favorite:food"  # the update supersedes it


@pytest.mark.parametrize(
    ("text", "key", "value"),
    [
        ("I'm not drinking coffee anymore, I switched to green tea.", "user/drink", "green tea"),
        ("These days I use VS Code instead of Vim.", "user/editor", "vs code"),
        ("We dropped MongoDB and went with ClickHouse.", "team/database", "clickhouse"),
        ("Actually, switch international orders to DHL instead.", "user/shipping_carrier:international", "dhl"),
        ("Don't cc my manager anymore, she left the team.", "user/instruction:cc_my_manager", "never"),
        ("Green is my favorite color now.", "user/favorite:color", "green"),
        ("我不再喝咖啡了，改喝绿茶。", "user/drink", "green tea"),
        ("我们把 MongoDB 换成了 PostgreSQL。", "team/database", "postgresql"),
        ("国际件以后改成联邦快递。", "user/shipping_carrier:international", "fedex"),
        ("我最喜欢的颜色换成蓝色了。", "user/favorite:color", "蓝色"),
        ("我现在能吃辣了。", "user/diet:辣", "辣"),
        ("我现在主要用 Rust，不怎么写 Python 了。", "user/programming_language", "rust"),
    ],
)
def test_updates_and_negations(text, key, value):
    assert (key, value) in [(c.key, c.value) for c in typed(text)]


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        ("My sister still lives in Berlin though.", [("sister/location", "berlin")]),
        ("我妈妈是一名老师。", [("mother/occupation", "老师")]),
        ("My son's name is Leo.", [("son/name", "leo")]),
        ("We adopted a cat named Miso.", [("user/pet:cat", "miso")]),
        ("我们养了一只猫，叫年糕。", [("user/pet:cat", "年糕")]),
        ("I work at Google as a data scientist.", [("user/employer", "google"), ("user/occupation", "data scientist")]),
        ("我很喜欢绘画、弹钢琴和品茶。", [(f"user/preference:{x}", x) for x in ("绘画", "弹钢琴", "品茶")]),
        ("Use paul.k@work.io for anything work related instead.", [("user/email", "paul.k@work.io")]),
    ],
)
def test_keys_name_the_entity_and_the_attribute(text, pairs):
    assert [(c.key, c.value) for c in typed(text)] == pairs


@pytest.mark.parametrize(
    ("text", "pairs"),
    [
        # The place or employer left, between the speaker and the verb.
        ("我从北京搬到了上海。", [("user/location", "上海")]),
        ("我从小住在北京。", [("user/location", "北京")]),
        ("I relocated from Berlin to Munich last year.", [("user/location", "munich")]),
        ("我从阿里跳槽到字节了。", [("user/employer", "字节")]),
        # "Go" beside Chinese characters (no word boundary there for ``\b``).
        ("我们团队现在用Go写后端。", [("team/programming_language", "go")]),
        # A name said "from now on" is a name, not an instruction keyed by the name (which the next name
        # would not supersede); a prohibition stays one.
        ("Call me Alex from now on.", [("user/name", "alex")]),
        ("Never call me Bob.", [("user/instruction:call_me_bob", "never")]),
        # The new side of a given-up drink, said after it.
        ("I gave up tea, coffee only now.", [("user/drink", "coffee")]),
        ("I stopped drinking coffee, tea only.", [("user/drink", "tea")]),
        # A semicolon joins the new side to the sentence that gave the old one up.
        ("I gave up tea; coffee only now.", [("user/drink", "coffee")]),
        # An employer left is the old side of the employer's key; with the new one said, that alone.
        ("I quit my job at Amazon.", [("user/employer", "not:amazon")]),
        ("我已经从百度离职了。", [("user/employer", "not:百度")]),
        ("我从华为离职了，现在在小米工作。", [("user/employer", "小米")]),
        # The tool chosen for an activity is keyed by the activity, so the next tool for it supersedes it.
        ("以后开会都用腾讯会议，不用Zoom了。", [("user/choice:开会", "腾讯会议")]),
        ("我们以后开会改用飞书了。", [("team/choice:开会", "飞书")]),
        ("From now on we use Teams for meetings.", [("team/choice:meetings", "teams")]),
        ("I prefer tea for breakfast.", [("user/drink", "tea")]),
        # 发 began the noun 发票 (the topic runs to 都): no instruction keyed by a fragment of it.
        ("以后发票都寄到我公司地址。", []),
        ("以后都用微信通知我。", [("user/instruction:用微信通知我", "always")]),
        # "ditched X for Y": Y is the new side, as with "swapped" and "replaced … with".
        ("I ditched Sublime for Neovim last month.", [("user/editor", "neovim")]),
        # A drink said in the plural; a pet renamed by its name changed.
        ("I drink two espressos every morning.", [("user/drink", "espresso")]),
        ("We changed the dog's name to Waffles.", [("user/pet:dog", "waffles")]),
    ],
)
def test_updates_said_around_what_they_replace(text, pairs):
    assert [(c.key, c.value) for c in typed(text)] == pairs


@pytest.mark.parametrize(
    "text",
    [
        "I switched to decaf for health reasons.",
        "I moved to Lisbon for the sunshine.",
        "I use my phone for everything.",
    ],
)
def test_a_reason_after_for_is_not_an_activity(text):
    assert not [c.key for c in typed(text) if c.key and "/choice:" in c.key]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("我在华为做测试工程师。", [("user/employer", "华为"), ("user/occupation", "测试工程师")]),
        ("我在阿里做后端开发，挺忙的。", [("user/employer", "阿里"), ("user/occupation", "后端开发")]),
        ("我在上海做设计师。", [("user/location", "上海"), ("user/occupation", "设计师")]),  # a city
        ("我在一家小公司做会计。", [("user/occupation", "会计")]),  # no employer named
        ("我在家工作。", []),  # working from home: 家 is no employer
        ("我在一家小公司上班。", []),
    ],
)
def test_where_a_job_is_done_is_its_employer_when_it_names_one(text, expected):
    assert sorted((c.key, c.value) for c in typed(text)) == sorted(expected)


@pytest.mark.parametrize(
    "text",
    [
        "We're staying at a hotel near the beach for the first week.",
        "I'm staying at my sister's place this week.",
        "We're staying in Rome for three nights.",
        "I am staying at an Airbnb in Kyoto.",
    ],
)
def test_a_stay_that_ends_is_no_place_one_lives(text):
    assert not [c for c in typed(text) if c.key == "user/location"]


@pytest.mark.parametrize(
    ("text", "value"),
    [("I'm staying in Lisbon until March.", "lisbon"), ("I'm currently staying in Denver.", "denver")],
)
def test_a_stay_with_no_end_of_its_own_is_where_one_lives(text, value):
    assert [c.value for c in typed(text) if c.key == "user/location"] == [value]


@pytest.mark.parametrize(
    ("text", "plans"),
    [
        ("我本来打算买特斯拉，现在决定不买特斯拉了，买比亚迪。", []),
        ("我原本计划五月去日本，后来取消了。", []),
        ("我打算明年去日本", ["明年去日本"]),
    ],
)
def test_a_plan_the_speaker_had_once_is_no_plan(text, plans):
    assert [c.value for c in typed(text) if c.kind == "plan"] == plans


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("Please remind me to call my parents every Sunday.", "user/instruction:remind_me_to_call_my_parents"),
        ("Remind me every morning to take my meds.", "user/instruction:remind_me_to_take_my_meds"),
        ("Every Friday, remind me to submit my timesheet.", "user/instruction:remind_me_to_submit_my_timesheet"),
        ("每周日提醒我给爸妈打电话。", "user/instruction:提醒我给爸妈打电话"),
    ],
)
def test_a_reminder_that_comes_back_is_a_standing_instruction(text, key):
    assert [(c.key, c.value) for c in typed(text)] == [(key, "always")]


@pytest.mark.parametrize("text", ["Remind me to buy milk.", "提醒我明天买牛奶。"])
def test_one_reminder_is_no_standing_instruction(text):
    assert not [c for c in typed(text) if c.key]


@pytest.mark.parametrize(
    ("text", "language"),
    [("以后回复我请用中文。", "chinese"), ("回复我请用英文，谢谢。", "english"), ("回答我都用日语。", "japanese")],
)
def test_the_replies_language_said_after_the_reply(text, language):
    assert [(c.key, c.value) for c in typed(text)] == [("user/reply_language", language)]


def test_a_kin_word_opening_a_possessive_is_the_speakers_relative():
    assert [(c.key, c.value) for c in typed("Dad's name is Harold and he's 82.") if c.key] == [
        ("father/name", "harold")
    ]
