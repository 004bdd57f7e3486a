"""The one synthesis-route report used by every retrosynthesis surface.

``molx-agent route`` (search), the skills pipeline's ``finalize``/``render_report``
and the interactive session's ``export`` all call :func:`render_route_report`, so a
route looks the same wherever it came from.  Outputs (by ``formats``):

- ``html``: ``SYNTHESIS_REPORT.html``, one self-contained file (every image inline as a
  base64 PNG, the stylesheet inline, no script, no external reference at all);
- ``md``: ``SYNTHESIS_REPORT.md``, the Markdown twin referencing ``images/*.png``;
- ``json``: ``tree.json``, the full tree (``RetroGraph.to_dict()``) plus the report's view
  of it (forward steps, starting materials, summary).

Images are always written to ``images/`` (``mol_<n>.png``, ``rxn_<n>_reaction.png``,
``synthesis_tree.png``).  The helpers :func:`forward_synthesis_text`,
:func:`starting_materials` and :func:`visualization_data` give the session export its
``report.txt``, ``terminals.json`` and ``visualization.json``.
"""

from __future__ import annotations

import base64
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from molx_agent.io_utils import atomic_write_bytes, atomic_write_json, atomic_write_text
from molx_agent.retro.judge import leaf_tier
from molx_agent.retro.report_assets.labels import labels_for
from molx_agent.retro.route import MoleculeNode, ReactionNode, RetroGraph

logger = logging.getLogger(__name__)

HTML_NAME = "SYNTHESIS_REPORT.html"
MD_NAME = "SYNTHESIS_REPORT.md"
JSON_NAME = "tree.json"
IMAGES_DIR = "images"
TREE_IMAGE = "synthesis_tree.png"
FORMATS = ("html", "md", "json")

# --------------------------------------------------------------------------
# Facts about nodes and steps
# --------------------------------------------------------------------------


def leaf_status(graph: RetroGraph, node: MoleculeNode, labels: dict[str, str] | None = None) -> tuple[str, str]:
    """``(kind, label)`` of a node: kind is target/intermediate/in_stock/terminal/unresolved.

    A leaf found in a real stock says which stock; an SA/CS estimate is labelled as such
    and never called "in stock".
    """
    labels = labels or labels_for("en")
    avail = node.availability or {}
    source = str(avail.get("source") or "")
    is_leaf = graph.reaction_for(node.node_id) is None
    if not is_leaf:
        return ("target", labels["legend_target"]) if node.role == "target" else (
            "intermediate", labels["legend_intermediate"])
    if avail.get("available") and source and source != "sa_estimate":
        reacts_as = avail.get("reacts_as")  # the stock lists another form (neutral parent, full reagent)
        note = f" ({labels['reacts_as']} {reacts_as})" if reacts_as else ""
        tier = leaf_tier(avail)
        tier_note = f" [{labels['tier_' + tier]}]" if tier in ("probable", "estimated") else ""
        return "in_stock", f"{labels['legend_in_stock']}: {source}{tier_note}{note}"
    if node.role == "terminal":
        reason = str(node.llm_analysis.get("terminal_reason") or "") if node.llm_analysis else ""
        if source == "sa_estimate":
            reason = reason or "SA/CS estimate"
        return "terminal", f"{labels['legend_terminal']}" + (f": {reason}" if reason else "")
    return "unresolved", labels["legend_unresolved"]


def route_trust(graph: RetroGraph) -> dict[str, Any]:
    """The route's ``{confidence, verdict, issues}``: as the search recorded it, else judged now (retro.judge)."""
    recorded = graph.metadata.get("route") if isinstance(graph.metadata, dict) else None
    if isinstance(recorded, dict) and recorded.get("confidence"):
        return recorded
    from molx_agent.retro.judge import judge_route

    return judge_route(graph)


def _mol_facts(smiles: str) -> dict[str, Any]:
    from rdkit import Chem
    from rdkit.Chem import Descriptors, rdMolDescriptors

    from molx_agent.chem.utils import quiet_rdkit

    with quiet_rdkit():
        mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return {"formula": "", "mw": None, "heavy_atoms": None}
    return {
        "formula": rdMolDescriptors.CalcMolFormula(mol),
        "mw": round(Descriptors.MolWt(mol), 2),
        "heavy_atoms": mol.GetNumHeavyAtoms(),
    }


def _num(value: Any, digits: int = 3) -> Any:
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, (int, float)):
        return round(float(value), digits)
    return value


