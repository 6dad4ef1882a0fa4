"""Data for the rule extractor: choice categories, attribute names, chit-chat, entity hints.

Plain data only; ``rules.py`` compiles it (its regex sources are in ``patterns.py``). Canonical values
are lowercase; aliases are matched case-insensitively (ASCII aliases on word boundaries, Chinese ones
as substrings). The tables are kept one entry group per line: the formatter leaves them be.
"""

from __future__ import annotations

from hindsight_es.extraction import zh_places

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
        "snowflake": ("Snowflake", ("snowflake",)), "bigquery": ("BigQuery", ("bigquery", "big query")),
        "redshift": ("Redshift", ("redshift",)), "cockroachdb": ("CockroachDB", ("cockroachdb", "cockroach db")),
        "neo4j": ("Neo4j", ("neo4j",)), "firestore": ("Firestore", ("firestore",)),
        "influxdb": ("InfluxDB", ("influxdb",)), "timescaledb": ("TimescaleDB", ("timescaledb",)),
        "couchdb": ("CouchDB", ("couchdb",)), "polardb": ("PolarDB", ("polardb",)),
        "gaussdb": ("GaussDB", ("gaussdb",)),
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
        "dart": ("Dart", ("dart",)), "lua": ("Lua", ("lua",)), "perl": ("Perl", ("perl",)),
        "clojure": ("Clojure", ("clojure",)), "zig": ("Zig", ("zig",)), "ocaml": ("OCaml", ("ocaml",)),
        "erlang": ("Erlang", ("erlang",)), "matlab": ("MATLAB", ("matlab",)),
    },
    "editor": {
        "vim": ("Vim", ("vim",)),
        "neovim": ("Neovim", ("neovim", "nvim")),
        "emacs": ("Emacs", ("emacs",)),
        "vs code": ("VS Code", ("vs code", "vscode", "visual studio code")),
        "intellij": ("IntelliJ", ("intellij", "intellij idea")),
        "pycharm": ("PyCharm", ("pycharm",)),
        "sublime text": ("Sublime Text", ("sublime text", "sublime")),
        "zed": ("Zed", ("zed",)), "cursor": ("Cursor", ("cursor",)),
        "webstorm": ("WebStorm", ("webstorm",)), "goland": ("GoLand", ("goland",)),
        "xcode": ("Xcode", ("xcode",)), "android studio": ("Android Studio", ("android studio",)),
        "eclipse": ("Eclipse", ("eclipse",)), "notepad++": ("Notepad++", ("notepad++",)),
    },
    "cloud_provider": {
        "aws": ("AWS", ("aws", "amazon web services")),
        "azure": ("Azure", ("azure",)),
        "gcp": ("GCP", ("gcp", "google cloud")),
        "阿里云": ("阿里云", ("阿里云", "aliyun", "alibaba cloud")),
        "腾讯云": ("腾讯云", ("腾讯云", "tencent cloud")),
        "华为云": ("华为云", ("华为云", "huawei cloud")),
        "digitalocean": ("DigitalOcean", ("digitalocean",)),
        "oracle cloud": ("Oracle Cloud", ("oracle cloud", "oci")), "ibm cloud": ("IBM Cloud", ("ibm cloud",)),
        "cloudflare": ("Cloudflare", ("cloudflare",)), "hetzner": ("Hetzner", ("hetzner",)),
        "linode": ("Linode", ("linode",)), "heroku": ("Heroku", ("heroku",)), "vercel": ("Vercel", ("vercel",)),
        "百度智能云": ("百度智能云", ("百度智能云", "百度云")), "火山引擎": ("火山引擎", ("火山引擎", "volcengine")),
    },
    "os": {
        "macos": ("macOS", ("macos", "mac os", "os x", "mac")),
        "windows": ("Windows", ("windows",)),
        "linux": ("Linux", ("linux",)),
        "ubuntu": ("Ubuntu", ("ubuntu",)),
        "fedora": ("Fedora", ("fedora",)), "debian": ("Debian", ("debian",)),
        "arch linux": ("Arch Linux", ("arch linux", "archlinux")), "centos": ("CentOS", ("centos",)),
        "red hat": ("Red Hat", ("red hat", "redhat", "rhel")), "chromeos": ("ChromeOS", ("chromeos", "chrome os")),
        "freebsd": ("FreeBSD", ("freebsd",)),
    },
    "drink": {
        "coffee": ("coffee", ("coffee", "咖啡")),
        "tea": ("tea", ("tea", "茶")),
        "green tea": ("green tea", ("green tea", "绿茶")),
        "black tea": ("black tea", ("black tea", "红茶")),
        "milk tea": ("milk tea", ("milk tea", "奶茶")), "bubble tea": ("bubble tea", ("bubble tea", "珍珠奶茶")),
        "chrysanthemum tea": ("chrysanthemum tea", ("chrysanthemum tea", "菊花茶")),
        "barley tea": ("barley tea", ("barley tea", "大麦茶", "麦茶")),
        "beer": ("beer", ("beer", "啤酒")),
        "wine": ("wine", ("wine", "红酒", "葡萄酒")),
        "juice": ("juice", ("juice", "果汁")),
        "espresso": ("espresso", ("espresso", "浓缩咖啡")),
        "latte": ("latte", ("latte", "拿铁")),
        "matcha latte": ("matcha latte", ("matcha latte", "抹茶拿铁")),
        "cappuccino": ("cappuccino", ("cappuccino", "卡布奇诺")),
        "matcha": ("matcha", ("matcha", "抹茶")),
        "soy milk": ("soy milk", ("soy milk", "soymilk", "豆浆")),
        "milk": ("milk", ("milk", "牛奶")),
        "hot chocolate": ("hot chocolate", ("hot chocolate", "热巧克力")),
        "kombucha": ("kombucha", ("kombucha",)),
        # Coffee and tea as ordered, and common everyday drinks, only in forms that cannot be anything but
        # the drink: no bare "美式" (美式英语), "乌龙" (闹乌龙: a mix-up), "普洱" or "龙井" (places), "sake" ("for
        # the sake of"), and none that are common pet names ("可乐", "摩卡", "奶昔", "Mocha": "豆豆改名叫可乐了").
        "americano": ("americano", ("americano", "美式咖啡", "热美式", "美式")),
        "iced americano": ("iced americano", ("iced americano", "冰美式", "冰美式咖啡")),
        "flat white": ("flat white", ("flat white", "澳白", "馥芮白")),
        "mocha": ("mocha", ("mocha latte", "摩卡咖啡")),
        "cold brew": ("cold brew", ("cold brew", "冷萃", "冷萃咖啡")),
        "decaf": ("decaf", ("decaf", "decaf coffee", "低因咖啡", "无咖啡因咖啡")),
        "oolong tea": ("oolong tea", ("oolong", "oolong tea", "乌龙茶")),
        "jasmine tea": ("jasmine tea", ("jasmine tea", "茉莉花茶")),
        "pu'er tea": ("pu'er tea", ("pu'er tea", "pu-erh tea", "puer tea", "普洱茶")),
        "longjing tea": ("longjing tea", ("longjing tea", "dragon well tea", "龙井茶")),
        "herbal tea": ("herbal tea", ("herbal tea", "花草茶", "凉茶")),
        "chamomile tea": ("chamomile tea", ("chamomile tea", "chamomile", "洋甘菊茶")),
        "rooibos": ("rooibos", ("rooibos", "rooibos tea", "路易波士茶", "南非国宝茶")),
        "pour-over coffee": (
            "pour-over coffee", ("pour-over coffee", "pour over coffee", "pour-over", "手冲咖啡", "手冲")
        ),
        "lemon tea": ("lemon tea", ("lemon tea", "柠檬茶")),
        "chai": ("chai", ("chai", "chai latte", "印度奶茶")),
        "lemonade": ("lemonade", ("lemonade", "柠檬水")),
        "cola": ("cola", ("cola", "coca-cola")),
        "diet coke": ("diet coke", ("diet coke", "coke zero", "健怡可乐", "零度可乐")),
        "sparkling water": ("sparkling water", ("sparkling water", "soda water", "气泡水", "苏打水")),
        "oat milk": ("oat milk", ("oat milk", "燕麦奶")),
        "almond milk": ("almond milk", ("almond milk", "杏仁奶")),
        "coconut water": ("coconut water", ("coconut water", "椰子水")),
        "water": ("water", ("water", "plain water", "白开水", "温开水", "开水", "温水")),
        "smoothie": ("smoothie", ("smoothie", "思慕雪")),
        "milkshake": ("milkshake", ("milkshake",)),
        "whisky": ("whisky", ("whisky", "whiskey", "威士忌")),
        "sake": ("sake", ("清酒",)),
        "baijiu": ("baijiu", ("baijiu", "白酒")),
        "yellow wine": ("yellow wine", ("huangjiu", "黄酒")),
    },
}

