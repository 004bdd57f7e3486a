"""The final answer: the task results in prose, what was tried across re-plans and why the result is what it is."""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from pydantic import BaseModel

from molx_agent.agents.modules.prompts import (
    FINAL_ANSWER_HEADERS,
    FINAL_SUMMARY_PROMPT,
    INPUT_ERRORS_ZH,
    INTENT_LABELS,
    verdict_zh,
)
from molx_agent.agents.modules.state import AgentState
from molx_agent.agents.validation import issue_summary

logger = logging.getLogger(__name__)

MAX_REMAINING = 8
_FACTS_CHARS = 12000
#: a number in prose (not a digit inside a SMILES, an id or a word: "c1ccc", "t2", "GSK3B")
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?![\w])")
_CJK = re.compile(r"[\u3400-\u9fff]")


def _report_paths(result: dict[str, Any]) -> list[str]:
    paths = result.get("report_paths") or []
    if isinstance(paths, dict):
        paths = [v for v in paths.values() if isinstance(v, str)]
    return [str(p) for p in paths if p]


def _problem_line(tid: str, task: dict[str, Any], result: dict[str, Any], h: dict[str, str], lang: str) -> str:
    err = result.get("error") or {}
    msg = err.get("message") if isinstance(err, dict) else str(err)
    hint = err.get("hint") if isinstance(err, dict) else None
    if lang == "zh" and isinstance(err, dict) and err.get("code") in INPUT_ERRORS_ZH:
        zh_msg, hint = INPUT_ERRORS_ZH[err["code"]]
        msg = zh_msg if zh_msg and not _CJK.search(str(msg or "")) else msg
    line = f"{tid} ({task['type']}) {h['failed']}: {msg or task.get('error', '')}"
    if hint:
        line += f" ({h['hint']}: {hint})" if lang != "zh" else f"（{h['hint']}：{hint}）"
    n = len(task.get("attempts") or [])
    if task.get("error_class") == "bad_input":
        line += (" — bad input, not retried" if lang != "zh" else " —— 输入有误，未重试")
    elif n > 1:
        line += f" — {n} attempts" if lang != "zh" else f" —— 共尝试 {n} 次"
    return line


def _judge_of(state: AgentState, tid: str) -> dict[str, Any]:
    """The task judging ``tid``'s output (a ``validation`` task depending on it), if any."""
    for task in (state.get("tasks") or {}).values():
        if task.get("type") == "validation" and tid in (task.get("depends_on") or []):
            return task
    return {}


def tried_lines(state: AgentState, lang: str = "en") -> list[str]:
    """One line per task a re-plan changed or retried: each attempt's strategy, why, and outcome (with the verdict
    of the task that judged it)."""
    lines: list[str] = []
    for tid, task in (state.get("tasks") or {}).items():
        attempts = task.get("attempts") or []
        changed = any((a.get("options") or {}).get("strategy") for a in attempts)
        if len(attempts) < 2 or not (changed or task.get("status") == "failed" or
                                     any(a.get("status") == "failed" for a in attempts)):
            continue
        judge = _judge_of(state, tid).get("attempts") or []
        parts = []
        for a in attempts:
            opts = a.get("options") or {}
            strategy = opts.get("strategy") or ("first plan" if lang != "zh" else "初始方案")
            if a.get("status") == "failed":
                outcome = f"failed: {a.get('error') or a.get('error_code')}"
            else:
                outcome = str(a.get("summary") or a.get("status") or "").strip()[:240]
                if a.get("verdict"):
                    verdict = a["verdict"] if lang != "zh" else verdict_zh(a["verdict"])
                    outcome = f"{verdict} ({', '.join(a.get('issues') or [])}) {outcome}".strip()
            n = int(a.get("n") or 1)
            if n <= len(judge) and judge[n - 1].get("verdict"):
                j = judge[n - 1]
                outcome += (f" → verdict {j['verdict']}" if lang != "zh" else f" → 判定{verdict_zh(j['verdict'])}") + \
                    (f" ({', '.join(dict.fromkeys(j.get('issues') or []))})" if j.get("issues") else "")
            why = f" — {opts['why']}" if opts.get("why") and n > 1 else ""
            label = f"#{n}" if lang != "zh" else f"第 {n} 次"
            parts.append(f"{label} [{strategy}{why}]: {outcome}")
        lines.append(f"{tid} ({task.get('type')}):\n    " + "\n    ".join(parts))
    return lines