def _prob(value: Any) -> Any:
    """A model probability for display: 3 decimals, or 2 significant digits when smaller (never a false 0.0)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and 0 < abs(value) < 0.001:
        return float(f"{value:.2g}")
    return _num(value)


def _band(score: Any) -> str | None:
    """Seed 001 bands: > 0.7 high, 0.5-0.7 medium, < 0.5 low."""
    if not isinstance(score, (int, float)) or isinstance(score, bool):
        return None
    return "high" if score > 0.7 else ("medium" if score >= 0.5 else "low")


def _fv_checks(fv: dict[str, Any]) -> list[dict[str, Any]]:
    """Flatten ``forward_validation['steps']`` (list or dict form) into rows name/score/passed/detail."""
    steps = fv.get("steps")
    rows: list[dict[str, Any]] = []
    if isinstance(steps, dict):
        items = list(steps.items())
    elif isinstance(steps, list):
        items = [(s.get("name") or s.get("step") or f"check {i + 1}", s) if isinstance(s, dict) else (
            f"check {i + 1}", s) for i, s in enumerate(steps)]
    else:
        return rows
    for name, val in items:
        if isinstance(val, dict):
            score = val.get("score", val.get("balance_score"))
            passed = val.get("passed", val.get("pass", val.get("ok")))
            detail = val.get("detail") or val.get("note") or val.get("message") or ""
            weight = val.get("weight")
        else:
            score, passed, detail, weight = val, None, "", None
        rows.append({"name": str(name), "score": _num(score), "passed": passed, "detail": str(detail)[:200],
                     "weight": _num(weight)})
    return rows


def _step_name(name: str, language: str) -> str:
    """A step's name in the report's language: in Chinese a reaction class's or a named template's Chinese name."""
    if not language.lower().startswith("zh"):
        return name
    if name == "unnamed step":
        return "未命名步骤"
    from molx_agent.retro.search_routes import step_name_zh

    return step_name_zh(name)


def _step_view(graph: RetroGraph, rxn: ReactionNode, number: int, labels: dict[str, str],
               language: str = "en") -> dict[str, Any]:
    fv = dict(rxn.forward_validation or {})
    te = rxn.template_evidence
    dec = rxn.llm_decision
    parts = rxn.reaction_smiles.split(">")
    reagents = parts[1] if len(parts) == 3 else ""
    reactants = []
    for rid in rxn.reactant_nodes:
        node = graph.molecule_nodes.get(rid)
        if node is None:
            continue
        kind, label = leaf_status(graph, node, labels)
        reactants.append({"node_id": rid, "smiles": node.smiles, "kind": kind, "label": label,
                          "made_by": (graph.reaction_for(rid).step_id if graph.reaction_for(rid) else None)})
    product = graph.molecule_nodes.get(rxn.product_node)
    feas = fv.get("feasibility_score")
    hard = fv.get("hard_fail_reasons") or []
    passed = fv.get("pass", fv.get("ok")) if fv else None
    from molx_agent.retro.judge import plausibility

    plaus = plausibility(rxn.score if rxn.score is not None else (te.confidence or None))
    implausible = plaus["plausible"] is False
    name_en = rxn.reaction_type or te.template_name or te.template_id or "unnamed step"
    return {
        "number": number,
        "step_id": rxn.step_id,
        # the name in the report's language ("Suzuki 偶联" in Chinese), and as the engine wrote it
        "name": _step_name(name_en, language),
        "name_en": name_en,
        "reaction_smiles": rxn.reaction_smiles,
        "reagents": reagents,
        "image": f"{IMAGES_DIR}/{rxn.step_id}_reaction.png",
        "product": {"node_id": rxn.product_node, "smiles": product.smiles if product else ""},
        "reactants": reactants,
        "template": {"template_id": te.template_id, "template_name": te.template_name, "category": te.category,
                     "source": te.source,
                     # 0.0 is the "unknown" default (a chemist's own proposal has no template confidence)
                     "confidence": _prob(te.confidence) if te.confidence else None},
        "score": _prob(rxn.score),
        "implausible": implausible,
        "plausibility": {"plausible": plaus["plausible"], "floor": plaus["floor"],
                         "text": (labels["plausible_no"].format(floor=f"{plaus['floor']:g}") if implausible
                                  else labels["plausible_yes"] if plaus["plausible"] else "")},
        "forward_validation": {
            "validated": bool(fv),
            "pass": passed,
            "feasibility_score": _num(feas),
            # no "feasibility high" beside a step the model itself rates implausible
            "band": None if implausible else _band(feas),
            "band_note": labels["band_overridden"] if implausible else "",
            "hard_fail_reasons": list(hard),
            "waived_gates": list(fv.get("waived_gates") or []),
            "waived_because": fv.get("waived_because") or "",
            "checks": _fv_checks(fv),
            "atom_balance": fv.get("atom_balance") if isinstance(fv.get("atom_balance"), dict) else None,
        },
        "decision": {"reasoning": dec.selection_reasoning, "confidence": dec.confidence,
                     "rejected": list(dec.rejected_alternatives), "protection_needed": dec.protection_needed,
                     "risk": dec.risk_assessment},
    }


def starting_materials(graph: RetroGraph, language: str = "en") -> list[dict[str, Any]]:
    """Every leaf of the route (reachable from the target) with its stock source or status."""
    labels = labels_for(language)
    out = []
    seen: set[str] = set()
    for node, _level in graph.iter_depth_first():
        if node.node_id in seen or graph.reaction_for(node.node_id) is not None:
            continue
        seen.add(node.node_id)
        kind, label = leaf_status(graph, node, labels)
        avail = node.availability or {}
        cx = node.complexity or {}
        out.append({
            "node_id": node.node_id,
            "smiles": node.smiles,
            "name": node.name,
            "status": kind,
            "label": label,
            "available": bool(avail.get("available")) if avail else None,
            "source": avail.get("source"),
            "tier": leaf_tier(avail),
            "tier_label": labels["tier_" + leaf_tier(avail)],
            "false_positive_rate": avail.get("false_positive_rate"),
            "reacts_as": avail.get("reacts_as"),
            "cs_score": _num(cx.get("cs_score")),
            "classification": cx.get("classification"),
            **_mol_facts(node.smiles),
            "image": f"{IMAGES_DIR}/{node.node_id}.png",
        })
    return out


def build_report_data(graph: RetroGraph, *, name: str = "", extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """The report's view of a route: target, summary, forward steps, starting materials, details."""
    extra = dict(extra or {})
    language = str(extra.pop("language", "en") or "en")
    labels = labels_for(language)
    target = graph.molecule_nodes[graph.target_id]
    steps = [_step_view(graph, rxn, i + 1, labels, language) for i, rxn in enumerate(graph.forward_order())]
    sms = starting_materials(graph, language)
    unresolved = [s for s in sms if s["status"] == "unresolved"]
    stocks = sorted({str(s["source"]) for s in sms if s["status"] == "in_stock" and s["source"]})
    title_name = name or graph.target_name or target.name
    audit = extra.pop("audit_state", None)
    if audit is not None and not isinstance(audit, dict) and hasattr(audit, "to_dict"):
        audit = audit.to_dict()  # a SynthesisAuditState
    summary_text = extra.pop("summary", None)
    trust = route_trust(graph)
    tiers: dict[str, int] = {}
    for sm in sms:
        tiers[sm["tier"]] = tiers.get(sm["tier"], 0) + 1
    return {
        "language": language,
        "labels": labels,
        "name": title_name,
        "generated_at": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "target": {"node_id": target.node_id, "smiles": target.smiles, "name": title_name,
                   "cs_score": _num((target.complexity or {}).get("cs_score")),
                   "classification": (target.complexity or {}).get("classification"),
                   "image": f"{IMAGES_DIR}/{target.node_id}.png", **_mol_facts(target.smiles)},
        "summary": {
            "n_steps": graph.n_steps,
            "longest_linear_sequence": graph.longest_linear_sequence(),
            "n_starting_materials": len(sms),
            "n_in_stock": sum(1 for s in sms if s["status"] == "in_stock"),
            "n_unresolved": len(unresolved),
            "complete": not unresolved,
            "stocks": stocks,
            "text": summary_text,
            "tiers": tiers,
        },
        "trust": {"confidence": trust.get("confidence"), "verdict": trust.get("verdict"),
                  "issues": list(trust.get("issues") or []),
                  "text": labels.get(f"confidence_{trust.get('confidence')}", "")},
        "steps": steps,
        "starting_materials": sms,
        "decision_history": (audit or {}).get("decision_history", []) if isinstance(audit, dict) else [],
        "details": {k: v for k, v in extra.items() if isinstance(v, (str, int, float, bool)) or v is None
                    or (isinstance(v, list) and all(isinstance(x, (str, int, float)) for x in v))},
        "extra": extra,
        "tree_text": graph.to_text(),
    }


