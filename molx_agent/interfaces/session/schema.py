"""Structural check of a session document before it is used (seed 001 section 4).

``check_session_document(data, source)`` walks the parts of a session file that the commands rely
on (types, required keys, indices that must point somewhere) and raises one
``ValidationError("corrupted_session_file")`` naming the first damaged field, e.g.
``s.json is damaged: current.sandbox.selected refers to attempt 4 (the sandbox has 2)``.
A hand-edited or truncated file therefore gives a clear error instead of an internal error in the
middle of a command, and the file is never rewritten.
"""

from __future__ import annotations

import math
from typing import Any

from molx_agent.errors import ValidationError

ROLES = ("target", "intermediate", "terminal", "pending")
#: Keys of a molecule's decision context that the commands read.
CONTEXT_KEYS = ("smiles", "node_id", "depth", "is_target", "cs_score", "classification", "is_terminal",
                "heavy_atoms", "functional_groups", "protecting_groups", "bonds", "fgi", "model")
#: Keys of a sandbox attempt that select / commit / sandbox_list read.
ATTEMPT_KEYS = ("attempt_idx", "success", "source", "precursors", "reaction_smiles", "errors")


class _Damaged(Exception):
    """Internal: the first damaged field (path, what is wrong)."""


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def _need(cond: bool, path: str, what: str) -> None:
    if not cond:
        raise _Damaged(f"{path} {what}")


def _dict(v: Any, path: str) -> dict[str, Any]:
    _need(isinstance(v, dict), path, "must be an object")
    return v


def _list(v: Any, path: str) -> list[Any]:
    _need(isinstance(v, list), path, "must be a list")
    return v


def _str(v: Any, path: str, *, empty: bool = True) -> str:
    _need(isinstance(v, str) and (empty or bool(v.strip())), path, "must be a " + ("string" if empty else
                                                                                   "non-empty string"))
    return v


def _config(cfg: dict[str, Any]) -> None:
    for key in ("max_depth", "max_steps", "top_k"):
        _need(_is_int(cfg.get(key)) and cfg[key] >= 1, f"config.{key}", "must be an integer >= 1")
    _need(_is_number(cfg.get("terminal_cs_threshold")), "config.terminal_cs_threshold", "must be a number")
    _str(cfg.get("stock"), "config.stock")
    _str(cfg.get("language"), "config.language")


def _tree(tree: dict[str, Any]) -> dict[str, Any]:
    nodes = _dict(tree.get("molecule_nodes"), "tree.molecule_nodes")
    _need(bool(nodes), "tree.molecule_nodes", "is empty")
    for key, node in nodes.items():
        p = f"tree.molecule_nodes.{key}"
        _dict(node, p)
        _str(node.get("smiles"), f"{p}.smiles", empty=False)
        _need(node.get("node_id") == key, f"{p}.node_id", f"must be {key!r}")
        _need(node.get("role") in ROLES, f"{p}.role", "must be one of " + "/".join(ROLES))
        _need(_is_int(node.get("depth")) and node["depth"] >= 0, f"{p}.depth", "must be an integer >= 0")
        for sub in ("complexity", "decision_context", "llm_analysis", "availability"):
            if node.get(sub) is not None:
                _dict(node[sub], f"{p}.{sub}")
    _str(tree.get("target_smiles"), "tree.target_smiles", empty=False)
    for i, rxn in enumerate(_list(tree.get("reaction_nodes"), "tree.reaction_nodes")):
        p = f"tree.reaction_nodes[{i}]"
        _dict(rxn, p)
        _str(rxn.get("step_id"), f"{p}.step_id", empty=False)
        _str(rxn.get("reaction_smiles"), f"{p}.reaction_smiles")
        _need(rxn.get("product_node") in nodes, f"{p}.product_node", "does not name a molecule node")
        reactants = _list(rxn.get("reactant_nodes"), f"{p}.reactant_nodes")
        for r in reactants:
            _need(isinstance(r, str) and r in nodes, f"{p}.reactant_nodes", f"refers to unknown node {r!r}")
        for sub in ("template_evidence", "llm_decision", "forward_validation"):
            if rxn.get(sub) is not None:
                _dict(rxn[sub], f"{p}.{sub}")
    return nodes


