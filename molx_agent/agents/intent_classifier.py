"""Intent classification: rules (SMILES/reaction/file detection, EN+ZH keywords, name table) or LLM.

``IntentClassifierAgent(llm=None).classify(query, input_files)`` returns an :class:`IntentResult`.
Entity extraction (:func:`extract_entities`) is always rule-based and shared with the planner, so an
LLM can change the intent but never invents molecules.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from molx_agent.agents.modules.llm import history_messages, invoke_structured
from molx_agent.agents.modules.prompts import INTENT_CLASSIFIER_PROMPT
from molx_agent.agents.modules.state import INTENTS, AgentState

logger = logging.getLogger(__name__)

IntentName = Literal[
    "retrosynthesis", "sar_analysis", "molecule_query", "reaction_validation",
    "data_processing", "synthesis_of_hits", "unsupported",
]

#: Data files the SAR/data workers read (kept equal to ``molx_agent.sar.io.SUPPORTED_SUFFIXES``; a test checks).
DATA_EXTENSIONS = (".csv", ".tsv", ".tab", ".txt", ".smi", ".xlsx", ".xlsm", ".sdf", ".sd")
_CJK = re.compile(r"[\u3400-\u9fff]")
_SMILES_TOKEN = re.compile(r"[A-Za-z0-9@+\-\[\]\(\)=#$%/\\.:~*>]+")
_ORGANIC_WORD = re.compile(r"^(?:Cl|Br|[CNOSPFI])+$")
# starts only at a token boundary: without the look-behind a long run of word characters is rescanned from each
# position (quadratic: 28 s on a 100,000-character token)
_FILE_TOKEN = re.compile(r"(?<![\w\-./\\])[\w\-./\\]+\.(?:csv|tsv|tab|xlsx|xlsm|sdf|sd|smi)\b", re.IGNORECASE)

#: Keywords per signal, English (lower-case, matched as substrings of the lower-cased query) and Chinese.
KEYWORDS: dict[str, tuple[str, ...]] = {
    "retro": ("retrosynth", "retro-synth", "synthesis", "synthesize", "synthesise", "synthetic route",
              "route", "disconnect", "make ", "prepare", "逆合成", "合成", "路线", "制备", "切断"),
    "sar": ("sar", "structure-activity", "structure activity", "activity cliff", "r-group", "rgroup",
            "matched molecular pair", "mmp", "scaffold", "series", "ic50", "potency", "构效", "活性",
            "骨架", "取代基", "活性悬崖", "分子对"),
    "hits": ("best compound", "top compound", "hits", "most potent", "most active", "best hit",
             "最活跃", "最优", "活性最好", "苗头", "先导"),
    "clean": ("clean", "standardi", "deduplic", "normali", "curate", "清洗", "标准化", "去重", "整理"),
    "validate": ("validate", "validation", "check", "balanced", "feasible", "feasibility", "verify",
                 "valid", "验证", "检查", "配平", "可行"),
    "property": ("molecular weight", "mol weight", "mw ", "logp", "clogp", "tpsa", "psa", "qed", "sa score",
                 "lipinski", "property", "properties", "descriptor", "formula", "mass", "donor", "acceptor",
                 "rotatable", "functional group", "ring", "drug-like", "druglike", "what is", "analy",
                 "分子量", "性质", "理化", "描述符", "分子式", "质量", "氢键", "官能团", "类药", "极性表面积",
                 "脂水分配", "可旋转", "分析", "是什么"),
}

INTENT_RESPONSES: dict[str, dict[str, str]] = {
    "unsupported": {
        "en": ("I can help with medicinal chemistry: molecular properties (e.g. \"What is the logP of "
               "aspirin?\"), retrosynthesis (\"Plan a synthesis of paracetamol\"), reaction validation "
               "(give a reaction SMILES), SAR analysis and data cleaning of a compound file (--data "
               "series.csv). Your request does not look like one of these; please rephrase it."),
        "zh": ("我可以帮助药物化学相关的工作：分子性质查询（如“阿司匹林的 logP 是多少？”）、逆合成路线设计"
               "（如“设计对乙酰氨基酚的合成路线”）、反应验证（提供反应 SMILES）、化合物数据文件的 SAR 分析与"
               "数据清洗（--data series.csv）。您的请求不属于这些范围，请换一种说法。"),
    },
}


class IntentResult(BaseModel):
    """Outcome of classification."""

    intent: IntentName
    confidence: float = Field(ge=0.0, le=1.0)
    reasoning: list[str] = Field(default_factory=list)
    language: Literal["en", "zh"] = "en"
    source: Literal["rules", "llm"] = "rules"


class _LLMIntent(BaseModel):
    intent: IntentName
    confidence: float = Field(ge=0.0, le=1.0)
    reasoning: list[str] = Field(default_factory=list)


class Entities(BaseModel):
    """Molecules, reactions and files found in a query by rules."""

    smiles: list[str] = Field(default_factory=list)
    names: list[str] = Field(default_factory=list)
    reaction_smiles: list[str] = Field(default_factory=list)
    files: list[str] = Field(default_factory=list)

    def brief(self) -> dict[str, Any]:
        return self.model_dump()


def detect_language(text: str) -> Literal["en", "zh"]:
    """``"zh"`` when the text contains CJK characters, else ``"en"``."""
    return "zh" if _CJK.search(text or "") else "en"


def _quiet_parse(smiles: str) -> Any:
    """The molecule, or ``None``; text longer than the SMILES limit is not parsed (RDKit's parse time grows
    faster than linearly on huge tokens; such a SMILES is refused later with a clear message anyway)."""
    from rdkit import Chem, RDLogger

    from molx_agent.limits import current_limits

    if len(smiles) > current_limits().max_smiles_chars:
        return None
    RDLogger.DisableLog("rdApp.*")
    try:
        return Chem.MolFromSmiles(smiles)
    finally:
        RDLogger.EnableLog("rdApp.*")


_NOT_SMILES = {"no", "co", "so", "sn", "in", "on", "of", "is", "as", "at", "it", "ic50", "ec50", "pic50", "cc50",
               "ld50", "ed50", "gi50", "ki", "kd", "r1", "r2", "r3", "r4"}


def _smiles_syntax(token: str) -> bool:
    """Unmistakable SMILES syntax (bonds, branches, brackets, or atoms with ring-closure digits)."""
    if token.lower() in _NOT_SMILES or re.fullmatch(r"[A-Za-z][a-z]+", token):
        return False
    outside_brackets = re.sub(r"\[[^\]]*\]", "", token)
    if not re.fullmatch(r"(?:Cl|Br|[BCNOSPFIcnosp]|[^A-Za-z])+", outside_brackets) or not re.search(r"[A-Za-z]", token):
        return False  # letters that are not organic-subset atoms: prose such as "(e.g" or "R1=Me"
    return bool(re.search(r"[()=#\[\]@]", token)) or bool(
        len(token) >= 4 and re.search(r"\d", token) and re.fullmatch(r"(?:Cl|Br|[BCNOSPFIcnosp]|\d|%\d\d)+", token)
    )


_BRACKET_ATOMS = re.compile(r"\[[^\[\]]*[A-Z][^\[\]]*\](?:\.?\[[^\[\]]*[A-Z][^\[\]]*\])*")


def _looks_like_smiles(token: str) -> bool:
    if _BRACKET_ATOMS.fullmatch(token):  # single-atom species and salts: [NH4+], [Fe], [Na+].[Cl-]
        mol = _quiet_parse(token)
        return mol is not None and mol.GetNumAtoms() >= 1
    if len(token) < 2 or token.lower() in _NOT_SMILES:
        return False
    has_syntax = bool(re.search(r"[()=#\[\]@0-9]", token)) or bool(re.search(r"[cnos]", token))
    if not has_syntax and not (_ORGANIC_WORD.match(token) and len(token) >= 3):
        return False
    if re.fullmatch(r"[A-Za-z][a-z]+", token):  # plain words ("Aspirin", "scan")
        return False
    mol = _quiet_parse(token)
    return mol is not None and mol.GetNumHeavyAtoms() >= 2


def _is_reaction(token: str) -> bool:
    """``reactants>reagents>products`` whose molecules parse or at least look like SMILES.

    A reaction with a broken molecule (``CC(=O)Cl.c1cccc1N>>...``) is still a reaction: the validation
    worker names the offending molecule instead of the query being called unsupported.
    """
    if ">" not in token:
        return False
    parts = token.split(">")
    if len(parts) != 3 or not parts[0] or not parts[2]:
        return False
    molecules = [p for side in (parts[0], parts[2]) for p in side.split(".") if p]
    if not molecules:
        return False
    parsed = [_quiet_parse(p) is not None for p in molecules]
    return any(parsed) and all(ok or _smiles_syntax(p) or _ORGANIC_WORD.match(p) for ok, p in zip(parsed, molecules, strict=True))


def _strip_unbalanced(token: str) -> str:
    """Drop parentheses that belong to the prose around a token: "(CCO)" -> "CCO", "CCO)," -> "CCO".

    Linear in the token's length (the counts are kept, not recounted)."""
    opened, closed = token.count("("), token.count(")")
    start, end = 0, len(token)
    while start < end and token[start] == "(" and opened > closed:
        start += 1
        opened -= 1
    while start < end and token[end - 1] == ")" and closed > opened:
        end -= 1
        closed -= 1
        while start < end and token[end - 1] in ".,;:!?":
            end -= 1  # no parenthesis among these characters: the counts stay
    token = token[start:end]
    if token.startswith("(") and token.endswith(")") and opened == 1:
        token = token[1:-1]
    return token


