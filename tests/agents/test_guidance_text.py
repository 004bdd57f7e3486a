"""The analysis worker's synthesis-strategy line in a Chinese answer (``agents.analysis.describe_guidance``)."""

from __future__ import annotations

import pytest

from molx_agent.agents.analysis import (
    BOND_LABELS_ZH,
    CAPPING_NAMES_ZH,
    FG_LABELS_ZH,
    _functional_groups,
    bond_label_zh,
    capping_name_zh,
    describe_guidance,
    describe_molecule,
    synthesis_guidance,
)
from molx_agent.chem import analyze_molecule
from molx_agent.chem.fg_detect import functional_group_library
from molx_agent.chem.properties import compute_properties
from molx_agent.chem.smart_cap import CAPPING_RULES


@pytest.mark.parametrize("label, zh", [
    ("aryl amine Ar-N", "芳胺 Ar-N"),
    ("ring ester C(=O)-O", "环内酯 C(=O)-O"),
    ("aryl halide C-Br", "芳基卤 C-Br"),
    ("alkyl halide C-Cl", "烷基卤 C-Cl"),
    ("N-alkyl azole N-C(sp3)", "N-烷基唑 N-C(sp3)"),
    ("amine N-C(sp3)", "胺 N-C(sp3)"),
    ("guanidine N-C(=N)", "胍 N-C(=N)"),
    ("amidine N-C(=N)", "脒 N-C(=N)"),
    ("aromatic ring bond", "芳环键"),
    ("C-C", "C-C"),  # no words to translate
    ("ring C-C", "环内 C-C"),
    ("ring double bond C=N", "环内双键 C=N"),
    ("", ""),
])
def test_bond_labels_read_in_chinese_with_their_bond_notation(label, zh):
    assert bond_label_zh(label) == zh


def test_every_capping_rule_has_a_chinese_name():
    # the thirteen rules, the name a chemist gives the "Heck" rule on an arene, and the guidance's S-alkylation
    # (alone, and through a sulfide)
    assert {r.reaction_type for r in CAPPING_RULES} | {"Friedel-Crafts alkylation", "S-alkylation (SN2)",
                                                        "Friedel-Crafts acylation", "radical C-H fluoroalkylation",
                                                        "Guanidinylation (S-methylisothiourea)",
                                                        "SNAr amination"} | {
        f"S-alkylation (SN2), then oxidation to the {x}" for x in ("sulfoxide", "sulfone")} == set(CAPPING_NAMES_ZH)
    assert capping_name_zh("Buchwald-Hartwig") == "Buchwald-Hartwig 胺化"
    # a named template's name, e.g. a strategic bond's named reaction
    assert capping_name_zh("Ullmann Diaryl Ether Synthesis") == "Ullmann 二芳基醚合成"
    assert all(BOND_LABELS_ZH.values())


def test_every_functional_group_reads_in_chinese():
    assert {g.name for g in functional_group_library()} <= set(FG_LABELS_ZH)
    # riluzole's groups in a Chinese answer: no English word left ("benzothiazole" was), listed with the Chinese comma
    smiles = "Nc1nc2ccc(OC(F)(F)F)cc2s1"
    entry = {"name": "利鲁唑", "properties": compute_properties(smiles), "functional_groups": _functional_groups(smiles)[0]}
    line = next(x for x in describe_molecule(entry, [], "zh").splitlines() if x.startswith("- 官能团"))
    assert "苯并噻唑" in line and "、" in line and not any("a" <= ch.lower() <= "z" for ch in line), line


def test_a_chinese_strategy_line_names_the_bond_and_its_reaction_in_chinese():
    smiles = "Cc1cccc(Nc2ccccc2C(=O)O)c1C"  # mefenamic acid
    guide = synthesis_guidance(smiles, analyze_molecule(smiles))
    zh = describe_guidance(guide, "zh")
    assert "战略键 芳胺 Ar-N（Buchwald-Hartwig 胺化）→ Cc1cccc(N)c1C + O=C(O)c1ccccc1Br" in zh
    assert "aryl amine" not in zh
    en = describe_guidance(guide, "en")
    assert "strategic bond aryl amine Ar-N (Buchwald-Hartwig) -> " in en
    # the bond's named reactions put the copper amination of the 2-halobenzoic acid first (its priority)
    assert guide["strategic_bonds"][0]["named_reactions"][0].startswith("Ullmann-Goldberg")


