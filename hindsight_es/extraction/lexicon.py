"""Data for the rule extractor: choice categories, attribute names, chit-chat, entity hints.

Plain data only; ``rules.py`` compiles it (its regex sources are in ``patterns.py``). Canonical values
are lowercase; aliases are matched case-insensitively (ASCII aliases on word boundaries, Chinese ones
as substrings). The tables are kept one entry group per line: the formatter leaves them be.
"""

from __future__ import annotations

# fmt: off

# category -> canonical value -> (display name, aliases). A category is an exclusive choice:
# stating a new value supersedes the old one, so all its aliases (both languages) share one key.
CATEGORIES: dict[str, dict[str, tuple[str, tuple[str, ...]]]] = {
    "shipping_carrier": {
        "fedex": ("FedEx", ("fedex", "fed ex", "联邦快递")),
        "ups": ("UPS", ("ups",)),
        "dhl": ("DHL", ("dhl",)),
        "usps": ("USPS", ("usps",)),
        "顺丰": ("顺丰", ("顺丰", "顺丰快递", "顺丰速运", "sf express")),
        "中通": ("中通", ("中通", "中通快递")),
        "圆通": ("圆通", ("圆通", "圆通快递")),
        "申通": ("申通", ("申通", "申通快递")),
        "韵达": ("韵达", ("韵达", "韵达快递")),
        "京东物流": ("京东物流", ("京东物流", "京东快递")),
        "ems": ("EMS", ("ems", "中国邮政", "邮政")),
    },
    "database": {
        "postgresql": ("PostgreSQL", ("postgresql", "postgres")),
        "mysql": ("MySQL", ("mysql",)),
        "mariadb": ("MariaDB", ("mariadb",)),
        "sqlite": ("SQLite", ("sqlite", "sqlite3")),
        "mongodb": ("MongoDB", ("mongodb", "mongo")),
        "redis": ("Redis", ("redis",)),
        "sql server": ("SQL Server", ("sql server", "mssql")),
        "duckdb": ("DuckDB", ("duckdb",)),
        "clickhouse": ("ClickHouse", ("clickhouse",)),
        "elasticsearch": ("Elasticsearch", ("elasticsearch",)),
        "dynamodb": ("DynamoDB", ("dynamodb",)),
        "cassandra": ("Cassandra", ("cassandra",)),
        "tidb": ("TiDB", ("tidb",)),
        "oceanbase": ("OceanBase", ("oceanbase",)),
        "oracle": ("Oracle", ("oracle", "oracle database", "oracle db")),
    },
    "programming_language": {
        "python": ("Python", ("python",)),
        "java": ("Java", ("java",)),
        "javascript": ("JavaScript", ("javascript",)),
        "typescript": ("TypeScript", ("typescript",)),
        "go": ("Go", ("golang", "go语言")),  # bare "go" is a verb
        "rust": ("Rust", ("rust",)),
        "c++": ("C++", ("c++", "cpp")),
        "c#": ("C#", ("c#", "csharp")),
        "ruby": ("Ruby", ("ruby",)),
        "kotlin": ("Kotlin", ("kotlin",)),
        "swift": ("Swift", ("swift",)),
        "php": ("PHP", ("php",)),
        "scala": ("Scala", ("scala",)),
        "haskell": ("Haskell", ("haskell",)),
        "elixir": ("Elixir", ("elixir",)),
    },
    "editor": {
        "vim": ("Vim", ("vim",)),
        "neovim": ("Neovim", ("neovim", "nvim")),
        "emacs": ("Emacs", ("emacs",)),
        "vs code": ("VS Code", ("vs code", "vscode", "visual studio code")),
        "intellij": ("IntelliJ", ("intellij", "intellij idea")),
        "pycharm": ("PyCharm", ("pycharm",)),
        "sublime text": ("Sublime Text", ("sublime text", "sublime")),
    },
    "cloud_provider": {
        "aws": ("AWS", ("aws", "amazon web services")),
        "azure": ("Azure", ("azure",)),
        "gcp": ("GCP", ("gcp", "google cloud")),
        "阿里云": ("阿里云", ("阿里云", "aliyun", "alibaba cloud")),
        "腾讯云": ("腾讯云", ("腾讯云", "tencent cloud")),
        "华为云": ("华为云", ("华为云", "huawei cloud")),
        "digitalocean": ("DigitalOcean", ("digitalocean",)),
    },
    "os": {
        "macos": ("macOS", ("macos", "mac os", "os x")),
        "windows": ("Windows", ("windows",)),
        "linux": ("Linux", ("linux",)),
        "ubuntu": ("Ubuntu", ("ubuntu",)),
    },
    "drink": {
        "coffee": ("coffee", ("coffee", "咖啡")),
        "tea": ("tea", ("tea", "茶")),
        "green tea": ("green tea", ("green tea", "绿茶")),
        "black tea": ("black tea", ("black tea", "红茶")),
        "milk tea": ("milk tea", ("milk tea", "bubble tea", "奶茶")),
        "beer": ("beer", ("beer", "啤酒")),
        "wine": ("wine", ("wine", "红酒", "葡萄酒")),
        "juice": ("juice", ("juice", "果汁")),
    },
}

