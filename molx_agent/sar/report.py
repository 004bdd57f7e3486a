"""The SAR report: ONE self-contained HTML file (every structure and plot inline, no external URL, no
JavaScript), in three modes:

- ``full``: everything;
- ``site`` (e.g. R1): the R-group statistics, scans and OCAT series of that position only;
- ``subset`` (chosen IDs): the chosen compounds, and the cliff pairs / matched pairs involving them.

Long tables are capped in the HTML (the cap is stated in the table caption); the complete tables sit
beside the report as CSV files.
"""

from __future__ import annotations

import html
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from molx_agent.io_utils import atomic_write_text
from molx_agent.sar.depict import bar_img, core_img, histogram_img, mol_img, scatter_img

if TYPE_CHECKING:  # pragma: no cover
    from molx_agent.sar.pipeline import SARResult

MAX_SERIES = 12
MAX_RGROUP_ROWS = 60
MAX_STATS = 12
MAX_OCAT = 8
MAX_TRANSFORMS = 30
MAX_PAIRS = 30
MAX_CLIFFS = 30
MAX_TOP = 15
MAX_ERRORS = 50
MAX_CHARTS_PER_SERIES = 2
MAX_CHART_SERIES = 4  # bar charts for the largest series only (each chart costs ~0.2 s)

_L = {
    "title": {"en": "SAR report", "zh": "SAR 分析报告"},
    "findings": {"en": "Key findings", "zh": "主要发现"},
    "data": {"en": "Data", "zh": "数据"},
    "plots": {"en": "Potency and properties", "zh": "活性与性质"},
    "series": {"en": "Chemical series and cores", "zh": "化学系列与核心骨架"},
    "rgroups": {"en": "R-group analysis", "zh": "R 基团分析"},
    "mmp": {"en": "Matched molecular pairs (mmpdb)", "zh": "匹配分子对（mmpdb）"},
    "cliffs": {"en": "Activity cliffs (MoleculeACE definition)", "zh": "活性悬崖（MoleculeACE 定义）"},
    "top": {"en": "Most potent compounds", "zh": "活性最高的化合物"},
    "errors": {"en": "Rejected rows", "zh": "被拒绝的行"},
    "methods": {"en": "Methods", "zh": "方法"},
}

