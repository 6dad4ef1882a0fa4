"""The generated corpus: N memories about named people (3 in 4 English, 1 in 4 Chinese) and questions
whose answer is one known memory.

Each memory states one fact of one kind (a template) about one person; no (person, kind) pair occurs
twice, so a question naming the person and asking about the kind has exactly one right memory, while
the same kind about other people and other facts about the same person are there as distractors. A
question paraphrases its memory: it shares the name and the topic, rarely the wording. Deterministic
for a given seed and size; a larger corpus is not a superset of a smaller one.
"""

from __future__ import annotations

import random
import string
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache

EN_FIRST = (
    "Priya Omar Lena Marcus Aiko Diego Fatima Jonas Chloe Rahul Ingrid Mateo Yusuf Hana Victor Sofia Kwame "
    "Elena Tomas Amara Felix Nadia Luca Grace Arjun Maya Oscar Leila Henrik Zoe Ravi Clara Emil Noor Hugo "
    "Anya Samuel Iris Kenji Lucia Theo Mira Pablo Esme Idris Freya Caleb Sana Anton Ruby Malik Alma Bruno "
    "Daria Ezra Nina Otto Selma Tariq Wren"
).split()
EN_LAST = (
    "Shah Becker Okafor Lindqvist Tanaka Moreno Haddad Novak Dubois Mehta Larsen Rossi Aydin Kim Petrov "
    "Almeida Mensah Ivanova Horvat Diallo Weber Karimi Bianchi Walsh Iyer Cohen Nilsen Farah Berg Quinn "
    "Rao Fischer Sandoval Nakamura Kowalski Ortega Byrne Varga Adeyemi Laurent Sato Jensen Morales Reyes "
    "Gupta Schmidt Costa Lehmann Park Fraser Suzuki Herrera Nguyen Dahl Keller Romero Ansah Brandt Chopra Olsen"
).split()
ZH_SURNAME = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘蒋蔡余杜".replace(
    "", " "
).split()
ZH_GIVEN = (
    "伟 芳 娜 敏 静 磊 洋 艳 勇 军 杰 娟 涛 明 超 秀英 霞 平 刚 桂英 文 斌 宇 浩 凯 婷 雪 琳 晨 欣 "
    "子涵 梓轩 雨桐 思远 嘉怡 俊杰 晓东 海燕 志强 丽华"
).split()