def test_a_carbinol_strategic_bond_is_the_grignard_addition_once():
    # 2-phenyl-2-propanol: the aryl Grignard on acetone, and MeMgBr on acetophenone once (both methyls give it)
    smiles = "CC(C)(O)c1ccccc1"
    guide = synthesis_guidance(smiles, analyze_molecule(smiles))
    seen = [(b["reaction_type"], *sorted(b["fragments"])) for b in guide["strategic_bonds"]]
    assert len(seen) == len(set(seen))
    assert all(not any("Br" in f and "O" in f and "Mg" not in f for f in b["fragments"])
               for b in guide["strategic_bonds"])  # no bromohydrin "reagent"
    assert any("CC(=O)c1ccccc1" in b["fragments"] for b in guide["strategic_bonds"])


def test_a_strategic_bond_with_a_warned_precursor_comes_after_clean_ones():
    # ibuprofen's tert-butyl analogue: the alpha C-C bond's MeMgBr would meet the free acid first; the aryl-CH
    # bond's alkylation by tert-butyl bromide leads (ibuprofen's isobutyl cation would rearrange: flagged)
    smiles = "CC(C)(C)c1ccc(C(C)C(=O)O)cc1"
    guide = synthesis_guidance(smiles, analyze_molecule(smiles))
    bonds = guide["strategic_bonds"]
    assert bonds[0]["reaction_type"] != "Grignard" and not bonds[0]["notes"]
    assert [bool(b["notes"]) for b in bonds] == sorted(bool(b["notes"]) for b in bonds)


def test_bupropion_line_is_the_amination_of_the_bromoketone():
    # the industrial route: tert-butylamine on 2-bromo-3'-chloropropiophenone, not a self-acylating amino acid bromide
    smiles = "CC(NC(C)(C)C)C(=O)c1cccc(Cl)c1"
    bond = synthesis_guidance(smiles, analyze_molecule(smiles))["strategic_bonds"][0]
    assert sorted(bond["fragments"]) == ["CC(Br)C(=O)c1cccc(Cl)c1", "CC(C)(C)N"]


def test_the_groups_to_protect_read_in_chinese():
    from molx_agent.agents.analysis import protection_label_zh

    guide = {"strategy": "linear", "strategic_bonds": [], "protection": ["amine", "aniline", "secondary_alcohol"]}
    zh = describe_guidance(guide, "zh")
    assert "需保护：胺、苯胺、仲醇" in zh and "amine" not in zh
    assert protection_label_zh("no_such_group") == "no_such_group"
    assert "protect: amine, aniline, secondary_alcohol" in describe_guidance(guide, "en")


def test_an_aryl_c_h_alkylation_is_named_friedel_crafts_not_heck():
    # 2-phenylpropionic acid and tert-butyl bromide; the seed's rule name stays in capping_rule
    smiles = "CC(C)(C)c1ccc(C(C)C(=O)O)cc1"
    guide = synthesis_guidance(smiles, analyze_molecule(smiles))
    first = guide["strategic_bonds"][0]
    assert first["reaction_type"] == "Friedel-Crafts alkylation" and first["capping_rule"] == "Heck"
    assert sorted(first["fragments"]) == ["CC(C(=O)O)c1ccccc1", "CC(C)(C)Br"]
    assert "（Friedel-Crafts 烷基化）" in describe_guidance(guide, "zh")
    assert "(Friedel-Crafts alkylation)" in describe_guidance(guide, "en")


def test_a_bond_that_only_trims_a_near_analog_comes_after_real_disconnections():
    # naproxen: the methyl ether "from" O-desmethyl-naproxen (and the methoxy from the aryl fluoride) make the target
    # from a molecule as hard to make as itself; the line leads with the bond that splits the skeleton
    smiles = "COc1ccc2cc([C@H](C)C(=O)O)ccc2c1"
    guide = synthesis_guidance(smiles, analyze_molecule(smiles))
    bonds = guide["strategic_bonds"]
    assert bonds[0]["label"] == "benzylic Ar-C(sp3)" and bonds[0]["interconversion"] is None
    # of that bond's cappings, not the Friedel-Crafts alkylation by 2-bromopropionic acid (a destabilised
    # carbocation: forward it gives nothing) but the aryl Grignard, whose free-acid warning a dianion or ester fixes
    assert bonds[0]["capping_rule"] == "Grignard" and not bonds[0]["mechanism_flagged"]
    trims = {b["label"]: b["interconversion"] for b in bonds[1:]}
    assert trims["ether O-C(sp3)"] == "C[C@H](C(=O)O)c1ccc2cc(O)ccc2c1"
    assert "C[C@H](C(=O)O)c1ccc2cc(O)ccc2c1" not in describe_guidance(guide, "zh")