# Aliases that are also common English nouns: a value only when capitalized (``values.ALIAS_RE``).
CAPITALIZED_ALIASES = frozenset({"cursor"})
# Categories whose items are common nouns, never reported as entities.
NOT_ENTITY_CATEGORIES = frozenset({"drink"})

# Attributes keyed by pronoun ("we" -> team, "I" -> user) with this default when there is none;
# every other attribute is personal and always keyed under "user" so I/we statements collide.
PRONOUN_SCOPED: dict[str, str] = {
    "database": "team",
    "programming_language": "team",
    "cloud_provider": "team",
    "budget": "user",
    "choice": "user",  # the tool for an activity ("以后开会都用腾讯会议"): a team's when 我们 chose it
}

# Attribute names accepted by "my X is Y" / "我的X是Y", mapped to canonical attribute keys.
ATTRIBUTES: dict[str, str] = {
    "name": "name", "full name": "name", "first name": "name", "real name": "name",
    "中文名": "name", "中文名字": "name", "英文名": "name", "英文名字": "name", "全名": "name",
    "真名": "name", "名字": "name", "姓名": "name",
    "email": "email", "email address": "email", "e-mail": "email", "邮箱": "email", "电子邮箱": "email",
    "phone": "phone", "phone number": "phone", "cell": "phone", "电话": "phone", "手机": "phone",
    "手机号": "phone", "电话号码": "phone", "手机号码": "phone",
    "birthday": "birthday", "date of birth": "birthday", "生日": "birthday",
    "hometown": "hometown", "home town": "hometown", "老家": "hometown", "家乡": "hometown",
    "job": "occupation", "occupation": "occupation", "profession": "occupation",
    "工作": "occupation", "职业": "occupation", "岗位": "occupation", "职位": "occupation",
    "company": "employer", "employer": "employer", "公司": "employer", "东家": "employer", "新东家": "employer",
    "新公司": "employer",
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
    "number": "phone", "mobile": "phone", "mobile number": "phone", "cell number": "phone", "号码": "phone",
    "school": "school", "学校": "school",
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
    "tea": "tea", "茶": "tea", "coffee": "coffee", "咖啡": "coffee", "dessert": "dessert", "甜点": "dessert",
    "flower": "flower", "花": "flower", "author": "author", "writer": "author", "作家": "author",
    "show": "show", "tv show": "show", "series": "show", "电视剧": "show", "剧": "show", "节目": "show",
    "music": "music", "音乐": "music", "artist": "singer", "snack": "snack", "零食": "snack",
    "holiday": "holiday", "节日": "holiday", "app": "app", "brand": "brand", "品牌": "brand",
}