def outcome_lines(state: AgentState, lang: str = "en") -> list[str]:
    """Why the result is what it is: the issues still open after the last reflection and why re-planning stopped."""
    refl = state.get("reflection") or {}
    issues = [i for i in refl.get("issues") or [] if i.get("class") == "weak_result"]
    if not issues:
        return []
    lines = []
    seen = set()
    for i in issues:
        key = (i.get("code"), i.get("target"), i.get("smiles"), i.get("step"))
        if key in seen:
            continue
        seen.add(key)
        who = i.get("target_name") or i.get("target") or i.get("type") or ""
        what = i.get("smiles") or i.get("step")
        where = f" ({what})" if what and str(what) not in str(i.get("message", "")) else ""
        text = f"{i.get('message', '')}{where}"
        summary = issue_summary(i, lang)
        if lang == "zh" and summary != i.get("message"):
            text = f"{summary}（{text.strip()}）"
        lines.append(f"{who}: [{i.get('code')}] {text}".strip())
        if len(lines) >= MAX_REMAINING:
            break
    iteration = state.get("iteration", 0) or 0
    if refl.get("actions") and not refl.get("should_replan"):
        lines.append(f"re-planning stopped after {iteration} round(s) (MAX_ITERATIONS reached)" if lang != "zh"
                     else f"已重规划 {iteration} 轮，达到 MAX_ITERATIONS 上限")
    elif not refl.get("actions"):
        lines.append(f"after {iteration} re-plan round(s) no untried change could improve this further" if lang != "zh"
                     else f"经过 {iteration} 轮重规划，已没有可尝试的新方案")
    return lines


def compose_final_answer(state: AgentState) -> tuple[str, list[str]]:
    """Prose answer (in ``state['language']``) from the task results, plus every report path."""
    from molx_agent.agents.intent_classifier import INTENT_RESPONSES

    lang = state.get("language", "en")
    lang = lang if lang in FINAL_ANSWER_HEADERS else "en"
    h = FINAL_ANSWER_HEADERS[lang]
    intent = state.get("intent", "unsupported")
    if intent == "unsupported":
        return INTENT_RESPONSES["unsupported"][lang], []
    tasks = state.get("tasks") or {}
    results = state.get("results") or {}
    body: list[str] = []
    problems: list[str] = []
    dropped: list[str] = []
    reports: list[str] = []
    for tid, task in tasks.items():
        result = results.get(tid) or {}
        status = task.get("status")
        if status == "done":
            reports += [p for p in _report_paths(result) if p not in reports]
        if status == "done" and result.get("summary"):
            body.append(str(result["summary"]).strip())
        elif status == "skipped":
            if task.get("dropped"):
                dropped.append(f"{tid} ({task['type']}): {task['dropped']}")
            elif result.get("unavailable"):
                body.append(str(result.get("summary") or task.get("error", "")))
            else:
                problems.append(f"{tid} ({task['type']}) {h['skipped']}: {task.get('error', '')}")
        elif status == "failed":
            problems.append(_problem_line(tid, task, result, h, lang))
    label = INTENT_LABELS[lang].get(intent, intent)
    parts = [f"[{h['intent']}: {label}]"]
    parts += body or ([] if problems else [h["nothing"]])
    tried = tried_lines(state, lang)
    if tried:
        parts.append(f"{h['tried']}:\n" + "\n".join(f"- {t}" for t in tried))
    outcome = outcome_lines(state, lang)
    if outcome:
        parts.append(f"{h['outcome']}:\n" + "\n".join(f"- {t}" for t in outcome))
    if problems:
        parts.append(f"{h['errors']}:\n" + "\n".join(f"- {p}" for p in problems))
    if dropped:
        parts.append(f"{h['dropped']}:\n" + "\n".join(f"- {d}" for d in dropped))
    if reports:
        parts.append(f"{h['reports']}:\n" + "\n".join(f"- {p}" for p in reports))
    return "\n\n".join(dict.fromkeys(parts)), reports