def test_a_three_atom_amine_on_an_analog_halide_is_still_a_disconnection():
    # 4-methoxyphenethyl bromide is a near analog of the amine, but dimethylamine brings three atoms: kept first
    smiles = "COc1ccc(CCN(C)C)cc1"
    bond = synthesis_guidance(smiles, analyze_molecule(smiles))["strategic_bonds"][0]
    assert bond["label"] == "amine N-C(sp3)" and bond["interconversion"] is None
    assert sorted(bond["fragments"]) == ["CNC", "COc1ccc(CCBr)cc1"]


def test_a_bond_whose_only_capping_no_chemist_would_run_comes_last():
    # ketoprofen: the benzylic bond's one capping alkylates benzophenone with 2-bromopropionic acid; the ketone's
    # bond to the propionic acid's ring would acylate that ring meta to its alkyl group
    smiles = "CC(C(=O)O)c1cccc(C(=O)c2ccccc2)c1"
    bonds = synthesis_guidance(smiles, analyze_molecule(smiles))["strategic_bonds"]
    assert bonds[-1]["mechanism_flagged"] and not any(b["mechanism_flagged"] for b in bonds[:-1])
    assert any(n.startswith(("destabilised_carbocation: ", "aromatic_regiochemistry: ")) for n in bonds[-1]["notes"])
    assert bonds[0]["reaction_type"] == "Friedel-Crafts acylation"
    assert sorted(bonds[0]["fragments"]) == ["CC(C(=O)O)c1cccc(C(=O)Cl)c1", "c1ccccc1"]
    # without the acylation capping, the flagged benzylic bond is the last one
    benzylic = [b for b in synthesis_guidance(smiles, analyze_molecule(smiles) | {"atom_bond_map": {
        "strategic_bonds": [x for x in analyze_molecule(smiles)["atom_bond_map"]["strategic_bonds"]
                            if x["chemical_label"] != "aryl ketone/acid Ar-C(=O)"]}})["strategic_bonds"]]
    assert benzylic[-1]["label"] == "benzylic Ar-C(sp3)" and benzylic[-1]["mechanism_flagged"]
    assert any(n.startswith("destabilised_carbocation: ") for n in benzylic[-1]["notes"])


def test_ibuprofens_isobutyl_bond_is_capped_as_a_coupling_not_a_rearranging_friedel_crafts():
    # isobutyl bromide on 2-phenylpropionic acid would give the tert-butyl isomer: the aryl bromide and
    # isobutylmagnesium bromide (a Kumada coupling) are kept instead
    smiles = "CC(C)Cc1ccc(C(C)C(=O)O)cc1"
    bonds = synthesis_guidance(smiles, analyze_molecule(smiles))["strategic_bonds"]
    assert not any("CC(C)CBr" in b["fragments"] for b in bonds)
    assert any(sorted(b["fragments"]) == ["CC(C(=O)O)c1ccc(Br)cc1", "CC(C)[CH2][Mg][Br]"] for b in bonds)
    assert not any(b["mechanism_flagged"] for b in bonds)


def test_omeprazoles_line_is_the_thiol_alkylation_then_the_oxidation():
    # the textbook route (and the search's first route): 2-mercapto-5-methoxybenzimidazole S-alkylated by the
    # 2-(halomethyl)pyridine, then the sulfide oxidised; not a Friedel-Crafts alkylation of the pyridine's C-H
    smiles = "COc1ccc2[nH]c(S(=O)Cc3ncc(C)c(OC)c3C)nc2c1"
    guide = synthesis_guidance(smiles, analyze_molecule(smiles))
    first = guide["strategic_bonds"][0]
    assert first["label"] == "sulfoxide S-C(sp3)"
    assert first["reaction_type"] == "S-alkylation (SN2), then oxidation to the sulfoxide"
    assert sorted(first["fragments"]) == ["COc1c(C)cnc(CBr)c1C", "COc1ccc2[nH]c(S)nc2c1"]
    assert first["via"]["sulfide"] == "COc1ccc2[nH]c(SCc3ncc(C)c(OC)c3C)nc2c1" and "mCPBA" in first["via"]["note"]
    assert not first["notes"] and not first["mechanism_flagged"] and first["interconversion"] is None
    assert "亚砜 S-C(sp3)（S-烷基化（SN2）后氧化为亚砜）→ " in describe_guidance(guide, "zh")
    assert "strategic bond sulfoxide S-C(sp3) (S-alkylation (SN2), then oxidation to the sulfoxide)" in \
        describe_guidance(guide, "en")


