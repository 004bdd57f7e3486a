"""The named retro-template library: contents, loading, running, id resolution, site scanning."""

from __future__ import annotations

import dataclasses
import re

import pytest
from rdkit import Chem

from molx_agent.chem.template_scan import (
    find_disconnectable_bonds,
    list_fgi_options,
    scan_applicable_reactions,
)
from molx_agent.chem.templates import (
    KINDS,
    apply_named_template,
    get_template,
    group_patterns,
    incompatible_groups_present,
    load_named_templates,
    resolve_template_ids,
    run_named_template,
    template_sites,
)
from molx_agent.chem.utils import load_template
from molx_agent.errors import ChemistryError

#: reactions the issue requires (a keyword that must appear in some template name)
REQUIRED_REACTIONS = [
    "Amide Bond Formation (Acid Chloride)", "Amide Bond Formation", "Esterification", "Ester Hydrolysis",
    "Williamson", "N-Alkylation (SN2)", "Reductive Amination", "Suzuki", "Negishi", "Stille", "Heck",
    "Sonogashira", "Buchwald-Hartwig", "Chan Lam", "Ullmann", "SNAr N-Nucleophile", "SNAr O-Nucleophile",
    "SNAr S-Nucleophile", "Grignard", "Organolithium", "Wittig", "Horner-Wadsworth-Emmons", "Aldol", "Michael",
    "Friedel-Crafts", "Mitsunobu", "Sulfonamide", "Urea", "Carbamate", "Boc Protection", "Boc Deprotection",
    "Cbz Protection", "Cbz Deprotection", "Fmoc Protection", "Fmoc Deprotection", "TBS Protection",
    "TBS Deprotection", "Benzyl Ether Protection", "Benzyl Ether Deprotection", "Swern", "Dess-Martin", "Jones",
    "NaBH4", "LiAlH4", "Hydrogenation", "Nitro Reduction", "Fischer Indole", "Hantzsch Thiazole", "Pyrazole",
    "Benzimidazole", "CuAAC", "1,2,4-Oxadiazole", "Diels-Alder",
]


def test_library_has_at_least_80_well_formed_templates():
    templates = load_named_templates()
    assert len(templates) >= 80
    ids = [t.id for t in templates]
    assert len(ids) == len(set(ids))
    for t in templates:
        assert re.fullmatch(r"G\d{2,3}_[a-z0-9_]+_retro", t.id), t.id
        assert t.name and t.category and t.kind in KINDS
        assert ">>" in t.retro_smarts
        assert 0 < t.confidence <= 1
        assert isinstance(t.byproducts, tuple) and isinstance(t.incompatible_groups, tuple)
        assert set(t.incompatible_groups) <= set(group_patterns()), t.id


def test_required_reactions_are_covered():
    names = " | ".join(t.name for t in load_named_templates())
    missing = [r for r in REQUIRED_REACTIONS if r not in names]
    assert not missing, missing


def test_seed_template_id_and_display_name():
    tpl = get_template("G02_amide_retro")
    assert tpl.display_name == "Amide Bond Formation (Retro, ester amide)"
    assert dataclasses.is_dataclass(tpl) and tpl.__dataclass_params__.frozen
    with pytest.raises(dataclasses.FrozenInstanceError):
        tpl.name = "x"  # type: ignore[misc]
    assert load_template("G02_amide_retro")["display_name"] == tpl.display_name


def test_byproducts_are_valid_smiles():
    for t in load_named_templates():
        for smi in t.byproducts:
            assert Chem.MolFromSmiles(smi) is not None, (t.id, smi)


def test_every_template_compiles_to_a_site():
    sites = template_sites()
    assert len(sites) == len(load_named_templates())
    for site in sites:
        if site.template.kind in ("disconnection", "ring_formation", "protection"):
            assert site.broken_pairs, site.template.id


def test_apply_returns_unique_sorted_canonical_sets(paracetamol):
    outcomes = apply_named_template("G02_amide_retro", paracetamol)
    assert outcomes == [["CC(=O)O", "Nc1ccc(O)cc1"]]
    for t in load_named_templates():
        for pset in apply_named_template(t.id, paracetamol):
            assert pset == sorted(pset)
            assert all(Chem.MolToSmiles(Chem.MolFromSmiles(s)) == s for s in pset)


