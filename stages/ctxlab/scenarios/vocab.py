"""Word lists for the generated workspace files (``generate``); plain data, no logic."""

from __future__ import annotations


def _split(words: str) -> list[str]:
    return words.split()


LEVELS = ["INFO", "INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"]
SERVICES = ["orders", "billing", "catalog", "search", "payments", "shipping", "accounts",
            "reviews", "pricing", "inventory"]
EVENTS = ["request served", "cache miss", "cache hit", "retry scheduled", "job finished",
          "upstream slow", "queue drained", "lock released", "session opened",
          "session closed", "batch flushed", "config reloaded"]
ROUTES = ["/api/orders", "/api/orders/items", "/api/cart", "/api/users/me", "/api/search",
          "/api/payments/charge", "/api/shipping/quote", "/healthz", "/api/catalog/list"]
STATUSES = [200, 200, 200, 200, 201, 204, 304, 404, 429, 500]
USERS = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"]
REGIONS = ["north", "south", "east", "west", "central", "coastal", "highland"]
PRODUCTS = ["kettle", "lamp", "backpack", "notebook", "blender", "headphones", "desk", "chair",
            "umbrella", "bottle", "scarf", "toaster"]
CHANNELS = ["web", "store", "phone", "partner"]
VERBS = ["load", "merge", "count", "filter", "total", "collect", "render", "group", "check",
         "export", "update", "score"]
NOUNS = ["orders", "refunds", "invoices", "users", "stock", "prices", "returns", "batches",
         "coupons", "carts", "payments", "reviews"]
SECTIONS = ["service", "queue", "database", "alerts", "limits", "deploy", "logging"]
CONFIG_KEYS = ["owner", "region", "replicas", "timeout", "retries", "memory", "cpu", "tier",
               "schedule", "endpoint", "pool_size", "log_level", "backup", "window"]
CONFIG_VALUES = ['"team-blue"', '"team-green"', '"eu-west"', '"us-east"', "3", "5", "30",
                 '"512Mi"', '"2Gi"', '"gold"', '"silver"', '"nightly"', '"hourly"', "true",
                 "false", '"info"', '"debug"', '"/v2/report"', "120", "8"]
WORDS = _split("""
order invoice customer payment refund stock warehouse parcel courier delivery route price
discount coupon ledger account balance report export import nightly weekly monthly batch
queue worker retry timeout limit threshold window region store channel partner supplier
catalog product item quantity total subtotal tax rate rounding currency euro dollar yen
the a an of to in for with on by from after before during while when each every some many
few several most all and or but so then also still again only just already never always
checks keeps moves builds sends reads writes stores loads merges splits counts sums sorts
groups filters scans marks flags tracks records slow fast late early stale fresh large small
empty full broken steady careful quick daily manual automatic
""")
ZH_WORDS = _split("""
订单 发票 客户 支付 退款 库存 仓库 包裹 快递 配送 路线 价格 折扣 优惠券 账本 账户 余额
报表 导出 导入 每晚 每周 每月 批次 队列 任务 重试 超时 上限 阈值 窗口 地区 门店 渠道
合作方 供应商 目录 商品 数量 合计 小计 税率 汇率 舍入 货币 日志 数据库 缓存 接口 请求
响应 错误 记录 计算 发货 安全库存 补货 销量 预测 周期 系数 审核 规则 流程 负责人 系统
检查 保存 读取 写入 合并 拆分 统计 排序 分组 过滤 标记 跟踪 比较 更新 删除 确认 提醒
如果 那么 因为 所以 但是 并且 同时 然后 已经 仍然 只有 每个 所有 部分 必须 可以 需要
""")