def test_a_thioether_bond_is_capped_as_the_thiol_and_the_bromide():
    # omeprazole's sulfide: no seed rule caps S-C(sp3); the guidance's S-alkylation does
    smiles = "COc1ccc2[nH]c(SCc3ncc(C)c(OC)c3C)nc2c1"
    first = synthesis_guidance(smiles, analyze_molecule(smiles))["strategic_bonds"][0]
    assert (first["label"], first["reaction_type"], first["via"]) == ("thioether S-C(sp3)", "S-alkylation (SN2)", None)
    assert sorted(first["fragments"]) == ["COc1c(C)cnc(CBr)c1C", "COc1ccc2[nH]c(S)nc2c1"]
    assert first["mapped_reaction"].endswith(">>" + first["mapped_reaction"].split(">>")[1])


def test_a_sulfone_bond_goes_through_the_sulfide_and_an_aryl_sulfur_bond_does_not():
    # phenyl 2-phenylethyl sulfone: thiophenol and (2-bromoethyl)benzene, then two equivalents of oxidant; the
    # S-aryl bond is no S-C(sp3) bond
    smiles = "O=S(=O)(CCc1ccccc1)c1ccccc1"
    bonds = synthesis_guidance(smiles, analyze_molecule(smiles))["strategic_bonds"]
    via = [b for b in bonds if b["via"]]
    assert [b["label"] for b in via] == ["sulfone S-C(sp3)"]
    assert sorted(via[0]["fragments"]) == ["BrCCc1ccccc1", "Sc1ccccc1"]
    assert via[0]["reaction_type"].endswith("then oxidation to the sulfone") and "two equivalents" in via[0]["via"]["note"]


def test_an_aryl_ketone_is_capped_as_a_friedel_crafts_acylation_where_the_ring_takes_it():
    # 4-methoxyacetophenone: anisole and acetyl chloride (para to the methoxy group), before the Grignard rule's
    # aryl Grignard and acetyl bromide, which adds twice
    smiles = "CC(=O)c1ccc(OC)cc1"
    guide = synthesis_guidance(smiles, analyze_molecule(smiles))
    first = guide["strategic_bonds"][0]
    assert (first["label"], first["reaction_type"]) == ("aryl ketone/acid Ar-C(=O)", "Friedel-Crafts acylation")
    assert sorted(first["fragments"]) == ["CC(=O)Cl", "COc1ccccc1"] and not first["notes"]
    assert "（Friedel-Crafts 酰基化）→ " in describe_guidance(guide, "zh")
    # 3'-chloropropiophenone's ketone: chlorobenzene would be acylated para, not meta, so the acylation is flagged
    # and the bond keeps the Grignard capping, with its note
    smiles = "CCC(=O)c1cccc(Cl)c1"
    bond = next(b for b in synthesis_guidance(smiles, analyze_molecule(smiles))["strategic_bonds"]
                if b["label"] == "aryl ketone/acid Ar-C(=O)")
    assert bond["reaction_type"] == "Grignard" and not bond["mechanism_flagged"]
    assert any("second equivalent of the Grignard reagent" in n for n in bond["notes"])
    # 2-acetylpyridine: an azine takes no Friedel-Crafts electrophile
    smiles = "CC(=O)c1ccccn1"
    assert all(b["reaction_type"] != "Friedel-Crafts acylation"
               for b in synthesis_guidance(smiles, analyze_molecule(smiles))["strategic_bonds"])