# Nouns that name a favorite's facet when the speaker leaves it out ("ramen is my favourite now",
# "我现在最喜欢的是烤鸭"): value -> facet. Drinks come from CATEGORIES["drink"].
FACET_OF: dict[str, str] = {
    **{w: "food" for w in (
        "sushi", "ramen", "pizza", "pasta", "burger", "burgers", "tacos", "curry", "dumplings", "noodles",
        "steak", "salad", "sandwiches", "pho", "hot pot", "bbq", "barbecue", "fried chicken", "lasagna", "paella",
        "寿司", "拉面", "披萨", "汉堡", "火锅", "烤鸭", "饺子", "面条", "米饭", "烧烤", "麻辣烫", "小龙虾", "炸鸡",
        "牛排", "包子", "馄饨", "串串", "烤肉", "麻婆豆腐", "红烧肉", "北京烤鸭", "螺蛳粉", "煎饼")},
    **{w: "color" for w in (
        "red", "blue", "green", "yellow", "purple", "pink", "orange", "black", "white", "grey", "gray", "brown",
        "红色", "蓝色", "绿色", "黄色", "紫色", "粉色", "橙色", "黑色", "白色", "灰色", "棕色")},
    **{w: "fruit" for w in (
        "apple", "apples", "banana", "bananas", "mango", "mangoes", "strawberry", "strawberries", "grapes",
        "watermelon", "peach", "peaches", "cherries", "blueberries", "pineapple", "苹果", "香蕉", "芒果",
        "草莓", "葡萄", "西瓜", "桃子", "樱桃", "蓝莓", "菠萝", "榴莲", "荔枝", "橘子")},
    **{w: "sport" for w in (
        "basketball", "football", "soccer", "tennis", "swimming", "running", "badminton", "volleyball",
        "baseball", "golf", "cycling", "hiking", "skiing", "yoga", "boxing", "table tennis", "篮球", "足球",
        "网球", "游泳", "跑步", "羽毛球", "排球", "棒球", "高尔夫", "骑行", "徒步", "滑雪", "瑜伽", "拳击", "乒乓球")},
    **{w: "tea" for w in (
        "龙井", "普洱", "铁观音", "碧螺春", "大红袍", "乌龙", "乌龙茶", "茉莉花茶", "白茶", "oolong", "matcha",
        "抹茶")},
    **{w: "season" for w in ("spring", "summer", "autumn", "fall", "winter", "春天", "夏天", "秋天", "冬天")},
    **{w: "animal" for w in ("cats", "dogs", "pandas", "panda", "rabbits", "horses", "猫", "狗", "熊猫", "兔子", "马")},
}

