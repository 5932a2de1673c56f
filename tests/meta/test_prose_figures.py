"""Prose explains, code measures (DESIGN §8, issue 46): no figure or comparison of figures in
the notebooks' markdown (English and Chinese) or the interview pages that no computed claim
backs.

A sentence of prose is flagged when it holds a measured-looking figure (a percentage, a
multiple, a dollar amount, a share written as 0.57, a count of tokens or calls, a number in
words: "about half", 三成, 百分之四十), or a comparison word ("cheaper", "fell", 更省, 降到)
next to something a run measures (tokens, cost, share, calls; 账单, 占比, 调用). Such a
sentence belongs in a code cell, rendered by ``ctxlab.claims`` and asserted. Figures that are
not measured — section numbers, stage and exercise numbers, the bench's settings named with
their unit, the guide's and cited papers' published figures — are exempt by the rules and the
short allow-list below, each entry with its reason.
"""

from __future__ import annotations

import json
import re

import pytest

from ctxlab.workbook.layout import repo_root

ROOT = repo_root()

# --- what is not prose ---------------------------------------------------------------------
NOT_PROSE = re.compile(r"```.*?```|`[^`\n]*`|\]\([^)]*\)|<!--.*?-->|https?://\S+", re.S)
NAMES = re.compile(  # numbers that name things, not measure them
    r"§\s?\d+(?:\.\d+)*(?:\s?[–-]\s?§?\d+(?:\.\d+)*)?|\bch\d+(?:\.\d+)*|\bR\d+(?:[–-]R?\d+)?|"
    r"\b(?:[Ss]tages?|[Ee]xercises?|[Nn]otebooks?|[Ss]elf-checks?|[Qq]uestions?|[Ss]teps?|"
    r"[Pp]arts?|[Ss]ections?|[Cc]hapters?|[Tt]urns?|[Ss]eeds?|[Cc]alls?|[Rr]ounds?|[Mm]essages?|"
    r"[Ll]ayers?|L)\s?\d+(?:\.\d+)*(?:(?:\s?[–-]\s?|,\s|\sand\s|\sor\s)\d+(?:\.\d+)*)*|"
    r"\bQ\d+|(?:阶段|练习|自检题?|第|题|步|层)\s?\d+(?:\.\d+)*(?:\s?[–、-]\s?\d+(?:\.\d+)*)*|"
    r"\b(?:19|20)\d\d\b|\bclaude-[\w.-]+|\b\d+(?:\.\d+)?\+? models|^\s*\d+\.\s|\*\*\d+\.|"
    r"^\|\s*\d+\s*\||\bet al\.", re.M)

# --- figures ---------------------------------------------------------------------------------
EN_NUMBER_WORDS = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|"
                   "twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|a hundred")
OUTCOME = (r"(?:spent|sent|used|billed|freed|read|wrote|cost|costs|took|made|missed|repeated|"
           r"saved|fetched|花了|用了|发送了|发了|腾出了?|读了|写了|重复了|漏了|省了)")
FIGURES = [
    r"\d[\d,]*(?:\.\d+)?\s?(?:%|％|per ?cent\b|×|x\b|times\b|倍|成(?![\u4e00-\u9fff]))",
    r"\$\s?\d",
    r"(?<![\d.])0\.\d+\b",
    rf"{OUTCOME}\s?(?:about |only |just |约 ?)?\d[\d,]*(?:\.\d+)?\s?(?:\w+\s)?"
    r"(?:tokens?|calls?|requests?|misses|re-?reads?|dollars|summar(?:y|ies)|compactions?|"
    r"个 ?token|次调用|次请求|个事实|美元)",
    r"\b(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|sixty|"
    r"seventy|eighty|ninety|a hundred)[ -](?:per ?cent|percent)\b",
    r"\b(?:about|roughly|nearly|almost|over|under) (?:half|a third|a quarter|two thirds)\b",
    r"\b(?:twice as|thrice|half as|tenfold|halved|doubled|tripled)\b",
    r"百分之[零一二两三四五六七八九十百\d]+|[一二两三四五六七八九十]+成(?![\u4e00-\u9fff])|"
    r"[一二两三四五六七八九十]+倍|(?:大约|约|将近|几乎|超过|不到)(?:一半|[二三四五六七八九十]分之"
    r"[一二三四五六七八九])|减半|翻倍|翻了?[一二两三四五]番",
]
FIGURE = re.compile("|".join(FIGURES), re.I)

# --- comparisons of measured quantities ---------------------------------------------------------
MEASURE = (r"(?:cost|costs|bill|price|dollars?|tokens?|share|rate|accuracy|occupancy|misses|"
           r"calls?|requests?|reads?|breakpoints?|latency|score)")