def test_sitagliptins_line_is_the_amide_with_the_amine_protected_first():
    # the amide coupling of the free beta-amino acid is flagged unprotected_amino_acid: a protection fixes it, so
    # the bond leads (it led with a "Friedel-Crafts" trifluoromethylation of the triazole by CF3Br before)
    smiles = "N[C@@H](CC(=O)N1CCn2c(nnc2C(F)(F)F)C1)Cc1cc(F)c(F)cc1F"
    guide = synthesis_guidance(smiles, analyze_molecule(smiles))
    first = guide["strategic_bonds"][0]
    assert (first["label"], first["reaction_type"]) == ("amide C(=O)-N", "Amide bond formation")
    assert first["needs_protection"] and not first["mechanism_flagged"]
    assert sorted(first["fragments"]) == ["FC(F)(F)c1nnc2n1CCNC2", "N[C@@H](CC(=O)O)Cc1cc(F)c(F)cc1F"]
    assert [n.split(":")[0] for n in first["notes"]] == ["unprotected_amino_acid"]
    assert describe_guidance(guide, "en").endswith("(the amino acid's amine protected first, e.g. Boc or Cbz)")
    assert describe_guidance(guide, "zh").endswith("（氨基酸的氨基需先保护，如 Boc 或 Cbz）")
    assert not any("FC(F)(F)Br" in b["fragments"] for b in guide["strategic_bonds"])


@pytest.mark.parametrize("smiles, aniline", [
    ("Clc1cccc(Cl)c1NC1=NCCN1", "Nc1c(Cl)cccc1Cl"),  # clonidine
    ("Clc1ccc2nsnc2c1NC1=NCCN1", "Nc1c(Cl)ccc2nsnc12"),  # tizanidine
])
def test_a_2_arylaminoimidazoline_is_made_on_its_aniline_not_by_arylating_the_guanidine(smiles, aniline):
    # the exocyclic N-C(=N) bond (no seed rule caps it) with the S-methylisothiourea; the Buchwald-Hartwig capping of
    # the Ar-N bond would arylate 2-amino-2-imidazoline, a guanidine: it carries a note and comes after
    guide = synthesis_guidance(smiles, analyze_molecule(smiles))
    first = guide["strategic_bonds"][0]
    assert first["label"] == "guanidine N-C(=N)" and first["capping_rule"] == "Guanidinylation (S-methylisothiourea)"
    assert sorted(first["fragments"]) == sorted(["CSC1=NCCN1", aniline]) and not first["notes"]
    assert "战略键 胍 N-C(=N)（胍基化（S-甲基异硫脲））→ " in describe_guidance(guide, "zh")
    buchwald = [b for b in guide["strategic_bonds"] if b["capping_rule"] == "Buchwald-Hartwig"]
    assert all(any("guanidine or amidine" in n for n in b["notes"]) for b in buchwald)


def test_an_acyl_guanidine_and_a_plain_aryl_amine_keep_their_cappings():
    # guanfacine's acyl guanidine: the amide bond, no S-methylisothiourea on an acylated nitrogen
    smiles = "NC(=N)NC(=O)Cc1c(Cl)cccc1Cl"
    guide = synthesis_guidance(smiles, analyze_molecule(smiles))
    assert all(b["capping_rule"] != "Guanidinylation (S-methylisothiourea)" for b in guide["strategic_bonds"])
    # mefenamic acid's diaryl amine: Buchwald-Hartwig without the guanidine note
    smiles = "Cc1cccc(Nc2ccccc2C(=O)O)c1C"
    bond = synthesis_guidance(smiles, analyze_molecule(smiles))["strategic_bonds"][0]
    assert bond["capping_rule"] == "Buchwald-Hartwig" and not any("guanidine" in n for n in bond["notes"])


@pytest.mark.parametrize("smiles", [
    "Nc1nc2ccc(OC(F)(F)F)cc2s1",  # riluzole: once a Williamson ether synthesis from CF3Br
    "CN(C(F)(F)F)c1ccccc1",
    "FC(F)(F)Sc1ccc(CC(=O)O)cc1",
])
def test_a_trifluoromethyl_group_on_a_heteroatom_is_no_strategic_bond(smiles):
    # no fragment is a CF3 reagent (CF3Br, trifluoromethanol, an N-CF3 amine): the group comes with its building block
    guide = synthesis_guidance(smiles, analyze_molecule(smiles))
    assert not any("C(F)(F)" in f and f.count("F") == 3 and len(f) <= 12
                   for b in guide["strategic_bonds"] for f in b["fragments"])
