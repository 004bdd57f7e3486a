"""Mechanism flags read from a step's atom map (chem.mechanism.step_mechanism) and their place in the route
judgement."""

from __future__ import annotations

import pytest

from molx_agent.chem.mechanism import step_mechanism
from molx_agent.retro.judge import judge_route
from tests.chem.route_fixtures import one_step_graph

# venlafaxine by a general template: the benzylic CH2 of 4-methoxyphenethyl bromide "deprotonated" to add to
# cyclohexanone (the model's own mapped reaction)
VENLAFAXINE_STEP = (
    "[C:10]1(=[O:11])[CH2:12][CH2:13][CH2:14][CH2:15][CH2:16]1.[CH3:1][O:2][c:3]1[cH:4][cH:5][c:6]([CH2:7][CH2:8]"
    "[Br:9])[cH:17][cH:18]1>>[CH3:1][O:2][c:3]1[cH:4][cH:5][c:6]([CH:7]([CH2:8][Br:9])[C:10]2([OH:11])[CH2:12]"
    "[CH2:13][CH2:14][CH2:15][CH2:16]2)[cH:17][cH:18]1"
)
# the literature's first step: 4-methoxyphenylacetonitrile, whose CH2 the nitrile activates
VENLAFAXINE_NITRILE = (
    "[C:10]1(=[O:11])[CH2:12][CH2:13][CH2:14][CH2:15][CH2:16]1.[CH3:1][O:2][c:3]1[cH:4][cH:5][c:6]([CH2:7][C:8]"
    "#[N:9])[cH:17][cH:18]1>>[CH3:1][O:2][c:3]1[cH:4][cH:5][c:6]([CH:7]([C:8]#[N:9])[C:10]2([OH:11])[CH2:12]"
    "[CH2:13][CH2:14][CH2:15][CH2:16]2)[cH:17][cH:18]1"
)
# 3-fluoroaniline C-alkylated at its para position by 1,2-dibromoethane
ANILINE_ALKYLATION = (
    "Br[CH2:9][CH2:8][Br:10].[NH2:1][c:2]1[cH:3][cH:4][cH:5][c:6]([F:7])[cH:11]1>>[NH2:1][c:2]1[cH:3][cH:4][c:5]"
    "([CH2:8][CH2:9][Br:10])[c:6]([F:7])[cH:11]1"
)


def codes(mapped: str) -> list[str]:
    return [flag["code"] for flag in step_mechanism(mapped)]


def test_unactivated_benzylic_carbanion_is_flagged_with_the_new_bond():
    flags = step_mechanism(VENLAFAXINE_STEP)
    assert [f["code"] for f in flags] == ["unactivated_carbanion"]
    assert flags[0]["atoms"] == [7, 10]  # the nucleophilic carbon first
    assert "atom 7" in flags[0]["reason"]


