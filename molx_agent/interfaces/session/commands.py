"""``RetroCmd``: the interactive retrosynthesis session (seed 001 section 1).

``RetroCmd(session_file).execute(command, args)`` loads the session file, runs one command on the
in-memory state (with the engine it was given, ``RetroCmd(session_file, engine=)``) and, only when the command
succeeded and changed something, saves the file
atomically.  A command that fails (bad arguments, unknown bond, nothing selected, a damaged file)
raises a :class:`~molx_agent.errors.RetroError` and leaves the file byte-for-byte unchanged, so a new
process opening the same file always continues exactly where the last one stopped.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from molx_agent.errors import ValidationError
from molx_agent.interfaces.session import engine
from molx_agent.interfaces.session.args import COMMANDS, check_args
from molx_agent.interfaces.session.context import compact_view
from molx_agent.interfaces.session.engine import SessionEngine
from molx_agent.interfaces.session.state import SessionState, load_session, save_session

if TYPE_CHECKING:
    from molx_agent.retro.engine import RetroEngine

logger = logging.getLogger(__name__)

READ_ONLY = frozenset({"context", "explore", "explore_fgi", "smart_cap", "sandbox_list", "tree", "status",
                       "report", "export"})


def linear_target_for(cs_score: float | None) -> int:
    """``max_linear_target`` from the target's CS score: round(2 + 1.5 * CS), clamped to 4..15.

    Paracetamol (CS ~1.3) -> 4 steps, a median drug-like target (CS ~4.2) -> 8, taxol (CS ~8.2) -> 14.
    """
    if cs_score is None:
        return 8
    return max(4, min(15, round(2 + 1.5 * float(cs_score))))


class RetroCmd:
    """One interactive retrosynthesis session stored in ``session_file``.

    ``engine``: the :class:`~molx_agent.retro.engine.RetroEngine` (single-step model, stock, step judgement) every
    command uses; default: the process-wide engine.  The session's ``stock`` config is bound to it.
    """

    commands = COMMANDS

    def __init__(self, session_file: str | Path, engine: RetroEngine | None = None) -> None:
        self.session_file = Path(session_file)
        self.engine = SessionEngine(engine)

    # ------------------------------------------------------------------------------------------
    def execute(self, command: str, args: dict[str, Any] | None = None) -> dict[str, Any]:
        """Run ``command`` with ``args`` (see seed 001 section 1 for every command's result)."""
        if not isinstance(command, str):
            raise ValidationError("unknown_command", "the command must be a string", value=repr(command))
        command = command.strip()
        params = check_args(command, args)
        if command == "init":
            from molx_agent.interfaces.session.actions import cmd_init

            state, result = cmd_init(self.session_file, params, self.engine)
            save_session(state, self.session_file)
            return result
        state = load_session(self.session_file)
        handler = _handler(command)
        result = handler(state, params, self)
        if command not in READ_ONLY:
            save_session(state, self.session_file)
        return result

    def state(self) -> SessionState:
        """The current session state (read from disk)."""
        return load_session(self.session_file)


def _handler(command: str):  # noqa: ANN202
    from molx_agent.interfaces.session import actions, views

    table = {
        "next": actions.cmd_next,
        "context": views.cmd_context,
        "explore": views.cmd_explore,
        "explore_fgi": views.cmd_explore_fgi,
        "try_bond": actions.cmd_try_bond,
        "try_precursors": actions.cmd_try_precursors,
        "try_fgi": actions.cmd_try_fgi,
        "smart_cap": views.cmd_smart_cap,
        "custom_cap": actions.cmd_custom_cap,
        "sandbox_list": views.cmd_sandbox_list,
        "sandbox_clear": actions.cmd_sandbox_clear,
        "select": actions.cmd_select,
        "commit": actions.cmd_commit,
        "accept": actions.cmd_accept,
        "skip": actions.cmd_skip,
        "tree": views.cmd_tree,
        "status": views.cmd_status,
        "finalize": actions.cmd_finalize,
        "report": views.cmd_report,
        "export": views.cmd_export,
    }
    return table[command]


def require_current(state: SessionState, command: str) -> dict[str, Any]:
    """The molecule awaiting a decision, or a clear error saying what to do."""
    if not state.current:
        hint = "call `next` to take the next molecule" if state.queue else "the queue is empty: `finalize`/`export`"
        raise ValidationError("no_current_molecule", f"{command}: no molecule is awaiting a decision",
                              value=command, hint=hint)
    return state.current


def current_context(state: SessionState, command: str = "context") -> dict[str, Any]:
    cur = require_current(state, command)
    node = state.graph.molecule_nodes[cur["node_id"]]
    return node.decision_context


def bond_row(state: SessionState, bond_idx: int, command: str) -> dict[str, Any]:
    """The decision-context row of ``bond_idx`` (error naming the valid indices if absent)."""
    ctx = current_context(state, command)
    for row in ctx["bonds"]:
        if row["bond_idx"] == bond_idx:
            return row
    n_bonds = engine.parse(ctx["smiles"]).GetNumBonds()
    listed = ", ".join(str(r["bond_idx"]) for r in ctx["bonds"][:20])
    if not 0 <= bond_idx < n_bonds:
        raise ValidationError("invalid_bond_idx", f"{command}: bond index {bond_idx} does not exist in "
                              f"{ctx['smiles']} (bonds 0..{n_bonds - 1})", value=bond_idx,
                              hint=f"bonds with proposals: {listed}")
    raise ValidationError("bond_not_disconnectable", f"{command}: bond {bond_idx} of {ctx['smiles']} has no "
                          "disconnection proposal", value=bond_idx,
                          hint=f"bonds with proposals: {listed}; or propose precursors with try_precursors")


def bond_atoms(state: SessionState, bond_idx: int, command: str) -> tuple[int, int]:
    """Atom pair of any bond of the current molecule (proposals or not)."""
    ctx = current_context(state, command)
    mol = engine.parse(ctx["smiles"])
    if not 0 <= bond_idx < mol.GetNumBonds():
        raise ValidationError("invalid_bond_idx", f"{command}: bond index {bond_idx} does not exist in "
                              f"{ctx['smiles']} (bonds 0..{mol.GetNumBonds() - 1})", value=bond_idx)
    b = mol.GetBondWithIdx(bond_idx)
    return b.GetBeginAtomIdx(), b.GetEndAtomIdx()


def status_view(state: SessionState) -> dict[str, Any]:
    state.refresh_status()
    g = state.graph
    return {
        "session_id": state.session_id,
        "target": state.target["smiles"],
        "name": state.target.get("name", ""),
        "status": state.status.get("status", "in_progress"),
        "steps_executed": g.n_steps,
        "pending_count": state.status["pending_count"],
        "queue_length": len(state.queue),
        "terminal_count": len(g.terminals()),
        "current": (state.current or {}).get("node_id"),
        "tree_complete": g.is_complete(),
        "linear_steps": state.audit.linear_step_count,
        "max_linear_target": state.audit.max_linear_target,
        "max_steps": state.config["max_steps"],
        "max_depth": state.config["max_depth"],
    }


def compact_context(state: SessionState) -> dict[str, Any]:
    cur = require_current(state, "context")
    node = state.graph.molecule_nodes[cur["node_id"]]
    ctx = node.decision_context
    tier = "depth_limit" if cur["depth"] >= state.config["max_depth"] and not ctx["is_target"] else "standard"
    view = compact_view(ctx, tier=tier)
    view["availability"] = node.availability or None
    view["sandbox"] = {"n_attempts": cur["sandbox"]["n_attempts"], "selected": cur["sandbox"]["selected"]}
    view["audit_state_summary"] = {"linear_steps": state.audit.linear_step_count,
                                   "linear_target": state.audit.max_linear_target,
                                   "protections_open": sum(1 for p in state.audit.protections
                                                           if p.status != "removed")}
    return {"status": status_view(state), "current": view}


__all__ = ["RetroCmd", "linear_target_for", "status_view", "compact_context", "require_current", "bond_row",
           "current_context"]
