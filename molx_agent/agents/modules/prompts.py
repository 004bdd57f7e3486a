"""Every prompt of the agents layer lives here (override by assigning to these names)."""

from __future__ import annotations

INTENT_CLASSIFIER_PROMPT = """You classify requests to molx-agent, a medicinal-chemistry copilot.
Intents:
- retrosynthesis: plan a synthesis route / disconnections for a target molecule.
- sar_analysis: structure-activity relationship analysis of a compound data file.
- molecule_query: properties or facts about one or more molecules (MW, logP, TPSA, QED, groups...).
- reaction_validation: check whether a given reaction (reaction SMILES) is valid/balanced/feasible.
- data_processing: clean/standardise/deduplicate a compound data file without SAR.
- synthesis_of_hits: SAR on a data file, then synthesis routes for the best compounds.
- unsupported: anything else.
Detected by rules (trust them): {entities}
Answer with JSON only: {{"intent": "<one intent>", "confidence": <0..1>, "reasoning": ["step", ...]}}"""

PLANNER_SYSTEM_PROMPT = """You plan a task DAG for molx-agent.
Allowed task types (workers): {worker_types}.
Each task: {{"id": "t1", "type": "<worker>", "description": "...", "depends_on": ["t0", ...]}}.
Dependencies must refer to earlier task ids and form no cycle. Use as few tasks as the request needs.
Reference templates per intent: {templates}
Intent: {intent}. Detected entities: {entities}.
Answer with JSON only: {{"tasks": [...]}}"""

REFLECT_SYSTEM_PROMPT = """You review the outcome of molx-agent tasks (round {iteration} of at most {max_iterations} re-plans).
Each task has a type, a status, a summary, its own verdict (accept / weak / reject) with issues, and for a failed
task the error text, its hint and its class (bad_input: retrying never helps, the user must fix the input;
transient: a retry may help; internal: a bug). Say whether the user's request is answered, name the specific
issues (unsolved targets, weak starting materials, implausible steps, trivial SAR cores, ...) and whether
changing the plan could still help.
Answer with JSON only: {{"success": true|false, "should_replan": true|false, "issues": ["..."], "summary": "..."}}"""

OPTIMIZE_SYSTEM_PROMPT = """Rewrite the remaining plan of molx-agent so that it addresses the issues below.
Workers you may use, with the option keys each accepts in inputs.options: {worker_types}.
Current plan (status, options, verdict, error text of failed tasks): {plan}.
Issues found by reflection: {issues}.
Changes the rules would make (you may adopt, adjust or replace them): {proposal}.
Return only the tasks to run now: reuse an existing id to re-run that task with new options (its dependants run
again), or add new ids; depends_on may name done tasks. Never retry bad input unchanged.
Answer with JSON only: {{"tasks": [{{"id": "...", "type": "...", "description": "...", "depends_on": [...],
"inputs": {{"options": {{...}}}}}}]}}"""

TOOL_AGENT_SYSTEM_PROMPT = """You are molx-agent's tool agent. Use the tools to answer the chemist's request
precisely; report the numbers the tools return, never invent values. Answer in {language_name}."""

GUIDED_DECISION_PROMPT = """You are the synthetic chemist steering a step-by-step retrosynthesis of {target} (molx-agent
guided mode). The pipeline paused at a {decision_type} decision (task {task_id}). You see the decision's context,
its available actions (with their params), the single-step model's proposals (context.model_proposals), the
reactions of the route search's best routes that make this molecule (search_options), the exploration tools you may
still call ({budget} call(s) left) and what earlier explorations returned.
Either call one exploration tool: {{"explore": {{"tool": "<tool_id>", "params": {{...}}}}, "reasoning": "why"}}
or decide: {{"action": "<action_id>", "params": {{...}}, "reasoning": "a chemist's reason, one or two sentences"}}.
To take a model proposal or a search route's step, use action custom_reaction with params.reaction_smiles set to its
reaction SMILES. "use_default" applies the rule default described in the actions. Never invent atom indices: use
those of atom_bond_map. Answer with JSON only."""

FINAL_SUMMARY_PROMPT = """You write the final answer of molx-agent for a medicinal chemist, in {language_name}.
Below are the user's request and the workers' results (summaries, numbers, report paths). Write 2-6 sentences that
answer the request. Use only facts and numbers that appear in the results: never compute, round differently or invent
a number. Do not list file paths (they are appended). Answer with JSON only: {{"summary": "..."}}"""

