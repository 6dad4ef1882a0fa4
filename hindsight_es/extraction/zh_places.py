"""Chinese provinces and prefecture-level cities (and a few county-level ones people name as home), which
``lexicon.ZH_PLACES`` adds to its list: "我在兰州上班" says where one works, not for whom, and "我老家湖南衡阳的"
names a city after its province. Left out: names that are also common words or parts of them (三明 in 三明治,
中山 in 中山大学, 大理 in 大理石, 来宾 "guest", 白银 "silver", 安康 "well-being", 日照 "sunlight", 大同, 长治,
普洱 the tea, 阿里 the company)."""

from __future__ import annotations

PROVINCES = (
    "河北 山西 辽宁 吉林 黑龙江 江苏 浙江 安徽 福建 江西 山东 河南 湖北 湖南 广东 海南 四川 贵州 云南 陕西 甘肃 青海 "
    "广西 内蒙古 西藏 宁夏 新疆"
).split()

CITIES = (
    # Hebei, Shanxi, Inner Mongolia
    "石家庄 唐山 秦皇岛 邯郸 邢台 保定 张家口 承德 沧州 廊坊 衡水 太原 阳泉 晋城 朔州 晋中 运城 忻州 临汾 吕梁 "
    "呼和浩特 包头 乌海 赤峰 通辽 鄂尔多斯 呼伦贝尔 巴彦淖尔 乌兰察布 "
    # the north-east
    "鞍山 抚顺 本溪 丹东 锦州 营口 阜新 辽阳 盘锦 铁岭 葫芦岛 长春 四平 辽源 通化 白山 松原 白城 延吉 "
    "齐齐哈尔 鸡西 鹤岗 双鸭山 大庆 伊春 佳木斯 七台河 牡丹江 黑河 绥化 "
    # Jiangsu, Zhejiang, Anhui, Fujian, Jiangxi, Shandong
    "徐州 常州 南通 连云港 淮安 盐城 扬州 镇江 泰州 宿迁 昆山 江阴 张家港 常熟 "
    "温州 嘉兴 湖州 绍兴 金华 衢州 舟山 台州 丽水 义乌 "
    "芜湖 蚌埠 淮南 马鞍山 淮北 铜陵 安庆 黄山 滁州 阜阳 宿州 六安 亳州 池州 宣城 "
    "莆田 泉州 漳州 南平 龙岩 宁德 南昌 景德镇 萍乡 九江 新余 鹰潭 赣州 吉安 宜春 抚州 上饶 "
    "淄博 枣庄 东营 烟台 潍坊 济宁 泰安 威海 临沂 德州 聊城 滨州 菏泽 "
    # Henan, Hubei, Hunan
    "开封 洛阳 平顶山 安阳 鹤壁 新乡 焦作 濮阳 许昌 漯河 三门峡 南阳 商丘 信阳 周口 驻马店 "
    "黄石 十堰 宜昌 襄阳 鄂州 荆门 孝感 荆州 黄冈 咸宁 随州 恩施 "
    "株洲 湘潭 衡阳 邵阳 岳阳 常德 张家界 益阳 郴州 永州 怀化 娄底 "
    # Guangdong, Guangxi, Hainan
    "珠海 汕头 佛山 韶关 湛江 肇庆 江门 茂名 惠州 梅州 汕尾 河源 阳江 清远 东莞 潮州 揭阳 云浮 "
    "南宁 柳州 桂林 梧州 北海 防城港 钦州 贵港 玉林 百色 贺州 河池 崇左 海口 三亚 儋州 "
    # the south-west
    "自贡 攀枝花 泸州 德阳 绵阳 广元 遂宁 内江 乐山 南充 眉山 宜宾 广安 达州 雅安 巴中 资阳 "
    "贵阳 六盘水 遵义 安顺 毕节 铜仁 凯里 曲靖 玉溪 保山 昭通 丽江 临沧 西双版纳 香格里拉 腾冲 "
    "拉萨 日喀则 昌都 林芝 那曲 "
    # the north-west
    "铜川 宝鸡 咸阳 渭南 延安 汉中 榆林 商洛 兰州 嘉峪关 金昌 天水 武威 张掖 平凉 酒泉 庆阳 定西 陇南 "
    "西宁 海东 格尔木 银川 石嘴山 吴忠 固原 中卫 乌鲁木齐 克拉玛依 吐鲁番 哈密 喀什 伊犁 阿克苏 库尔勒 石河子 "
    # Taiwan
    "台中 高雄 台南 新竹"
).split()
