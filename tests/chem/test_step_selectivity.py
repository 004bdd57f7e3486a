"""Selectivity at a chemist's glance (chem.fg_warnings.step_selectivity) and its place in the route judgement."""

from __future__ import annotations

from molx_agent.chem.fg_warnings import halogenating_reagent, step_selectivity
from molx_agent.retro.judge import judge_route
from tests.chem.route_fixtures import one_step_graph


def codes(found: list[dict]) -> set[tuple[str, tuple[str, ...]]]:
    return {(c["code"], tuple(c["groups"])) for c in found}


def test_amine_alkylated_beside_an_acid_chloride_is_a_competing_reaction():
    # imatinib's order of events: N-methylpiperazine would acylate on the acid chloride, not alkylate the CH2Cl
    found = step_selectivity(["CN1CCNCC1", "O=C(Cl)c1ccc(CCl)cc1"], "CN1CCN(Cc2ccc(C(=O)Cl)cc2)CC1",
                             "N-Alkylation (SN2, Alkyl Chloride)")
    assert codes(found) == {("competing_reaction", ("secondary_amine", "acid_chloride"))}


def test_aminopyrazole_condensed_beside_a_sulfonyl_chloride_is_a_competing_reaction():
    found = step_selectivity(["CCCc1nn(C)c(C(N)=O)c1N", "CCOc1ccc(S(=O)(=O)Cl)cc1C=O"],
                             "CCCc1nn(C)c2c(=O)[nH]c(-c3cc(S(=O)(=O)Cl)ccc3OCC)nc12", "Heterocycle formation")
    assert ("competing_reaction", ("aniline", "sulfonyl_chloride")) in codes(found)


def test_free_amine_through_a_mitsunobu_is_an_incompatible_group():
    found = step_selectivity(["NCC(O)CO", "NC(=O)Cc1ccc(O)cc1"], "NCC(O)COc1ccc(CC(N)=O)cc1",
                             "Mitsunobu Reaction (Aryl Ether)")
    assert ("incompatible_group", ("primary_amine",)) in codes(found)


def test_bbr3_beside_an_alkyl_ether_the_product_keeps_is_an_incompatible_group():
    # erlotinib's first route at 30 s: the 6-OMe "cleaved" by BBr3 beside two methoxyethyl ethers
    found = step_selectivity(["C#Cc1cccc(Nc2ncnc3cc(OCCOC)c(OC)cc23)c1"],
                             "C#Cc1cccc(Nc2ncnc3cc(OCCOC)c(O)cc23)c1", "Methyl Ether Cleavage (BBr3)")
    assert codes(found) == {("incompatible_group", ("ether",))}
    assert "BBr3" in found[0]["reason"]


def test_bbr3_with_no_other_alkyl_ether_is_clean():
    # the only methyl ether cleaved; a diaryl ether and a morpholine-type ring ether survive BBr3
    assert step_selectivity(["COc1ccc(Cl)cc1"], "Oc1ccc(Cl)cc1", "Methyl Ether Cleavage (BBr3)") == []
    assert step_selectivity(["COc1ccc(Oc2ccccc2)cc1"], "Oc1ccc(Oc2ccccc2)cc1", "Methyl Ether Cleavage (BBr3)") == []
    assert step_selectivity(["COc1ccc(N2CCOCC2)cc1"], "Oc1ccc(N2CCOCC2)cc1", "Methyl Ether Cleavage (BBr3)") == []
    # the same kept ether under another reaction type is no concern of this rule
    assert step_selectivity(["COCCOc1ccc(OC(C)=O)cc1"], "COCCOc1ccc(O)cc1", "Ester Hydrolysis (Methyl Ester)") \
        == []


def test_organometallic_beside_a_kept_acid_is_an_incompatible_group_whatever_the_name():
    # ibuprofen's first route at 30 s (default stock): isobutylzinc coupled to 2-(4-bromophenyl)propionic acid under
    # the class name "C-C bond formation" (no reaction-type keyword): the acid protonates the organozinc first
    found = step_selectivity(["CC(C)[CH2][Zn+]", "CC(C(=O)O)c1ccc(Br)cc1"], "CC(C)Cc1ccc(C(C)C(=O)O)cc1",
                             "C-C bond formation")
    assert codes(found) == {("incompatible_group", ("carboxylic_acid",))}
    assert "organometallic" in found[0]["reason"]
    # a Grignard step whose product keeps a phenol; the reaction type's own rule names the phenol once
    found = step_selectivity(["C[Mg]Br", "O=Cc1ccc(O)cc1"], "CC(O)c1ccc(O)cc1", "Grignard Addition")
    assert codes(found) == {("incompatible_group", ("phenol",))}