# --------------------------------------------------------------------------
# Plain-text pieces (session export)
# --------------------------------------------------------------------------


def forward_synthesis_text(graph: RetroGraph, *, name: str = "", language: str = "en") -> str:
    """The route in the order a chemist runs it, as plain text (``report.txt``)."""
    data = build_report_data(graph, name=name, extra={"language": language})
    lb = data["labels"]
    t, s = data["target"], data["summary"]
    lines = [f"{lb['title']}: {t['name'] or t['smiles']}", f"{lb['target']}: {t['smiles']}"]
    if t["formula"]:
        lines.append(f"{lb['formula']}: {t['formula']}  {lb['mw']}: {t['mw']}")
    lines.append(f"{lb['steps']}: {s['n_steps']}  {lb['longest_linear']}: {s['longest_linear_sequence']}  "
                 f"{lb['n_sm']}: {s['n_starting_materials']}")
    lines.append(f"{lb['status']}: " + (lb["complete"] if s["complete"] else lb["incomplete"].format(
        n=s["n_unresolved"])))
    trust = data["trust"]
    lines.append(f"{lb['route_confidence']}: {trust['text'] or trust['confidence']}")
    for item in trust["issues"]:
        lines.append(f"  - [{item['code']}] {item['message']}" + (f" ({item['smiles']})" if item.get("smiles") else ""))
    lines += ["", f"{lb['starting_materials']}:"]
    for sm in data["starting_materials"]:
        lines.append(f"  {sm['node_id']:<8} {sm['smiles']}  [{sm['label']}]")
    lines += ["", f"{lb['forward_steps']}:"]
    if not data["steps"]:
        lines.append("  " + lb["no_steps"])
    for st in data["steps"]:
        reactants = " + ".join(r["smiles"] for r in st["reactants"])
        lines.append(f"  {lb['step']} {st['number']} ({st['step_id']}): {st['name']}")
        lines.append(f"    {reactants} -> {st['product']['smiles']}")
        if st["reagents"]:
            lines.append(f"    {lb['reagents']}: {st['reagents']}")
        te = st["template"]
        if te["template_id"] or te["source"]:
            lines.append(f"    {lb['template']}: {te['template_id'] or '-'} {te['template_name'] or ''} "
                         f"({te['source'] or '-'})".rstrip())
        fv = st["forward_validation"]
        if fv["validated"]:
            verdict = lb["pass"] if fv["pass"] else lb["fail"]
            hard = f"; {lb['hard_fails']}: {', '.join(fv['hard_fail_reasons'])}" if fv["hard_fail_reasons"] else ""
            if fv["waived_gates"]:
                hard += f"; {lb['waived']}: {', '.join(fv['waived_gates'])} ({fv['waived_because']})"
            lines.append(f"    {lb['forward_validation']}: {verdict}, {lb['feasibility']} "
                         f"{fv['feasibility_score']}{hard}")
        if st["implausible"]:
            lines.append(f"    {lb['plausibility']}: {st['plausibility']['text']}")
        if st["decision"]["reasoning"]:
            lines.append(f"    {lb['reasoning']} ({st['decision']['confidence']}): {st['decision']['reasoning']}")
    return "\n".join(lines) + "\n"