class FinalSummary(BaseModel):
    """The LLM's final summary."""

    summary: str


def numbers_in(value: Any) -> set[float]:
    """Every number in ``value`` (numbers, and numbers written in its strings), recursively."""
    out: set[float] = set()

    def walk(v: Any) -> None:
        if isinstance(v, bool) or v is None:
            return
        if isinstance(v, (int, float)):
            out.add(float(v))
        elif isinstance(v, str):
            out.update(float(m) for m in _NUMBER.findall(v))
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(k)
                walk(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)

    walk(value)
    return out


def ungrounded_numbers(text: str, facts: set[float]) -> list[str]:
    """Numbers of ``text`` that appear nowhere in ``facts`` (a fact may be shown rounded: 180.159 as 180.16)."""
    bad = []
    for raw in _NUMBER.findall(text):
        x = float(raw)
        decimals = len(raw.split(".", 1)[1]) if "." in raw else 0
        if x in facts or any(round(y, decimals) == x for y in facts):
            continue
        bad.append(raw)
    return bad


def _result_digest(state: AgentState) -> dict[str, Any]:
    out: dict[str, Any] = {}
    results = state.get("results") or {}
    for tid, task in (state.get("tasks") or {}).items():
        res = results.get(tid) or {}
        entry: dict[str, Any] = {"type": task.get("type"), "status": task.get("status")}
        for k, v in res.items():
            if isinstance(v, (str, int, float, bool)) and k not in ("elapsed_s", "worker"):
                entry[k] = v if not isinstance(v, str) else v[:1500]
        out[tid] = entry
    return out


def llm_final_summary(state: AgentState, rules_answer: str, llm: Any) -> str | None:
    """An LLM-written summary grounded in the workers' results: ``None`` (the rules answer stands alone) when the
    LLM is unavailable, its reply is invalid, or any number in it appears nowhere in the results."""
    from molx_agent.agents.modules.llm import invoke_structured

    if llm is None or state.get("intent", "unsupported") == "unsupported" or not state.get("tasks"):
        return None
    lang = state.get("language", "en")
    digest = {"request": state.get("user_query", ""), "intent": state.get("intent"),
              "results": _result_digest(state), "rules_answer": rules_answer}
    facts_text = json.dumps(digest, ensure_ascii=False, default=str)
    prompt = FINAL_SUMMARY_PROMPT.format(language_name="Chinese" if lang == "zh" else "English")
    answer = invoke_structured(llm, prompt, facts_text[:_FACTS_CHARS], FinalSummary, what="final summary")
    if answer is None or not answer.summary.strip():
        return None
    facts = numbers_in(digest) | numbers_in(state.get("results") or {})
    bad = ungrounded_numbers(answer.summary, facts)
    if bad:
        logger.warning("LLM final summary rejected: number(s) %s appear in no result; the rules summary is used",
                       ", ".join(bad[:5]))
        return None
    return answer.summary.strip()


def compose_answer_with_llm(state: AgentState, llm: Any = None) -> tuple[str, list[str], str]:
    """``(answer, report paths, source)``: the rules answer, headed by the LLM's grounded summary when there is one
    (``source`` "llm"), else the rules answer alone (``source`` "rules")."""
    answer, reports = compose_final_answer(state)
    summary = llm_final_summary(state, answer, llm) if llm is not None else None
    if summary:
        return f"{summary}\n\n{answer}", reports, "llm"
    return answer, reports, "rules"


__all__ = ["compose_final_answer", "compose_answer_with_llm", "llm_final_summary", "numbers_in",
           "ungrounded_numbers", "tried_lines", "outcome_lines"]