CSS = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,'Noto Sans CJK SC',sans-serif;margin:24px;color:#222;max-width:1400px}
h1{font-size:22px}h2{font-size:18px;border-bottom:2px solid #1f77b4;padding-bottom:4px;margin-top:32px}
h3{font-size:15px;margin-top:20px}table{border-collapse:collapse;margin:8px 0;font-size:12px}
th,td{border:1px solid #ddd;padding:3px 6px;vertical-align:middle;text-align:left}th{background:#f1f5f9}
caption{caption-side:top;text-align:left;color:#555;font-size:12px;padding:4px 0}
.num{text-align:right;font-variant-numeric:tabular-nums}.kpi{display:inline-block;margin:4px 16px 4px 0}
.kpi b{font-size:18px;display:block}.warn{color:#9a3412}.muted{color:#666}code.smi{font-size:11px;word-break:break-all}
.plots img{margin:4px;border:1px solid #eee}.up{color:#15803d}.down{color:#b91c1c}ul.findings li{margin:4px 0}
"""


def _e(x: Any) -> str:
    return html.escape("" if x is None else str(x))


def _num(x: Any, nd: int = 2) -> str:
    if x is None or (isinstance(x, float) and x != x):
        return ""
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    return f"{float(x):.{nd}f}"


def _delta(x: float | None) -> str:
    if x is None:
        return ""
    cls = "up" if x > 0 else "down" if x < 0 else ""
    return f'<span class="{cls}">{x:+.2f}</span>'


def _table(headers: list[str], rows: list[list[str]], caption: str = "") -> str:
    head = "".join(f"<th>{_e(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    cap = f"<caption>{_e(caption)}</caption>" if caption else ""
    return f"<table>{cap}<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _capped(n_shown: int, n_total: int, csv_name: str) -> str:
    return f"showing {n_shown} of {n_total}" + (f"; full table in {csv_name}" if n_shown < n_total else "")


def _section_data(r: SARResult, lang: str) -> str:
    c = r.clean
    kpis = [("input rows", c.n_input), ("clean compounds", c.n_clean), ("duplicates merged", c.n_duplicates_merged),
            ("rejected rows", c.n_errors), ("series", len(r.series)), ("cliff pairs", len(r.cliffs.pairs)),
            ("matched pairs", len(r.mmp.pairs))]
    k = "".join(f'<span class="kpi"><b>{v}</b>{_e(n)}</span>' for n, v in kpis)
    m = c.mapping
    cols = (f"<p>Columns: SMILES <code>{_e(m.smiles_col)}</code>, activity <code>{_e(m.activity_col)}</code> "
            f"(units {_e(m.units)}, reported as {_e(m.activity_label)}), ID <code>{_e(m.id_col or 'row number')}</code>; "
            f"identified by {_e(m.source)}.</p>")
    warn = "".join(f'<p class="warn">⚠ {_e(w)}</p>' for w in c.warnings)
    return f"<h2>{_L['data'][lang]}</h2><div>{k}</div>{cols}{warn}"


def _section_plots(r: SARResult, comp, lang: str) -> str:
    ex = comp[comp["exact"]]
    if not len(ex):
        return ""
    label = r.activity_label
    imgs = [histogram_img(ex["p_activity"].astype(float).tolist(), label, f"{label} distribution (n={len(ex)})")]
    groups = ex["series_id"].astype(str).tolist()
    imgs.append(scatter_img(ex["clogp"].tolist(), ex["p_activity"].tolist(), groups, "cLogP", label,
                            f"{label} vs cLogP by series"))
    imgs.append(scatter_img(ex["mw"].tolist(), ex["p_activity"].tolist(), groups, "MW", label, f"{label} vs MW"))
    imgs.append(scatter_img(ex["heavy_atoms"].tolist(), ex["le"].tolist(), groups, "heavy atoms", "LE",
                            "Ligand efficiency"))
    imgs.append(scatter_img(ex["clogp"].tolist(), ex["lle"].tolist(), groups, "cLogP", "LLE",
                            "Lipophilic ligand efficiency"))
    return f"<h2>{_L['plots'][lang]}</h2><div class='plots'>{''.join(imgs)}</div>"


def _example_member(r: SARResult, s) -> str | None:
    """SMILES of the most potent member of series ``s`` that contains its core."""
    if not s.core_smarts:
        return None
    from rdkit import Chem

    q = Chem.MolFromSmarts(s.core_smarts)
    members = r.compounds.iloc[s.members].sort_values("p_activity", ascending=False)
    for smi in members["smiles"].head(20):
        m = Chem.MolFromSmiles(smi)
        if m is not None and q is not None and m.HasSubstructMatch(q):
            return str(smi)
    return None


def _section_series(r: SARResult, lang: str) -> str:
    rows = []
    for s in r.series[:MAX_SERIES * 3]:
        rej = "; ".join(f"{x['source']}: {x['smiles']} ({x['reason']})" for x in s.rejected_cores)
        example = _example_member(r, s)
        core = core_img(example, s.core_smarts, s.core_smiles) if s.core_smiles else "<i>none</i>"
        rows.append([_e(s.id), _num(s.size), core,
                     _e(s.core_source or ""), _num(s.core_atoms), f"{s.coverage:.0%}", _e(s.note),
                     f'<span class="muted">{_e(rej)}</span>'])
    t = _table(["series", "size", "core (highlighted on the most potent member)", "core from", "core atoms", "coverage", "note", "rejected cores"], rows,
               f"{len(r.series)} series (min. 5 compounds); {len(r.unassigned)} compounds in no series")
    return f"<h2>{_L['series'][lang]}</h2>{t}"


def _rgroup_block(r: SARResult, table, mode, ids_filter: set[str] | None, chart_series: bool = True) -> str:
    positions = [mode.site] if mode.kind == "site" else table.positions
    positions = [p for p in positions if p in table.positions]
    if not positions:
        return ""
    out = [f"<h3>Series {_e(table.series_id)} — {len(table.rows)} compounds decomposed"
           f"{f', {len(table.unmatched)} not matching the core' if table.unmatched else ''}</h3>"]
    if len(table.rows):
        labelled = table.rows["Core"].value_counts().index[0]
        out.append(f"<p>{mol_img(labelled, 320, 200)}<br><span class='muted'>Core with its R positions "
                   f"(most common labelling)</span></p>")
    # per-position statistics; bar charts for the most sensitive sites only
    sens = sorted((x for x in table.site_summary() if x["mean_range_n2"] is not None),
                  key=lambda x: -x["mean_range_n2"])
    if mode.kind == "site":
        chart_sites = set(positions)
    elif chart_series:
        chart_sites = {x["position"] for x in sens[:MAX_CHARTS_PER_SERIES]}
    else:
        chart_sites = set()
    for pos in positions:
        stats = table.position_stats(pos)
        shown = stats[:MAX_STATS]
        rows = [[(mol_img(s["substituent"], 120, 80, "sub") if s["substituent"] != "H" else "H"),
                 f"<code class='smi'>{_e(s['substituent'])}</code>", _num(s["n"]), _num(s["mean"]), _num(s["sd"]),
                 _num(s["min"]), _num(s["max"]), _e(s["best_id"])] for s in shown]
        cap = f"{pos}: {len(stats)} substituents, best mean first ({_capped(len(shown), len(stats), 'rgroups.csv')})"
        out.append(_table(["", "substituent", "n", "mean", "SD", "min", "max", "best compound"], rows, cap))
        multi = [s for s in stats if s["n"] >= 2][:20]
        if len(multi) >= 2 and pos in chart_sites:
            out.append(bar_img([s["substituent"] for s in multi], [s["mean"] for s in multi],
                               [s["sd"] or 0.0 for s in multi], f"mean {r.activity_label}",
                               f"Series {table.series_id} {pos}: substituents with n ≥ 2"))
    # the table itself
    df = table.rows
    if ids_filter is not None:
        df = df[df["id"].astype(str).isin(ids_filter)]
    shown = df.head(MAX_RGROUP_ROWS)
    rows = [[_e(x.id), _num(x.p_activity)] + [f"<code class='smi'>{_e(getattr(x, p))}</code>" for p in positions]
            for x in shown.itertuples()]
    out.append(_table(["id", r.activity_label, *positions], rows,
                      f"R-group table, most potent first ({_capped(len(shown), len(df), 'rgroups.csv')})"))
    # OCAT series
    oc = [o for o in r.ocat if o["series_id"] == table.series_id and o["position"] in positions]
    if ids_filter is not None:
        oc = [o for o in oc if any(m["id"] in ids_filter for m in o["members"])]
    if oc:
        rows = []
        for o in oc[:MAX_OCAT]:
            fixed = ", ".join(f"{k}={v}" for k, v in o["fixed"].items())
            mem = " &gt; ".join(f"{_e(m['substituent'])} ({_num(m['p_activity'])})" for m in o["members"][:12])
            more = f" … (+{len(o['members']) - 12})" if len(o["members"]) > 12 else ""
            rows.append([_e(o["position"]), f"<code class='smi'>{_e(fixed)}</code>", _num(len(o["members"])),
                         _num(o["range"]), f"<code class='smi'>{mem}{more}</code>"])
        n_scan = sum(1 for o in oc if len(o["members"]) >= 3)
        out.append(_table(["varied", "held constant", "n", "range", "members (best first)"], rows,
                          f"One-change-at-a-time series ({len(oc)}; {n_scan} single-point scans with ≥ 3 members)"))
    return "".join(out)


def _section_rgroups(r: SARResult, mode, ids_filter, lang: str) -> str:
    blocks = [_rgroup_block(r, t, mode, ids_filter, k < MAX_CHART_SERIES)
              for k, t in enumerate(r.rgroup_tables[:MAX_SERIES])]
    blocks = [b for b in blocks if b]
    if not blocks:
        return f"<h2>{_L['rgroups'][lang]}</h2><p>No series with a meaningful core{' at ' + _e(mode.site) if mode.site else ''}.</p>"
    extra = len(r.rgroup_tables) - MAX_SERIES
    note = f"<p class='muted'>{extra} smaller series not shown; see rgroups.csv.</p>" if extra > 0 else ""
    return f"<h2>{_L['rgroups'][lang]}</h2>{''.join(blocks)}{note}"


def _section_mmp(r: SARResult, ids_filter, lang: str) -> str:
    mmp = r.mmp
    trs = mmp.transforms
    if ids_filter is not None:
        trs = [t for t in trs if any(a in ids_filter or b in ids_filter for a, b in t["pairs"])]
    shown = [t for t in trs if t["count"] >= 2][:MAX_TRANSFORMS] or trs[:MAX_TRANSFORMS]
    rows = [[mol_img(t["from"], 140, 90, "sub"), "→", mol_img(t["to"], 140, 90, "sub"), _num(t["count"]),
             _delta(t["mean_delta"]), _num(t["sd_delta"]), _num(t["min_delta"]), _num(t["max_delta"])] for t in shown]
    out = [f"<h2>{_L['mmp'][lang]}</h2>",
           f"<p class='muted'>mmpdb fragmentation with up to {mmp.max_cuts} cut(s), default cut SMARTS, variable part "
           f"≤ 10 heavy atoms; {mmp.n_fragmented} compounds fragmented, {len(mmp.failed)} not fragmentable. "
           f"Δ = {r.activity_label}(to) − {r.activity_label}(from), exact potencies only.</p>",
           _table(["from", "", "to", "pairs", "mean Δ", "SD", "min", "max"], rows,
                  f"Transformations, most frequent first ({_capped(len(shown), len(trs), 'mmp_transforms.csv')})")]
    pairs = mmp.pairs
    if ids_filter is not None:
        pairs = [p for p in pairs if p["id_a"] in ids_filter or p["id_b"] in ids_filter]
    ps = pairs[:MAX_PAIRS]
    rows = [[_e(p["id_a"]), mol_img(p["smiles_a"], 160, 110), _e(p["id_b"]), mol_img(p["smiles_b"], 160, 110),
             f"<code class='smi'>{_e(p['from'])} → {_e(p['to'])}</code>", _num(p["p_a"]), _num(p["p_b"]),
             _delta(p["delta_p"])] for p in ps]
    out.append(_table(["id A", "A", "id B", "B", "transformation", "p A", "p B", "Δ"], rows,
                      f"Pairs in this dataset, largest |Δ| first ({_capped(len(ps), len(pairs), 'mmp_pairs.csv')})"))
    return "".join(out)


def _section_cliffs(r: SARResult, ids_filter, lang: str) -> str:
    cl = r.cliffs
    pairs = cl.pairs
    if ids_filter is not None:
        pairs = [c for c in pairs if c.id_a in ids_filter or c.id_b in ids_filter]
    ps = pairs[:MAX_CLIFFS]
    rows = [[_e(c.id_a), mol_img(c.smiles_a, 180, 130), _num(c.p_a), _e(c.id_b), mol_img(c.smiles_b, 180, 130),
             _num(c.p_b), _num(c.tanimoto_ecfp4), _num(c.tanimoto_scaffold), _num(c.levenshtein),
             _num(c.fold_change, 1), _num(c.sali, 1) if c.sali is not None else "∞"] for c in ps]
    frac = cl.n_cliff_molecules / max(cl.n_compared, 1)
    intro = (f"<p>{len(cl.pairs)} cliff pairs; {cl.n_cliff_molecules} of {cl.n_compared} compounds with exact "
             f"potencies ({frac:.1%}) are in at least one. Similar = Tanimoto ECFP4 (1024 bits) ≥ 0.9, or Tanimoto of "
             f"generic frameworks ≥ 0.9, or normalised SMILES Levenshtein similarity ≥ 0.9; cliff = similar and "
             f"&gt; 10-fold potency difference. SALI = |Δp| / (1 − Tanimoto ECFP4).</p>")
    t = _table(["id A", "A", "p A", "id B", "B", "p B", "Tc ECFP4", "Tc generic", "Levenshtein", "fold", "SALI"],
               rows, f"Cliff pairs, highest SALI first ({_capped(len(ps), len(pairs), 'cliffs.csv')})")
    return f"<h2>{_L['cliffs'][lang]}</h2>{intro}{t}"


def _section_top(r: SARResult, comp, lang: str) -> str:
    ex = comp[comp["exact"]].sort_values("p_activity", ascending=False).head(MAX_TOP)
    rows = [[_e(x.id), mol_img(x.smiles, 200, 140), _num(x.p_activity), _e(x.series_id), _num(x.mw, 1),
             _num(x.clogp), _num(x.tpsa, 1), _num(x.hbd), _num(x.hba), _num(x.le), _num(x.lle)] for x in ex.itertuples()]
    return f"<h2>{_L['top'][lang]}</h2>" + _table(
        ["id", "structure", r.activity_label, "series", "MW", "cLogP", "TPSA", "HBD", "HBA", "LE", "LLE"], rows)


def _section_errors(r: SARResult, lang: str) -> str:
    errs = r.clean.errors
    if not errs:
        return ""
    rows = [[_num(e.row), _e(e.id), f"<code class='smi'>{_e(e.smiles)}</code>", _e(e.code), _e(e.reason)]
            for e in errs[:MAX_ERRORS]]
    return f"<h2>{_L['errors'][lang]}</h2>" + _table(
        ["row (0-based)", "id", "SMILES", "code", "reason"], rows, _capped(len(rows), len(errs), "errors.csv"))


def render_sar_report(result: SARResult, path: str | Path) -> Path:
    """Write the HTML report of ``result`` (in ``result.mode``) to ``path`` atomically and return the path."""
    lang = result.language if result.language in ("en", "zh") else "en"
    mode = result.mode
    comp = result.compounds
    ids_filter: set[str] | None = None
    if mode.kind == "subset":
        from molx_agent.sar.pipeline import subset_mask

        comp = comp[subset_mask(comp, mode.ids)]
        ids_filter = set(comp["id"].astype(str))
    src = Path(result.clean.source).name
    findings = "".join(f"<li>{_e(s)}</li>" for s in result.insights)
    parts = [
        f"<h1>{_L['title'][lang]}: {_e(src)}</h1>",
        f"<p class='muted'>Mode: {_e(mode.label)} · generated {datetime.now():%Y-%m-%d %H:%M} by molx-agent · "
        f"findings from {_e(result.insights_source)}</p>",
        f"<h2>{_L['findings'][lang]}</h2><ul class='findings'>{findings}</ul>",
        _section_data(result, lang),
        _section_plots(result, comp, lang),
    ]
    if mode.kind != "site":
        parts.append(_section_top(result, comp, lang))
        parts.append(_section_series(result, lang))
    parts.append(_section_rgroups(result, mode, ids_filter, lang))
    if mode.kind != "site":
        parts.append(_section_cliffs(result, ids_filter, lang))
        parts.append(_section_mmp(result, ids_filter, lang))
        parts.append(_section_errors(result, lang))
    parts.append(
        f"<h2>{_L['methods'][lang]}</h2><p class='muted'>Structures standardised with chembl_structure_pipeline "
        "(standardize + parent); replicates merged by InChIKey (mean pActivity). Series: Butina clustering of ECFP4 "
        "(Tanimoto ≥ 0.4) merged by generic Murcko framework; cores from RDKit FMCS (complete rings, 90% threshold, "
        "timeout) or the most common Murcko scaffold, trivial cores rejected. R-groups: RDKit RGroupDecompose. "
        "Matched pairs: mmpdb. Cliffs: MoleculeACE (van Tilborg et al. 2022). LE = 1.37·pActivity/heavy atoms; "
        "LLE = pActivity − cLogP (Crippen).</p>"
    )
    doc = (f"<!DOCTYPE html><html lang='{lang}'><head><meta charset='utf-8'>"
           f"<meta name='viewport' content='width=device-width, initial-scale=1'>"
           f"<title>{_L['title'][lang]}: {_e(src)}</title><style>{CSS}</style></head><body>"
           + "".join(p for p in parts if p) + "</body></html>")
    return atomic_write_text(path, doc)


__all__ = ["render_sar_report"]