# Categories whose items are common nouns, never reported as entities.
NOT_ENTITY_CATEGORIES = frozenset({"drink"})

# Attributes keyed by pronoun ("we" -> team, "I" -> user) with this default when there is none;
# every other attribute is personal and always keyed under "user" so I/we statements collide.
PRONOUN_SCOPED: dict[str, str] = {
    "database": "team",
    "programming_language": "team",
    "cloud_provider": "team",
    "budget": "user",
}

# Attribute names accepted by "my X is Y" / "我的X是Y", mapped to canonical attribute keys.
ATTRIBUTES: dict[str, str] = {
    "name": "name", "full name": "name", "first name": "name", "名字": "name", "姓名": "name",
    "email": "email", "email address": "email", "e-mail": "email", "邮箱": "email", "电子邮箱": "email",
    "phone": "phone", "phone number": "phone", "cell": "phone", "电话": "phone", "手机": "phone",
    "手机号": "phone", "电话号码": "phone", "手机号码": "phone",
    "birthday": "birthday", "date of birth": "birthday", "生日": "birthday",
    "hometown": "hometown", "home town": "hometown", "老家": "hometown", "家乡": "hometown",
    "job": "occupation", "occupation": "occupation", "profession": "occupation",
    "工作": "occupation", "职业": "occupation",
    "company": "employer", "employer": "employer", "公司": "employer",
    "address": "address", "home address": "address", "地址": "address", "住址": "address",
    "city": "location", "location": "location", "所在城市": "location", "城市": "location",
    "timezone": "timezone", "time zone": "timezone", "时区": "timezone",
    "age": "age", "年龄": "age",
    "database": "database", "db": "database", "数据库": "database",
    "editor": "editor", "ide": "editor", "编辑器": "editor",
    "programming language": "programming_language", "编程语言": "programming_language",
    "carrier": "shipping_carrier", "shipping carrier": "shipping_carrier", "courier": "shipping_carrier",
    "快递": "shipping_carrier", "快递公司": "shipping_carrier",
    "cloud": "cloud_provider", "cloud provider": "cloud_provider", "云服务": "cloud_provider",
    "云服务商": "cloud_provider", "云厂商": "cloud_provider",
    "os": "os", "operating system": "os", "操作系统": "os",
    "budget": "budget", "预算": "budget",
}

# "my favorite X" / "我最喜欢的X": X -> canonical facet of the key "user/favorite:<facet>".
FAVORITES: dict[str, str] = {
    "color": "color", "colour": "color", "颜色": "color",
    "food": "food", "dish": "food", "食物": "food", "菜": "food", "美食": "food",
    "movie": "movie", "film": "movie", "电影": "movie",
    "book": "book", "书": "book",
    "sport": "sport", "运动": "sport",
    "song": "song", "歌": "song", "歌曲": "song",
    "singer": "singer", "歌手": "singer",
    "band": "band", "乐队": "band",
    "fruit": "fruit", "水果": "fruit",
    "drink": "drink", "beverage": "drink", "饮料": "drink",
    "city": "city", "城市": "city",
    "animal": "animal", "动物": "animal",
    "season": "season", "季节": "season",
    "game": "game", "游戏": "game",
    "restaurant": "restaurant", "餐厅": "restaurant",
    "place": "place", "地方": "place",
}