def test_run_reports_the_broken_bond(aspirin):
    outcomes = run_named_template("G03_ester_acid_chloride_retro", aspirin)
    assert len(outcomes) == 1
    assert outcomes[0].precursors == ("CC(=O)Cl", "O=C(O)c1ccccc1O")
    assert outcomes[0].broken_bonds == frozenset({(1, 3)})


def test_stereocentres_survive_a_template():
    outcomes = apply_named_template("G02_amide_retro", "C[C@H](NC(C)=O)C(=O)O")
    assert ["CC(=O)O", "C[C@H](N)C(=O)O"] in outcomes


def test_template_that_does_not_apply_gives_nothing():
    assert apply_named_template("G31_suzuki_retro", "CCO") == []


def test_unknown_template_and_bad_smiles_raise():
    with pytest.raises(ChemistryError) as exc:
        apply_named_template("G999_nothing_retro", "CCO")
    assert exc.value.code == "unknown_template" and exc.value.value == "G999_nothing_retro"
    with pytest.raises(ChemistryError) as exc:
        apply_named_template("G02_amide_retro", "C1CC(")
    assert exc.value.code == "invalid_smiles"


def test_resolve_template_ids():
    assert resolve_template_ids("G02_amide_retro") == ["G02_amide_retro"]
    assert resolve_template_ids("g02") == ["G02_amide_retro"]
    suzuki = resolve_template_ids("Suzuki")
    assert "G31_suzuki_retro" in suzuki and all("suzuki" in s for s in suzuki)
    assert resolve_template_ids(["Suzuki Coupling", "Swern"])[:1] == ["G31_suzuki_retro"]
    assert resolve_template_ids(["nonsense", "Heck"], strict=False) == ["G36_heck_retro"]
    with pytest.raises(ChemistryError) as exc:
        resolve_template_ids(["Heck", "nonsense"])
    assert exc.value.code == "unknown_template" and exc.value.value == "nonsense"


def test_incompatible_groups_outside_the_site():
    from molx_agent.chem.utils import parse_mol

    mol = parse_mol("OCCc1ccc(C(C)=O)cc1")  # ketone for a Grignard + a free alcohol elsewhere
    tpl = get_template("G40_grignard_ketone_retro")
    ketone_site = (6, 7, 8, 9)
    assert "alcohol" in incompatible_groups_present(mol, tpl, ketone_site)


def test_scan_applicable_reactions_and_disconnectable_bonds(aspirin, paracetamol):
    rows = scan_applicable_reactions(paracetamol)
    ids = {r["template_id"] for r in rows}
    assert {"G02_amide_retro", "G01_amide_acid_chloride_retro"} <= ids
    amide = next(r for r in rows if r["template_id"] == "G02_amide_retro")
    assert amide["bonds"] == [{"bond_idx": 2, "atoms": [1, 3]}]
    bonds = find_disconnectable_bonds(aspirin)
    ester = next(b for b in bonds if b["atoms"] == [1, 3])
    assert {t["template_id"] for t in ester["templates"]} >= {"G03_ester_acid_chloride_retro", "G04_esterification_retro"}


def test_fgi_options_list_interconversions():
    rows = list_fgi_options("O=Cc1ccccc1")
    assert rows[0]["fgi_idx"] == 0
    assert any(r["template"] == "Swern (Retro, oxidation reduction)" for r in rows)


def test_scanning_bad_input_raises():
    for bad in ("C1CC(", "", None):
        with pytest.raises(ChemistryError) as exc:
            scan_applicable_reactions(bad)
        assert exc.value.code == "invalid_smiles"


# ----------------------------------------------------------------------------------------- removed atoms
def test_removed_atom_count_counts_the_unmapped_product_side_atoms():
    from rdkit.Chem import rdChemReactions

    from molx_agent.chem.templates import removed_atom_count

    benzyl = rdChemReactions.ReactionFromSmarts(get_template("G79_benzyl_protection_retro").retro_smarts)
    assert removed_atom_count(benzyl) == 7  # CH2 and the six ring carbons
    extracted = rdChemReactions.ReactionFromSmarts("[C:1]-[NH:2]-[C:3]=[O:4]>>[C:1]-[NH2:2].Cl-[C:3]=[O:4]")
    assert removed_atom_count(extracted) == 0
    from molx_agent.chem.templates import removal_signature

    assert removal_signature(benzyl) == (7, 1)  # the group joins the kept atoms by its O-CH2 bond alone
    assert removal_signature(extracted) == (0, 0)