MEASURE_ZH = (r"(?:成本|账单|花费|费用|价格|token|占比|比例|命中率|准确率|占用|遗漏|调用|请求|读取|"
              r"断点|美元)")
PRICED = re.compile(r"\b(?:cheaper|costlier|dearer|more expensive|less expensive)\b|更省|更便宜|"
                    r"(?<!占)便宜了|更贵|贵了")
"""Comparisons that are about a measured cost by themselves."""
COMPARE = re.compile(
    rf"\b{MEASURE}\s(?:\w+\s){{0,2}}?(?:fell|dropped|rose|went (?:up|down)|grew|shrank|halved|"
    rf"doubled)\b|\b(?:fewer|more|less|lower|higher)\s(?:\w+\s)?{MEASURE}\s(?:\w+\s)?than\b|"
    rf"\b{MEASURE}\s(?:is|was|are|were)\s(?:\w+\s)?(?:lower|higher|less|more|about the same|"
    rf"roughly the same)\b|\b(?:hardly|barely|never) read\b|\bno (?:cache )?breakpoints?\b|"
    rf"\bnothing (?:is |was )?(?:ever )?read\b|"
    rf"{MEASURE_ZH}[^，。；]{{0,8}}?(?:降到|降至|下降|跌到|上升|升到|升至|涨到|减少了|增加了|少了|多了|"
    rf"大致相同|差不多)|比[^，。；]{{1,12}}?(?:少|多|高|低)[^，。；]{{0,4}}?{MEASURE_ZH}|"
    rf"{MEASURE_ZH}[^，。；]{{0,6}}比[^，。；]{{1,12}}?(?:少|多|高|低)|几乎(?:没有|不)被?读|"
    rf"没有(?:任何)?断点|什么都没(?:从缓存)?读", re.I)

# --- the allow-list: published figures and the bench's settings, each with its reason ---------
ALLOWED: list[tuple[str, str]] = [
    (r"50\s?[–-]\s?65\s?%", "§4.6: the band the guide recommends"),
    (r"past (?:about half|~50 %)|超过约 ?50%|超过一半左右", "§4.6: past about half the window "
     "attention turns to recency"),
    (r"70\s?[–-]\s?80\s?%", "§2.2: the typical share of tool results in a request"),
    (r"4\s?[–-]\s?15\s?[×倍]", "§11.2: what sub-agents cost in tokens"),
    (r"79\s?%", "§11.6: the share of multi-agent failures that are specification/alignment"),
    (r"(?:about|约|只占) ?5\s?%", "§9.7: the share of the work that calling the model is"),
    (r"(?:at|passes|超过|过了|窗口的) 80\s?%|80\s?% (?:of|的)",
     "§14 stage 2: the trigger the guide starts from"),
    (r"\b(?:1\.25|0\.1)\s?[×x倍]|2 倍价|十分之一|12\.5|200\s?[×倍]", "API notes §1.7: the "
     "documented price multipliers (a read a tenth, a write 1.25×), §6.5's quoted '200×'"),
    (r"about 1\s?× the tokens|约 ?1 ?倍", "§11.5: what skills cost in tokens"),
    (r"80\.9 (?:to|降到) 77\.1|the cost went up", "§3.2: the cited measurement of a dropped "
     "capability"),
    (r"\(25 %, 40 %, 55 % … at most 85 %\)|25%、40%、55%……上限 85%|(?:if|如果) 25 ?%",
     "§9.1: the PTL retry's drop schedule (exercise 4.2)"),
    (r"(?:at|到) 90 ?%|under 90 % to over 90 %|从不到 90% 升到 90% 以上", "§8.1's naive trigger "
     "and §4.1's Chroma accuracy, quoted"),
    (r"at 60 % and summarizes at 70 %|在 60% 遮罩工具输出、70% 做摘要", "§4.6: sid-code's "
     "thresholds"),
    (r"p < 0\.05", "the ladder's significance level for a paired verdict (ctxlab.ladder.paired)"),
    (r"15\s?[×倍]|(?:、|, |and )(?:单个 agent 的 )?4\s?[×倍]", "§11.2 and Anthropic's multi-agent "
     "research: tokens against a chat (15×) and a single agent (4×)"),
    (r"\(default 0\.8\)|（默认 0\.8）|(?:Below|低于) 0\.5", "settings named beside their option "
     "(stage 2's ratio, the anchor-coverage warning)"),
    (r"75\.8(?:, |、)53\.8(?:,? and |、)63\.2 ?%", "Liu et al. (Lost in the Middle) Table 6, "
     "GPT-3.5-Turbo with 20 documents: the published accuracies at the start, middle and end"),
]
ALLOW = re.compile("|".join(f"(?:{p})" for p, _ in ALLOWED), re.I)