def extract_entities(query: str, input_files: list[str] | None = None) -> Entities:
    """SMILES, reaction SMILES, known names and data files in ``query`` (plus ``input_files``)."""
    from molx_agent.chem.names import find_name_matches

    ents = Entities(files=[str(f) for f in (input_files or [])])
    text = query if isinstance(query, str) else ""
    # membership in sets, not lists, and each distinct token judged once: linear in the query's length
    files, smiles, reactions, judged = set(ents.files), set(), set(), set()
    for m in _FILE_TOKEN.finditer(text):
        if m.group(0) not in files and Path(m.group(0)).suffix.lower() in DATA_EXTENSIONS:
            files.add(m.group(0))
            ents.files.append(m.group(0))
    for m in _SMILES_TOKEN.finditer(text):
        token = _strip_unbalanced(m.group(0).rstrip(".,;:!?"))
        if token in judged:
            continue
        judged.add(token)
        if _FILE_TOKEN.fullmatch(token):
            continue
        if _is_reaction(token):
            reactions.add(token)
            ents.reaction_smiles.append(token)
        elif ">" not in token and (_looks_like_smiles(token) or _smiles_syntax(token)):
            smiles.add(token)
            ents.smiles.append(token)  # a SMILES-looking token that does not parse is kept: the worker reports it
    seen: set[str] = set()
    for match in find_name_matches(text):
        if match.name in seen:
            continue
        seen.add(match.name)
        ents.names.append(match.matched)  # as the user wrote it (resolve_name accepts every alias)
        if match.smiles not in smiles:
            smiles.add(match.smiles)
            ents.smiles.append(match.smiles)
    return ents