def test_organometallic_without_a_kept_proton_is_clean():
    # the same coupling on the methyl ester, and a Grignard addition whose only alcohol is the one it makes
    assert step_selectivity(["CC(C)[CH2][Zn+]", "COC(=O)C(C)c1ccc(Br)cc1"], "COC(=O)C(C)c1ccc(CC(C)C)cc1",
                            "C-C bond formation") == []
    assert step_selectivity(["C[Mg]Br", "O=Cc1ccccc1"], "CC(O)c1ccccc1", "Grignard Addition") == []
    # a Rosenmund-von Braun cyanation beside a phenol: copper(I) cyanide is no base (a recorded USPTO-50K step)
    assert step_selectivity(["N#C[Cu]", "Oc1ccc(-c2ccc(Br)cc2)cc1"], "N#Cc1ccc(-c2ccc(O)cc2)cc1", "Cyanation") == []


def test_grignard_beside_a_kept_ketone_or_aldehyde_is_an_incompatible_group():
    # a realism route (n5-09109, default stock): MeMgBr Kumada-coupled to an aryl bromide of a benzofuranone; the
    # Grignard adds to the ketone.  The organozinc (Negishi) tolerates it, and esters are left alone (19 of 385
    # recorded USPTO-50K organometallic steps keep one)
    ketone, product = "Cc1cc(Br)c2c(c1C)OC(C)(C)C2=O", "Cc1cc(C)c2c(c1C)OC(C)(C)C2=O"
    found = step_selectivity([ketone, "[CH3][Mg+]"], product, "Kumada Coupling")
    assert codes(found) == {("incompatible_group", ("ketone",))}
    assert "Grignard" in found[0]["reason"]
    assert codes(step_selectivity(["Brc1ccc(C=O)cc1", "[Li]CCCC"], "CCCCc1ccc(C=O)cc1", None)) \
        == {("incompatible_group", ("aldehyde",))}
    assert step_selectivity([ketone, "C[Zn+]"], product, "Negishi Coupling") == []
    assert step_selectivity(["COC(=O)c1ccc(Br)cc1", "[Mg+]C1CC1"], "COC(=O)c1ccc(C2CC2)cc1", "Kumada Coupling") == []
    # the Grignard addition to one of two like ketones consumes a ketone: not this rule's concern
    assert step_selectivity(["CC(=O)c1ccc(C(C)=O)cc1", "[CH3][Mg+]"], "CC(=O)c1ccc(C(C)(C)O)cc1", "Grignard") == []


def test_deoxyhalogenating_reagent_beside_a_kept_alcohol_is_an_incompatible_group():
    # capecitabine's first route at 30 s (default stock): the uracil chlorinated by POCl3 beside the sugar's free
    # 2',3'-diol (the published syntheses acetylate the diol first), whatever the step's name
    uracil = "O=c1[nH]c(=O)n([C@@H]2O[C@H](CI)[C@@H](O)[C@H]2O)cc1F"
    chloride = "O=c1nc(Cl)c(F)cn1[C@@H]1O[C@H](CI)[C@@H](O)[C@H]1O"
    for name in ("Deoxychlorination of Heteroaryl Lactam (POCl3)", None):
        found = step_selectivity(["O=P(Cl)(Cl)Cl", uracil], chloride, name)
        assert codes(found) == {("incompatible_group", ("secondary_alcohol",))}
        assert "POCl3" in found[0]["reason"]
    # an acid chloride made by oxalyl chloride beside a primary alcohol (a search's route, all-600 run)
    found = step_selectivity(["NC(=O)c1c(F)ccc(O[C@H](CO)C(=O)O)c1F", "O=C(Cl)C(=O)Cl"],
                             "NC(=O)c1c(F)ccc(O[C@H](CO)C(=O)Cl)c1F", "Acid chloride formation")
    assert ("incompatible_group", ("primary_alcohol",)) in codes(found)
    assert halogenating_reagent(["CCO", "ClS(Cl)=O"]) == "SOCl2"
    assert halogenating_reagent(["CCO", "ClC(Cl)Cl"]) is None