def visualization_data(graph: RetroGraph, language: str = "en") -> dict[str, Any]:
    """Graph data for a front end: molecule and reaction nodes, forward-sense edges."""
    labels = labels_for(language)
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    for node in graph.molecule_nodes.values():
        kind, label = leaf_status(graph, node, labels)
        nodes.append({"id": node.node_id, "type": "molecule", "smiles": node.smiles, "role": node.role,
                      "status": kind, "label": label, "depth": node.depth,
                      "image": f"{IMAGES_DIR}/{node.node_id}.png"})
    for rxn in graph.reaction_nodes:
        nodes.append({"id": rxn.step_id, "type": "reaction", "reaction_smiles": rxn.reaction_smiles,
                      "label": rxn.reaction_type or rxn.template_evidence.template_name, "depth": rxn.depth,
                      "image": f"{IMAGES_DIR}/{rxn.step_id}_reaction.png"})
        edges.append({"source": rxn.step_id, "target": rxn.product_node, "type": "produces"})
        edges.extend({"source": r, "target": rxn.step_id, "type": "reactant_of"} for r in rxn.reactant_nodes)
    return {"target": graph.target_id, "nodes": nodes, "edges": edges,
            "image": f"{IMAGES_DIR}/{TREE_IMAGE}"}


# --------------------------------------------------------------------------
# Rendering
# --------------------------------------------------------------------------


