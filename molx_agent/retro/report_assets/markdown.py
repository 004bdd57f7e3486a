"""Markdown twin of the route report (images referenced as ``images/*.png``)."""

from __future__ import annotations

from typing import Any


def _cell(value: Any) -> str:
    if value is None or value == "":
        return "–"
    return str(value).replace("|", "\\|").replace("\n", " ")


def _verdict(fv: dict[str, Any], lb: dict[str, str]) -> str:
    if not fv["validated"]:
        return lb["not_validated"]
    verdict = lb["pass"] if fv["pass"] else lb["fail"]
    band = f" ({lb['band_' + fv['band']]})" if fv["band"] else (f" ({fv['band_note']})" if fv.get("band_note") else "")
    text = f"{verdict}, {lb['feasibility']} {_cell(fv['feasibility_score'])}{band}"
    if fv["hard_fail_reasons"]:
        text += f"; {lb['hard_fails']}: {', '.join(fv['hard_fail_reasons'])}"
    if fv.get("waived_gates"):
        text += f"; {lb['waived']}: {', '.join(fv['waived_gates'])} ({fv.get('waived_because', '')})"
    return text


def render_markdown(d: dict[str, Any]) -> str:
    lb = d["labels"]
    t, s = d["target"], d["summary"]
    title = f"{lb['title']}: {t['name']}" if t["name"] else lb["title"]
    out: list[str] = [f"# {title}", ""]
    trust = d["trust"]
    out += [f"> **{lb['route_confidence']}: {trust['confidence']}** — {trust['text']}", ">"]
    out += [f"> - `{i['code']}` {i['message']}" + (f" (`{i['smiles']}`)" if i.get("smiles") else "")
            for i in trust["issues"]] or [f"> {lb['issues']}: {lb['no_issues']}"]
    out.append("")
    if s["text"]:
        out += [str(s["text"]), ""]
    out += [f"## {lb['target']}", "", f"![{t['node_id']}]({t['image']})", "",
            f"| {lb['smiles']} | `{_cell(t['smiles'])}` |", "|---|---|",
            f"| {lb['formula']} | {_cell(t['formula'])} |", f"| {lb['mw']} | {_cell(t['mw'])} |",
            f"| {lb['cs_score']} | {_cell(t['cs_score'])} {_cell(t['classification'])} |",
            f"| {lb['steps']} | {s['n_steps']} |", f"| {lb['longest_linear']} | {s['longest_linear_sequence']} |",
            f"| {lb['n_sm']} | {s['n_starting_materials']} ({lb['n_in_stock']}: {s['n_in_stock']}) |",
            f"| {lb['status']} | " + (lb["complete"] if s["complete"] else lb["incomplete"].format(
                n=s["n_unresolved"])) + " |", ""]
    out += [f"## {lb['route_tree']}", "", f"![{lb['route_tree']}](images/synthesis_tree.png)", "",
            "```", d["tree_text"], "```", ""]
    out += [f"## {lb['forward_steps']}", ""]
    if not d["steps"]:
        out += [lb["no_steps"], ""]
    for st in d["steps"]:
        out += [f"### {lb['step']} {st['number']} · {st['name']} ({st['step_id']})", "",
                f"![{st['step_id']}]({st['image']})", "", f"`{st['reaction_smiles']}`", ""]
        te = st["template"]
        out += [f"- **{lb['template']}**: {_cell(te['template_id'])} · {_cell(te['template_name'])} · "
                f"{lb['category']} {_cell(te['category'])} · {lb['source']} {_cell(te['source'])} · "
                f"{lb['confidence']} {_cell(te['confidence'])}"]
        if st["score"] is not None:
            out.append(f"- **{lb['score']}**: {st['score']}")
        if st["implausible"]:
            out.append(f"- **{lb['plausibility']}**: {st['plausibility']['text']}")
        out.append(f"- **{lb['forward_validation']}**: {_verdict(st['forward_validation'], lb)}")
        for c in st["forward_validation"]["checks"]:
            out.append(f"  - {c['name']}: {_cell(c['score'])}" + (f" — {c['detail']}" if c["detail"] else ""))
        dec = st["decision"]
        if dec["reasoning"]:
            out.append(f"- **{lb['reasoning']}** ({dec['confidence']}): {dec['reasoning']}")
        for r in dec["rejected"]:
            out.append(f"  - {lb['rejected']}: {_cell(r.get('method'))} — {_cell(r.get('reason'))}")
        if dec["risk"]:
            out.append(f"- **{lb['risk']}**: {dec['risk']}")
        out.append(f"- **{lb['precursors']}**: " + "; ".join(
            f"`{r['smiles']}` ({r['node_id']}, {r['made_by'] or r['label']})" for r in st["reactants"]))
        out.append("")
    out += [f"## {lb['starting_materials']}", "",
            f"| {lb['node']} | {lb['structure']} | {lb['smiles']} | {lb['mw']} | {lb['tier']} | {lb['stock_source']} |",
            "|---|---|---|---|---|---|"]
    for sm in d["starting_materials"]:
        out.append(f"| {sm['node_id']} | ![{sm['node_id']}]({sm['image']}) | `{_cell(sm['smiles'])}` | "
                   f"{_cell(sm['mw'])} | {_cell(sm['tier_label'])} | {_cell(sm['label'])} |")
    out.append("")
    if d["decision_history"]:
        out += [f"## {lb['audit']}", "", f"| {lb['step']} | {lb['molecule']} | {lb['action']} | "
                f"{lb['outcome']} | {lb['reasoning']} |", "|---|---|---|---|---|"]
        for r in d["decision_history"]:
            out.append(f"| {_cell(r.get('step_id'))} | `{_cell(r.get('molecule'))}` | {_cell(r.get('action'))} | "
                       f"{_cell(r.get('outcome'))} | {_cell(r.get('reasoning_summary'))} |")
        out.append("")
    if d["details"]:
        out += [f"## {lb['details']}", ""]
        out += [f"- {k}: {_cell(', '.join(map(str, v)) if isinstance(v, list) else v)}"
                for k, v in d["details"].items()]
        out.append("")
    out.append(f"_{lb['generated']} · {d['generated_at']}_")
    return "\n".join(out) + "\n"


__all__ = ["render_markdown"]