# Reply languages for "reply in X" / "用X回答".
REPLY_LANGUAGES: dict[str, str] = {
    "english": "english", "英文": "english", "英语": "english",
    "chinese": "chinese", "mandarin": "chinese", "中文": "chinese", "汉语": "chinese", "普通话": "chinese",
    "spanish": "spanish", "西班牙语": "spanish",
    "french": "french", "法语": "french",
    "german": "german", "德语": "german",
    "japanese": "japanese", "日语": "japanese", "日文": "japanese",
    "korean": "korean", "韩语": "korean",
}

# Categories chosen per region: "use FedEx for international orders" and "国内快递用顺丰" are two
# choices (keys "<subject>/<category>:international" and ":domestic"), not one replacing the other.
REGIONAL_CATEGORIES: frozenset[str] = frozenset({"shipping_carrier"})
REGIONS: dict[str, tuple[str, ...]] = {
    "international": ("international", "overseas", "abroad", "cross-border", "国际", "海外", "跨境", "境外"),
    "domestic": ("domestic", "nationwide", "国内", "境内"),
}

# Filler (``filler.py``): a clause made only of these phrases is a pleasantry or an acknowledgement.
# English phrases are matched lowercase on word boundaries with apostrophes removed ("thats", "im").
FILLER_EN: tuple[str, ...] = (
    "ok", "okay", "okie", "k", "kk", "thanks", "thank you", "thank u", "thx", "ty", "tysm", "cheers", "mate",
    "man", "dude",
    "cool", "great", "nice", "awesome", "perfect", "sure", "sure thing", "yes", "yeah", "yep", "yup", "yea",
    "ya", "no", "nope", "nah", "lol", "lmao", "rofl", "ha+", "(?:ha)+", "(?:he)+", "hi", "hello", "hey", "heya",
    "hiya", "yo", "howdy", "good (?:morning|afternoon|evening|night|day)", "morning", "evening", "bye",
    "goodbye", "bye bye", "bye for now", "see you(?: (?:soon|later|tomorrow|tonight|around|then|next time))?",
    "see ya", "later", "talk (?:soon|later|to you (?:soon|later|tomorrow))", "ttyl", "got it", "gotcha",
    "sounds (?:good|great|fun|perfect|amazing|awesome|lovely|nice|like a plan)", "alright", "all right", "np",
    "no problem", "no worries", "youre welcome", "you are welcome", "welcome", "will do", "right", "i see",
    "wow", "whoa", "oh wow", "h+m+", "m+", "u+m+", "u+h+", "oh", "ah+", "aw+", "oops", "roger", "understood",
    "noted", "fine", "agreed", "exactly", "indeed", "of course", "absolutely", "definitely", "totally", "true",
    "same", "me too", "so much", "very much", "a lot", "again", "earlier", "there", "everyone", "all", "guys",
    "appreciate it", "i appreciate it", "much appreciated", "you too", "same to you", "take care", "not bad",
    "have a (?:good|nice|great|lovely|wonderful|safe) (?:day|one|night|evening|weekend|time|trip)",
    "good", "pretty good", "im (?:good|fine|ok|okay|great|well)", "please", "yes please", "no thanks",
    "(?:(?:its|it is|so) )?(?:nice|good|great|lovely|glad|happy) to (?:meet|see|hear from|chat with) you",
    "nice meeting you", "pleased to meet you", "my pleasure", "anytime", "any time", "happy to help",
    "glad to help", "glad i could help", "you got it", "for sure", "fair enough", "makes sense",
    "that makes sense", "good luck", "congrats", "congratulations", "yay", "woohoo", "omg", "nice one",
    "well done", "good job", "gracias", "merci", "danke", "arigato", "ciao", "hola",
    "thank(?:s| you) for (?:sharing|the help|your help|helping|everything|asking|listening|remembering"
    "|the advice|the tips|the update|letting me know|the recommendation|the reminder|understanding)",
    "(?:thats|that is|this is|how|so|its|it is) (?:so |really |very |super |pretty )?(?:cool|great|nice|awesome"
    "|amazing|wonderful|lovely|fantastic|good|sweet|kind of you|nice of you|exciting|impressive|fun)",
)
FILLER_ZH: tuple[str, ...] = (
    "好的呀", "好的", "好哒", "好滴", "好吧", "好呀", "好啊", "好嘞", "好嘛", "好", "嗯呢", "嗯+", "恩+", "哦+",
    "噢+", "喔+", "啊+", "哈+", "呵+", "嘿+", "嘻+", "哇+", "哎呀", "哎", "谢谢你的(?:建议|帮助|关心|提醒|支持"
    "|陪伴|鼓励|祝福|分享|夸奖)", "谢谢你?", "谢谢您", "谢谢啦", "谢啦", "谢了", "多谢", "感谢", "非常感谢",
    "太感谢了", "谢谢关心", "谢谢提醒", "辛苦(?:你)?了", "你好(?:呀|啊)?", "您好", "哈喽", "嗨", "早上好",
    "下午好", "晚上好", "早安", "午安", "晚安", "早", "再见", "拜拜", "回见", "明天见", "下次见",
    "(?:我们)?下次再聊", "没问题", "可以", "行", "收到", "明白了?", "知道了", "了解", "懂了", "对+", "对的",
    "是的", "是啊", "没错", "不客气", "客气了", "不用谢", "妥", "赞", "棒", "太棒了", "真棒", "厉害", "不错",
    "那好", "我也是", "也是", "呢", "啦", "呀", "了", "没事", "没关系", "一路顺风", "加油",
    "祝你(?:好运|顺利|愉快|开心|玩得开心)", "很高兴(?:认识|见到)你", "好久不见", "恭喜(?:你)?",
)
# Phatic questions: a clause that is one of these asks nothing to remember.
PHATIC_QUESTIONS: tuple[str, ...] = (
    r"how are (?:you|things)(?: doing)?(?: today)?", r"how(?:'s| is| has) it going", r"how have you been",
    r"how(?:'s| is) (?:your|the) (?:day|week|weekend)(?: going)?", r"what(?:'s| is) up", r"sup",
    r"how can i help(?: you)?(?: today)?(?: with .{1,40})?", r"what can i do for you(?: today)?",
    r"how may i help(?: you)?(?: today)?", r"anything else(?: i can (?:do|help with))?",
    r"let me know if (?:you need|there is|there's|theres) anything(?: else)?", r"and you", r"you",
    r"有什么(?:需要)?(?:我)?(?:可以|能)?(?:帮|帮助|帮忙)(?:你|您)的(?:吗)?", r"有什么(?:能|可以)帮到(?:你|您)的(?:吗)?",
    r"你(?:最近)?(?:还)?好吗", r"最近(?:怎么样|好吗|还好吗)", r"你呢", r"在吗", r"还有(?:什么|别的)(?:需要|问题)吗",
)

