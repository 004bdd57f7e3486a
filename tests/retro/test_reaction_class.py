"""Rule-based Schneider class inference on small hand-mapped reactions."""

from __future__ import annotations

import pytest

from molx_agent.retro.reaction_class import (
    REACTION_CATEGORIES,
    REACTION_CLASSES,
    infer_reaction_class,
    reaction_class_category,
    reaction_class_name,
)

AMIDE_COUPLING = "[CH3:1][C:2](=[O:3])Cl.[NH2:4][c:5]1[cH:6][cH:7][c:8]([OH:9])[cH:10][cH:11]1>>[CH3:1][C:2](=[O:3])[NH:4][c:5]1[cH:6][cH:7][c:8]([OH:9])[cH:10][cH:11]1"
BOC_REMOVAL = "CC(C)(C)OC(=O)[NH:1][CH2:2][CH2:3][OH:4]>>[NH2:1][CH2:2][CH2:3][OH:4]"
BOC_PROTECTION = "[CH3:10][C:11]([CH3:12])([CH3:13])[O:14][C:15](=[O:16])OC(=O)OC(C)(C)C.[NH2:1][CH2:2][CH2:3][OH:4]>>[CH3:10][C:11]([CH3:12])([CH3:13])[O:14][C:15](=[O:16])[NH:1][CH2:2][CH2:3][OH:4]"
SUZUKI = "OB(O)[c:1]1[cH:2][cH:3][cH:4][cH:5][cH:6]1.Br[c:7]1[cH:8][cH:9][n:10][cH:11][cH:12]1>>[c:1]1([c:7]2[cH:8][cH:9][n:10][cH:11][cH:12]2)[cH:2][cH:3][cH:4][cH:5][cH:6]1"
NITRO_REDUCTION = "[O-][N+:1](=O)[c:2]1[cH:3][cH:4][cH:5][cH:6][cH:7]1>>[NH2:1][c:2]1[cH:3][cH:4][cH:5][cH:6][cH:7]1"
ESTER_HYDROLYSIS = "C[O:1][C:2](=[O:3])[c:4]1[cH:5][cH:6][cH:7][cH:8][cH:9]1>>[OH:1][C:2](=[O:3])[c:4]1[cH:5][cH:6][cH:7][cH:8][cH:9]1"
N_ALKYLATION = "Br[CH2:1][CH3:2].[NH:3]1[CH2:4][CH2:5][O:6][CH2:7][CH2:8]1>>[CH3:2][CH2:1][N:3]1[CH2:4][CH2:5][O:6][CH2:7][CH2:8]1"
# the deprotections and oxidations the rules before 2026-12-01 named reductions, acylations or FGIs (USPTO-50K labels
# them 6 and 8): a silyl ether (the silyl SMARTS read Si-C-O), an aryl acetate, a TMS alkyne, H2O2 and a peracid
TBS_PHENOL_REMOVAL = "CC(C)(C)[Si](C)(C)[O:1][c:2]1[cH:3][cH:4][cH:5][cH:6][cH:7]1>>[OH:1][c:2]1[cH:3][cH:4][cH:5][cH:6][cH:7]1"
ACETATE_REMOVAL = "CC(=O)[O:1][c:2]1[cH:3][cH:4][c:5]([Cl:8])[cH:6][cH:7]1>>[OH:1][c:2]1[cH:3][cH:4][c:5]([Cl:8])[cH:6][cH:7]1"
TMS_ALKYNE_REMOVAL = "C[Si](C)(C)[C:1]#[C:2][c:3]1[cH:4][cH:5][cH:6][cH:7][cH:8]1>>[CH:1]#[C:2][c:3]1[cH:4][cH:5][cH:6][cH:7][cH:8]1"
SULFOXIDATION_H2O2 = "[CH3:1][S:2][c:3]1[cH:4][cH:5][cH:6][cH:7][cH:8]1.O[OH:9]>>[CH3:1][S:2](=[O:9])[c:3]1[cH:4][cH:5][cH:6][cH:7][cH:8]1"
SULFOXIDATION_MCPBA = "[CH3:1][S:2][CH3:3].O=C(O[OH:9])c1cccc(Cl)c1>>[CH3:1][S:2](=[O:9])[CH3:3]"
N_OXIDATION = "[cH:1]1[cH:2][cH:3][n:4][cH:5][cH:6]1.O=C(O[OH:7])c1cccc(Cl)c1>>[cH:1]1[cH:2][cH:3][n+:4]([O-:7])[cH:5][cH:6]1"
EPOXIDATION = "[CH2:1]=[CH:2][c:3]1[cH:4][cH:5][cH:6][cH:7][cH:8]1.O=C(O[OH:9])c1cccc(Cl)c1>>[CH2:1]1[O:9][CH:2]1[c:3]1[cH:4][cH:5][cH:6][cH:7][cH:8]1"
PHENOL_ACETYLATION = "[CH3:1][C:2](=[O:3])Cl.[OH:4][c:5]1[cH:6][cH:7][cH:8][cH:9][cH:10]1>>[CH3:1][C:2](=[O:3])[O:4][c:5]1[cH:6][cH:7][cH:8][cH:9][cH:10]1"
ALCOHOL_OXIDATION = "[OH:1][CH2:2][c:3]1[cH:4][cH:5][cH:6][cH:7][cH:8]1>>[O:1]=[CH:2][c:3]1[cH:4][cH:5][cH:6][cH:7][cH:8]1"


@pytest.mark.parametrize(
    ("mapped", "expected"),
    [
        (AMIDE_COUPLING, 2),
        (BOC_REMOVAL, 6),
        (BOC_PROTECTION, 5),
        (SUZUKI, 3),
        (NITRO_REDUCTION, 7),
        (ESTER_HYDROLYSIS, 6),
        (N_ALKYLATION, 1),
        (ALCOHOL_OXIDATION, 8),
        (TBS_PHENOL_REMOVAL, 6),
        (ACETATE_REMOVAL, 6),
        (TMS_ALKYNE_REMOVAL, 6),
        (SULFOXIDATION_H2O2, 8),
        (SULFOXIDATION_MCPBA, 8),
        (N_OXIDATION, 8),
        (EPOXIDATION, 8),
        (PHENOL_ACETYLATION, 2),
    ],
)
def test_infer_reaction_class_of_textbook_reactions(mapped, expected):
    assert infer_reaction_class(mapped) == expected


def test_unparsable_reaction_has_no_class():
    assert infer_reaction_class("not a reaction") is None
    assert infer_reaction_class("C1CC>>CC") is None


def test_class_names_and_categories_cover_the_ten_classes():
    assert sorted(REACTION_CLASSES) == list(range(1, 11)) == sorted(REACTION_CATEGORIES)
    assert reaction_class_name(2) == "Acylation and related processes"
    assert reaction_class_category(6) == "deprotection"
    assert reaction_class_name(None) == "" and reaction_class_category(None) == ""