# A favorite's facet as a statement names it: facet -> (English, Chinese).
FACET_NAMES: dict[str, tuple[str, str]] = {
    "color": ("colour", "颜色"), "food": ("food", "食物"), "movie": ("movie", "电影"), "book": ("book", "书"),
    "sport": ("sport", "运动"), "song": ("song", "歌"), "singer": ("singer", "歌手"), "band": ("band", "乐队"),
    "fruit": ("fruit", "水果"), "drink": ("drink", "饮料"), "city": ("city", "城市"), "animal": ("animal", "动物"),
    "season": ("season", "季节"), "game": ("game", "游戏"), "restaurant": ("restaurant", "餐厅"),
    "place": ("place", "地方"), "tea": ("tea", "茶"), "coffee": ("coffee", "咖啡"), "dessert": ("dessert", "甜点"),
    "flower": ("flower", "花"), "author": ("author", "作家"), "show": ("show", "节目"), "music": ("music", "音乐"),
    "snack": ("snack", "零食"), "holiday": ("holiday", "节日"), "app": ("app", "应用"), "brand": ("brand", "品牌"),
}

# People a speaker talks about ("my sister lives in Chengdu", "我妹妹在腾讯工作"): word -> subject of the key.
RELATIONS: dict[str, str] = {
    "sister": "sister", "brother": "brother", "mom": "mother", "mother": "mother", "mum": "mother",
    "dad": "father", "father": "father", "wife": "wife", "husband": "husband", "partner": "partner",
    "boyfriend": "boyfriend", "girlfriend": "girlfriend", "son": "son", "daughter": "daughter",
    "friend": "friend", "best friend": "friend", "boss": "boss", "manager": "boss", "colleague": "colleague",
    "coworker": "colleague", "roommate": "roommate", "flatmate": "roommate",
    "housemate": "roommate", "grandma": "grandmother", "grandmother": "grandmother",
    "grandpa": "grandfather", "grandfather": "grandfather", "kid": "child", "child": "child",
    "gran": "grandmother", "granny": "grandmother", "nana": "grandmother", "grandad": "grandfather",
    "granddad": "grandfather",
    "cousin": "cousin", "aunt": "aunt",
    "uncle": "uncle", "niece": "niece", "nephew": "nephew", "表哥": "cousin", "表姐": "cousin", "表弟": "cousin",
    "表妹": "cousin", "堂哥": "cousin", "堂姐": "cousin", "堂弟": "cousin", "堂妹": "cousin", "叔叔": "uncle",
    "舅舅": "uncle", "阿姨": "aunt", "姑姑": "aunt",
    "妹妹": "sister", "姐姐": "sister", "哥哥": "brother", "弟弟": "brother", "妈妈": "mother", "母亲": "mother",
    "爸爸": "father", "父亲": "father", "姐": "sister", "哥": "brother", "弟": "brother", "妹": "sister",
    "妈": "mother", "爸": "father", "老婆": "wife", "妻子": "wife", "老公": "husband", "丈夫": "husband",
    "媳妇": "wife", "媳妇儿": "wife", "爱人": "partner", "对象": "partner", "老伴": "partner", "闺女": "daughter",
    "老妈": "mother", "阿妈": "mother", "老爸": "father", "阿爸": "father",
    "儿子": "son", "女儿": "daughter", "男朋友": "boyfriend", "女朋友": "girlfriend", "朋友": "friend",
    "老板": "boss", "领导": "boss", "同事": "colleague", "室友": "roommate", "奶奶": "grandmother",
    "外婆": "grandmother", "爷爷": "grandfather", "外公": "grandfather", "孩子": "child",
}
RELATION_NAMES: dict[str, tuple[str, str]] = {
    "sister": ("sister", "姐妹"), "brother": ("brother", "兄弟"), "mother": ("mother", "妈妈"),
    "father": ("father", "爸爸"), "wife": ("wife", "妻子"), "husband": ("husband", "丈夫"),
    "partner": ("partner", "伴侣"), "boyfriend": ("boyfriend", "男朋友"), "girlfriend": ("girlfriend", "女朋友"),
    "son": ("son", "儿子"), "daughter": ("daughter", "女儿"), "friend": ("friend", "朋友"), "boss": ("boss", "老板"),
    "colleague": ("colleague", "同事"), "roommate": ("roommate", "室友"), "grandmother": ("grandmother", "奶奶"),
    "grandfather": ("grandfather", "爷爷"), "child": ("child", "孩子"), "nephew": ("nephew", "侄子"),
    "cousin": ("cousin", "表亲"), "aunt": ("aunt", "阿姨"), "uncle": ("uncle", "叔叔"), "niece": ("niece", "侄女"),
}