# Capitalized words that are not names on their own (sentence starters, greetings, time words).
EN_STOPWORDS = frozenset(
    """i im ive ill id i'm i've i'll i'd the a an my our we we're you your yours he she it its they them
    their this that these those there here hi hello hey thanks thank ok okay yes no yeah yep nope lol
    please let let's lets from actually so and but or if when what where who why how which do does did
    is are was were am be can could would should will just also well oh ah wow sorry sure good great nice
    cool morning afternoon evening night dear never always maybe not in on at to for of with by after
    before then now today tomorrow yesterday tonight me his her all any some every each one wait
    correction note btw omg haha hmm um anyway anyways however still even really very because since as
    though although while once last next bye goodbye welcome congrats congratulations happy birthday
    love like mr mrs ms dr monday tuesday wednesday thursday friday saturday sunday january february
    march april june july august september october november december glad sounds looks got went had been
    feel feeling hope guess think agree agreed right true fine see tell keep make take check try go
    come yay yup plus speaking talking remember amazing interesting awesome exactly totally use ship send
    call book buy get set add put give show ask""".split()
)

# Chinese place names reported as entities (a small, precise list).
ZH_PLACES: tuple[str, ...] = (
    "北京", "上海", "广州", "深圳", "杭州", "成都", "南京", "武汉", "西安", "重庆", "天津", "苏州",
    "长沙", "青岛", "厦门", "大连", "昆明", "郑州", "沈阳", "哈尔滨", "济南", "合肥", "福州", "宁波",
    "无锡", "香港", "澳门", "台北", "台湾", "中国", "日本", "美国", "英国", "法国", "德国", "韩国",
    "新加坡", "加拿大", "澳大利亚", "意大利", "西班牙", "俄罗斯", "印度", "泰国", "东京", "大阪",
    "京都", "首尔", "巴黎", "伦敦", "纽约", "柏林", "洛杉矶", "旧金山", "悉尼", "曼谷", "浦东", "海淀",
    "朝阳",
)
# fmt: on