def write_route_images(graph: RetroGraph, images_dir: str | Path, language: str = "en") -> dict[str, bytes]:
    """Draw every molecule, every reaction and the tree into ``images_dir``; returns name -> PNG bytes."""
    from molx_agent.retro.report_assets.draw import mol_png, reaction_png, tree_png

    images_dir = Path(images_dir)
    labels = labels_for(language)
    pngs: dict[str, bytes] = {}
    mol_by_id: dict[str, bytes] = {}
    cache: dict[str, bytes] = {}
    for node in graph.molecule_nodes.values():
        png = cache.get(node.smiles) or mol_png(node.smiles)
        cache[node.smiles] = png
        mol_by_id[node.node_id] = png
        pngs[f"{node.node_id}.png"] = png
    for rxn in graph.reaction_nodes:
        pngs[f"{rxn.step_id}_reaction.png"] = reaction_png(rxn.reaction_smiles)
    pngs[TREE_IMAGE] = tree_png(graph, mol_by_id, lambda n: leaf_status(graph, n, labels))
    for fname, png in pngs.items():
        atomic_write_bytes(images_dir / fname, png)
    return pngs


def _data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def render_markdown(data: dict[str, Any]) -> str:
    from molx_agent.retro.report_assets.markdown import render_markdown as _render

    return _render(data)


def render_html(data: dict[str, Any], pngs: dict[str, bytes]) -> str:
    """The self-contained HTML page: every ``images/...`` reference becomes a data URI."""
    from importlib.resources import files

    import jinja2

    assets = files("molx_agent.retro.report_assets")
    env = jinja2.Environment(autoescape=jinja2.select_autoescape(default=True, default_for_string=True),
                             undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    template = env.from_string(assets.joinpath("route_report.html.j2").read_text(encoding="utf-8"))
    css = assets.joinpath("route_report.css").read_text(encoding="utf-8")

    def img(ref: str) -> str:
        png = pngs.get(ref.rsplit("/", 1)[-1])
        if png is None:
            raise KeyError(f"report image missing: {ref}")
        return _data_uri(png)

    return template.render(d=data, lb=data["labels"], css=css, img=img)


def render_route_report(
    graph: RetroGraph,
    output_dir: str | Path,
    *,
    name: str = "",
    extra: dict[str, Any] | None = None,
    formats: tuple[str, ...] | list[str] = FORMATS,
) -> dict[str, str]:
    """Write the route report for ``graph`` into ``output_dir``; returns the written paths.

    ``extra`` adds context: ``language`` ("en"/"zh"), ``summary`` (prose shown on top),
    ``audit_state`` (a ``SynthesisAuditState`` dict: its decision history is tabulated),
    and any scalar entries (e.g. ``stock``, ``n_expansions``, ``time_s``) shown as run details.
    Returns ``{"html", "md", "json", "images_dir"}`` (only the formats asked for).
    """
    from molx_agent.errors import ValidationError

    unknown = [f for f in formats if f not in FORMATS]
    if unknown:
        raise ValidationError("unknown_report_format", f"unknown report format(s): {', '.join(unknown)}",
                              value=unknown, hint=f"choose from {', '.join(FORMATS)}")
    if graph.target_id not in graph.molecule_nodes:
        raise ValidationError("empty_route", "the route has no target molecule", value=graph.target_smiles)
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    data = build_report_data(graph, name=name, extra=extra)
    pngs = write_route_images(graph, out / IMAGES_DIR, data["language"])
    paths: dict[str, str] = {"images_dir": str(out / IMAGES_DIR)}
    if "html" in formats:
        paths["html"] = str(atomic_write_text(out / HTML_NAME, render_html(data, pngs)))
    if "md" in formats:
        paths["md"] = str(atomic_write_text(out / MD_NAME, render_markdown(data)))
    if "json" in formats:
        payload = {k: v for k, v in data.items() if k not in ("labels", "tree_text")}
        payload["graph"] = graph.to_dict()
        paths["json"] = str(atomic_write_json(out / JSON_NAME, payload))
    logger.info("route report written to %s (%d images)", out, len(pngs))
    return paths


__all__ = [
    "render_route_report",
    "build_report_data",
    "forward_synthesis_text",
    "starting_materials",
    "visualization_data",
    "write_route_images",
    "leaf_status",
    "render_html",
    "render_markdown",
    "HTML_NAME",
    "MD_NAME",
    "JSON_NAME",
    "IMAGES_DIR",
    "TREE_IMAGE",
]