FINAL_ANSWER_HEADERS = {
    "en": {
        "intent": "Intent",
        "reports": "Reports",
        "errors": "Problems",
        "nothing": "No task produced a result.",
        "skipped": "skipped",
        "failed": "failed",
        "tried": "What was tried",
        "attempt": "attempt",
        "outcome": "Why the result is what it is",
        "dropped": "Not run (would add nothing)",
        "hint": "fix",
    },
    "zh": {
        "intent": "意图",
        "reports": "报告",
        "errors": "问题",
        "nothing": "没有任务产生结果。",
        "skipped": "已跳过",
        "failed": "失败",
        "tried": "尝试过的方案",
        "attempt": "第",
        "outcome": "结果说明",
        "dropped": "未运行（不会带来新信息）",
        "hint": "修正方法",
    },
}

#: Chinese message and hint for the input errors a worker raises with English text (the answer of a Chinese query
#: shows these instead; ``None`` keeps the worker's own text).
INPUT_ERRORS_ZH: dict[str, tuple[str | None, str]] = {
    "no_molecule": (None, "给出 SMILES（例如 CC(=O)Oc1ccccc1C(=O)O）或常用名（例如 阿司匹林）；表中没有的取代衍生物名称"
                          "（如 4-氟苯胺）请给 SMILES"),
    "no_target": ("没有可用于路线搜索的目标分子",
                  "用 SMILES 或已知药物名给出目标分子，例如“请为 CC(=O)Nc1ccc(O)cc1 设计合成路线”"),
    "no_reaction": ("没有可验证的反应 SMILES，也没有可验证的路线",
                    "把反应写成“反应物>>产物”，例如 CC(=O)Cl.Nc1ccc(O)cc1>>CC(=O)Nc1ccc(O)cc1"),
    "no_data_file": ("没有给出数据文件",
                     "给出 CSV/Excel/SDF 文件，例如 molx-agent run --data series.csv"),
    "multiple_sheets": (None, "在请求中写明工作表（例如“sheet Ki”），或运行 `molx-agent sar FILE --sheet NAME`"),
}

INTENT_LABELS = {
    "en": {
        "retrosynthesis": "retrosynthesis",
        "sar_analysis": "SAR analysis",
        "molecule_query": "molecule query",
        "reaction_validation": "reaction validation",
        "data_processing": "data processing",
        "synthesis_of_hits": "synthesis of hits",
        "unsupported": "unsupported",
    },
    "zh": {
        "retrosynthesis": "逆合成分析",
        "sar_analysis": "构效关系(SAR)分析",
        "molecule_query": "分子查询",
        "reaction_validation": "反应验证",
        "data_processing": "数据处理",
        "synthesis_of_hits": "活性化合物的合成路线",
        "unsupported": "不支持的请求",
    },
}

#: Route verdicts (accept / weak / reject), step verdicts (plausible / implausible / invalid) and confidences in Chinese.
VERDICT_ZH = {"accept": "可接受", "weak": "较弱", "reject": "不可接受", "plausible": "合理", "implausible": "不合理",
              "invalid": "无效", "high": "高", "medium": "中", "low": "低"}


def verdict_zh(word: object) -> str:
    """A verdict or confidence word in Chinese (the word itself when there is no translation)."""
    return VERDICT_ZH.get(str(word), str(word))


#: The first sentence of a route judgement over every target, by overall verdict (``accept``: each target has an
#: acceptable route, not "every route is acceptable": the per-target sentences after it count the routes).
ROUTE_JUDGEMENT_HEAD = {
    "en": {"accept": "Route judgement: every target has an acceptable route.",
           "weak": "Route judgement: weak routes or unsolved targets remain.",
           "reject": "Route judgement: no acceptable route."},
    "zh": {"accept": "路线评估：每个目标都有可接受的路线。",
           "weak": "路线评估：仍有较弱的路线或未解出的目标。",
           "reject": "路线评估：没有可接受的路线。"},
}


def route_judgement_head(verdict: str, lang: str) -> str:
    """:data:`ROUTE_JUDGEMENT_HEAD` for ``verdict`` in ``lang`` (``zh``, else English)."""
    return ROUTE_JUDGEMENT_HEAD["zh" if lang == "zh" else "en"][verdict]


__all__ = [
    "INTENT_CLASSIFIER_PROMPT",
    "PLANNER_SYSTEM_PROMPT",
    "REFLECT_SYSTEM_PROMPT",
    "OPTIMIZE_SYSTEM_PROMPT",
    "TOOL_AGENT_SYSTEM_PROMPT",
    "GUIDED_DECISION_PROMPT",
    "FINAL_SUMMARY_PROMPT",
    "FINAL_ANSWER_HEADERS",
    "INTENT_LABELS",
    "VERDICT_ZH",
    "ROUTE_JUDGEMENT_HEAD",
    "route_judgement_head",
    "verdict_zh",
]
