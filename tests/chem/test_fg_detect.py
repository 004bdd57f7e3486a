"""M2: functional groups, protecting groups, reactive sites, FG -> reaction mapping."""

from __future__ import annotations

import pytest

from molx_agent.chem.fg_detect import (
    detect_functional_groups,
    detect_protecting_groups,
    detect_reactive_sites,
    functional_group_library,
    get_fg_reaction_mapping,
    protecting_group_library,
)
from molx_agent.errors import ChemistryError

SEED_GROUPS = (
    "amide_generic", "sulfonamide", "carbamate", "urea", "ester", "ketone", "aldehyde", "phenol",
    "primary_alcohol", "secondary_alcohol", "tertiary_alcohol", "primary_amine", "secondary_amine",
    "tertiary_amine", "aryl_chloride", "aryl_bromide", "aryl_iodide", "boronic_acid", "boronic_ester",
    "nitro", "nitrile", "azide", "alkyne", "alkene", "epoxide", "pyridine", "imidazole", "thiazole", "indole",
)


def _names(smiles):
    return {g["name"]: g["count"] for g in detect_functional_groups(smiles)}


def test_library_size_and_seed_groups():
    names = {g.name for g in functional_group_library()}
    assert len(names) >= 60
    assert set(SEED_GROUPS) <= names


@pytest.mark.parametrize(
    ("smiles", "expected", "absent"),
    [
        ("CC(=O)Oc1ccccc1C(=O)O", {"ester", "carboxylic_acid"}, {"phenol", "ketone"}),
        ("CC(=O)Nc1ccc(O)cc1", {"amide_generic", "secondary_amide", "phenol"}, {"aniline", "ester"}),
        ("CCCCN", {"primary_amine"}, {"secondary_amine"}),
        ("CCNCC", {"secondary_amine"}, {"primary_amine"}),
        ("CCN(CC)CC", {"tertiary_amine"}, {"secondary_amine"}),
        ("OCC(O)C(C)(C)O", {"primary_alcohol", "secondary_alcohol", "tertiary_alcohol"}, set()),
        ("Brc1ccc(B(O)O)cc1", {"aryl_bromide", "boronic_acid"}, {"alkyl_bromide"}),
        ("CC1(C)OB(c2ccccc2)OC1(C)C", {"boronic_ester"}, {"boronic_acid"}),
        ("[O-][N+](=O)c1ccccc1C#N", {"nitro", "nitrile"}, set()),
        ("CCN=[N+]=[N-]", {"azide"}, set()),
        ("C#CCC=C", {"alkyne", "terminal_alkyne", "alkene"}, set()),
        ("CC1OC1", {"epoxide"}, {"ether"}),
        ("CNC(=O)NC", {"urea"}, set()),
        ("CNC(=O)OC", {"carbamate"}, set()),
        ("CS(=O)(=O)NC", {"sulfonamide"}, set()),
        ("O=Cc1ccccc1", {"aldehyde"}, {"ketone"}),
        ("CC(=O)CC", {"ketone"}, {"aldehyde"}),
        ("c1ccncc1", {"pyridine"}, set()),
        ("c1ccc2[nH]ccc2c1", {"indole", "pyrrole"}, set()),
    ],
)
def test_detects_groups(smiles, expected, absent):
    names = _names(smiles)
    assert expected <= set(names), names
    assert not (absent & set(names)), names


def test_group_entry_shape(aspirin):
    ester = next(g for g in detect_functional_groups(aspirin) if g["name"] == "ester")
    assert ester["count"] == 1 and len(ester["atoms"][0]) == 5  # C-C(=O)-O-C
    assert ester["complexity"] is True and ester["category"] == "carbonyl"


@pytest.mark.parametrize(
    ("smiles", "pg"),
    [
        ("CC(C)(C)OC(=O)NCCO", "Boc"),
        ("O=C(NCC)OCc1ccccc1", "Cbz"),
        ("O=C(NCC(=O)O)OCC1c2ccccc2-c2ccccc21", "Fmoc"),
        ("CC(C)(C)[Si](C)(C)OCC", "TBS"),
        ("CC(C)[Si](OCC)(C(C)C)C(C)C", "TIPS"),
        ("CCOCc1ccccc1", "Bn"),
        ("CCOCc1ccc(OC)cc1", "PMB"),
        ("CCOCOC", "MOM"),
        ("CCOC1CCCCO1", "THP"),
        ("CC1(C)OCCO1", "acetal_ketal"),
        ("CC(=O)OCC", "Ac"),
        ("Cc1ccc(S(=O)(=O)NCC)cc1", "Ts"),
    ],
)
def test_detects_protecting_groups(smiles, pg):
    assert pg in {g["name"] for g in detect_protecting_groups(smiles)}


def test_protecting_group_library_has_removal_conditions():
    lib = protecting_group_library()
    assert len(lib) >= 20
    assert all(g.info["removal"] and g.info["protects"] for g in lib)


def test_reactive_sites_of_paracetamol(paracetamol):
    sites = detect_reactive_sites(paracetamol)
    phenol_o = [s for s in sites if s["group"] == "phenol"]
    assert {s["site_type"] for s in phenol_o} == {"nucleophile", "acidic"}
    assert all(s["element"] == "O" for s in phenol_o)


def test_fg_reaction_mapping():
    table = get_fg_reaction_mapping()
    assert "Suzuki coupling" in table["aryl_bromide"]
    assert get_fg_reaction_mapping("aldehyde")["aldehyde"]
    with pytest.raises(ChemistryError) as exc:
        get_fg_reaction_mapping(["aldehyde", "unobtainium"])
    assert exc.value.code == "unknown_functional_group"
