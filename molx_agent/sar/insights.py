"""Written findings of a SAR run: a deterministic summary of the strongest signals, or the LLM's when one is
injected (its answer must be a non-empty list of strings; otherwise the deterministic text is used).

Every sentence is built from numbers computed in the run; nothing is invented.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from molx_agent.sar.pipeline import SARResult

logger = logging.getLogger(__name__)

_T = {
    "dataset": {
        "en": "{n} compounds after cleaning ({label} {lo:.1f}-{hi:.1f}, median {med:.1f}); {ns} chemical series, "
              "{nu} compounds in no series.",
        "zh": "清洗后共 {n} 个化合物（{label} {lo:.1f}-{hi:.1f}，中位数 {med:.1f}）；{ns} 个化学系列，{nu} 个化合物不属于任何系列。",
    },
    "series": {
        "en": "Series {sid} ({size} compounds, core {core} from {src}): the most sensitive site is {pos} -- {best} "
              "(mean {bm:.2f}, n={bn}) vs {worst} (mean {wm:.2f}, n={wn}), Δ {d:.2f} log units.",
        "zh": "系列 {sid}（{size} 个化合物，核心 {core}，来源 {src}）：最敏感的位点是 {pos} —— {best}（均值 {bm:.2f}，n={bn}）对比 "
              "{worst}（均值 {wm:.2f}，n={wn}），相差 {d:.2f} 个对数单位。",
    },
    "mmp": {
        "en": "Matched pairs: {t} changes {label} by {m:+.2f} on average (n={n}, SD {sd}).",
        "zh": "匹配分子对：{t} 使 {label} 平均变化 {m:+.2f}（n={n}，SD {sd}）。",
    },
    "cliffs": {
        "en": "{np} activity-cliff pairs involve {nm} compounds ({frac:.0%} of those with exact potencies); the "
              "strongest: {a} vs {b}, {fc:.0f}-fold (Tanimoto {tan:.2f}{iso}).",
        "zh": "共 {np} 对活性悬崖，涉及 {nm} 个化合物（占有确切活性值化合物的 {frac:.0%}）；最显著的是 {a} 与 {b}，相差 {fc:.0f} 倍"
              "（Tanimoto {tan:.2f}{iso}）。",
    },
    "no_cliffs": {"en": "No activity cliffs (MoleculeACE definition) in this set.",
                  "zh": "该数据集中没有活性悬崖（MoleculeACE 定义）。"},
    "best": {
        "en": "Most potent: {pid} ({label} {p:.2f}, LLE {lle:.1f}); best LLE: {lid} (LLE {l2:.1f}, {label} {p2:.2f}).",
        "zh": "活性最高：{pid}（{label} {p:.2f}，LLE {lle:.1f}）；LLE 最佳：{lid}（LLE {l2:.1f}，{label} {p2:.2f}）。",
    },
    "logp": {
        "en": "Potency tracks cLogP (Pearson r = {r:.2f}): gains may be lipophilicity-driven; watch LLE.",
        "zh": "活性与 cLogP 相关（Pearson r = {r:.2f}）：活性提升可能来自亲脂性，请关注 LLE。",
    },
    "quality": {
        "en": "Data: {ne} row(s) rejected, {nd} replicate row(s) merged; {w}",
        "zh": "数据：{ne} 行被拒绝，{nd} 行重复测定已合并；{w}",
    },
}


_ISO = {"en": "; identical fingerprints: stereoisomers or close analogues", "zh": "；指纹相同：立体异构体或极近类似物"}


def _t(key: str, lang: str, **kw: Any) -> str:
    return _T[key]["zh" if lang == "zh" else "en"].format(**kw)


def deterministic_insights(result: SARResult, language: str = "en") -> list[str]:
    """The strongest findings of ``result`` as short sentences in ``language`` (``en``/``zh``)."""
    lang = language
    out: list[str] = []
    comp = result.compounds
    label = result.activity_label
    exact = comp[comp["exact"]]
    if len(exact):
        p = exact["p_activity"].to_numpy(dtype=float)
        out.append(_t("dataset", lang, n=len(comp), label=label, lo=p.min(), hi=p.max(), med=float(np.median(p)),
                      ns=len(result.series), nu=len(result.unassigned)))
    tables = {t.series_id: t for t in result.rgroup_tables}
    for s in result.series[:3]:
        t = tables.get(s.id)
        if t is None:
            continue
        best_site = None
        for site in t.site_summary():
            if site["mean_range_n2"] is not None and (best_site is None or site["mean_range_n2"] > best_site["mean_range_n2"]):
                best_site = site
        if best_site is None:
            continue
        stats = [x for x in t.position_stats(best_site["position"]) if x["n"] >= 2]
        b, w = stats[0], stats[-1]
        out.append(_t("series", lang, sid=s.id, size=s.size, core=s.core_smiles, src=s.core_source,
                      pos=best_site["position"], best=b["substituent"], bm=b["mean"], bn=b["n"],
                      worst=w["substituent"], wm=w["mean"], wn=w["n"], d=b["mean"] - w["mean"]))
    strong = [t for t in result.mmp.transforms if t["count"] >= 3 and abs(t["mean_delta"]) >= 0.5]
    strong.sort(key=lambda t: (-abs(t["mean_delta"]) * min(t["count"], 10)))
    seen_pairs: list[frozenset] = []
    shown = []
    for t in strong:  # the same pairs cut at another bond are the same finding
        key = frozenset(map(tuple, t["pairs"]))
        if any(key == k for k in seen_pairs):
            continue
        seen_pairs.append(key)
        shown.append(t)
        if len(shown) == 3:
            break
    for t in shown:
        out.append(_t("mmp", lang, t=f"{t['from']} → {t['to']}", label=label, m=t["mean_delta"], n=t["count"],
                      sd=t["sd_delta"]))
    cl = result.cliffs
    if cl.pairs:
        top = cl.pairs[0]
        out.append(_t("cliffs", lang, np=len(cl.pairs), nm=cl.n_cliff_molecules,
                      frac=cl.n_cliff_molecules / max(cl.n_compared, 1), a=top.id_a, b=top.id_b, fc=top.fold_change,
                      tan=top.tanimoto_ecfp4, iso=_ISO["zh" if lang == "zh" else "en"] if top.tanimoto_ecfp4 >= 1.0 else ""))
    else:
        out.append(_t("no_cliffs", lang))
    if len(exact) and exact["lle"].notna().any():
        bp = exact.loc[exact["p_activity"].idxmax()]
        bl = exact.loc[exact["lle"].idxmax()]
        out.append(_t("best", lang, pid=bp["id"], label=label, p=bp["p_activity"], lle=bp["lle"], lid=bl["id"],
                      l2=bl["lle"], p2=bl["p_activity"]))
        if len(exact) >= 10:
            r = float(np.corrcoef(exact["p_activity"].astype(float), exact["clogp"].astype(float))[0, 1])
            if r == r and r >= 0.4:
                out.append(_t("logp", lang, r=r))
    c = result.clean
    if c.n_errors or c.n_duplicates_merged or c.warnings:
        out.append(_t("quality", lang, ne=c.n_errors, nd=c.n_duplicates_merged, w="; ".join(c.warnings) or "-"))
    return out


def llm_insights(result: SARResult, llm: Any, language: str = "en") -> list[str] | None:
    """Ask the injected LLM to word the findings; None when its answer is unusable."""
    facts = deterministic_insights(result, language)
    prompt = (
        "You are a medicinal chemist. From these computed SAR findings, write 3-6 concise insights for a project "
        f"meeting in {'Chinese' if language == 'zh' else 'English'}. Use only the numbers given. Answer a JSON list "
        "of strings.\nFindings:\n" + json.dumps(facts, ensure_ascii=False)
    )
    try:
        reply = llm.invoke(prompt)
        text = str(getattr(reply, "content", reply)).strip()
        data = json.loads(text[text.find("["): text.rfind("]") + 1])
    except Exception as exc:  # noqa: BLE001 - any LLM failure falls back to the deterministic text
        logger.info("LLM insights unusable (%s); using the deterministic summary", exc)
        return None
    if not isinstance(data, list) or not data or not all(isinstance(x, str) and x.strip() for x in data):
        return None
    return [x.strip() for x in data]


def build_insights(result: SARResult, language: str = "en", llm: Any = None) -> tuple[list[str], str]:
    """``(sentences, source)`` where source is ``"llm"`` or ``"rules"``."""
    if llm is not None:
        got = llm_insights(result, llm, language)
        if got:
            return got, "llm"
    return deterministic_insights(result, language), "rules"


__all__ = ["build_insights", "deterministic_insights", "llm_insights"]