def _hits(signal: str, text: str) -> list[str]:
    """Keywords of ``signal`` in ``text``; English ones must start at a word boundary ("sar" not in "necessary")."""
    low = text.lower()
    out = []
    for k in KEYWORDS[signal]:
        if _CJK.search(k):
            if k in low:
                out.append(k)
        elif re.search(r"(?<![a-z0-9])" + re.escape(k.strip()) + (r"(?![a-z])" if k.endswith(" ") else ""), low):
            out.append(k.strip())
    return out


def classify_by_rules(query: str, ents: Entities) -> IntentResult:
    lang = detect_language(query)
    hits = {s: _hits(s, query) for s in KEYWORDS}
    why: list[str] = []
    if ents.files:
        why.append(f"data files: {', '.join(ents.files)}")
    if ents.reaction_smiles:
        why.append(f"reaction SMILES: {', '.join(ents.reaction_smiles)}")
    if ents.smiles:
        why.append(f"molecules: {', '.join(ents.names or ents.smiles)}")
    for s, h in hits.items():
        if h:
            why.append(f"{s} keywords: {', '.join(k.strip() for k in h)}")

    def done(intent: str, conf: float, reason: str) -> IntentResult:
        return IntentResult(intent=intent, confidence=conf, reasoning=[*why, reason], language=lang)  # type: ignore[arg-type]

    if ents.reaction_smiles:
        return done("reaction_validation", 0.9 if hits["validate"] else 0.8, "a reaction SMILES was given")
    if ents.files:
        if hits["retro"] and (hits["sar"] or hits["hits"]):
            return done("synthesis_of_hits", 0.85, "a data file with SAR and synthesis keywords")
        if hits["retro"] and hits["hits"]:
            return done("synthesis_of_hits", 0.8, "a data file and a request for routes to the best compounds")
        if hits["clean"] and not hits["sar"]:
            return done("data_processing", 0.85, "a data file with cleaning keywords")
        return done("sar_analysis", 0.85 if hits["sar"] else 0.6, "a compound data file was given")
    if hits["retro"] and (ents.smiles or re.search(r"retro|逆合成", query, re.IGNORECASE)):
        conf = 0.9 if ents.smiles else 0.5
        return done("retrosynthesis", conf, "synthesis keywords" + (" and a target molecule" if ents.smiles else ""))
    if hits["sar"] and not ents.smiles:
        return done("sar_analysis", 0.5, "SAR keywords but no data file (use --data)")
    if ents.smiles:
        return done("molecule_query", 0.9 if hits["property"] else 0.7, "a molecule was given")
    if hits["property"] and any(k not in ("what is", "是什么", "analy", "分析") for k in hits["property"]):
        return done("molecule_query", 0.5, "property keywords but no molecule recognised")
    return done("unsupported", 0.6, "no molecule, reaction, data file or chemistry keyword found")


