"""A complete interactive retrosynthesis session for paracetamol, driven from Python, then exported.

Shows the seed's loop: init -> next (decision context) -> explore a bond -> try proposals in the
sandbox -> select + commit with the reasoning -> next until the queue is empty -> finalize -> export.
Run::

    uv run python examples/session_paracetamol.py [OUTPUT_DIR]
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from molx_agent.retro import RetroCmd


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="molx_session_"))
    cmd = RetroCmd(out / "paracetamol_session.json")
    print(cmd.execute("init", {"target": "CC(=O)Nc1ccc(O)cc1", "name": "Paracetamol", "overwrite": True}))

    ctx = cmd.execute("next")["current"]
    amide = next(b for b in ctx["bond_summary"] if b["chemical_label"] and "amide" in b["chemical_label"])
    print("strongest bond:", amide["bond_idx"], amide["chemical_label"], amide["reaction_types"][:3])

    options = cmd.execute("explore", {"bond_idx": amide["bond_idx"]})["alternatives"]
    anhydride = next(a for a in options if "Anhydride" in a["template"])
    cmd.execute("try_bond", {"bond_idx": amide["bond_idx"], "alt_idx": anhydride["alt_idx"]})
    cmd.execute("try_precursors", {"precursors": ["CC(=O)Cl", "Nc1ccc(O)cc1"],
                                   "reaction_type": "Schotten-Baumann acylation"})
    print(json.dumps(cmd.execute("sandbox_list"), indent=1, ensure_ascii=False))

    cmd.execute("select", {"idx": 0})
    result = cmd.execute("commit", {
        "reasoning": "Ac2O acetylates the aniline nitrogen selectively over the phenol in water; "
                     "acetic acid is the only by-product.",
        "confidence": "high",
        "rejected": [{"method": "Schotten-Baumann (AcCl)", "reason": "HCl by-product and O-acylation risk"}],
    })
    print(result)
    assert result["tree_complete"], "both precursors should be purchasable"
    print(cmd.execute("next"))  # queue_empty
    cmd.execute("finalize", {"summary": "Paracetamol in one step from 4-aminophenol and acetic anhydride."})
    print(cmd.execute("report")["report"])
    exported = cmd.execute("export", {"name": "Paracetamol", "output_dir": str(out / "output")})
    print(exported["summary"])
    print("report:", exported["html_report"])


if __name__ == "__main__":
    main()
