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