class IntentClassifierAgent:
    """Classifies a query into one of :data:`INTENTS`; writes ``intent*`` and ``language`` to the state."""

    name = "intent_classifier"

    def __init__(self, llm: Any = None) -> None:
        self.llm = llm

    def classify(self, user_query: str, input_files: list[str] | None = None,
                 history: list[Any] | None = None) -> IntentResult:
        """Rules, then (with an LLM) its structured answer; ``history``: the last turns of the conversation
        (messages before this query) so that a follow-up ("and its logP?") is understood."""
        ents = extract_entities(user_query, input_files)
        rules = classify_by_rules(user_query, ents)
        if self.llm is None:
            return rules
        prompt = INTENT_CLASSIFIER_PROMPT.format(entities=ents.brief())
        answer = invoke_structured(self.llm, prompt, user_query, _LLMIntent, what="intent classification",
                                   history=history)
        if answer is None:
            rules.reasoning.append("LLM answer unavailable or invalid; rules used")
            return rules
        # Files/reactions are facts: an LLM may not route a file-less query to a file-based intent.
        if answer.intent in ("sar_analysis", "data_processing", "synthesis_of_hits") and not ents.files:
            rules.reasoning.append(f"LLM said {answer.intent} but no data file was given; rules used")
            return rules
        return IntentResult(intent=answer.intent, confidence=answer.confidence, reasoning=answer.reasoning,
                            language=rules.language, source="llm")

    @staticmethod
    def is_supported(intent: str) -> bool:
        return intent in INTENTS and intent != "unsupported"

    def run(self, state: AgentState) -> dict[str, Any]:
        query = state.get("user_query", "")
        files = list(state.get("input_files") or [])
        history = history_messages(state.get("messages")) if self.llm is not None else None
        extra = {"history": history} if history else {}  # subclasses overriding classify(query, files) still work
        result = self.classify(query, files, **extra)
        update: dict[str, Any] = {}
        context = [f for f in state.get("context_files") or [] if f]
        if context and not files and _is_data_follow_up(query, result):
            # "which compound is most potent?" after a SAR turn: the previous turn's data file is meant
            result = self.classify(query, context, **extra)
            result.reasoning.append(f"follow-up question about the previous turn's data: {', '.join(context)}")
            update["input_files"] = context
            update["follow_up"] = True
        update.update({
            "intent": result.intent,
            "intent_confidence": result.confidence,
            "intent_reasoning": result.reasoning,
            "language": result.language,
        })
        return update


def _is_data_follow_up(query: str, result: IntentResult) -> bool:
    """A question that names no file, no molecule and no reaction, but speaks of compounds/potency/SAR."""
    if result.intent not in ("unsupported", "sar_analysis", "molecule_query"):
        return False
    ents = extract_entities(query)
    if ents.smiles or ents.reaction_smiles or ents.files:
        return False
    low = query.lower()
    return bool(_hits("sar", query) or _hits("hits", query) or _hits("clean", query)
                or re.search(r"compound|potent|activ|series|化合物|活性|最强", low))


__all__ = [
    "IntentClassifierAgent",
    "IntentResult",
    "Entities",
    "INTENT_RESPONSES",
    "KEYWORDS",
    "DATA_EXTENSIONS",
    "extract_entities",
    "classify_by_rules",
    "detect_language",
]
