"""Data for the write filter (``filler.py``): filler phrases and phatic questions, in English and Chinese.

Plain data only, kept one entry group per line: the formatter leaves them be.
"""

from __future__ import annotations

# fmt: off
# Filler (``filler.py``): a clause made only of these phrases is a pleasantry or an acknowledgement.
# English phrases are matched lowercase on word boundaries with apostrophes removed ("thats", "im").
FILLER_EN: tuple[str, ...] = (
    "ok", "okay", "okie", "k", "kk", "thanks", "thank you", "thank u", "thx", "ty", "tysm", "cheers", "mate",
    "man", "dude",
    "cool", "great", "nice", "awesome", "perfect", "lovely", "brilliant", "wonderful", "fab", "fantastic",
    "sure", "sure thing", "yes", "yeah", "yep", "yup", "yea",
    "ya", "no", "nope", "nah", "lol", "lmao", "rofl", "ha+", "(?:ha)+", "(?:he)+", "hi", "hello", "hey", "heya",
    "hiya", "yo", "howdy", "good (?:morning|afternoon|evening|night|day)", "morning", "evening", "bye",
    "goodbye", "bye bye", "bye for now", "see you(?: (?:soon|later|tomorrow|tonight|around|then|next time))?",
    "see ya", "later", "talk (?:soon|later|to you (?:soon|later|tomorrow))", "ttyl", "got it", "gotcha",
    "sounds (?:good|great|fun|perfect|amazing|awesome|lovely|nice|like a plan)", "alright", "all right", "np",
    "no problem", "no worries", "youre welcome", "you are welcome", "welcome", "will do", "right", "i see",
    "wow", "whoa", "oh wow", "h+m+", "m+", "u+m+", "u+h+", "oh", "ah+", "aw+", "oops", "roger", "understood",
    "noted", "fine", "agreed", "exactly", "indeed", "of course", "absolutely", "definitely", "totally", "true",
    "same", "me too", "so much", "very much", "a lot", "a ton", "a bunch", "a million", "heaps", "loads",
    "again", "earlier", "there", "everyone", "all", "guys",
    "appreciate it", "i appreciate it", "much appreciated", "you too", "same to you", "take care", "not bad",
    "have a (?:good|nice|great|lovely|wonderful|safe) (?:day|one|night|evening|weekend|time|trip)",
    "good", "pretty good", "im (?:good|fine|ok|okay|great|well)", "please", "yes please", "no thanks",
    "(?:(?:its|it is|so) )?(?:nice|good|great|lovely|glad|happy) to (?:meet|see|hear from|chat with) you",
    "nice meeting you", "pleased to meet you", "my pleasure", "anytime", "any time", "happy to help",
    "glad to help", "glad i could help", "you got it", "for sure", "fair enough", "makes sense",
    "(?:that |this |it )?works(?: (?:for me|for us|great|fine|perfectly))?",
    "that makes sense", "good luck", "congrats", "congratulations", "yay", "woohoo", "omg", "nice one",
    "well done", "good job", "gracias", "merci", "danke", "arigato", "ciao", "hola",
    "fair", "sm", "legend", "ace", "sweet", "bet", "word", "dope", "brb", "one sec",
    "(?:give me|gimme) a (?:sec|second|minute)", "ta", "nvm", "never ?mind", "figured it out", "got it working",
    "(?:good )?night", "nite", "gn", "anyway", "anyways", "sorry", "my bad", "wrong (?:window|chat|tab|thread|person)",
    "ignore (?:that|me|this)", "(?:that |it )?did the trick", "(?:that |it )?worked", "all good", "sorted",
    "all sorted",
    "let me (?:think|see|check)(?: about it)?", "ill (?:think about it|get back to you)", "hold on", "wait",
    "thank(?:s| you) for (?:sharing|the help|your help|helping|everything|asking|listening|remembering"
    "|the advice|the tips|the update|letting me know|the recommendation|the reminder|understanding)",
    "(?:thats|that is|that was|this is|this was|how|so|its|it is|it was) "
    "(?:so |really |very |super |pretty |extremely )?(?:helpful|useful|cool|great|nice|awesome"
    "|amazing|wonderful|lovely|fantastic|good|sweet|kind of you|nice of you|exciting|impressive|fun)",
)
FILLER_ZH: tuple[str, ...] = (
    "太好了", "太棒了", "好的呀", "好的", "好哒", "好滴", "好吧", "好呀", "好啊", "好嘞", "好嘛", "好", "嗯呢",
    "嗯+", "恩+", "哦+",
    "噢+", "喔+", "啊+", "哈+", "呵+", "嘿+", "嘻+", "哇+", "哎呀", "哎", "谢谢你的(?:建议|帮助|关心|提醒|支持"
    "|陪伴|鼓励|祝福|分享|夸奖)", "谢谢你?", "谢谢您", "谢谢啦", "谢啦", "谢了", "多谢", "感谢", "非常感谢",
    "太感谢了", "谢谢关心", "谢谢提醒", "辛苦(?:你|您)?(?:了|啦|咯)", "你好(?:呀|啊)?", "您好", "哈喽", "嗨", "早上好",
    "下午好", "晚上好", "早安", "午安", "晚安", "早", "再见", "拜拜", "回见", "明天见", "下次见",
    "(?:我们)?下次再聊", "没问题", "可以", "行", "收到", "明白了?", "知道了", "了解", "懂了", "对+", "对的",
    "是的", "是啊", "没错", "不客气", "客气了", "不用谢", "妥", "赞", "棒", "太棒了", "真棒", "厉害", "不错",
    "那好", "我也是", "也是", "呢", "啦", "呀", "了", "没事", "没关系", "一路顺风", "加油",
    "祝你(?:好运|顺利|愉快|开心|玩得开心)", "很高兴(?:认识|见到)你", "好久不见", "恭喜(?:你)?",
    "吧", "的", "行吧", "辛苦(?:辛苦)?", "笑死(?:了|我了)?", "绝了", "牛+", "可以的", "稍等(?:一下)?",
    "等(?:一下|等|会儿)", "稍等我一下", "等我一下", "哈", "发错了", "不好意思",
    "ok的", "okk", "ok了", "算了", "没事了", "搞定了?", "解决了",
    "(?:让)?我(?:再)?想(?:一)?想", "(?:我)?再考虑考虑", "(?:我)?考虑考虑", "我考虑一下", "回头再说",
)
# Words that make a clause a pleasantry or a reaction of their own, beside the phrases above: praise of an
# answer, thanks, a reaction with nothing said about anything ("that's very kind of you", "好可爱哈哈").
HEADS_EN: tuple[str, ...] = (
    "thank", "thankyou", "thanku", "thanx", "thnx", "thnks", "tyvm", "ily", "ilysm", "kind", "helpful", "useful",
    "grand", "brill", "excellent", "superb", "amazing", "incredible", "best", "lifesaver", "genius", "star",
    "hero", "sweet", "cute", "adorable", "hilarious", "funny", "interesting", "fascinating", "neat", "rad", "epic",
    "slay", "appreciated", "appreciate", "grateful", "thankful", "glad", "pleased", "happy", "beautiful",
    "gorgeous", "love", "yay", "hooray", "ugh", "phew", "bravo", "spot on", "no cap", "fr", "gotta (?:go|run|dash)",
    "rock", "rocks", "legend", "righto", "okie dokie", "obliged", "pleasant", "bless", "wholesome", "clear",
    "catch you(?: later| soon)?", "(?:good|fair|great) (?:point|call|question|answer)", "point taken", "touche",
    "(?:youre|you are) (?:right|correct)", "hope (?:youre|you are) (?:having|doing) (?:a good one|well|good)",
    "too easy", "big", "haha\\w*", "lmfao", "ikr", "smh", "tbh", "ngl", "sg", "lgtm", "gg", "welp",
    "no way", "gold", "shiok", "done", "(?:dont|do not|no need to) worry", "touche", "thorough", "agree",
)
HEADS_ZH: tuple[str, ...] = (
    "可爱", "好玩", "有趣", "有意思", "贴心", "周到", "靠谱", "给力", "完美", "优秀", "漂亮", "开心", "高兴",
    "6{3,}", "绝绝子", "哈哈", "嘿嘿", "嘻嘻", "呜呜", "好嘢", "唔该", "多谢晒", "多谢", "冇问题", "晚点聊", "回聊",
    "先这样", "就这样", "拜", "酷", "强", "佩服", "感动",
    "说得对", "有道理", "原来如此", "确实", "也对", "没毛病", "学到了", "涨知识了", "好笑", "幽默", "搞笑", "yyds",
    "感恩", "掰掰", "拜拜", "回头见", "撤了", "溜了", "帮(?:了)?大忙(?:了)?", "真的假的", "哇塞", "好耶",
    "得喇", "得嘞", "稳了", "妥妥的", "整挺好", "绝了", "啊这", "好家伙", "吓我一跳", "妈耶", "我去", "天哪", "天啊",
    "唔该晒", "多谢晒", "好正", "赞一个", "清楚", "明白", "啰", "喇", "咧", "嘞",
    "马上办", "泪目", "悟了", "满分", "赞同", "同意", "有帮助", "有用", "放心", "打错字", "发错(?:群|人|地方)?", "破防",
    "逗", "麻烦(?:你|您)(?:啦|了)?",
)
# Words that carry nothing alone and go with a pleasantry ("that helps a lot", "真可爱"): a clause made of these
# and at least one pleasantry in the turn is filler; a clause of these alone ("help me") is not.
LIGHT_EN: tuple[str, ...] = (
    "i", "im", "ive", "id", "ill", "me", "my", "we", "were", "us", "our", "you", "youre", "youve", "youd", "youll",
    "your", "yours", "u", "ur", "it", "its", "this", "that", "thats", "a", "an", "the", "so", "such", "very",
    "really", "super", "pretty", "quite", "truly", "real", "too", "just", "all", "much", "lot", "lots", "always",
    "ever", "as", "of", "for", "to", "with", "and", "oh", "well", "what", "how", "is", "was", "are", "am", "be",
    "been", "most", "one", "thing", "help", "helps", "helped", "helping", "needed", "talking", "chatting",
    "speaking", "meeting", "hearing", "chat", "talk", "sharing", "looks", "sounds", "seems", "dear", "darling",
    "luv", "hun", "hon", "honey", "sweetie", "buddy", "pal", "bro", "sis", "fam", "sir", "madam", "maam", "x",
    "xx", "xxx", "xo", "xoxo", "kindly", "indeed", "answer", "explanation", "have", "had", "having", "evening",
    "day", "night", "now", "for now", "there", "again", "out", "up", "hope", "still", "mean", "see", "glad",
    # the conversation itself: what was asked and answered, how, when
    "question", "questions", "answer", "answers", "answered", "reply", "replies", "message", "msg", "response",
    "typo", "typos", "mistake", "patience", "turnaround", "side", "nothing", "else", "from", "today", "got",
    "quick", "huge", "previous", "sent", "by", "waiting", "late", "resolves", "resolved", "anything", "if", "back",
    "ignore", "stop", "way", "tmrw", "tomorrow", "soon", "ah", "lah", "leh", "lor", "ji", "at", "about", "think",
    "didnt", "that way", "all", "my", "comes", "circle",
)
LIGHT_ZH: tuple[str, ...] = (
    "真的", "真", "太", "很", "超级", "超", "挺", "蛮", "特别", "非常", "也", "都", "就", "这样", "这个", "那就",
    "那", "先", "你们", "你", "您", "我", "大家", "亲", "宝贝", "宝", "兄弟", "老铁", "哥", "姐", "哟", "咯", "诶",
    "欸", "滴", "嘛", "哦", "喔", "噢", "啊", "呀", "吧", "呢", "啦", "了", "的", "哈", "得", "一个", "回答", "解释",
    "係", "好", "是", "说", "哇", "耶", "诶", "一下", "还", "又",
    "领导", "家人们", "马上", "这", "今天", "到这里", "到这", "完全", "有", "帮助", "这回答", "回答",
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
# fmt: on