@pytest.mark.parametrize("mapped", [
    VENLAFAXINE_NITRILE,
    # Claisen condensation: the acetophenone's methyl next to its carbonyl
    "[C:9](=[O:10])([C:11]([F:12])([F:13])[F:14])[O:902][CH2:901][CH3:900].[CH3:1][c:2]1[cH:3][cH:4][c:5]([C:6]"
    "(=[O:7])[CH3:8])[cH:15][cH:16]1>>[CH3:1][c:2]1[cH:3][cH:4][c:5]([C:6](=[O:7])[CH2:8][C:9](=[O:10])[C:11]([F:12])"
    "([F:13])[F:14])[cH:15][cH:16]1",
    # Grignard addition: the carbon keeps its hydrogens (it loses magnesium)
    "[CH3:1][CH2:2][Mg][Br].[CH3:3][CH:4]=[O:5]>>[CH3:1][CH2:2][CH:4]([CH3:3])[OH:5]",
    # 2-picoline's methyl (aza-benzylic) adds to benzaldehyde
    "[CH3:1][c:2]1[cH:3][cH:4][cH:5][cH:6][n:7]1.[O:8]=[CH:9][c:10]1[cH:11][cH:12][cH:13][cH:14][cH:15]1>>"
    "[OH:8][CH:9]([CH2:1][c:2]1[cH:3][cH:4][cH:5][cH:6][n:7]1)[c:10]1[cH:11][cH:12][cH:13][cH:14][cH:15]1",
    # o-nitrotoluene's methyl (an electron-poor ring) condenses with an aldehyde
    "[CH3:1][c:2]1[cH:3][cH:4][cH:5][cH:6][c:7]1[N+:8](=[O:9])[O-:10].[O:11]=[CH:12][CH3:13]>>[OH:11][CH:12]([CH3:13])"
    "[CH2:1][c:2]1[cH:3][cH:4][cH:5][cH:6][c:7]1[N+:8](=[O:9])[O-:10]",
    # Madelung indole synthesis: the o-toluidide's methyl, laterally deprotonated next to the acylated nitrogen
    "[NH2:1][CH2:2][CH2:3][CH2:4][C:5]([NH:13][c:12]1[c:7]([CH3:6])[cH:8][cH:9][cH:10][cH:11]1)=[O:900]>>[NH2:1][CH2:2]"
    "[CH2:3][CH2:4][c:5]1[cH:6][c:7]2[cH:8][cH:9][cH:10][cH:11][c:12]2[nH:13]1",
    # 1,3-dithiane (alpha to two sulfurs) alkylated
    "[CH2:1]1[S:2][CH2:3][CH2:4][CH2:5][S:6]1.[CH3:7][CH2:8][Br:9]>>[CH3:7][CH2:8][CH:1]1[S:2][CH2:3][CH2:4][CH2:5]"
    "[S:6]1",
    # diphenylmethane (doubly benzylic) alkylated
    "[CH2:1]([c:2]1[cH:3][cH:4][cH:5][cH:6][cH:7]1)[c:8]1[cH:9][cH:10][cH:11][cH:12][cH:13]1.[CH3:14][I:15]>>"
    "[CH3:14][CH:1]([c:2]1[cH:3][cH:4][cH:5][cH:6][cH:7]1)[c:8]1[cH:9][cH:10][cH:11][cH:12][cH:13]1",
    # Friedel-Crafts acylation of anisole: the arene carbon is sp2, the acylium partner is not an alkyl halide
    "[CH3:1][O:2][c:3]1[cH:4][cH:5][cH:6][cH:7][cH:8]1.[CH3:9][C:10](=[O:11])[Cl:12]>>[CH3:1][O:2][c:3]1[cH:4][cH:5]"
    "[c:6]([C:10]([CH3:9])=[O:11])[cH:7][cH:8]1",
    # Suzuki coupling: no C-H used at all
    "[Br:1][c:2]1[cH:3][cH:4][cH:5][cH:6][cH:7]1.[OH:8][B:9]([OH:10])[c:11]1[cH:12][cH:13][cH:14][cH:15][cH:16]1>>"
    "[c:2]1([c:11]2[cH:12][cH:13][cH:14][cH:15][cH:16]2)[cH:3][cH:4][cH:5][cH:6][cH:7]1",
])
def test_activated_or_organometallic_carbons_are_not_flagged(mapped):
    assert codes(mapped) == []


@pytest.mark.parametrize("mapped", [
    # an aldol at the lactam's beta carbon (the alpha CH2 is the acidic one)
    "[CH2:4]1[CH2:5][NH:6][C:7](=[O:8])[CH2:9]1.[CH3:1][CH:2]=[O:3]>>[CH3:1][CH:2]([OH:3])[CH:4]1[CH2:5][NH:6][C:7]"
    "(=[O:8])[CH2:9]1",
    # a tertiary ring C-H alkylated by ethyl bromoacetate
    "[CH3:1][CH2:2][O:3][C:4](=[O:5])[CH2:6][Br:900].[CH:7]1([CH3:8])[CH2:16][CH2:17][CH2:18][N:19]([C:20]([CH3:21])"
    "=[O:22])[CH2:23]1>>[CH3:1][CH2:2][O:3][C:4](=[O:5])[CH2:6][C:7]1([CH3:8])[CH2:16][CH2:17][CH2:18][N:19]([C:20]"
    "([CH3:21])=[O:22])[CH2:23]1",
])
def test_beta_and_unactivated_ring_positions_are_flagged(mapped):
    assert codes(mapped) == ["unactivated_carbanion"]