_EN_POOLS = {
    "animal": "dog cat rabbit parrot tortoise hamster ferret".split(),
    "pet": "Biscuit Mango Pepper Luna Ziggy Noodle Olive Clover Pixel Juniper Waffles Pumpkin".split(),
    "city": "Lisbon Osaka Denver Nairobi Krakow Montreal Seville Hanoi Bergen Cusco Porto Tbilisi Dublin".split(),
    "job": "data engineer|nurse|architect|pastry chef|translator|pilot|physiotherapist|product designer".split("|"),
    "company": "Northwind Globex Initech Umbrella Hooli Vandelay Acme Stark Wayne Tyrell Soylent Cyberdyne".split(),
    "db1": "MySQL Oracle MongoDB SQLite Cassandra".split(),
    "db2": "PostgreSQL ClickHouse DynamoDB CockroachDB Redis".split(),
    "service": "billing search checkout payroll inventory notifications reporting login".split(),
    "restaurant": "Casa Lola|The Copper Pot|Sakura House|Le Petit Jardin|Blue Olive|Masala Road|Nordic Table".split(
        "|"
    ),
    "food": "peanuts shellfish sesame gluten kiwi eggs soy walnuts".split(),
    "event": "job interview|wedding|medical conference|chess tournament|product launch|family reunion".split("|"),
    "weekday": "Monday Tuesday Wednesday Thursday Friday Saturday".split(),
    "instrument": "cello piano violin drums saxophone guitar flute".split(),
    "teacher": "Mrs Alvarez|Mr Okoye|Ms Brennan|Dr Sato|Mr Halvorsen|Ms Duarte".split("|"),
    "drink": "green tea|hot chocolate|chai|ginger tea|kombucha|matcha".split("|"),
    "color": "red blue silver green black yellow".split(),
    "car": "hatchback|pickup truck|station wagon|minivan|convertible".split("|"),
    "book": "Middlemarch|The Overstory|Dune|Beloved|The Remains of the Day|Pachinko|Piranesi".split("|"),
    "place": "public library|corner cafe|community centre|old bookshop".split("|"),
    "landmark": "the river|the old harbour|the central station|the botanical garden|the stadium".split("|"),
    "month": "January February March April May June July August September October".split(),
    "org": "food bank|animal shelter|children's hospital|homeless shelter|public library".split("|"),
    "bike": "gravel|folding|cargo|road|electric".split("|"),
    "lang": "Portuguese Japanese Korean Italian Swahili Turkish Polish".split(),
    "child": "Ava Mila Noa Elif Sara Ines Maren".split(),
    "school": "Riverside Primary|Oakwood Elementary|St Mary's|Hillcrest Academy|Lakeside School".split("|"),
    "plant": "tomatoes basil lavender sunflowers strawberries rosemary peppers".split(),
    "plant2": "mint zucchini tulips kale beans marigolds".split(),
    "bug": "timezone|memory leak|rounding|race condition|login redirect|cache invalidation".split("|"),
    "hobbyitem": "vinyl record|stamp|vintage camera|comic book|fountain pen|postcard".split("|"),
    "course": "pottery|woodworking|photography|first aid|accounting|creative writing".split("|"),
    "country": "Peru Iceland Vietnam Morocco Japan Chile Norway".split(),
    "contest": "baking|photography|chess|poetry|robotics|karaoke".split("|"),
    "film": "Spirited Away|Casablanca|Amelie|The Matrix|Parasite|Paddington 2|Up".split("|"),
    "dentist": "Dr Patel|Dr Moreau|Dr Lindgren|Dr Obi|Dr Castillo".split("|"),
    "street": "Elm Harbour Mill Queen Station Bridge".split(),
}
_EN = (  # (memory, question); the question names the person and the kind of fact
    ("{n} adopted a {animal} called {pet} from a shelter in {city}.", "What is the name of the {animal} {n} adopted?"),
    ("{n} started a new job as a {job} at {company} this spring.", "Where did {n} get hired recently?"),
    ("{n} is training for the {city} marathon and runs every morning.", "Which race is {n} preparing for?"),
    (
        "{n}'s team migrated the {service} service from {db1} to {db2}.",
        "What database does {n}'s {service} service use now?",
    ),
    (
        "{n} booked a table at {restaurant} to celebrate a wedding anniversary.",
        "Where is {n} having the anniversary dinner?",
    ),
    ("{n} cannot eat {food} because of a severe allergy.", "What is {n} allergic to?"),
    ("{n} is flying to {city} on {weekday} for a {event}.", "Why is {n} travelling to {city}?"),
    ("{n} has been taking {instrument} lessons from {teacher}.", "Who teaches {n} to play the {instrument}?"),
    ("{n} drinks {drink} every afternoon instead of coffee.", "What does {n} drink in the afternoon?"),
    ("{n} lent a {color} {car} to a neighbour who had to drive to {city}.", "Which vehicle did {n} lend out?"),
    ("{n} is reading {book} for the book club that meets at the {place}.", "What book is {n} reading for the club?"),
    ("{n} moved into a flat near {landmark} in {city} in {month}.", "In which city does {n} live now?"),
    ("{n} volunteers at the {org} every {weekday} evening.", "Where does {n} do volunteer work?"),
    ("{n} bought a {color} {bike} bike to ride to work at {company}.", "What kind of bicycle did {n} get?"),
    ("{n} is learning {lang} with a phone app, a little every day.", "Which language is {n} studying?"),
    ("{n}'s daughter {child} just started at {school}.", "Which school does {n}'s daughter go to?"),
    ("{n} planted {plant} and {plant2} in the garden behind the house.", "What did {n} grow in the garden?"),
    ("{n} fixed the {bug} bug in the {service} service before the release.", "Which bug did {n} fix?"),
    ("{n} keeps a {hobbyitem} collection of more than two hundred pieces.", "What does {n} collect?"),
    ("{n} signed up for a {course} course at the community college.", "What class did {n} enrol in?"),
    ("{n} is saving money for a long trip to {country}.", "Which country is {n} saving up to visit?"),
    ("{n} won second place in a {contest} contest in {city}.", "In what competition did {n} come second?"),
    ("{n} says {film} is the best film ever made.", "What is {n}'s favourite movie?"),
    ("{n} recommended {dentist}, a dentist on {street} Street.", "Which dentist did {n} suggest?"),
)
_ZH_POOLS = {
    "animal": "狗 猫 兔子 鹦鹉 乌龟 仓鼠".split(),
    "pet": "豆豆 团团 小白 旺财 咪咪 球球 花花 点点".split(),
    "city": "成都 西安 厦门 青岛 昆明 大连 苏州 长沙 武汉 哈尔滨".split(),
    "job": "数据工程师 护士 建筑师 翻译 产品经理 会计 律师".split(),
    "company": "华为 腾讯 美团 京东 网易 小米 字节跳动 阿里巴巴".split(),
    "db1": "MySQL Oracle MongoDB".split(),
    "db2": "PostgreSQL TiDB ClickHouse".split(),
    "service": "支付系统 订单系统 搜索服务 库存系统 消息推送".split(),
    "restaurant": "外婆家 海底捞 全聚德 鼎泰丰 大董 绿茶餐厅".split(),
    "food": "花生 海鲜 芒果 鸡蛋 牛奶 芝麻".split(),
    "event": "面试 婚礼 学术会议 围棋比赛 产品发布会".split(),
    "weekday": "周一 周二 周三 周四 周五 周六".split(),
    "instrument": "钢琴 古筝 小提琴 二胡 吉他 笛子".split(),
    "teacher": "陈 刘 王 赵 孙".split(),
    "drink": "绿茶 乌龙茶 菊花茶 豆浆 普洱茶".split(),
    "book": "三体 活着 围城 红楼梦 平凡的世界 白鹿原".split(),
    "landmark": "西湖 地铁站 人民公园 江边 大学城".split(),
    "org": "社区图书馆 动物收容所 儿童医院 养老院".split(),
    "lang": "日语 韩语 法语 西班牙语 德语 俄语".split(),
    "child": "小雨 朵朵 萌萌 安安 欣欣".split(),
    "school": "实验小学 外国语学校 育才中学 第一中学".split(),
    "plant": "番茄 辣椒 茉莉 月季 草莓".split(),
    "plant2": "黄瓜 薄荷 韭菜 向日葵".split(),
    "course": "陶艺 摄影 书法 急救 会计 烘焙".split(),
    "contest": "摄影 演讲 书法 编程 烹饪".split(),
    "film": "霸王别姬 大话西游 流浪地球 无间道 让子弹飞".split(),
}
_ZH = (
    ("{n}上个月从{city}的收容所领养了一只叫{pet}的{animal}。", "{n}领养的{animal}叫什么名字？"),
    ("{n}今年春天入职{company}，担任{job}。", "{n}现在在哪家公司上班？"),
    ("{n}正在为{city}马拉松做准备，每天早上都去跑步。", "{n}在准备参加哪场比赛？"),
    ("{n}的团队把{service}从{db1}迁移到了{db2}。", "{n}团队的{service}现在用什么数据库？"),
    ("{n}在{restaurant}订了位子庆祝结婚纪念日。", "{n}的结婚纪念日在哪家餐厅过？"),
    ("{n}对{food}严重过敏，一点都不能吃。", "{n}对什么过敏？"),
    ("{n}{weekday}要飞去{city}参加{event}。", "{n}去{city}做什么？"),
    ("{n}一直跟着{teacher}老师学{instrument}。", "谁在教{n}{instrument}？"),
    ("{n}每天下午都喝{drink}，从来不喝咖啡。", "{n}下午习惯喝什么？"),
    ("{n}在读《{book}》，准备读书会的讨论。", "{n}读书会在读哪本书？"),
    ("{n}搬进了{city}{landmark}附近的一套公寓。", "{n}现在住在哪个城市？"),
    ("{n}每个{weekday}晚上都去{org}做志愿者。", "{n}在哪里做志愿服务？"),
    ("{n}在用手机软件学{lang}，每天练一会儿。", "{n}在学哪种外语？"),
    ("{n}的女儿{child}刚刚进入{school}读书。", "{n}的女儿在哪所学校上学？"),
    ("{n}在后院种了{plant}和{plant2}。", "{n}在院子里种了什么？"),
    ("{n}报名参加了社区大学的{course}课程。", "{n}报了什么课？"),
    ("{n}在{city}举办的{contest}比赛中获得了第二名。", "{n}在什么比赛中得了第二名？"),
    ("{n}说《{film}》是有史以来最好的电影。", "{n}最喜欢哪部电影？"),
)
ZH_SHARE = 0.25
START = datetime(2025, 1, 1, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Memory:
    id: str
    text: str
    lang: str
    time: datetime
    session: str


@dataclass(frozen=True, slots=True)
class Query:
    question: str
    answer: str  # the id of the one memory that answers it
    lang: str


@dataclass(frozen=True, slots=True)
class Corpus:
    memories: list[Memory]
    queries: list[Query]


def _people(rng: random.Random, lang: str) -> list[str]:
    if lang == "en":
        names = [f"{f} {s}" for f in EN_FIRST for s in EN_LAST]
    else:
        names = [s + g for s in ZH_SURNAME for g in ZH_GIVEN]
    rng.shuffle(names)
    return names


def _pairs(rng: random.Random, names: list[str], kinds: int, n: int) -> list[tuple[str, int]]:
    total = len(names) * kinds
    if n > total:
        raise ValueError(f"at most {total:,} distinct facts of this language, asked for {n:,}")
    return [(names[i % len(names)], (i // len(names)) % kinds) for i in sorted(rng.sample(range(total), n))]


@cache
def _fields(*templates: str) -> tuple[str, ...]:
    return tuple(sorted({f for t in templates for _, f, _, _ in string.Formatter().parse(t) if f and f != "n"}))


def generate(n: int, queries: int = 500, seed: int = 21) -> Corpus:
    """``n`` memories and ``queries`` questions about them (spread evenly over the corpus)."""
    rng = random.Random(f"peers-{seed}-{n}")
    n_zh = round(n * ZH_SHARE)
    facts = [("en", p) for p in _pairs(rng, _people(rng, "en"), len(_EN), n - n_zh)]
    facts += [("zh", p) for p in _pairs(rng, _people(rng, "zh"), len(_ZH), n_zh)]
    rng.shuffle(facts)
    memories, asked = [], []
    for i, (lang, (name, kind)) in enumerate(facts):
        template, question = (_EN if lang == "en" else _ZH)[kind]
        pools = _EN_POOLS if lang == "en" else _ZH_POOLS
        fill = {k: rng.choice(pools[k]) for k in _fields(template, question)}
        mid = f"m{i:06d}"
        memories.append(Memory(mid, template.format(n=name, **fill), lang, START + timedelta(minutes=i), f"s{i // 20}"))
        asked.append(Query(question.format(n=name, **fill), mid, lang))
    step = max(1, n // max(1, queries))
    return Corpus(memories, asked[::step][:queries])