def _context(ctx: dict[str, Any], path: str) -> None:
    missing = [k for k in CONTEXT_KEYS if k not in ctx]
    _need(not missing, path, "lacks " + ", ".join(missing))
    for i, row in enumerate(_list(ctx["bonds"], f"{path}.bonds")):
        _dict(row, f"{path}.bonds[{i}]")
        _need(_is_int(row.get("bond_idx")), f"{path}.bonds[{i}].bond_idx", "must be an integer")
        for j, alt in enumerate(_list(row.get("alternatives"), f"{path}.bonds[{i}].alternatives")):
            _dict(alt, f"{path}.bonds[{i}].alternatives[{j}]")
            _list(alt.get("precursors"), f"{path}.bonds[{i}].alternatives[{j}].precursors")
    for i, row in enumerate(_list(ctx["fgi"], f"{path}.fgi")):
        _dict(row, f"{path}.fgi[{i}]")
        _list(row.get("precursors"), f"{path}.fgi[{i}].precursors")
    _list(ctx["functional_groups"], f"{path}.functional_groups")
    _dict(ctx["model"], f"{path}.model")


def _current(cur: dict[str, Any], nodes: dict[str, Any]) -> None:
    node_id = cur.get("node_id")
    _need(isinstance(node_id, str) and node_id in nodes, "current.node_id", "does not name a molecule node")
    node = nodes[node_id]
    _need(cur.get("smiles") == node["smiles"], "current.smiles", f"differs from the SMILES of {node_id}")
    _need(_is_int(cur.get("depth")) and cur["depth"] >= 0, "current.depth", "must be an integer >= 0")
    _context(_dict(node.get("decision_context"), f"tree.molecule_nodes.{node_id}.decision_context"),
             f"tree.molecule_nodes.{node_id}.decision_context")
    sb = _dict(cur.get("sandbox"), "current.sandbox")
    attempts = _list(sb.get("attempts"), "current.sandbox.attempts")
    for i, att in enumerate(attempts):
        p = f"current.sandbox.attempts[{i}]"
        _dict(att, p)
        missing = [k for k in ATTEMPT_KEYS if k not in att]
        _need(not missing, p, "lacks " + ", ".join(missing))
        _need(att["attempt_idx"] == i, f"{p}.attempt_idx", f"must be {i}")
        _need(isinstance(att["success"], bool), f"{p}.success", "must be true or false")
        precursors = _list(att["precursors"], f"{p}.precursors")
        _need(all(isinstance(s, str) for s in precursors), f"{p}.precursors", "must be SMILES strings")
        _list(att["errors"], f"{p}.errors")
        if att.get("forward_validation") is not None:
            _dict(att["forward_validation"], f"{p}.forward_validation")
    sel = sb.get("selected")
    _need(sel is None or (_is_int(sel) and 0 <= sel < len(attempts)), "current.sandbox.selected",
          f"refers to attempt {sel!r} (the sandbox has {len(attempts)})")
    _need(sb.get("n_attempts") == len(attempts), "current.sandbox.n_attempts",
          f"must equal the number of attempts ({len(attempts)})")


def _audit(audit: dict[str, Any]) -> None:
    for key in ("protections", "decision_history", "failed_attempts"):
        for i, item in enumerate(_list(audit.get(key, []), f"audit_state.{key}")):
            _dict(item, f"audit_state.{key}[{i}]")
    _dict(audit.get("strategic_plan", {}), "audit_state.strategic_plan")
    for key in ("linear_step_count", "max_linear_target"):
        _need(_is_int(audit.get(key, 0)), f"audit_state.{key}", "must be an integer")
    _need(_is_number(audit.get("target_cs_score", 0.0)), "audit_state.target_cs_score", "must be a number")


def check_session_document(data: dict[str, Any], config: dict[str, Any], source: str) -> None:
    """Raise ``ValidationError("corrupted_session_file")`` naming the first damaged field of ``data``.

    ``config`` is the file's config merged with the defaults (what the session will run with).
    """
    try:
        _str(data.get("session_id"), "session_id", empty=False)
        _str(_dict(data.get("target"), "target").get("smiles"), "target.smiles", empty=False)
        _dict(data.get("config"), "config")
        _config(config)
        _dict(data.get("status"), "status")
        nodes = _tree(_dict(data.get("tree"), "tree"))
        for i, item in enumerate(_list(data.get("queue", []), "queue")):
            _need(isinstance(item, list) and len(item) == 2 and isinstance(item[0], str) and _is_int(item[1])
                  and item[1] >= 0, f"queue[{i}]", "must be [SMILES, depth]")
        seen = _list(data.get("seen_smiles", []), "seen_smiles")
        _need(all(isinstance(s, str) for s in seen), "seen_smiles", "must be SMILES strings")
        if data.get("audit_state") is not None:
            _audit(_dict(data["audit_state"], "audit_state"))
        if data.get("current") is not None:
            _current(_dict(data["current"], "current"), nodes)
    except _Damaged as exc:
        raise ValidationError("corrupted_session_file", f"{source or 'the session file'} is damaged: {exc}",
                              value=source or None, hint="restore it from an export's session.json") from None


__all__ = ["check_session_document", "CONTEXT_KEYS", "ATTEMPT_KEYS"]
