"""Written findings of a SAR run: a deterministic summary of the strongest signals, or the LLM's when one is
injected (its answer must be a non-empty list of strings; otherwise the deterministic text is used).

Every sentence is built from numbers computed in the run; nothing is invented.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

import numpy as np
from pydantic import BaseModel

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
    "site": {
        "en": "Site {pos} of series {sid} ({n} compounds decomposed, {k} substituents), mean {label}: {ranking}.",
        "zh": "系列 {sid} 的 {pos} 位（{n} 个化合物完成拆分，{k} 种取代基），{label} 均值：{ranking}。",
    },
    "site_range": {
        "en": "At {pos} (series {sid}), among substituents seen at least twice, {best} (mean {bm:.2f}, n={bn}) beats "
              "{worst} (mean {wm:.2f}, n={wn}) by {d:.2f} log units.",
        "zh": "{pos} 位（系列 {sid}）出现至少两次的取代基中，{best}（均值 {bm:.2f}，n={bn}）比 {worst}（均值 {wm:.2f}，"
              "n={wn}）高 {d:.2f} 个对数单位。",
    },
    "site_ocat": {
        "en": "Cleanest {pos} comparison in series {sid} (everything else fixed: {fixed}): {members}; range {r:.2f}.",
        "zh": "系列 {sid} 中最干净的 {pos} 位比较（其余位置固定：{fixed}）：{members}；跨度 {r:.2f}。",
    },
    "site_no_ocat": {
        "en": "No {pos} comparison in series {sid} holds every other position constant (no OCAT series).",
        "zh": "系列 {sid} 中没有其余位置都相同的 {pos} 位比较（无 OCAT 系列）。",
    },
    "subset": {
        "en": "Chosen compounds ({n}): {items}.",
        "zh": "所选化合物（{n} 个）：{items}。",
    },
    "subset_cliffs": {
        "en": "{k} activity-cliff pair(s) involve them; the strongest: {a} vs {b}, {fc:.0f}-fold.",
        "zh": "其中 {k} 对活性悬崖涉及这些化合物；最显著的是 {a} 与 {b}，相差 {fc:.0f} 倍。",
    },
    "subset_no_cliffs": {"en": "None of them is in an activity-cliff pair.", "zh": "这些化合物都不在活性悬崖对中。"},
    "subset_mmp": {
        "en": "{k} matched pair(s) involve them; the largest change: {a} → {b} ({t}), Δ{label} {d:+.2f}.",
        "zh": "其中 {k} 个匹配分子对涉及这些化合物；变化最大的是 {a} → {b}（{t}），Δ{label} {d:+.2f}。",
    },
    "subset_no_mmp": {"en": "None of them is in a matched pair.", "zh": "这些化合物都不在匹配分子对中。"},
}


_ISO = {"en": "; identical fingerprints: stereoisomers or close analogues", "zh": "；指纹相同：立体异构体或极近类似物"}


def _t(key: str, lang: str, **kw: Any) -> str:
    return _T[key]["zh" if lang == "zh" else "en"].format(**kw)


def transformation_label(smirks_or_side: str) -> str:
    """``[*:1]F>>[*:1]OC`` -> ``*F → *OC``; one side ``[*:1]c1ccccc1`` -> ``*c1ccccc1``."""
    from molx_agent.sar.rgroup import substituent_label

    if ">>" in smirks_or_side:
        lhs, _, rhs = smirks_or_side.partition(">>")
        return f"{transformation_label(lhs)} → {transformation_label(rhs)}"
    if smirks_or_side.count("*") != 1:  # two or three cuts: keep mmpdb's numbered attachment points
        return smirks_or_side
    return substituent_label(smirks_or_side)


MAX_RANKED = 8
MAX_SITE_SERIES = 3


def site_insights(result: SARResult, site: str, language: str = "en") -> list[str]:
    """What position ``site`` (e.g. ``R1``) does in each series that has it: the ranking of its substituents by
    mean potency, the spread among those seen at least twice, and the cleanest one-change-at-a-time series."""
    lang = language
    label = result.activity_label
    out: list[str] = []
    tables = [t for t in result.rgroup_tables if site in t.positions][:MAX_SITE_SERIES]
    for t in tables:
        stats = t.position_stats(site)
        if not stats:
            continue
        shown = stats[:MAX_RANKED]
        ranking = " > ".join(f"{x['substituent']} {x['mean']:.2f} (n={x['n']})" for x in shown)
        if len(stats) > len(shown):
            ranking += " > …" if lang != "zh" else " > ……"
        out.append(_t("site", lang, pos=site, sid=t.series_id, n=len(t.rows), k=len(stats), label=label,
                      ranking=ranking))
        multi = [x for x in stats if x["n"] >= 2]
        if len(multi) >= 2:
            b, w = multi[0], multi[-1]
            out.append(_t("site_range", lang, pos=site, sid=t.series_id, best=b["substituent"], bm=b["mean"],
                          bn=b["n"], worst=w["substituent"], wm=w["mean"], wn=w["n"], d=b["mean"] - w["mean"]))
        oc = [o for o in result.ocat if o["series_id"] == t.series_id and o["position"] == site]
        if oc:
            o = oc[0]  # largest, then widest range first
            fixed = ", ".join(f"{k}={v}" for k, v in o["fixed"].items() if v != "H") or (
                "其余均为 H" if lang == "zh" else "all H")
            members = " > ".join(f"{m['substituent']} ({m['id']}, {m['p_activity']:.2f})" for m in o["members"][:8])
            if len(o["members"]) > 8:
                members += f" … (+{len(o['members']) - 8})"
            out.append(_t("site_ocat", lang, pos=site, sid=t.series_id, fixed=fixed, members=members, r=o["range"]))
        else:
            out.append(_t("site_no_ocat", lang, pos=site, sid=t.series_id))
    return out


def subset_insights(result: SARResult, ids: tuple[str, ...] | list[str], language: str = "en") -> list[str]:
    """The chosen compounds: their potencies and series, and the cliff and matched pairs that involve them."""
    from molx_agent.sar.pipeline import subset_mask

    lang = language
    label = result.activity_label
    comp = result.compounds[subset_mask(result.compounds, ids)]
    chosen = set(comp["id"].astype(str))
    items = []
    for r in comp.sort_values("p_activity", ascending=False).head(10).itertuples():
        pot = f"{label} {r.qualifier}{r.p_activity:.2f}" if r.p_activity == r.p_activity else f"{label} -"
        where = (f", 系列 {r.series_id}" if lang == "zh" else f", series {r.series_id}") if r.series_id else ""
        items.append(f"{r.id} ({pot}{where})")
    if len(comp) > 10:
        items.append("…")
    out = [_t("subset", lang, n=len(comp), items=("；" if lang == "zh" else "; ").join(items))]
    cl = [c for c in result.cliffs.pairs if c.id_a in chosen or c.id_b in chosen]
    if cl:
        top = cl[0]
        out.append(_t("subset_cliffs", lang, k=len(cl), a=top.id_a, b=top.id_b, fc=top.fold_change))
    else:
        out.append(_t("subset_no_cliffs", lang))
    mp = [p for p in result.mmp.pairs if p["id_a"] in chosen or p["id_b"] in chosen]
    if mp:
        top = mp[0]  # largest |Δ| first
        out.append(_t("subset_mmp", lang, k=len(mp), a=top["id_a"], b=top["id_b"],
                      t=transformation_label(top["transformation"]), label=label, d=top["delta_p"]))
    else:
        out.append(_t("subset_no_mmp", lang))
    return out


def deterministic_insights(result: SARResult, language: str = "en") -> list[str]:
    """The strongest findings of ``result`` as short sentences in ``language`` (``en``/``zh``).

    In site mode (``site:R1``) the findings on that position come first, in subset mode those on the chosen
    compounds; the findings on the whole set follow.
    """
    lang = language
    out: list[str] = []
    mode = result.mode
    if mode.kind == "site" and mode.site:
        out += site_insights(result, mode.site, lang)
    elif mode.kind == "subset":
        out += subset_insights(result, mode.ids, lang)
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
        out.append(_t("mmp", lang, t=transformation_label(t["transformation"]), label=label, m=t["mean_delta"], n=t["count"],
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


class LLMInsights(BaseModel):
    """What the LLM must answer when asked to word the SAR findings."""

    insights: list[str]


def llm_insights(result: SARResult, llm: Any, language: str = "en") -> list[str] | None:
    """Ask the injected LLM to word the findings; None when its answer is unusable."""
    facts = deterministic_insights(result, language)
    prompt = (
        "You are a medicinal chemist. From these computed SAR findings, write 3-6 concise insights for a project "
        f"meeting in {'Chinese' if language == 'zh' else 'English'}. Use only the numbers given. "
        + (f"The user asked about {result.mode.label}: start with that. " if result.mode.kind != "full" else "")
        + "Answer a JSON list "
        "of strings.\nFindings:\n" + json.dumps(facts, ensure_ascii=False)
    )
    ask_json = getattr(llm, "ask_json", None)  # the agents' LLM client: structured output, validated, backoff
    if callable(ask_json):
        answer = ask_json(prompt.replace("Answer a JSON list of strings.", 'Answer JSON: {"insights": [strings]}.'),
                          LLMInsights)
        data = answer.insights if answer is not None else None
    else:
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


__all__ = ["build_insights", "deterministic_insights", "llm_insights", "site_insights", "subset_insights",
           "transformation_label"]
