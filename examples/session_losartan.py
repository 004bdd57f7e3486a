"""Drive an interactive retrosynthesis session for losartan to the end and export it.

The decisions here come from a simple scripted policy standing in for a chemist or an LLM: at each
molecule it tries the proposals of the most promising bonds (named templates and the single-step
model, as listed by ``next``), commits the first one that passes forward validation, and otherwise
skips the molecule (it then shows as unresolved in the report).  Run::

    uv run python examples/session_losartan.py [OUTPUT_DIR]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from molx_agent.retro import RetroCmd

LOSARTAN = "CCCCc1nc(Cl)c(CO)n1Cc1ccc(-c2ccccc2-c2nn[nH]n2)cc1"


def decide(cmd: RetroCmd, ctx: dict, max_bonds: int = 4, max_alts: int = 3) -> dict:
    """Try the first proposals of the best bonds; commit the first validated one, else skip."""
    cur = ctx["current"]
    tried = []
    for bond in [b for b in cur["bond_summary"] if b["n_alternatives"]][:max_bonds]:
        for alt_idx in range(min(max_alts, bond["n_alternatives"])):
            att = cmd.execute("try_bond", {"bond_idx": bond["bond_idx"], "alt_idx": alt_idx})
            tried.append(att)
            if att["success"]:
                rejected = [{"method": t["reaction_type"], "reason": "failed forward validation"}
                            for t in tried if not t["success"]]
                return cmd.execute("commit", {
                    "idx": att["attempt_idx"], "confidence": "medium", "rejected": rejected,
                    "reasoning": f"{att['reaction_type']} at bond {bond['bond_idx']} "
                                 f"({bond.get('chemical_label') or bond['bond_type']}); feasibility "
                                 f"{att['forward_validation']['feasibility_score']}"})
    return cmd.execute("skip", {"reason": f"none of {len(tried)} proposals passed forward validation"})


def run(session_file: Path, output_dir: Path, target: str, name: str, max_decisions: int = 30) -> dict:
    cmd = RetroCmd(session_file)
    cmd.execute("init", {"target": target, "name": name, "overwrite": True})
    for _ in range(max_decisions):
        ctx = cmd.execute("next")
        if ctx.get("action") == "queue_empty":
            break
        result = decide(cmd, ctx)
        print(ctx["current"]["node_id"], ctx["current"]["smiles"], "->",
              result.get("step_id") or "skipped", result.get("reaction_smiles", ""))
    cmd.execute("finalize", {"summary": f"{name}: route planned step by step with the interactive session."})
    print(cmd.execute("tree")["tree"])
    return cmd.execute("export", {"name": name, "output_dir": str(output_dir)})


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="molx_session_"))
    res = run(out / "losartan_session.json", out / "output", LOSARTAN, "Losartan")
    print(res["summary"])
    print("report:", res["html_report"])


if __name__ == "__main__":
    main()