def test_free_aniline_c_alkylated_by_an_alkyl_halide_is_flagged():
    flags = step_mechanism(ANILINE_ALKYLATION)
    assert [f["code"] for f in flags] == ["aniline_c_alkylation"]
    assert flags[0]["atoms"] == [5, 8]


@pytest.mark.parametrize("mapped", [
    # the same alkylation on acetanilide: the nitrogen is an amide, not a free aniline
    "Br[CH2:9][CH2:8][Br:10].[CH3:12][C:13](=[O:14])[NH:1][c:2]1[cH:3][cH:4][cH:5][c:6]([F:7])[cH:11]1>>[CH3:12][C:13]"
    "(=[O:14])[NH:1][c:2]1[cH:3][cH:4][c:5]([CH2:8][CH2:9][Br:10])[c:6]([F:7])[cH:11]1",
    # Skraup quinoline synthesis: aniline and glycerol (through acrolein), an alcohol, not an alkylating agent
    "[CH2:1]([CH:2]([CH2:3][OH:14])[OH:13])[OH:12].[NH2:4][c:5]1[cH:6][cH:7][c:8]([Br:9])[cH:10][cH:11]1>>[cH:1]1[cH:2]"
    "[cH:3][n:4][c:5]2[c:6]1[cH:7][c:8]([Br:9])[cH:10][cH:11]2",
    # indole C3 alkylation: the ring N-H is aromatic, not an aniline
    "[cH:1]1[nH:2][c:3]2[cH:4][cH:5][cH:6][cH:7][c:8]2[cH:9]1.[CH2:10]([Br:11])[c:12]1[cH:13][cH:14][cH:15][cH:16]"
    "[cH:17]1>>[c:1]1([CH2:10][c:12]2[cH:13][cH:14][cH:15][cH:16][cH:17]2)[cH:9][nH:2][c:3]2[cH:4][cH:5][cH:6][cH:7]"
    "[c:8]12",
])
def test_aniline_rule_spares_amides_alcohols_and_aromatic_nh(mapped):
    assert codes(mapped) == []


@pytest.mark.parametrize("mapped", ["", "CCO>>CC=O", "not a smiles>>CCO", "[CH3:1][OH:2]>>[CH3:1][Cl:2]"])
def test_unmapped_unparsable_or_bond_neutral_steps_give_no_flag(mapped, capfd):
    assert step_mechanism(mapped) == []
    assert capfd.readouterr().err == ""  # RDKit's parse errors are not printed


def test_route_judgement_flags_the_mechanism_and_caps_confidence_at_medium():
    bad = judge_route(one_step_graph(["COc1ccc(CCBr)cc1", "O=C1CCCCC1"], "COc1ccc(C(CBr)C2(O)CCCCC2)cc1",
                                     "C-C bond formation", VENLAFAXINE_STEP))
    assert bad["confidence"] == "medium" and bad["verdict"] == "weak"
    assert [i["code"] for i in bad["issues"]] == ["unactivated_carbanion"]
    assert bad["issues"][0]["message"].startswith("mechanism: ") and bad["issues"][0]["atoms"] == [7, 10]
    good = judge_route(one_step_graph(["COc1ccc(CC#N)cc1", "O=C1CCCCC1"], "COc1ccc(C(C#N)C2(O)CCCCC2)cc1",
                                      "C-C bond formation", VENLAFAXINE_NITRILE))
    assert good["confidence"] == "high" and good["issues"] == []
    # without an atom map the judgement cannot read the mechanism: no flag, no guess
    unmapped = judge_route(one_step_graph(["COc1ccc(CCBr)cc1", "O=C1CCCCC1"], "COc1ccc(C(CBr)C2(O)CCCCC2)cc1",
                                          "C-C bond formation"))
    assert unmapped["confidence"] == "high"
