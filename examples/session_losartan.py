"""An interactive retrosynthesis session for losartan, driven from Python, then exported.

The decisions are the ones a process chemist would take (the classic sartan route, as in the
DuPont/Merck syntheses), each compared in the sandbox with what the engine proposes and recorded
with its reasoning and the rejected alternatives:

1. tetrazole <- nitrile + sodium azide (no template covers it: proposed with ``try_precursors``;
   the engine's Suzuki disconnection of the tetrazole is tried and rejected);
2. primary alcohol <- aldehyde (NaBH4 reduction, an FGI from the template library);
3. N-benzyl imidazole <- 2-butyl-4-chloro-5-formylimidazole (BCFI) + 4'-(bromomethyl)biphenyl-2-
   carbonitrile (Br-OTBN), the template library's azole N-alkylation.

Both starting materials of step 3 and sodium azide are in the stock, so the tree is complete after
three commits.  Run::

    uv run python examples/session_losartan.py [OUTPUT_DIR]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from molx_agent.retro import RetroCmd

LOSARTAN = "CCCCc1nc(Cl)c(CO)n1Cc1ccc(-c2ccccc2-c2nn[nH]n2)cc1"
NITRILE = "CCCCc1nc(Cl)c(CO)n1Cc1ccc(-c2ccccc2C#N)cc1"
SODIUM_AZIDE = "[Na+].[N-]=[N+]=[N-]"
BCFI = "CCCCc1nc(Cl)c(C=O)[nH]1"
BR_OTBN = "N#Cc1ccccc1-c1ccc(CBr)cc1"
BIARYL_BORONIC_ACID = "CCCCc1nc(Cl)c(CO)n1Cc1ccc(-c2ccccc2B(O)O)cc1"


def _bond_with(ctx: dict, template_id: str, precursors: set[str], cmd: RetroCmd) -> tuple[int, int]:
    """(bond_idx, alt_idx) of the engine alternative ``template_id`` giving ``precursors``."""
    for bond in ctx["bond_summary"]:
        if not bond["n_alternatives"]:
            continue
        for alt in cmd.execute("explore", {"bond_idx": bond["bond_idx"]})["alternatives"]:
            if alt["template_id"] == template_id and set(alt["precursors"]) == precursors:
                return bond["bond_idx"], alt["alt_idx"]
    raise LookupError(f"no {template_id} disconnection into {sorted(precursors)}")


def step_tetrazole(cmd: RetroCmd, ctx: dict) -> dict:
    """Losartan <- nitrile + NaN3: the tetrazole is built, not coupled."""
    # what the engine offers for the aryl-tetrazole bond: a Suzuki coupling of a 5-halotetrazole
    bond_idx, alt_idx = _bond_with(ctx, "G31_suzuki_retro", {"Brc1nn[nH]n1", BIARYL_BORONIC_ACID}, cmd)
    coupling = cmd.execute("try_bond", {"bond_idx": bond_idx, "alt_idx": alt_idx})
    azide = cmd.execute("try_precursors", {
        "precursors": [NITRILE, SODIUM_AZIDE],
        "reaction_type": "Tetrazole formation ([3+2] cycloaddition of azide to the nitrile)"})
    assert azide["success"], azide["errors"] or azide["forward_validation"]
    cmd.execute("select", {"idx": azide["attempt_idx"]})
    return cmd.execute("commit", {
        "reasoning": "Build the tetrazole last from the biaryl nitrile with NaN3 (ZnBr2 or Et3N.HCl, hot "
                     "DMF/toluene): an N-H tetrazole carried through the route would compete in the "
                     "N-alkylation (or need a trityl group), while the nitrile is robust through alkylation "
                     "and reduction.",
        "confidence": "high",
        "rejected": [{"method": coupling["reaction_type"],
                      "reason": "5-halotetrazoles with a free N-H are poor, hazardous coupling partners"},
                     {"method": "Bu3SnN3 cycloaddition (original DuPont route)",
                      "reason": "organotin waste; NaN3 with a zinc or ammonium salt does the same job"}],
        "risk_assessment": "HN3 can form under acidic work-up: quench azide, keep the pH basic",
        "strategic_plan": {"key_disconnections": ["tetrazole from nitrile", "imidazole N-benzylation"],
                           "order": "alkylate BCFI with Br-OTBN, reduce the aldehyde, build the tetrazole"},
    })


def step_reduction(cmd: RetroCmd, ctx: dict) -> dict:
    """Alcohol <- aldehyde (NaBH4): alkylating the aldehyde (BCFI) sets the right N regiochemistry."""
    fgis = cmd.execute("explore_fgi")["fgi"]
    nabh4 = next(f["fgi_idx"] for f in fgis if f["template_id"] == "G62_nabh4_aldehyde_reduction_retro")
    att = cmd.execute("try_fgi", {"fgi_idx": nabh4})
    assert att["success"], att["errors"] or att["forward_validation"]
    return cmd.execute("commit", {
        "idx": att["attempt_idx"], "confidence": "high",
        "reasoning": "NaBH4 in MeOH reduces the imidazole aldehyde chemoselectively (aryl chloride, nitrile "
                     "untouched); going through the aldehyde lets the N-alkylation use BCFI.",
        "rejected": [{"method": "direct N-alkylation of the 5-hydroxymethyl imidazole",
                      "reason": "poor N1/N3 regioselectivity without the aldehyde"}],
    })


def step_alkylation(cmd: RetroCmd, ctx: dict) -> dict:
    """N-benzyl imidazole <- BCFI + Br-OTBN (azole N-alkylation template)."""
    bond_idx, alt_idx = _bond_with(ctx, "G17_azole_n_alkylation_retro", {BCFI, BR_OTBN}, cmd)
    att = cmd.execute("try_bond", {"bond_idx": bond_idx, "alt_idx": alt_idx})
    assert att["success"], att["errors"] or att["forward_validation"]
    return cmd.execute("commit", {
        "idx": att["attempt_idx"], "confidence": "medium",
        "reasoning": "K2CO3/DMF alkylation of BCFI with Br-OTBN; the 5-formyl group favours the N1 isomer "
                     "needed for losartan. Both partners are sartan building blocks in stock.",
        "rejected": [{"method": "Suzuki coupling of the biaryl after alkylation",
                      "reason": "Br-OTBN already carries the biaryl; one step fewer"}],
    })


DECISIONS = {LOSARTAN: step_tetrazole, NITRILE: step_reduction}


def run(session_file: Path, output_dir: Path) -> dict:
    cmd = RetroCmd(session_file)
    cmd.execute("init", {"target": LOSARTAN, "name": "Losartan", "overwrite": True})
    while True:
        ctx = cmd.execute("next")
        if ctx.get("action") == "queue_empty":
            break
        cur = ctx["current"]
        decide = DECISIONS.get(cur["smiles"], step_alkylation)
        result = decide(cmd, cur)
        print(cur["node_id"], cur["smiles"], "->", result["step_id"], result["reaction_smiles"])
        print("   new terminal:", result["new_terminal"], "new pending:", result["new_pending"])
    tree = cmd.execute("tree")
    assert tree["tree_complete"], tree["tree"]
    print(tree["tree"])
    cmd.execute("finalize", {"summary": "Losartan in three steps from BCFI and Br-OTBN: N-alkylation, NaBH4 "
                                        "reduction, tetrazole formation with sodium azide."})
    print(cmd.execute("report")["report"])
    return cmd.execute("export", {"name": "Losartan", "output_dir": str(output_dir)})


def main() -> None:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="molx_session_"))
    res = run(out / "losartan_session.json", out / "output")
    print(res["summary"])
    print("report:", res["html_report"])


if __name__ == "__main__":
    main()