# Pets ("we adopted a cat named Miso", "我的狗叫旺财"): word -> animal of the key "user/pet:<animal>".
PETS: dict[str, str] = {
    "cat": "cat", "kitten": "cat", "kitty": "cat", "dog": "dog", "puppy": "dog", "pup": "dog", "rabbit": "rabbit",
    "bunny": "rabbit", "hamster": "hamster", "parrot": "parrot", "bird": "bird", "turtle": "turtle",
    "fish": "fish", "猫": "cat", "小猫": "cat", "猫咪": "cat", "狗": "dog", "小狗": "dog", "狗狗": "dog",
    "兔子": "rabbit", "仓鼠": "hamster", "鹦鹉": "parrot", "鸟": "bird", "乌龟": "turtle", "金鱼": "fish",
    **dict.fromkeys(("guinea pig", "豚鼠", "荷兰猪"), "guinea_pig"), "ferret": "ferret", "hedgehog": "hedgehog",
    "刺猬": "hedgehog",
    # breeds, as the kind of animal they are
    **dict.fromkeys(("lab",), "dog"),  # "our lab Bramble": the pet patterns take it before a capitalised name
    **dict.fromkeys(("labrador", "golden retriever", "retriever", "poodle", "corgi", "husky", "beagle", "terrier",
                     "spaniel", "dachshund", "pug", "collie", "greyhound", "金毛", "泰迪", "柯基", "哈士奇", "拉布拉多",
                     "边牧", "柴犬", "比熊", "萨摩耶", "二哈", "哈士奇犬", "金毛犬", "中华田园犬", "土狗"), "dog"),
    **dict.fromkeys(("布偶", "英短", "美短", "暹罗"), "cat"),
}
PET_NAMES: dict[str, tuple[str, str]] = {
    "cat": ("cat", "猫"), "dog": ("dog", "狗"), "rabbit": ("rabbit", "兔子"), "hamster": ("hamster", "仓鼠"),
    "parrot": ("parrot", "鹦鹉"), "bird": ("bird", "鸟"), "turtle": ("turtle", "乌龟"), "fish": ("fish", "鱼"),
    "guinea_pig": ("guinea pig", "豚鼠"), "ferret": ("ferret", "雪貂"), "hedgehog": ("hedgehog", "刺猬"),
}