@pytest.mark.parametrize("product", [
    "CCOCc1ccc(Br)cc1",  # a 4-bromobenzyl ether
    "Fc1ccc(C2(CCCCl)OCc3cc(Br)ccc32)cc1",  # citalopram's bromophthalane: the "benzyl" is a fused ring
    "Fc1ccc(C2(CCCCl)OCc3ccccc32)cc1",  # the phthalane itself: no atom lost, but the ring's C-C bond would be cut
    "Nc1cnc(-c2ccc(C3CCC3)c(OCc3cc(F)ccc3Cl)c2F)cn1",  # a 2-chloro-5-fluorobenzyl ether
])
def test_a_group_template_never_deletes_product_atoms_it_does_not_match(product):
    """The benzyl template's "phenyl" matched a substituted or fused ring: RDKit removed the ring with its halogen
    (or cut the phthalane's ring bond) and the template wrote plain benzyl bromide.  No such outcome is given."""
    for outcome in run_named_template("G79_benzyl_protection_retro", product):
        assert "BrCc1ccccc1" not in outcome.precursors
        heavy = sum(Chem.MolFromSmiles(s).GetNumHeavyAtoms() for s in outcome.precursors)
        assert heavy >= Chem.MolFromSmiles(product).GetNumHeavyAtoms()


def test_a_group_template_still_removes_the_group_it_matches():
    assert apply_named_template("G79_benzyl_protection_retro", "CCCCOCc1ccccc1") == [["BrCc1ccccc1", "CCCCO"]]
    assert apply_named_template("G71_boc_protection_retro", "CC(C)(C)OC(=O)N1CCNCC1") == [
        ["C1CNCCN1", "CC(C)(C)OC(=O)OC(=O)OC(C)(C)C"]]
    assert apply_named_template("G83_acetal_protection_retro", "CC1(CCC(=O)O)OCCO1") == [
        ["CC(=O)CCC(=O)O", "OCCO"]]
    # one benzyl of two: each is a whole benzyl group, so both outcomes stay
    assert len(apply_named_template("G79_benzyl_protection_retro", "OCC(COCc1ccccc1)OCc1ccccc1")) == 2


@pytest.mark.parametrize("product", [
    "NC(=CC(=O)N1CCn2c(nnc2C(F)(F)F)C1)Cc1cc(F)c(F)cc1F",  # sitagliptin's enamine: the "aldehyde" an amide
    "COC(C)=CC(=O)c1ccccc1",  # a beta-methoxy enone: the "aldehyde" an ester
    "ClC(=CC(=O)c1ccccc1)c1ccccc1",  # a beta-chloro enone: the "aldehyde" an acid chloride
])
def test_an_aldol_condensation_needs_an_aldehyde_or_ketone_as_the_electrophile(product):
    assert apply_named_template("G48_aldol_condensation_retro", product) == []


@pytest.mark.parametrize("template_id", ["G46_hwe_retro", "G169_hwe_methyl_phosphonate_retro"])
def test_an_hwe_olefination_needs_an_aldehyde_or_ketone(template_id):
    # sitagliptin's next route: triethyl phosphonoacetate "olefinating" a primary amide to the enamino ester
    assert apply_named_template(template_id, "CCOC(=O)C=C(N)Cc1cc(F)c(F)cc1F") == []
    assert apply_named_template(template_id, "COC(=O)C=C(OC)c1ccccc1") == []  # an ester's carbonyl
    assert apply_named_template(template_id, "CCOC(=O)/C=C/c1ccccc1")  # the aldehyde's


def test_an_aldol_condensation_of_a_ketone_and_an_aldehyde_is_still_found():
    assert apply_named_template("G48_aldol_condensation_retro", "O=C(/C=C/c1ccccc1)c1ccccc1") == [
        ["CC(=O)c1ccccc1", "O=Cc1ccccc1"]]
