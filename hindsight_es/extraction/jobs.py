"""Occupations the rule extractor knows, as regex alternatives: "I'm a paralegal", "我是一名护士".

A job said with "I am a …" is only taken when its head noun is one of these (else "I'm a morning person"
would be an occupation), so the list is the recall of that rule: it names trades, professions and roles
people give when asked what they do, in both languages, not a taxonomy. Longer alternatives that share a
head ("police officer") need no entry of their own: up to two words may precede the head.
"""

from __future__ import annotations

# fmt: off
_EN = (
    # professions
    "engineer developer programmer coder teacher doctor physician nurse designer student lawyer attorney solicitor"
    " barrister paralegal notary judge manager writer author scientist researcher artist chef accountant auditor"
    " actuary bookkeeper consultant analyst architect professor lecturer musician photographer videographer founder"
    " cofounder co-founder freelancer contractor counselor counsellor therapist physiotherapist physio psychiatrist"
    " journalist reporter pharmacist dentist hygienist optometrist optician entrepreneur dancer singer actor actress"
    " pilot firefighter banker trader broker economist statistician mathematician physicist chemist biologist"
    " geologist astronomer historian archaeologist curator archivist librarian farmer baker butcher mechanic"
    " electrician plumber carpenter joiner builder bricklayer welder roofer decorator gardener landscaper cashier"
    " waiter waitress bartender barista hostess driver courier coach trainer secretary receptionist"
    " assistant administrator intern apprentice cook veterinarian vet surgeon psychologist social worker"
    " caseworker carer caregiver painter poet editor copywriter translator interpreter producer director officer"
    " instructor tutor paramedic midwife nanny childminder babysitter realtor recruiter salesperson salesman"
    " saleswoman illustrator animator clerk technician technologist radiographer sonographer surveyor inspector"
    " strategist marketer coordinator supervisor foreman principal headteacher"
    " headmaster dean chaplain pastor priest minister rabbi imam monk nun soldier sailor marine medic guard"
    " janitor cleaner housekeeper caretaker porter postman postwoman mail carrier dispatcher operator machinist"
    " fabricator tailor seamstress hairdresser hairstylist stylist barber beautician florist jeweller jeweler"
    " locksmith upholsterer shopkeeper storekeeper retailer merchant vendor buyer merchandiser model influencer"
    " streamer youtuber blogger podcaster comedian magician athlete footballer cricketer golfer swimmer cyclist"
    " lifeguard ranger warden detective investigator constable sergeant lieutenant captain commander diplomat"
    " politician councillor councilor civil servant bureaucrat economist underwriter adjuster cartographer"
    " surveyor dietitian nutritionist chiropractor osteopath acupuncturist doula sommelier brewer distiller"
    " winemaker fisherman miner logger trucker chauffeur"
).split()
_EN_PHRASES = (
    "police officer", "sales rep", "social worker", "data scientist", "product manager", "project manager",
    "real estate agent", "estate agent", "flight attendant", "stay-at-home mom", "stay-at-home dad",
    "teaching assistant", "personal trainer", "software engineer", "civil servant", "mail carrier",
    "security guard", "care worker", "support worker", "delivery driver", "bus driver", "taxi driver",
    "truck driver", "web developer", "graphic designer", "dental nurse", "phd student", "grad student",
    "educator", "clinical educator",
)
# A Chinese job is said as its word, often after a field ("数据分析师", "出租车司机"): the field is matched by the
# pattern's leading characters, the word here.
_ZH = (
    "工程师 程序员 程序猿 码农 医生 大夫 护士 护工 老师 教师 讲师 教授 副教授 辅导员"
    " 班主任 校长 学生 研究生 博士生 博士后 大学生 中学生 高中生 本科生 留学生 实习生"
    " 律师 法务 律师助理 法官 检察官 设计师 经理 总监 主管 组长 店长 作家 记者 编辑"
    " 研究员 会计 出纳 审计 精算师 厨师 厨子 面点师 司机 警察 民警 交警 辅警 演员"
    " 歌手 画家 销售 公务员 自由职业者 创业者 消防员 飞行员 机长 空姐 空乘 乘务员 翻译"
    " 摄影师 工人 农民 模特 主播 保安 快递员 外卖员 骑手 导游 分析师 咨询师 军人"
    " 运动员 教练 科学家 舞蹈演员 保姆 月嫂 育儿嫂 保洁 清洁工 环卫工 撰稿人 经纪人"
    " 制片人 主持人 合伙人 自媒体 博主 网红 up主 收银员 服务员 前台 文员 客服 柜员"
    " 助理 秘书 电工 水电工 焊工 木匠 瓦工 水管工 装修工 维修工 技术员 药剂师 理发师"
    " 美容师 美甲师 化妆师 营养师 心理咨询师 建筑师 规划师 测绘员 质检员 产品经理"
    " 项目经理 插画师 动画师 剪辑师 数据分析师 算法工程师 架构师 银行职员 职员 店员 导购"
    " 房产中介 保险代理人 理财顾问 顾问 船员 海员 渔民 矿工 村干部 社工 志愿者 家庭主妇"
    " 全职妈妈 全职爸爸 退休教师 个体户 老板 老板娘 厂长 董事长 总经理 CEO CTO"
).split()
# fmt: on

# A trade named by its suffix ("pediatrician", "cardiologist", "psychiatrist", "sonographer", "physiotherapist")
_EN_SUFFIXED = r"[a-z]+(?:ician|ologist|iatrist|ographer|ometrist|therapist)"
JOBS_EN = "|".join(sorted({*_EN, *_EN_PHRASES}, key=len, reverse=True)) + "|" + _EN_SUFFIXED
JOBS_ZH = (
    "|".join(sorted(set(_ZH), key=len, reverse=True))
    + r"|(?<=[\u4e00-\u9fff])[牙兽中西军校法村]医(?![院疗学药])"
    # a trade named by its 师 (建筑师, 药剂师, 理发师, 营养师), not 师傅/师父/师兄 or 师范 (a teachers' college)
    + r"|(?<=[\u4e00-\u9fff])[\u4e00-\u9fff]{1,3}?师(?![傅父兄姐弟妹范生])"
)
