"""Session commands that only read the state: context, explore, smart_cap, tree, status, report, export."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from molx_agent.errors import ValidationError
from molx_agent.interfaces.session import engine
from molx_agent.interfaces.session.commands import (
    bond_atoms,
    bond_row,
    compact_context,
    current_context,
    require_current,
    status_view,
)
from molx_agent.interfaces.session.sandbox import attempt_summary
from molx_agent.interfaces.session.state import SessionState
from molx_agent.io_utils import atomic_write_json, atomic_write_text, timestamped_dir

_CJK = re.compile(r"[\u3400-\u9fff]")


def session_language(state: SessionState) -> str:
    """The configured language, else Chinese when the user wrote Chinese (name, reasoning), else English."""
    lang = str(state.config.get("language") or "")
    if lang in ("en", "zh"):
        return lang
    texts = [state.target.get("name", ""), state.status.get("summary", "")]
    texts += [r.llm_decision.selection_reasoning for r in state.graph.reaction_nodes]
    return "zh" if any(_CJK.search(t or "") for t in texts) else "en"


def cmd_context(state: SessionState, a: dict[str, Any], _cmd: Any) -> dict[str, Any]:
    detail = a["detail"]
    if detail == "status":
        return {"status": status_view(state)}
    if detail == "tree":
        return cmd_tree(state, {}, None)
    if detail == "compact":
        return compact_context(state)
    out = compact_context(state)
    ctx = current_context(state)
    out["current"] = {**out["current"], "bonds": ctx["bonds"], "fgi": ctx["fgi"],
                      "molecular_weight": ctx.get("molecular_weight"), "formula": ctx.get("formula"),
                      "sandbox": state.current["sandbox"]}
    out["audit_state"] = state.audit.to_dict()
    out["tree"] = state.graph.to_text()
    return out


def cmd_explore(state: SessionState, a: dict[str, Any], _cmd: Any) -> dict[str, Any]:
    row = bond_row(state, a["bond_idx"], "explore")
    smiles = current_context(state, "explore")["smiles"]
    # the full capping proposals, with the capped fragments (the context keeps only a summary)
    capping = engine.smart_capping(smiles, tuple(row["atoms"]))
    return {"bond_idx": row["bond_idx"], "atoms": row["atoms"], "bond_type": row["bond_type"],
            "in_ring": row.get("in_ring"), "heuristic_score": row.get("heuristic_score"),
            "chemical_label": row.get("chemical_label"),
            "alternatives": [{**alt, "alt_idx": i} for i, alt in enumerate(row["alternatives"])],
            "smart_capping": capping}


def cmd_explore_fgi(state: SessionState, a: dict[str, Any], _cmd: Any) -> dict[str, Any]:
    ctx = current_context(state, "explore_fgi")
    return {"smiles": ctx["smiles"], "n_fgi": len(ctx["fgi"]), "fgi": ctx["fgi"]}


def cmd_smart_cap(state: SessionState, a: dict[str, Any], _cmd: Any) -> dict[str, Any]:
    if a["smiles"] is not None or a["bond"] is not None:
        if a["smiles"] is None or a["bond"] is None:
            raise ValidationError("missing_argument", "smart_cap: give both \"smiles\" and \"bond\" "
                                  "(or only \"bond_idx\" for the current molecule)", value="smiles/bond")
        if a["bond_idx"] is not None:
            raise ValidationError("bad_args", "smart_cap: give either bond_idx or smiles+bond, not both",
                                  value="bond_idx")
        smiles, bond = a["smiles"], tuple(a["bond"])
    elif a["bond_idx"] is not None:
        require_current(state, "smart_cap")
        smiles = current_context(state, "smart_cap")["smiles"]
        bond = bond_atoms(state, a["bond_idx"], "smart_cap")
    else:
        raise ValidationError("missing_argument", "smart_cap: give \"bond_idx\" or \"smiles\" + \"bond\"",
                              value="bond_idx")
    if a["max"] is not None and a["max"] < 1:
        raise ValidationError("bad_argument_value", "smart_cap: max must be >= 1", value=a["max"])
    proposals = engine.smart_capping(smiles, bond, max_proposals=a["max"])
    return {"ok": True, "smiles": smiles, "bond": list(bond), "proposals": proposals}


def cmd_sandbox_list(state: SessionState, a: dict[str, Any], _cmd: Any) -> dict[str, Any]:
    cur = require_current(state, "sandbox_list")
    sb = cur["sandbox"]
    return {"node_id": cur["node_id"], "smiles": cur["smiles"], "n_attempts": sb["n_attempts"],
            "selected": sb["selected"], "attempts": [attempt_summary(x) for x in sb["attempts"]]}


def _terminals(state: SessionState) -> list[dict[str, Any]]:
    from molx_agent.retro.report import starting_materials

    return starting_materials(state.graph, session_language(state))


def cmd_tree(state: SessionState, a: dict[str, Any], _cmd: Any) -> dict[str, Any]:
    g = state.graph
    return {"tree": g.to_text(), "terminal_count": len(g.terminals()), "pending_count": len(state.queue) + (
        1 if state.current else 0), "terminals": [{"node_id": n.node_id, "smiles": n.smiles,
                                                   "reason": n.llm_analysis.get("terminal_reason", ""),
                                                   "stock_source": (n.availability or {}).get("source")
                                                   if (n.availability or {}).get("available") else None}
                                                  for n in g.terminals()],
            "tree_complete": g.is_complete()}


def cmd_status(state: SessionState, a: dict[str, Any], _cmd: Any) -> dict[str, Any]:
    return status_view(state)


def cmd_report(state: SessionState, a: dict[str, Any], _cmd: Any) -> dict[str, Any]:
    from molx_agent.retro.report import forward_synthesis_text

    lang = session_language(state)
    return {"report": forward_synthesis_text(state.graph, name=state.target.get("name", ""), language=lang),
            "starting_materials": _terminals(state), "tree_complete": state.graph.is_complete()}


def _export_summary(name: str, steps: int, n_sm: int, vis_ok: bool, lang: str) -> str:
    mark = "✓" if vis_ok else "✗"
    if lang == "zh":
        return f"{name}: {steps} 步, {n_sm} 种起始原料, 可视化={mark}"
    return (f"{name}: {steps} step{'' if steps == 1 else 's'}, {n_sm} starting material{'' if n_sm == 1 else 's'}, "
            f"visualization={mark}")


def _visualization_ok(vis: dict[str, Any], out: Path, state: SessionState) -> bool:
    ids = {n["id"] for n in vis["nodes"]}
    expected = set(state.graph.molecule_nodes) | {r.step_id for r in state.graph.reaction_nodes}
    if ids != expected:
        return False
    if any(e["source"] not in ids or e["target"] not in ids for e in vis["edges"]):
        return False
    images = [n["image"] for n in vis["nodes"]] + [vis["image"]]
    return all((out / img).is_file() and (out / img).stat().st_size > 0 for img in images)


SESSION_EXPORT_DIR = Path("output")  # seed 001: export goes to output/YYYYMMDD_HHMMSS_NAME/


def default_export_base(settings: Any) -> Path:
    """Where ``export`` writes without ``output_dir``: ``./output`` as in seed 001, or ``MOLX_OUTPUT_DIR``
    when the user set it (environment or ``.env``)."""
    if "output_dir" in settings.model_fields_set:
        return Path(settings.output_dir)
    return SESSION_EXPORT_DIR


def cmd_export(state: SessionState, a: dict[str, Any], cmd: Any) -> dict[str, Any]:
    from molx_agent.config import get_settings
    from molx_agent.retro.report import forward_synthesis_text, render_route_report, visualization_data

    name = a["name"] or state.target.get("name") or "session"
    base = Path(a["output_dir"]) if a["output_dir"] else default_export_base(get_settings())
    if base.exists() and not base.is_dir():
        raise ValidationError("bad_output_dir", f"export: output_dir is a file: {base}", value=str(base))
    lang = session_language(state)
    out = timestamped_dir(base, name)
    summary_text = state.status.get("summary") or ""
    paths = render_route_report(state.graph, out, name=name, extra={
        "language": lang, "summary": summary_text or None, "audit_state": state.audit.to_dict(),
        "session_id": state.session_id, "stock": str(state.config.get("stock")),
        "terminal_cs_threshold": state.config["terminal_cs_threshold"],
        "status": state.status.get("status"), "max_linear_target": state.audit.max_linear_target})
    atomic_write_text(out / "report.txt", forward_synthesis_text(state.graph, name=name, language=lang))
    atomic_write_text(out / "tree.txt", state.graph.to_text() + "\n")
    terminals = _terminals(state)
    atomic_write_json(out / "terminals.json", terminals)
    vis = visualization_data(state.graph, lang)
    atomic_write_json(out / "visualization.json", vis)
    atomic_write_json(out / "session.json", state.to_dict())
    files = sorted(p.name for p in out.iterdir() if p.is_file())
    images = sorted(p.name for p in Path(paths["images_dir"]).glob("*.png"))
    vis_ok = _visualization_ok(vis, out, state)
    n_sm = sum(1 for t in terminals if t["status"] != "unresolved")
    return {"output_dir": str(out), "files": files, "n_files": len(files), "n_images": len(images),
            "images": [f"images/{i}" for i in images], "html_report": paths["html"], "visualization_ok": vis_ok,
            "tree_complete": state.graph.is_complete(),
            "summary": _export_summary(name, state.graph.n_steps, n_sm, vis_ok, lang)}


__all__ = ["cmd_context", "cmd_explore", "cmd_explore_fgi", "cmd_smart_cap", "cmd_sandbox_list", "cmd_tree",
           "cmd_status", "cmd_report", "cmd_export", "session_language"]