# How a statement names a category or an attribute: name -> (English, Chinese).
ATTRIBUTE_NAMES: dict[str, tuple[str, str]] = {
    "shipping_carrier": ("shipping carrier", "快递"), "database": ("database", "数据库"),
    "programming_language": ("programming language", "编程语言"), "editor": ("editor", "编辑器"),
    "cloud_provider": ("cloud provider", "云服务"), "os": ("operating system", "操作系统"), "drink": ("drink", "饮品"),
    "email": ("email", "邮箱"), "phone": ("phone", "电话"), "birthday": ("birthday", "生日"),
    "address": ("address", "地址"), "timezone": ("time zone", "时区"), "budget": ("budget", "预算"),
    "name": ("name", "名字"), "school": ("school", "学校"), "birth_year": ("birth year", "出生年份"),
}
REGION_NAMES: dict[str, tuple[str, str]] = {
    "international": ("international orders", "国际"), "domestic": ("domestic orders", "国内"),
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
    "cantonese": "cantonese", "粤语": "cantonese", "russian": "russian", "俄语": "russian",
    "italian": "italian", "意大利语": "italian", "portuguese": "portuguese", "葡萄牙语": "portuguese",
    "arabic": "arabic", "阿拉伯语": "arabic", "hindi": "hindi", "dutch": "dutch", "vietnamese": "vietnamese",
    "thai": "thai", "turkish": "turkish", "polish": "polish", "swedish": "swedish",
}

# Categories chosen per region: "use FedEx for international orders" and "国内快递用顺丰" are two
# choices (keys "<subject>/<category>:international" and ":domestic"), not one replacing the other.
REGIONAL_CATEGORIES: frozenset[str] = frozenset({"shipping_carrier"})
REGIONS: dict[str, tuple[str, ...]] = {
    "international": ("international", "overseas", "abroad", "cross-border", "国际", "海外", "跨境", "境外"),
    "domestic": ("domestic", "nationwide", "国内", "境内"),
}

# Capitalized words after "I'm" that say what someone is, not who ("I'm Chinese", "I'm Catholic").
NOT_GIVEN_NAMES = frozenset(
    """american british english scottish welsh irish canadian australian chinese japanese korean taiwanese
    german french spanish italian portuguese dutch swiss austrian belgian swedish norwegian danish finnish
    polish russian ukrainian greek turkish indian pakistani mexican brazilian argentinian colombian
    vietnamese thai filipino indonesian malaysian singaporean israeli egyptian nigerian kenyan african
    asian european latino latina hispanic mandarin cantonese christian catholic muslim jewish buddhist
    hindu protestant mormon atheist agnostic""".split()
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

ZH_PLACES: tuple[str, ...] = (*zh_places.PROVINCES, *zh_places.CITIES,  # and Chinese places reported as entities
    "北京", "上海", "广州", "深圳", "杭州", "成都", "南京", "武汉", "西安", "重庆", "天津", "苏州",
    "长沙", "青岛", "厦门", "大连", "昆明", "郑州", "沈阳", "哈尔滨", "济南", "合肥", "福州", "宁波",
    "无锡", "香港", "澳门", "台北", "台湾", "中国", "日本", "美国", "英国", "法国", "德国", "韩国",
    "新加坡", "加拿大", "澳大利亚", "意大利", "西班牙", "俄罗斯", "印度", "泰国", "东京", "大阪",
    "京都", "首尔", "巴黎", "伦敦", "纽约", "柏林", "洛杉矶", "旧金山", "悉尼", "曼谷", "浦东", "海淀", "朝阳",
)
# fmt: on
