"""Selectivity at a chemist's glance (chem.fg_warnings.step_selectivity) and its place in the route judgement."""

from __future__ import annotations

from molx_agent.chem.fg_warnings import check_reaction_compatibility, halogenating_reagent, step_selectivity
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


def test_nitro_reduction_beside_groups_only_hydrogenation_touches_is_a_reagent_choice():
    # recorded USPTO-50K nitro reductions keep an aryl bromide or a nitrile (Fe/NH4Cl, SnCl2): not a conflict, but
    # the kept groups decide the reagent, and the judgement says which
    found = step_selectivity(["N#Cc1cc([N+](=O)[O-])ccc1Br"], "N#Cc1cc(N)ccc1Br", "Nitro Reduction")
    assert codes(found) == {("reagent_choice", ("aryl_bromide", "nitrile"))}
    assert "SnCl2" in found[0]["reason"]
    # an azide is reduced by those reagents as well: still a conflict
    found = step_selectivity(["O=[N+]([O-])c1ccc(CN=[N+]=[N-])cc1"], "Nc1ccc(CN=[N+]=[N-])cc1", "Nitro Reduction")
    assert codes(found) == {("incompatible_group", ("azide",))}
    # an alkene hydrogenated beside an aryl bromide is H2 itself: still a conflict
    found = step_selectivity(["COCCC=Cc1cc(Br)ccc1OC"], "COCCCCc1cc(Br)ccc1OC", "Hydrogenation (Alkene)")
    assert codes(found) == {("incompatible_group", ("aryl_bromide",))}
    assert check_reaction_compatibility("O=[N+]([O-])c1ccc(Br)cc1", "Nitro Reduction")["compatible"]


def test_acylations_that_spare_the_kept_alcohol_or_acid_are_clean():
    # valinol N-acylated (a recorded coupling); 4-aminobenzoic acid acylated by an acid chloride (Schotten-Baumann)
    assert step_selectivity(["CC(C)[C@H](N)CO", "O=C(O)c1ccccc1"], "CC(C)[C@H](CO)NC(=O)c1ccccc1",
                            "Amide Bond Formation") == []
    assert step_selectivity(["CCCCCC(=O)Cl", "Nc1ccc(C(=O)O)cc1"], "CCCCCC(=O)Nc1ccc(C(=O)O)cc1",
                            "Amide Bond Formation (Acid Chloride)") == []
    # a kept free amine is still a conflict
    found = step_selectivity(["NCCc1ccc(N)cc1", "CC(=O)Cl"], "CC(=O)Nc1ccc(CCN)cc1", "Amide Bond Formation (Acid Chloride)")
    assert ("incompatible_group", ("primary_amine",)) in codes(found)


def test_reductive_amination_of_an_aldehyde_beside_a_ketone_is_a_reagent_choice():
    found = step_selectivity(["CNC", "CC(=O)c1ccc(C=O)cc1"], "CC(=O)c1ccc(CN(C)C)cc1", "Reductive Amination")
    assert codes(found) == {("reagent_choice", ("ketone",))} and "NaBH(OAc)3" in found[0]["reason"]
    found = step_selectivity(["CNC", "O=CCC1CCC(=O)CC1"], "CN(C)CCC1CCC(=O)CC1", "Reductive Amination")
    assert codes(found) == {("reagent_choice", ("ketone",))}


def test_heck_reaction_keeps_the_alkene_it_made_but_not_a_second_one():
    made = step_selectivity(["C=CCNC(=O)C(F)(F)F", "CCCCS(=O)(=O)c1cccc(Br)c1"],
                            "CCCCS(=O)(=O)c1cccc(/C=C/CNC(=O)C(F)(F)F)c1", "Heck Reaction")
    assert made == []
    second = step_selectivity(["C=CCC/C=C/C", "Brc1ccccc1"], "C/C=C/CC/C=C/c1ccccc1", "Heck Reaction")
    assert codes(second) == {("incompatible_group", ("alkene",))}