def test_deoxyhalogenating_reagent_beside_groups_it_spares_is_clean():
    # a 2-aminopyrimidinone and a hydroxyquinoline's phenol kept beside POCl3 (published reference steps); an
    # acid kept beside SOCl2 (its acid chloride is hydrolysed back on work-up); ethanolamine's 2-chloroethylamine
    # (the amine stands as its hydrochloride); one of two alcohols chlorinated (the step consumes an alcohol: one of
    # two like groups, not this rule)
    assert step_selectivity(["O=P(Cl)(Cl)Cl", "Cc1nc(N)cc(O)n1"], "Cc1nc(N)cc(Cl)n1", None) == []
    assert step_selectivity(["O=S(Cl)Cl", "O=C(O)c1cc(S(=O)(=O)N2CCC(CO)CC2)ccc1Cl"],
                            "O=C(O)c1cc(S(=O)(=O)N2CCC(CCl)CC2)ccc1Cl", None) == []
    assert step_selectivity(["O=S(Cl)Cl", "NCCO"], "NCCCl", None) == []
    assert step_selectivity(["O=S(Cl)Cl", "OCCC(O)CO"], "ClCCC(O)CO", None) == []
    # the same diol without the reagent written (a record that leaves POCl3 out) is not judged by this rule
    assert step_selectivity(["O=c1[nH]c(=O)n([C@@H]2O[C@H](C)[C@@H](O)[C@H]2O)cc1F"],
                            "O=c1nc(Cl)c(F)cn1[C@@H]1O[C@H](C)[C@@H](O)[C@H]1O", None) == []


def test_clean_steps_have_no_conflict():
    # the sulfonamide of sildenafil's last step consumes the only sulfonyl chloride; paracetamol's acetylation
    assert step_selectivity(["CN1CCNCC1", "CCOc1ccc(S(=O)(=O)Cl)cc1"], "CCOc1ccc(S(=O)(=O)N2CCN(C)CC2)cc1",
                            "Sulfonamide Formation") == []
    assert step_selectivity(["CC(=O)OC(C)=O", "Nc1ccc(O)cc1"], "CC(=O)Nc1ccc(O)cc1",
                            "Acetylation (Acetic Anhydride)") == []
    assert step_selectivity(["not a smiles"], "CCO", "alkylation") == []


def test_route_judgement_flags_a_competing_reaction_and_lowers_confidence():
    bad = judge_route(one_step_graph(["CN1CCNCC1", "O=C(Cl)c1ccc(CCl)cc1"], "CN1CCN(Cc2ccc(C(=O)Cl)cc2)CC1",
                                      "N-Alkylation (SN2, Alkyl Chloride)"))
    assert bad["confidence"] == "medium" and bad["verdict"] == "weak"
    assert [i["code"] for i in bad["issues"]] == ["competing_reaction"]
    assert "acid chloride" in bad["issues"][0]["message"]
    good = judge_route(one_step_graph(["CC(=O)OC(C)=O", "Nc1ccc(O)cc1"], "CC(=O)Nc1ccc(O)cc1",
                                       "Acetylation (Acetic Anhydride)"))
    assert good["confidence"] == "high" and good["issues"] == []


def test_route_judgement_names_bbr3_beside_a_kept_alkyl_ether():
    # (one step from a bought near analog is also an analog shortcut: the judgement names both)
    judged = judge_route(one_step_graph(["COCCOc1ccc(OC)cc1"], "COCCOc1ccc(O)cc1", "Methyl Ether Cleavage (BBr3)"))
    found = [i for i in judged["issues"] if i["code"] == "incompatible_group"]
    assert [i["groups"] for i in found] == [["ether"]]
    assert found[0]["message"].startswith("selectivity: the alkyl ether the product keeps")
    clean = judge_route(one_step_graph(["COc1ccc(Oc2ccccc2)cc1"], "Oc1ccc(Oc2ccccc2)cc1",
                                       "Methyl Ether Cleavage (BBr3)"))
    assert all(i["code"] != "incompatible_group" for i in clean["issues"])