FIXTURE_EN = [
    "Stage 5 is cheaper than stage 4 on the long task.",
    "After the summary the cache read share dropped to about a third.",
    "The bill came to $0.21 for the whole run.",
    "Sub-agents used 1.13× the tokens of the inline run.",
    "About half of the requests read nothing from the cache.",
    "With the band the run sent fewer tokens than without it.",
    "The needle at the start was found 0.57 of the time.",
    "Clearing early costs twice as much as waiting for the cold cache.",
    "Stage 2 repeated 14 calls after the cut.",
    "The accuracy fell by forty percent once the window was nearly full.",
]
FIXTURE_ZH = [
    "阶段 5 在长任务上比阶段 4 更省。",
    "摘要之后缓存读取占比降到 20%。",
    "这次运行的账单是 $0.21。",
    "子代理用的 token 是 inline 的 1.13 倍。",
    "大约一半的请求没有从缓存读到任何东西。",
    "守带宽的运行比不守的少用了三成 token。",
    "开头的事实被找到的比例只有 0.57。",
    "过早清理的花费翻倍了。",
    "截断之后阶段 2 重复了 14 次调用。",
    "窗口快满时准确率下降了百分之四十。",
]


def flagged(sentence: str) -> list[str]:
    """What in ``sentence`` no computed claim backs: figures, and comparison words beside a
    measured quantity; empty when it is plain explanation."""
    text = ALLOW.sub(" ", NAMES.sub(" ", NOT_PROSE.sub(" ", sentence)))
    return [m.group(0) for pattern in (FIGURE, PRICED, COMPARE) for m in pattern.finditer(text)]


def sentences(markdown: str) -> list[str]:
    """The prose of a markdown text, sentence by sentence (code, links and headings' numbers
    left out by ``flagged``)."""
    prose = NOT_PROSE.sub(" ", markdown)
    out = []
    for paragraph in re.split(r"\n\s*\n", prose):
        joined = " ".join(line.strip() for line in paragraph.splitlines())
        out += [s for s in re.split(r"(?<=[.!?])\s+|(?<=[。！？；])", joined) if s.strip()]
    return out


def texts() -> list[tuple[str, str]]:
    """(where, markdown) of every notebook markdown cell, English and Chinese, and every
    interview page, English and Chinese."""
    found = []
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted(
            (ROOT / "notebooks" / "zh-CN").glob("*.ipynb")):
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        found += [(f"{path.relative_to(ROOT)} cell {i}", "".join(c["source"]))
                  for i, c in enumerate(cells) if c["cell_type"] == "markdown"]
    for folder in ("docs/interview", "docs/interview/zh-CN"):
        found += [(str(p.relative_to(ROOT)), p.read_text(encoding="utf-8"))
                  for p in sorted((ROOT / folder).glob("*.md"))]
    return found


@pytest.mark.parametrize("sentence", FIXTURE_EN + FIXTURE_ZH)
def test_every_planted_sentence_is_caught(sentence: str) -> None:
    assert flagged(sentence), sentence


def test_the_fixture_is_planted_not_copied() -> None:
    assert len(FIXTURE_EN) >= 10 and len(FIXTURE_ZH) >= 10
    everything = "\n".join(text for _, text in texts())
    assert not [s for s in FIXTURE_EN + FIXTURE_ZH if s in everything]


def test_explanation_passes() -> None:
    for sentence in ("Stage 4 marks the newest message with one breakpoint (§6.4).",
                     "The dropped rounds are gone for good: the one place information is "
                     "destroyed (§9.1).",
                     "阶段 4 在最新一条消息上打一个断点（§6.4）。",
                     "Exercise 4.2 drops the oldest rounds, at most four retries.",
                     "Guide: §4.6 (the 50–65 % band)."):
        assert flagged(sentence) == [], sentence


def test_every_allowed_entry_has_a_reason() -> None:
    assert len(ALLOWED) <= 17 and all(len(reason) > 10 for _, reason in ALLOWED)


def test_no_prose_states_an_unbacked_figure() -> None:
    problems = [f"{where}: {found} in {sentence[:100]!r}" for where, text in texts()
                for sentence in sentences(text) if (found := flagged(sentence))]
    assert not problems, f"{len(problems)} sentences:\n" + "\n".join(problems)