def test_route_judgement_keeps_a_reagent_choice_high_and_costs_it_nothing():
    from molx_agent.retro.judge import selectivity_warned

    judged = judge_route(one_step_graph(["N#Cc1cc([N+](=O)[O-])ccc1Br"], "N#Cc1cc(N)ccc1Br", "Nitro Reduction"))
    assert [i["code"] for i in judged["issues"]] == ["reagent_choice"]
    assert judged["confidence"] == "high" and judged["verdict"] == "accept"
    assert judged["issues"][0]["message"].startswith("conditions: reduce the nitro group with Fe/NH4Cl")
    assert not selectivity_warned(["N#Cc1cc([N+](=O)[O-])ccc1Br"], "N#Cc1cc(N)ccc1Br", "Nitro Reduction")


def test_ester_reduced_beside_an_amide_is_a_reagent_choice_but_a_kept_ketone_is_a_conflict():
    found = step_selectivity(["COC(=O)c1cncc(NC(=O)N2CCN(C(C)=O)CC2)c1"], "CC(=O)N1CCN(C(=O)Nc2cncc(CO)c2)CC1",
                             "LiAlH4 Reduction (Ester)")
    assert codes(found) == {("reagent_choice", ("amide_generic",))} and "LiBH4" in found[0]["reason"]
    found = step_selectivity(["COC(=O)c1ccc(C(C)=O)cc1"], "CC(=O)c1ccc(CO)cc1", "LiAlH4 Reduction (Ester)")
    assert codes(found) == {("incompatible_group", ("ketone",))}


def test_amine_or_thiol_alkylated_beside_a_kept_acid_is_clean_but_an_alcohol_is_not():
    assert step_selectivity(["Nc1ccccc1", "O=C(O)CBr"], "O=C(O)CNc1ccccc1", "N-Alkylation (SN2)") == []
    assert step_selectivity(["O=C(O)c1c(Br)ccc2ccccc12", "O=C(O)c1ccccc1S"], "O=C(O)c1ccccc1Sc1ccc2ccccc2c1C(=O)O",
                            "Heteroatom alkylation and arylation") == []
    found = step_selectivity(["O=C(O)CCl", "OCCOCc1ccccc1"], "O=C(O)COCCOCc1ccccc1",
                             "Williamson Ether Synthesis (Alkyl Chloride)")
    assert codes(found) == {("incompatible_group", ("carboxylic_acid",))}


def test_reaction_names_map_to_the_reaction_they_name_not_to_a_word_in_them():
    from molx_agent.chem.fg_warnings import normalize_reaction_type as key

    assert key("Friedel-Crafts Acylation") == "friedel_crafts"  # not an amide coupling
    assert key("Mitsunobu Reaction (Sulfonamide N-Alkylation)") == "mitsunobu"
    assert key("N-Alkylation of Amide/Lactam") == "alkylation"
    for name in ("Nitrile Hydration to Primary Amide (H2O2, Base)", "Amide Dehydration to Nitrile",
                 "Primary Thioamide from Nitrile (H2S or (NH4)2S)", "Trifluoroacetamide Deprotection"):
        assert key(name) is None, name
    for name in ("Amide Bond Formation (Acid Chloride)", "Amide from Ester (Aminolysis)", "Sulfonamide Formation",
                 "Acylation and related processes"):
        assert key(name) == "amide_coupling", name


def test_alkyl_amine_acylated_beside_a_kept_aryl_amine_is_clean_but_one_of_two_aryl_amines_is_not():
    # a recorded USPTO-50K step: the butylamine acylated, the 4-aminoquinoline-type NH2 kept
    assert step_selectivity(["NCCCCn1cnc2c(N)nc3ccccc3c21", "O=C(Cl)c1ccncc1"],
                            "Nc1nc2ccccc2c2c1ncn2CCCCNC(=O)c1ccncc1", "Amide Bond Formation (Acid Chloride)") == []
    found = step_selectivity(["Cc1ccc(N)cc1N", "N#Cc1ccc(C(=O)Cl)cc1"], "Cc1ccc(NC(=O)c2ccc(C#N)cc2)cc1N",
                             "Amide Bond Formation (Acid Chloride)")
    assert ("competing_reaction", ("acid_chloride", "aniline")) in codes(found)


def test_phenol_alkylated_on_its_own_ring_by_an_alkene_keeps_its_phenol_unwarned():
    # propofol's industrial step: the phenol is the aluminium phenoxide that directs propene ortho, not a
    # competitor for an alkyl halide (the named template's name reads as a Friedel-Crafts alkylation)
    from molx_agent.chem.templates import load_named_templates

    names = {t.id: t.name for t in load_named_templates()}
    for template_id, precursors, product in (
        ("G361_phenol_ortho_isopropylation_propene_retro", ["CC(C)c1ccccc1O", "C=CC"], "CC(C)c1cccc(C(C)C)c1O"),
        ("G362_phenol_ortho_tert_butylation_isobutylene_retro", ["CC(C)(C)c1ccccc1O", "C=C(C)C"],
         "CC(C)(C)c1cccc(C(C)(C)C)c1O"),
    ):
        assert step_selectivity(precursors, product, names[template_id]) == [], template_id
    # the same step read as a plain alkylation is warned, and so is a phenol kept beside an alcohol's Williamson
    # ether: the alkylation table still lists the phenol
    assert ("incompatible_group", ("phenol",)) in codes(
        step_selectivity(["CC(C)c1ccccc1O", "C=CC"], "CC(C)c1cccc(C(C)C)c1O", "Alkylation"))
    found = step_selectivity(["OCc1ccc(O)cc1", "CCBr"], "CCOCc1ccc(O)cc1", "Williamson Ether Synthesis")
    assert ("incompatible_group", ("phenol",)) in codes(found)


def test_an_alkyl_amine_alkylated_beside_a_free_phenol_is_not_warned():
    # epinephrine's classic step (methylamine on 2-chloro-3',4'-dihydroxyacetophenone): the amine outruns the neutral
    # phenols for the alkyl halide, as in 40 recorded USPTO-50K N-alkylations beside a free phenol
    assert step_selectivity(["CN", "O=C(CCl)c1ccc(O)c(O)c1"], "CNCC(=O)c1ccc(O)c(O)c1",
                            "N-Alkylation (SN2, Alkyl Chloride)") == []
    assert step_selectivity(["CCNCc1cccc(O)c1", "ClC=CCCl"], "CCN(C/C=C/Cl)Cc1cccc(O)c1",
                            "N-Alkylation (SN2, Alkyl Chloride)") == []
    # an aniline, a slower nucleophile, still competes with the phenol; a phenoxide alkylated beside a kept amine
    # (a carbonate or hydride as the base) still warns about the amine
    found = step_selectivity(["Nc1ccccc1", "O=C(CCl)c1ccc(O)c(O)c1"], "O=C(CNc1ccccc1)c1ccc(O)c(O)c1",
                             "N-Alkylation (SN2, Alkyl Chloride)")
    assert codes(found) == {("incompatible_group", ("phenol",))}
    found = step_selectivity(["CC(C)NC[C@H](O)COc1ccc(O)cc1", "CCCCBr"], "CCCCOc1ccc(OC[C@@H](O)CNC(C)C)cc1",
                             "Williamson Ether Synthesis")
    assert codes(found) == {("incompatible_group", ("secondary_amine",))}


def test_a_curtius_rearrangement_beside_a_free_amine_is_an_incompatible_group():
    # praziquantel's first route of 2026-12-07: the beta-amino acid's Curtius with its ring NH free (the isocyanate
    # adds that amine: a cyclic urea)
    name = "Curtius Rearrangement to Boc-Amine (DPPA, tBuOH)"
    found = step_selectivity(["CC(C)(C)O", "O=C(O)CC1NCCc2ccccc21"], "CC(C)(C)OC(=O)NCC1NCCc2ccccc21", name)
    assert codes(found) == {("incompatible_group", ("secondary_amine",))}
    assert "curtius" in found[0]["reason"]
    # the amine protected: clean
    assert step_selectivity(["CC(C)(C)O", "O=C(O)CC1N(C(=O)OCc3ccccc3)CCc2ccccc21"],
                            "CC(C)(C)OC(=O)NCC1N(C(=O)OCc3ccccc3)CCc2ccccc21", name) == []
