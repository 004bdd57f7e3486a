"""Every named template fires correctly on a hand-written example (template id -> product -> precursors).

A broken retro SMARTS (wrong atom map, wrong H count, wrong leaving group) makes its row fail.
"""

from __future__ import annotations

import pytest
from rdkit import Chem

from molx_agent.chem.templates import apply_named_template, load_named_templates

#: (template id, product, one expected precursor set)
EXAMPLES: list[tuple[str, str, list[str]]] = [
    ('G01_amide_acid_chloride_retro', 'CC(=O)Nc1ccc(O)cc1', ['CC(=O)Cl', 'Nc1ccc(O)cc1']),
    ('G02_amide_retro', 'CC(=O)Nc1ccc(O)cc1', ['CC(=O)O', 'Nc1ccc(O)cc1']),
    ('G03_ester_acid_chloride_retro', 'CC(=O)Oc1ccccc1C(=O)O', ['CC(=O)Cl', 'O=C(O)c1ccccc1O']),
    ('G04_esterification_retro', 'CCOC(=O)c1ccccc1', ['CCO', 'O=C(O)c1ccccc1']),
    ('G05_methyl_ester_hydrolysis_retro', 'O=C(O)c1ccccc1', ['COC(=O)c1ccccc1']),
    ('G06_ethyl_ester_hydrolysis_retro', 'O=C(O)Cc1ccccc1', ['CCOC(=O)Cc1ccccc1']),
    ('G07_ester_aminolysis_retro', 'CNC(=O)c1ccccc1', ['CN', 'COC(=O)c1ccccc1']),
    ('G08_anhydride_acetylation_retro', 'CC(=O)Oc1ccccc1C(=O)O', ['CC(=O)OC(C)=O', 'O=C(O)c1ccccc1O']),
    ('G09_sulfonamide_retro', 'CNS(=O)(=O)c1ccc(C)cc1', ['CN', 'Cc1ccc(S(=O)(=O)Cl)cc1']),
    ('G10_sulfonate_ester_retro', 'COS(=O)(=O)c1ccc(C)cc1', ['CO', 'Cc1ccc(S(=O)(=O)Cl)cc1']),
    ('G11_urea_isocyanate_retro', 'CNC(=O)Nc1ccccc1', ['CN', 'O=C=Nc1ccccc1']),
    ('G12_urea_cdi_retro', 'CNC(=O)Nc1ccccc1', ['CN', 'Nc1ccccc1', 'O=C(n1ccnc1)n1ccnc1']),
    ('G13_carbamate_chloroformate_retro', 'CCOC(=O)NCc1ccccc1', ['CCOC(=O)Cl', 'NCc1ccccc1']),
    ('G14_carbamate_isocyanate_retro', 'CCOC(=O)Nc1ccccc1', ['CCO', 'O=C=Nc1ccccc1']),
    ('G15_williamson_ether_retro', 'c1ccc(OCc2ccccc2)cc1', ['BrCc1ccccc1', 'Oc1ccccc1']),
    ('G16_n_alkylation_retro', 'CN(C)Cc1ccccc1', ['BrCc1ccccc1', 'CNC']),
    ('G17_azole_n_alkylation_retro', 'Cn1ccnc1', ['CBr', 'c1c[nH]cn1']),
    ('G18_reductive_amination_retro', 'CN(C)Cc1ccccc1', ['CNC', 'O=Cc1ccccc1']),
    ('G19_mitsunobu_ether_retro', 'c1ccc(OC2CCCC2)cc1', ['OC1CCCC1', 'Oc1ccccc1']),
    ('G20_mitsunobu_sulfonamide_retro', 'Cc1ccc(S(=O)(=O)NCc2ccccc2)cc1', ['Cc1ccc(S(N)(=O)=O)cc1', 'OCc1ccccc1']),
    ('G21_buchwald_hartwig_retro', 'c1ccc(N2CCOCC2)cc1', ['Brc1ccccc1', 'C1COCCN1']),
    ('G22_buchwald_azole_retro', 'c1ccc(-n2ccc3ccccc32)cc1', ['Brc1ccccc1', 'c1ccc2[nH]ccc2c1']),
    ('G23_chan_lam_retro', 'c1ccc(N2CCOCC2)cc1', ['C1COCCN1', 'OB(O)c1ccccc1']),
    ('G24_chan_lam_azole_retro', 'c1ccc(-n2ccnc2)cc1', ['OB(O)c1ccccc1', 'c1c[nH]cn1']),
    ('G25_ullmann_n_arylation_retro', 'c1ccc(-n2ccnc2)cc1', ['Ic1ccccc1', 'c1c[nH]cn1']),
    ('G26_ullmann_ether_retro', 'c1ccc(Oc2ccccc2)cc1', ['Ic1ccccc1', 'Oc1ccccc1']),
    ('G27_snar_amine_retro', 'CN1CCN(c2ccccn2)CC1', ['CN1CCNCC1', 'Clc1ccccn1']),
    ('G28_snar_ether_retro', 'COc1ccc([N+](=O)[O-])cc1', ['CO', 'O=[N+]([O-])c1ccc(F)cc1']),
    ('G29_snar_thioether_retro', 'CSc1ccccn1', ['CS', 'Clc1ccccn1']),
    ('G30_s_alkylation_retro', 'CSc1ccccc1', ['CBr', 'Sc1ccccc1']),
    ('G31_suzuki_retro', 'Cc1ccc(-c2ccccc2)cc1', ['Cc1ccc(Br)cc1', 'OB(O)c1ccccc1']),
    ('G32_suzuki_vinyl_retro', 'C=C(C)c1ccccc1', ['Brc1ccccc1', 'C=C(C)B(O)O']),
    ('G33_negishi_retro', 'Cc1ccc(-c2ccccc2)cc1', ['Cc1ccc(Br)cc1', '[Zn+][c]1ccccc1']),
    ('G34_negishi_alkyl_retro', 'c1ccc(Cc2ccccc2)cc1', ['Brc1ccccc1', '[Zn+][CH2]c1ccccc1']),
    ('G35_stille_retro', 'Cc1ccc(-c2ccccc2)cc1', ['C[Sn](C)(C)c1ccccc1', 'Cc1ccc(Br)cc1']),
    ('G36_heck_retro', 'COC(=O)/C=C/c1ccccc1', ['Brc1ccccc1', 'C=CC(=O)OC']),
    ('G37_sonogashira_retro', 'c1ccc(C#Cc2ccccc2)cc1', ['C#Cc1ccccc1', 'Ic1ccccc1']),
    ('G38_cyanation_retro', 'N#Cc1ccccc1', ['Brc1ccccc1', 'N#C[Cu]']),
    ('G39_miyaura_borylation_retro', 'Cc1ccc(B2OC(C)(C)C(C)(C)O2)cc1', ['CC1(C)OB(B2OC(C)(C)C(C)(C)O2)OC1(C)C', 'Cc1ccc(Br)cc1']),
    ('G40_grignard_ketone_retro', 'CC(C)(O)c1ccccc1', ['CC(=O)c1ccccc1', '[CH3][Mg+]']),
    ('G41_grignard_aldehyde_retro', 'CC(O)c1ccccc1', ['O=Cc1ccccc1', '[CH3][Mg+]']),
    ('G42_organolithium_addition_retro', 'OC(c1ccccc1)C1CCCCC1', ['O=CC1CCCCC1', '[Li]c1ccccc1']),
    ('G43_weinreb_ketone_retro', 'CC(=O)c1ccccc1', ['CON(C)C(=O)c1ccccc1', '[CH3][Mg+]']),
    ('G44_grignard_carboxylation_retro', 'O=C(O)c1ccccc1', ['O=C=O', '[Mg+][c]1ccccc1']),
    ('G45_wittig_retro', 'C(=Cc1ccccc1)c1ccccc1', ['O=Cc1ccccc1', 'c1ccc(C=P(c2ccccc2)(c2ccccc2)c2ccccc2)cc1']),
    ('G46_hwe_retro', 'CCOC(=O)/C=C/c1ccccc1', ['CCOC(=O)CP(=O)(OCC)OCC', 'O=Cc1ccccc1']),
    ('G47_aldol_retro', 'CC(=O)CC(O)c1ccccc1', ['CC(C)=O', 'O=Cc1ccccc1']),
    ('G48_aldol_condensation_retro', 'O=C(/C=C/c1ccccc1)c1ccccc1', ['CC(=O)c1ccccc1', 'O=Cc1ccccc1']),
    ('G49_michael_retro', 'CCOC(=O)C(CCC(C)=O)C(=O)OCC', ['C=CC(C)=O', 'CCOC(=O)CC(=O)OCC']),
    ('G50_aza_michael_retro', 'CCOC(=O)CCN1CCOCC1', ['C1COCCN1', 'C=CC(=O)OCC']),
    ('G51_claisen_condensation_retro', 'CCOC(=O)CC(=O)c1ccccc1', ['CCOC(C)=O', 'COC(=O)c1ccccc1']),
    ('G52_enolate_alkylation_retro', 'O=C1CCCCC1Cc1ccccc1', ['BrCc1ccccc1', 'O=C1CCCCC1']),
    ('G53_friedel_crafts_acylation_retro', 'CC(=O)c1ccc(C)cc1', ['CC(=O)Cl', 'Cc1ccccc1']),
    ('G54_friedel_crafts_alkylation_retro', 'CC(C)(C)c1ccccc1', ['CC(C)(C)Cl', 'c1ccccc1']),
    ('G55_nitration_retro', 'Cc1ccc([N+](=O)[O-])cc1', ['Cc1ccccc1', 'O=[N+]([O-])O']),
    ('G56_aromatic_bromination_retro', 'COc1ccc(Br)cc1', ['COc1ccccc1', 'O=C1CCC(=O)N1Br']),
    ('G57_swern_oxidation_retro', 'O=Cc1ccccc1', ['OCc1ccccc1']),
    ('G58_dmp_oxidation_retro', 'CC(=O)c1ccccc1', ['CC(O)c1ccccc1']),
    ('G59_jones_oxidation_retro', 'O=C(O)CCc1ccccc1', ['OCCCc1ccccc1']),
    ('G60_pinnick_oxidation_retro', 'O=C(O)c1ccccc1', ['O=Cc1ccccc1']),
    ('G61_nabh4_ketone_reduction_retro', 'CC(O)c1ccccc1', ['CC(=O)c1ccccc1']),
    ('G62_nabh4_aldehyde_reduction_retro', 'OCc1ccccc1', ['O=Cc1ccccc1']),
    ('G63_lialh4_ester_reduction_retro', 'OCc1ccccc1', ['COC(=O)c1ccccc1']),
    ('G64_lialh4_amide_reduction_retro', 'CCNCc1ccccc1', ['CCNC(=O)c1ccccc1']),
    ('G65_nitrile_reduction_retro', 'NCc1ccccc1', ['N#Cc1ccccc1']),
    ('G66_nitro_reduction_retro', 'Nc1ccccc1', ['O=[N+]([O-])c1ccccc1']),
    ('G67_alkene_hydrogenation_retro', 'O=C(O)CCc1ccccc1', ['O=C(O)C=Cc1ccccc1']),
    ('G68_azide_reduction_retro', 'NCCc1ccccc1', ['[N-]=[N+]=NCCc1ccccc1']),
    ('G69_nitrile_hydrolysis_retro', 'NC(=O)c1ccccc1', ['N#Cc1ccccc1']),
    ('G70_appel_retro', 'BrCc1ccccc1', ['OCc1ccccc1']),
    ('G71_boc_protection_retro', 'CC(C)(C)OC(=O)N1CCCCC1', ['C1CCNCC1', 'CC(C)(C)OC(=O)OC(=O)OC(C)(C)C']),
    ('G72_boc_deprotection_retro', 'NCc1ccccc1', ['CC(C)(C)OC(=O)NCc1ccccc1']),
    ('G73_cbz_protection_retro', 'O=C(OCc1ccccc1)N1CCCCC1', ['C1CCNCC1', 'O=C(Cl)OCc1ccccc1']),
    ('G74_cbz_deprotection_retro', 'C1CCNCC1', ['O=C(OCc1ccccc1)N1CCCCC1']),
    ('G75_fmoc_protection_retro', 'O=C(OCC1c2ccccc2-c2ccccc21)N1CCCCC1', ['C1CCNCC1', 'O=C(Cl)OCC1c2ccccc2-c2ccccc21']),
    ('G76_fmoc_deprotection_retro', 'NCC(=O)O', ['O=C(O)CNC(=O)OCC1c2ccccc2-c2ccccc21']),
    ('G77_tbs_protection_retro', 'CC(C)(C)[Si](C)(C)OCc1ccccc1', ['CC(C)(C)[Si](C)(C)Cl', 'OCc1ccccc1']),
    ('G78_tbs_deprotection_retro', 'OCc1ccccc1', ['CC(C)(C)[Si](C)(C)OCc1ccccc1']),
    ('G79_benzyl_protection_retro', 'c1ccc(COC2CCCCC2)cc1', ['BrCc1ccccc1', 'OC1CCCCC1']),
    ('G80_benzyl_deprotection_retro', 'Oc1ccccc1', ['c1ccc(COc2ccccc2)cc1']),
    ('G81_methyl_ether_cleavage_retro', 'Oc1ccc(C)cc1', ['COc1ccc(C)cc1']),
    ('G82_tbu_ester_deprotection_retro', 'O=C(O)c1ccccc1', ['CC(C)(C)OC(=O)c1ccccc1']),
    ('G83_acetal_protection_retro', 'CC1(c2ccccc2)OCCO1', ['CC(=O)c1ccccc1', 'OCCO']),
    ('G84_tms_alkyne_deprotection_retro', 'C#Cc1ccccc1', ['C[Si](C)(C)C#Cc1ccccc1']),
    ('G85_fischer_indole_retro', 'Cc1[nH]c2ccccc2c1C', ['CCC(C)=O', 'NNc1ccccc1']),
    ('G86_hantzsch_thiazole_retro', 'Cc1nc(-c2ccccc2)cs1', ['CC(N)=S', 'O=C(CBr)c1ccccc1']),
    ('G87_knorr_pyrazole_retro', 'Cc1cc(C)n(-c2ccccc2)n1', ['CC(=O)CC(C)=O', 'NNc1ccccc1']),
    ('G88_benzimidazole_retro', 'Cc1nc2ccccc2[nH]1', ['CC(=O)O', 'Nc1ccccc1N']),
    ('G89_cuaac_triazole_retro', 'c1ccc(Cn2cc(-c3ccccc3)nn2)cc1', ['C#Cc1ccccc1', '[N-]=[N+]=NCc1ccccc1']),
    ('G90_oxadiazole_124_retro', 'Cc1noc(-c2ccccc2)n1', ['CC(N)=NO', 'O=C(O)c1ccccc1']),
    ('G91_paal_knorr_pyrrole_retro', 'Cc1ccc(C)n1-c1ccccc1', ['CC(=O)CCC(C)=O', 'Nc1ccccc1']),
    ('G92_tetrazole_retro', 'c1ccc(-c2nnn[nH]2)cc1', ['N#Cc1ccccc1', '[N-]=[N+]=N']),
    ('G93_diels_alder_retro', 'CC(=O)C1CC=CCC1', ['C=CC(C)=O', 'C=CC=C']),
    ('G94_epoxide_aminolysis_retro', 'OC(CN1CCOCC1)c1ccccc1', ['C1COCCN1', 'c1ccc(C2CO2)cc1']),
    ('G95_chan_lam_ether_retro', 'c1ccc(Oc2ccccc2)cc1', ['OB(O)c1ccccc1', 'Oc1ccccc1']),
    ('G96_kumada_retro', 'Cc1ccc(-c2ccccc2)cc1', ['Cc1ccc(Br)cc1', '[Mg+][c]1ccccc1']),
    ('G97_n_alkylation_chloride_retro', 'CN(C)Cc1ccccc1', ['CNC', 'ClCc1ccccc1']),
    ('G98_n_alkylation_mesylate_retro', 'C1CCN(CCc2ccccc2)CC1', ['C1CCNCC1', 'CS(=O)(=O)OCCc1ccccc1']),
    ('G99_amide_n_alkylation_retro', 'CN1CCCC1=O', ['CBr', 'O=C1CCCN1']),
    ('G100_williamson_chloride_retro', 'c1ccc(OCc2ccccn2)cc1', ['ClCc1ccccn1', 'Oc1ccccc1']),
    ('G101_snar_ether_chloride_retro', 'c1ccc(OC2CCC2)nc1', ['Clc1ccccn1', 'OC1CCC1']),
    ('G102_snar_amine_fluoride_retro', 'O=[N+]([O-])c1ccc(N2CCOCC2)cc1', ['C1COCCN1', 'O=[N+]([O-])c1ccc(F)cc1']),
    ('G103_suzuki_bpin_retro', 'Cc1ccc(-c2ccccc2)cc1', ['CC1(C)OB(c2ccccc2)OC1(C)C', 'Cc1ccc(Br)cc1']),
    ('G104_azole_boc_protection_retro', 'CC(C)(C)OC(=O)n1ccc2ccccc21', ['CC(C)(C)OC(=O)OC(=O)OC(C)(C)C', 'c1ccc2[nH]ccc2c1']),
    ('G105_azole_sulfonylation_retro', 'Cc1ccc(S(=O)(=O)n2ccc3ccccc32)cc1', ['Cc1ccc(S(=O)(=O)Cl)cc1', 'c1ccc2[nH]ccc2c1']),
    ('G106_sulfide_oxidation_retro', 'CS(=O)c1ccccc1', ['CSc1ccccc1', 'O=C(OO)c1cccc(Cl)c1']),
    ('G107_n_oxidation_retro', '[O-][n+]1ccccc1', ['O=C(OO)c1cccc(Cl)c1', 'c1ccncc1']),
    ('G108_lialh4_ethyl_ester_reduction_retro', 'OCCc1ccccc1', ['CCOC(=O)Cc1ccccc1']),
    ('G109_acid_reduction_retro', 'OCc1ccc(Cl)cc1', ['O=C(O)c1ccc(Cl)cc1']),
    ('G110_benzyl_ester_hydrogenolysis_retro', 'O=C(O)CCc1ccccc1', ['O=C(CCc1ccccc1)OCc1ccccc1']),
    ('G111_n_debenzylation_retro', 'C1CCNCC1', ['c1ccc(CN2CCCCC2)cc1']),
    ('G112_gabriel_retro', 'NCCc1ccccc1', ['O=C1c2ccccc2C(=O)N1CCc1ccccc1']),
    ('G113_enone_hydrogenation_retro', 'CCOC(=O)CCc1ccccc1', ['CCOC(=O)C=Cc1ccccc1']),
    ('G114_suzuki_aryl_chloride_retro', 'c1ccc(-c2ccccn2)cc1', ['Clc1ccccn1', 'OB(O)c1ccccc1']),
    ('G115_suzuki_aryl_iodide_retro', 'Cc1ccc(-c2ccccc2)cc1', ['Cc1ccc(I)cc1', 'OB(O)c1ccccc1']),
    ('G116_suzuki_bpin_chloride_retro', 'c1ccc(-c2ccccn2)cc1', ['CC1(C)OB(c2ccccc2)OC1(C)C', 'Clc1ccccn1']),
    ('G117_n_alkylation_iodide_retro', 'CN1CCOCC1', ['C1COCCN1', 'CI']),
    ('G118_williamson_iodide_retro', 'COc1ccc(C=O)cc1', ['CI', 'O=Cc1ccc(O)cc1']),
    ('G119_stille_tributyltin_retro', 'c1ccc(-c2cccs2)nc1', ['Brc1ccccn1', 'CCCC[Sn](CCCC)(CCCC)c1cccs1']),
    ('G120_buchwald_aryl_chloride_retro', 'c1ccc(NC2CCCCC2)cc1', ['Clc1ccccc1', 'NC1CCCCC1']),
    ('G121_sonogashira_bromide_retro', 'CC#Cc1ccccc1', ['Brc1ccccc1', 'C#CC']),
    ('G122_boc_aniline_deprotection_retro', 'Nc1ccc(Cl)cc1', ['CC(C)(C)OC(=O)Nc1ccc(Cl)cc1']),
    ('G123_oxadiazole_134_retro', 'Cc1nnc(-c2ccccc2)o1', ['CC(=O)NNC(=O)c1ccccc1']),
    ('G124_benzimidazolone_cdi_retro', 'O=c1[nH]c2ccccc2n1C', ['CNc1ccccc1N', 'O=C(n1ccnc1)n1ccnc1']),
    ('G125_epoxidation_retro', 'CCCCC1CO1', ['C=CCCCC', 'O=C(OO)c1cccc(Cl)c1']),
    ('G126_hantzsch_chloroketone_retro', 'Cc1csc(-c2ccccc2)n1', ['CC(=O)CCl', 'NC(=S)c1ccccc1']),
    ('G127_amide_dehydration_retro', 'N#Cc1ccccc1', ['NC(=O)c1ccccc1']),
    ('G128_oxime_formation_retro', 'ON=Cc1ccccc1', ['NO', 'O=Cc1ccccc1']),
    ('G129_azide_displacement_retro', '[N-]=[N+]=NCCc1ccccc1', ['BrCCc1ccccc1', '[N-]=[N+]=[N-]']),
    ('G130_cyanide_displacement_retro', 'N#CCc1ccccc1', ['BrCc1ccccc1', '[C-]#N']),    ('G131_n_alkylation_tosylate_retro', 'c1ccc(CCN2CCOCC2)cc1', ['C1COCCN1', 'Cc1ccc(S(=O)(=O)OCCc2ccccc2)cc1']),
    ('G132_azole_n_alkylation_tosylate_retro', 'CCCn1ccnc1', ['CCCOS(=O)(=O)c1ccc(C)cc1', 'c1c[nH]cn1']),
    ('G133_azole_n_alkylation_mesylate_retro', 'CCn1cccn1', ['CCOS(C)(=O)=O', 'c1cn[nH]c1']),
    ('G134_azole_n_alkylation_iodide_retro', 'Cn1ccc2ccccc21', ['CI', 'c1ccc2[nH]ccc2c1']),
    ('G135_azole_n_alkylation_chloride_retro', 'c1ccc(Cn2ccnc2)cc1', ['ClCc1ccccc1', 'c1c[nH]cn1']),
    ('G136_o_alkylation_tosylate_retro', 'CCOc1ccccc1', ['CCOS(=O)(=O)c1ccc(C)cc1', 'Oc1ccccc1']),
    ('G137_o_alkylation_mesylate_retro', 'c1ccc(OC2CCOCC2)cc1', ['CS(=O)(=O)OC1CCOCC1', 'Oc1ccccc1']),
    ('G138_deoxychlorination_pocl3_retro', 'Clc1ncnc2ccccc12', ['O=P(Cl)(Cl)Cl', 'O=c1[nH]cnc2ccccc12']),
    ('G139_alcohol_bromination_pbr3_retro', 'BrCCc1ccccc1', ['BrP(Br)Br', 'OCCc1ccccc1']),
    ('G140_alcohol_chlorination_socl2_retro', 'ClCc1ccccn1', ['O=S(Cl)Cl', 'OCc1ccccn1']),
    ('G141_aromatic_iodination_retro', 'Nc1ccc(I)cc1', ['Nc1ccccc1', 'O=C1CCC(=O)N1I']),
    ('G142_aromatic_chlorination_retro', 'Clc1c[nH]c2ccccc12', ['O=C1CCC(=O)N1Cl', 'c1ccc2[nH]ccc2c1']),
    ('G143_benzylic_bromination_retro', 'BrCc1ccc(C#N)cc1', ['Cc1ccc(C#N)cc1', 'O=C1CCC(=O)N1Br']),
    ('G144_alpha_bromination_ketone_retro', 'O=C(CBr)c1ccccc1', ['BrBr', 'CC(=O)c1ccccc1']),
    ('G145_formylation_dmf_retro', 'O=Cc1c[nH]c2ccccc12', ['CN(C)C=O', 'c1ccc2[nH]ccc2c1']),
    ('G146_formylation_halogen_exchange_retro', 'O=Cc1cccs1', ['Brc1cccs1', 'CN(C)C=O']),
    ('G147_duff_formylation_retro', 'O=Cc1ccccc1O', ['C1N2CN3CN1CN(C2)C3', 'Oc1ccccc1']),
    ('G148_clauson_kaas_pyrrole_retro', 'c1ccc(-n2cccc2)cc1', ['COC1CCC(OC)O1', 'Nc1ccccc1']),
    ('G149_aminopyrazole_retro', 'Nc1cc(-c2ccccc2)[nH]n1', ['N#CCC(=O)c1ccccc1', 'NN']),
    ('G150_ketonitrile_claisen_retro', 'N#CCC(=O)c1ccccc1', ['CC#N', 'COC(=O)c1ccccc1']),
    ('G151_robinson_gabriel_oxazole_retro', 'c1ccc(-c2cnc(-c3ccccc3)o2)cc1', ['O=C(CNC(=O)c1ccccc1)c1ccccc1']),
    ('G152_bischler_napieralski_retro', 'CC1=NCCc2ccccc21', ['CC(=O)NCCc1ccccc1']),
    ('G153_thiourea_isothiocyanate_retro', 'CNC(=S)Nc1ccccc1', ['CN', 'S=C=Nc1ccccc1']),
    ('G154_nitrile_hydrolysis_acid_retro', 'O=C(O)Cc1ccccc1', ['N#CCc1ccccc1']),
    ('G155_thionation_lawesson_retro', 'CC(=S)Nc1ccccc1', ['CC(=O)Nc1ccccc1', 'COc1ccc(P2(=S)SP(=S)(c3ccc(OC)cc3)S2)cc1']),
    ('G156_alkyne_hydration_retro', 'CCC(=O)Cc1ccccc1', ['CCC#Cc1ccccc1']),
    ('G157_n_formylation_retro', 'O=CN1CCCCC1', ['C1CCNCC1', 'CCOC=O']),
    ('G158_carbamate_reduction_n_methyl_retro', 'CNCc1ccccc1', ['COC(=O)NCc1ccccc1']),
    ('G159_boc_reduction_n_methyl_retro', 'CN1CCC(O)CC1', ['CC(C)(C)OC(=O)N1CCC(O)CC1']),
    ('G160_methoxypyridine_demethylation_retro', 'O=c1cccc[nH]1', ['COc1ccccn1']),
    ('G161_suzuki_triflate_retro', 'c1ccc(-c2ccc3ccccc3c2)cc1', ['O=S(=O)(Oc1ccc2ccccc2c1)C(F)(F)F', 'OB(O)c1ccccc1']),
    ('G162_sonogashira_triflate_retro', 'C(#Cc1ccccc1)c1ccccc1', ['C#Cc1ccccc1', 'O=S(=O)(Oc1ccccc1)C(F)(F)F']),
    ('G163_cyanation_zn_retro', 'COc1ccc(C#N)cc1', ['COc1ccc(Br)cc1', 'N#C[Zn]C#N']),    ('G164_snar_azole_chloride_retro', 'c1cnn(-c2ccccn2)c1', ['Clc1ccccn1', 'c1cn[nH]c1']),
    ('G165_snar_azole_fluoride_retro', 'N#Cc1ccc(-n2ccnc2)cc1', ['N#Cc1ccc(F)cc1', 'c1c[nH]cn1']),
    ('G166_imidazo_azine_bromoketone_retro', 'c1ccc(-c2cn3ccccc3n2)cc1', ['Nc1ccccn1', 'O=C(CBr)c1ccccc1']),
    ('G167_imidazo_azine_chlorocarbonyl_retro', 'Cc1cn2ccccc2n1', ['CC(=O)CCl', 'Nc1ccccn1']),
    ('G168_ch_arylation_retro', 'c1ccc(-c2cccs2)cc1', ['Brc1ccccc1', 'c1ccsc1']),
    ('G169_hwe_methyl_phosphonate_retro', 'COC(=O)/C=C/c1ccccc1', ['COC(=O)CP(=O)(OC)OC', 'O=Cc1ccccc1']),
    ('G170_sulfamate_retro', 'NS(=O)(=O)Oc1ccccc1', ['NS(=O)(=O)Cl', 'Oc1ccccc1']),
    ('G171_azole_lithiation_addition_retro', 'OC(c1ccccc1)c1nccs1', ['O=Cc1ccccc1', 'c1cscn1']),
    ('G172_benzimidazole_aldehyde_retro', 'c1ccc(-c2nc3ccccc3[nH]2)cc1', ['Nc1ccccc1N', 'O=Cc1ccccc1']),
    ('G173_cbz_osu_protection_retro', 'O=C(OCc1ccccc1)N1CCCC1', ['C1CCNC1', 'O=C(OCc1ccccc1)ON1C(=O)CCC1=O']),
    ('G174_dibal_nitrile_reduction_retro', 'O=CCc1ccccc1', ['N#CCc1ccccc1']),
    ('G175_dibal_ester_reduction_retro', 'O=CCCc1ccccc1', ['COC(=O)CCc1ccccc1']),
    ('G176_aldol_dehydration_retro', 'CC(=O)/C=C/c1ccccc1', ['CC(=O)CC(O)c1ccccc1']),    ('G177_dimethoxypyrimidine_uracil_retro', 'Cc1c[nH]c(=O)[nH]c1=O', ['COc1ncc(C)c(OC)n1']),
    ('G178_isoxazoline_retro', 'CC1=NOC(c2ccccc2)C1', ['CC(=O)C=Cc1ccccc1', 'NO']),
    ('G179_ester_alpha_formylation_retro', 'CCOC(=O)C(C=O)c1ccccc1', ['CCOC(=O)Cc1ccccc1', 'COC=O']),
    ('G180_urea_phenyl_chloroformate_retro', 'O=C(Nc1ccccc1)NC1CC1', ['NC1CC1', 'Nc1ccccc1', 'O=C(Cl)Oc1ccccc1']),
    ('G181_deoxychlorination_hydroxyazine_pocl3_retro', 'Clc1ccc2ccccc2n1', ['O=P(Cl)(Cl)Cl', 'Oc1ccc2ccccc2n1']),
    ('G182_deoxychlorination_socl2_retro', 'Clc1ncnc2ccccc12', ['O=S(Cl)Cl', 'O=c1[nH]cnc2ccccc12']),
    ('G183_deoxychlorination_4_pyridone_retro', 'Clc1ccnc2ccccc12', ['O=P(Cl)(Cl)Cl', 'O=c1cc[nH]c2ccccc12']),
    ('G184_sandmeyer_iodination_retro', 'Cc1ccc(I)cc1', ['Cc1ccc(N)cc1']),
    ('G185_sandmeyer_cyanation_retro', 'Cc1ccccc1C#N', ['Cc1ccccc1N', 'N#C[Cu]']),
    ('G186_acid_chloride_oxalyl_retro', 'O=C(Cl)c1ccccc1', ['O=C(Cl)C(=O)Cl', 'O=C(O)c1ccccc1']),
    ('G187_sulfonyl_chloride_oxalyl_retro', 'O=S(=O)(Cl)Cc1ccccc1', ['O=C(Cl)C(=O)Cl', 'O=S(=O)(O)Cc1ccccc1']),
    ('G188_amidoxime_retro', 'NC(=NO)c1ccccc1', ['N#Cc1ccccc1', 'NO']),
    ('G189_ch_borylation_retro', 'CC1(C)OB(c2cccc(Cl)c2)OC1(C)C', ['CC1(C)OB(B2OC(C)(C)C(C)(C)O2)OC1(C)C', 'Clc1ccccc1']),
    ('G190_boronate_oxidation_retro', 'Oc1ccc(Cl)cc1', ['CC1(C)OB(c2ccc(Cl)cc2)OC1(C)C', 'OO']),
    ('G191_tfa_amide_deprotection_retro', 'NCc1ccccc1', ['O=C(NCc1ccccc1)C(F)(F)F']),
    ('G192_n_tosyl_azole_deprotection_retro', 'c1ccc2[nH]ccc2c1', ['Cc1ccc(S(=O)(=O)n2ccc3ccccc32)cc1']),
    ('G193_sem_azole_deprotection_retro', 'c1ccc2[nH]ccc2c1', ['C[Si](C)(C)CCOCn1ccc2ccccc21']),
    ('G194_thp_azole_protection_retro', 'c1cnn(C2CCCCO2)c1', ['C1=COCCC1', 'c1cn[nH]c1']),
    ('G195_tbdps_deprotection_retro', 'OCc1ccccc1', ['CC(C)(C)[Si](OCc1ccccc1)(c1ccccc1)c1ccccc1']),
    ('G196_aromatic_claisen_retro', 'C=CCc1ccccc1O', ['C=CCOc1ccccc1']),
    ('G197_suzuki_cyclopropyl_trifluoroborate_retro', 'c1ccc(C2CC2)nc1', ['Brc1ccccn1', 'F[B-](F)(F)C1CC1']),
    ('G198_suzuki_cyclopropyl_boronic_acid_retro', 'c1ccc(C2CC2)cc1', ['Brc1ccccc1', 'OB(O)C1CC1']),
    ('G199_aromatic_bromination_br2_retro', 'Brc1ccc(O)cc1', ['BrBr', 'Oc1ccccc1']),
    ('G200_oxane_dialkylation_bromide_retro', 'N#CC1(c2ccccc2)CCOCC1', ['BrCCOCCBr', 'N#CCc1ccccc1']),
    ('G201_oxane_dialkylation_chloride_retro', 'CCOC(=O)C1(c2ccccc2)CCOCC1', ['CCOC(=O)Cc1ccccc1', 'ClCCOCCCl']),
    ('G202_cyclopropane_dialkylation_retro', 'N#CC1(c2ccccc2)CC1', ['BrCCBr', 'N#CCc1ccccc1']),
    ('G203_oxalate_claisen_retro', 'CCOC(=O)C(=O)CC(=O)c1ccccc1', ['CC(=O)c1ccccc1', 'CCOC(=O)C(=O)OCC']),
    ('G204_reissert_indole_retro', 'CCOC(=O)c1cc2ccccc2[nH]1', ['CCOC(=O)C(=O)Cc1ccccc1[N+](=O)[O-]']),
    ('G205_curtius_boc_retro', 'CC(C)(C)OC(=O)Nc1ccccc1', ['CC(C)(C)O', 'O=C(O)c1ccccc1', '[N-]=[N+]=NP(=O)(c1ccccc1)c1ccccc1']),
    ('G206_aminobenzothiazole_retro', 'Nc1nc2ccccc2s1', ['N#CS', 'Nc1ccccc1']),
    ('G207_methyllithium_addition_retro', 'CC(C)(O)c1ccccc1', ['CC(=O)c1ccccc1', '[Li]C']),
    ('G208_strecker_retro', 'N#CC(c1ccccc1)N1CCOCC1', ['C#N', 'C1COCCN1', 'O=Cc1ccccc1']),
    ('G209_nhs_ester_retro', 'O=C(ON1C(=O)CCC1=O)c1ccccc1', ['O=C(O)c1ccccc1', 'O=C1CCC(=O)N1O']),
    ('G210_urea_triphosgene_retro', 'CNC(=O)Nc1ccccc1', ['CN', 'Nc1ccccc1', 'O=C(OC(Cl)(Cl)Cl)OC(Cl)(Cl)Cl']),
    ('G211_triflation_tf2o_retro', 'O=S(=O)(Oc1ccccc1)C(F)(F)F', ['O=S(=O)(OS(=O)(=O)C(F)(F)F)C(F)(F)F', 'Oc1ccccc1']),
    ('G212_mesylation_ms2o_retro', 'CS(=O)(=O)OCCc1ccccc1', ['CS(=O)(=O)OS(C)(=O)=O', 'OCCc1ccccc1']),
    ('G213_azide_from_mesylate_retro', '[N-]=[N+]=NC1CCCCC1', ['CS(=O)(=O)OC1CCCCC1', '[N-]=[N+]=[N-]']),
    ('G214_wittig_methylenation_retro', 'C=C1CCCCC1', ['C[P+](c1ccccc1)(c1ccccc1)c1ccccc1', 'O=C1CCCCC1']),
    ('G215_diketene_acetoacetylation_retro', 'CC(=O)CC(=O)Nc1ccccc1', ['C=C1CC(=O)O1', 'Nc1ccccc1']),
    ('G216_benzimidazole_orthoacetate_retro', 'Cc1nc2ccccc2[nH]1', ['COC(C)(OC)OC', 'Nc1ccccc1N']),
    ('G217_benzimidazole_formic_retro', 'c1ccc2[nH]cnc2c1', ['Nc1ccccc1N', 'O=CO']),
    ('G218_quinoxalinedione_oxalic_retro', 'O=c1[nH]c2ccccc2[nH]c1=O', ['Nc1ccccc1N', 'O=C(O)C(=O)O']),
    ('G219_quinoxalinedione_oxalate_retro', 'O=c1[nH]c2ccccc2[nH]c1=O', ['CCOC(=O)C(=O)OCC', 'Nc1ccccc1N']),
    ('G220_acid_chloride_socl2_retro', 'O=C(Cl)c1ccccc1', ['O=C(O)c1ccccc1', 'O=S(Cl)Cl']),
    ('G221_aryl_cyanation_cyanide_retro', 'N#Cc1ccc(C)cc1', ['Cc1ccc(Br)cc1', '[C-]#N']),
    ('G222_aryl_cyanation_cyanide_iodide_retro', 'N#Cc1ccc(C)cc1', ['Cc1ccc(I)cc1', '[C-]#N']),
    ('G223_cyanide_displacement_chloride_retro', 'N#CCc1ccccc1', ['ClCc1ccccc1', '[C-]#N']),
    ('G224_finkelstein_iodide_retro', 'ICCc1ccccc1', ['ClCCc1ccccc1', '[I-]']),
    ('G225_alcohol_bromination_hbr_retro', 'BrCc1ccccc1', ['Br', 'OCc1ccccc1']),
    ('G226_miyaura_borylation_iodide_retro', 'Cc1ccc(B2OC(C)(C)C(C)(C)O2)cc1', ['CC1(C)OB(B2OC(C)(C)C(C)(C)O2)OC1(C)C', 'Cc1ccc(I)cc1']),
    ('G227_miyaura_neopentyl_retro', 'Cc1ccc(B2OCC(C)(C)CO2)cc1', ['CC1(C)COB(B2OCC(C)(C)CO2)OC1', 'Cc1ccc(Br)cc1']),
    ('G228_borylation_lithiation_ipropinacol_retro', 'COc1ccc(B2OC(C)(C)C(C)(C)O2)cc1', ['CC(C)OB1OC(C)(C)C(C)(C)O1', 'COc1ccc(Br)cc1']),
    ('G229_boronic_acid_trimethyl_borate_retro', 'COc1ccc(B(O)O)cc1', ['COB(OC)OC', 'COc1ccc(Br)cc1']),
    ('G230_snar_methylsulfonyl_amine_retro', 'c1cnc(N2CCOCC2)nc1', ['C1COCCN1', 'CS(=O)(=O)c1ncccn1']),
    ('G231_sulfone_oxidation_mcpba_retro', 'CS(=O)(=O)c1ccccc1', ['CSc1ccccc1', 'O=C(OO)c1cccc(Cl)c1']),
    ('G232_deoxyfluorination_dast_retro', 'CC(C)(F)Cc1ccccc1', ['CC(C)(O)Cc1ccccc1', 'CCN(CC)S(F)(F)F']),
    ('G233_tbu_ester_boc2o_retro', 'CC(C)(C)OC(=O)c1ccccc1', ['CC(C)(C)OC(=O)OC(=O)OC(C)(C)C', 'O=C(O)c1ccccc1']),
    ('G234_methyl_ester_mei_retro', 'COC(=O)c1ccccc1', ['CI', 'O=C(O)c1ccccc1']),
    ('G235_o_methylation_dimethyl_sulfate_retro', 'COc1ccccc1C=O', ['COS(=O)(=O)OC', 'O=Cc1ccccc1O']),
    ('G236_alpha_methylation_mei_retro', 'CC(C(=O)OC)c1ccccc1', ['CI', 'COC(=O)Cc1ccccc1']),
    ('G237_dimethyl_carbonate_claisen_retro', 'COC(=O)CC(=O)c1ccccc1', ['CC(=O)c1ccccc1', 'COC(=O)OC']),
    ('G238_diethyl_carbonate_claisen_retro', 'CCOC(=O)C(C#N)c1ccccc1', ['CCOC(=O)OCC', 'N#CCc1ccccc1']),
    ('G239_enol_triflate_phntf2_retro', 'O=S(=O)(OC1=CCCCC1)C(F)(F)F', ['O=C1CCCCC1', 'O=S(=O)(N(c1ccccc1)S(=O)(=O)C(F)(F)F)C(F)(F)F']),
    ('G240_aryl_triflate_phntf2_retro', 'Cc1ccc(OS(=O)(=O)C(F)(F)F)cc1', ['Cc1ccc(O)cc1', 'O=S(=O)(N(c1ccccc1)S(=O)(=O)C(F)(F)F)C(F)(F)F']),
    ('G241_cyclic_urea_cdi_retro', 'O=C1NCCN1Cc1ccccc1', ['NCCNCc1ccccc1', 'O=C(n1ccnc1)n1ccnc1']),
    ('G242_cyclic_carbamate_cdi_retro', 'O=C1NC(Cc2ccccc2)CO1', ['NC(CO)Cc1ccccc1', 'O=C(n1ccnc1)n1ccnc1']),
    ('G243_thp_azole_deprotection_retro', 'c1ccc(-c2cn[nH]c2)cc1', ['c1ccc(-c2cnn(C3CCCCO3)c2)cc1']),
    ('G244_tips_azole_deprotection_retro', 'c1ccc2[nH]ccc2c1', ['CC(C)[Si](C(C)C)(C(C)C)n1ccc2ccccc21']),
    ('G245_tfa_anilide_deprotection_retro', 'Nc1ccc(C#N)cc1', ['N#Cc1ccc(NC(=O)C(F)(F)F)cc1']),
    ('G246_acetonide_deprotection_retro', 'OCC(O)c1ccccc1', ['CC1(C)OCC(c2ccccc2)O1']),
    ('G247_acetonide_protection_dmp_retro', 'CC1(C)OCC(c2ccccc2)O1', ['COC(C)(C)OC', 'OCC(O)c1ccccc1']),
    ('G248_diol_cleavage_naio4_retro', 'O=Cc1ccc2ccccc2n1', ['OCC(O)c1ccc2ccccc2n1']),
    ('G249_thioamide_h2s_retro', 'NC(=S)c1ccccc1', ['N#Cc1ccccc1', 'S']),
    ('G250_indoline_oxidation_retro', 'O=[N+]([O-])c1ccc2[nH]ccc2c1', ['O=[N+]([O-])c1ccc2c(c1)CCN2']),
    ('G251_nitrile_hydration_h2so4_retro', 'NC(=O)c1ccccc1', ['N#Cc1ccccc1', 'O=S(=O)(O)O']),
    ('G252_nitrile_hydration_h2o2_retro', 'NC(=O)Cc1ccccc1', ['N#CCc1ccccc1', 'OO']),
    ('G253_tetralone_fc_cyclisation_retro', 'O=C1CCCc2ccccc21', ['O=C(O)CCCc1ccccc1']),
    ('G254_indanone_fc_cyclisation_retro', 'O=C1CCc2ccccc21', ['O=C(O)CCc1ccccc1']),
    ('G255_friedel_crafts_acylation_acid_retro', 'COc1ccc(C(=O)Cc2ccccc2)cc1', ['COc1ccccc1', 'O=C(O)Cc1ccccc1']),
    ('G256_benzimidazolone_urea_retro', 'O=c1[nH]c2ccccc2n1C(C)C', ['CC(C)Nc1ccccc1N', 'NC(N)=O']),
    ('G257_1_substituted_tetrazole_retro', 'Cc1ccc(-n2cnnn2)cc1', ['CCOC(OCC)OCC', 'Cc1ccc(N)cc1', '[N-]=[N+]=[N-]']),
    ('G258_aromatic_iodination_i2_retro', 'Oc1ccc(I)cc1', ['II', 'Oc1ccccc1']),
    ('G259_pyrazolo_pyridine_n_aminopyridinium_retro', 'COC(=O)c1c(C)nn2ccccc12', ['CC#CC(=O)OC', 'N[n+]1ccccc1']),
    ('G260_oxadiazole_124_acyl_chloride_retro', 'Cc1noc(-c2ccccc2)n1', ['CC(N)=NO', 'O=C(Cl)c1ccccc1']),
    ('G261_chlorosulfonation_retro', 'CC(=O)Nc1ccc(S(=O)(=O)Cl)cc1', ['CC(=O)Nc1ccccc1', 'O=S(=O)(O)Cl']),
    ('G262_aryl_hydrazine_diazotization_retro', 'NNc1ccc(Cl)cc1', ['Nc1ccc(Cl)cc1', 'O=NO']),
    ('G263_aryl_mesylate_cleavage_retro', 'Oc1ccc(Cl)cc1', ['CS(=O)(=O)Oc1ccc(Cl)cc1']),
    ('G264_n_benzyl_to_boc_retro', 'CC(C)(C)OC(=O)N1CCCCC1', ['CC(C)(C)OC(=O)OC(=O)OC(C)(C)C', 'c1ccc(CN2CCCCC2)cc1']),
    ('G265_wittig_phosphonium_retro', 'CC(C)=Cc1ccccc1', ['CC(C)=O', 'c1ccc(C[P+](c2ccccc2)(c2ccccc2)c2ccccc2)cc1']),
    ('G266_knoevenagel_retro', 'N#CC(=Cc1ccccc1)C#N', ['N#CCC#N', 'O=Cc1ccccc1']),
    ('G267_phthalimide_anhydride_retro', 'O=C1c2ccccc2C(=O)N1CCO', ['NCCO', 'O=C1OC(=O)c2ccccc12']),
    ('G268_mitsunobu_azole_retro', 'c1ccc(Cn2ccnc2)cc1', ['OCc1ccccc1', 'c1c[nH]cn1']),
    ('G269_malonate_hydrolysis_decarboxylation_retro', 'O=C(O)Cc1ccc([N+](=O)[O-])cc1', ['CCOC(=O)C(C(=O)OCC)c1ccc([N+](=O)[O-])cc1']),
    ('G270_cyclopentane_dialkylation_retro', 'N#CC1(c2ccccc2)CCCC1', ['BrCCCCBr', 'N#CCc1ccccc1']),
    ('G271_cyclobutane_dialkylation_retro', 'N#CC1(c2ccccc2)CCC1', ['BrCCCBr', 'N#CCc1ccccc1']),
    ('G272_urea_phenyl_carbamate_retro', 'O=C(NCCN1CCOCC1)Nc1ccccc1', ['NCCN1CCOCC1', 'O=C(Nc1ccccc1)Oc1ccccc1']),
    ('G273_chromone_oxalate_retro', 'CCOC(=O)c1cc(=O)c2ccccc2o1', ['CC(=O)c1ccccc1O', 'CCOC(=O)C(=O)OCC']),
    ('G274_quinazolinone_benzoxazinone_retro', 'Cc1nc2ccccc2c(=O)[nH]1', ['Cc1nc2ccccc2c(=O)o1', 'N']),
    ('G275_indazole_fluoroaldehyde_hydrazine_retro', 'Fc1ccc(-n2ncc3cccnc32)cc1', ['NNc1ccc(F)cc1', 'O=Cc1cccnc1F']),
    ('G276_benzimidazole_acyl_chloride_retro', 'CCOCc1nc2ccccc2[nH]1', ['CCOCC(=O)Cl', 'Nc1ccccc1N']),
    ('G277_suzuki_bpin_triflate_retro', 'Cc1ccc(-c2ccccc2)cc1', ['CC1(C)OB(c2ccccc2)OC1(C)C', 'Cc1ccc(OS(=O)(=O)C(F)(F)F)cc1']),
    ('G278_suzuki_bpin_iodide_retro', 'C1=C(c2ccccc2N)CCCC1', ['CC1(C)OB(C2=CCCCC2)OC1(C)C', 'Nc1ccccc1I']),
    ('G279_deoxychlorination_4_hydroxyazine_pocl3_retro', 'O=[N+]([O-])c1cnc2ccccc2c1Cl', ['O=P(Cl)(Cl)Cl', 'O=[N+]([O-])c1cnc2ccccc2c1O']),
    ('G280_snar_malonate_retro', 'CCOC(=O)C(C(=O)OCC)c1ccc([N+](=O)[O-])cc1', ['CCOC(=O)CC(=O)OCC', 'O=[N+]([O-])c1ccc(F)cc1']),
    ('G281_enolate_alkylation_chloride_retro', 'CCOC(=O)C(Cc1ccccc1)C(C)=O', ['CC(=O)CC(=O)OCC', 'ClCc1ccccc1']),
    ('G282_oxazolidinone_hydrolysis_retro', 'NC(Cc1ccccc1)C(O)c1ccccc1', ['O=C1NC(Cc2ccccc2)C(c2ccccc2)O1']),
    ('G283_n_benzhydryl_deprotection_retro', 'OC1CNC1', ['OC1CN(C(c2ccccc2)c2ccccc2)C1']),
    ('G284_cyclic_urea_triphosgene_retro', 'CC1NC(=O)N(c2ccccc2)C1=O', ['CC(N)C(=O)Nc1ccccc1', 'O=C(OC(Cl)(Cl)Cl)OC(Cl)(Cl)Cl']),
    ('G285_directed_ortho_iodination_retro', 'Clc1ncccc1I', ['Clc1ccccn1', 'II']),
    ('G286_oxadiazolone_cdi_retro', 'Cc1ccc(-c2ccccc2-c2noc(=O)[nH]2)cc1',
     ['Cc1ccc(-c2ccccc2C(N)=NO)cc1', 'O=C(n1ccnc1)n1ccnc1']),
    ('G287_oxadiazolone_chloroformate_retro', 'O=c1[nH]c(-c2ccccc2)no1', ['NC(=NO)c1ccccc1', 'CCOC(=O)Cl']),
    ('G288_nitrile_hydrolysis_acid_aq_ethanol_retro', 'O=C(O)Cc1ccccc1', ['CCO', 'N#CCc1ccccc1', 'O']),
    ('G289_nitrile_hydrolysis_acid_aq_methanol_retro', 'O=C(O)Cc1ccccc1', ['CO', 'N#CCc1ccccc1', 'O']),
    ('G290_nitrile_hydrolysis_acid_h2so4_retro', 'O=C(O)Cc1ccccc1', ['N#CCc1ccccc1', 'O', 'O=S(=O)(O)O']),
    ('G291_nitrile_hydrolysis_acid_h2so4_acoh_retro', 'O=C(O)c1ccccc1', ['CC(=O)O', 'N#Cc1ccccc1', 'O=S(=O)(O)O']),
    ('G292_sandmeyer_iodination_hi_retro', 'Cc1ccc(I)cc1', ['Cc1ccc(N)cc1', 'I']),
    ('G293_sandmeyer_bromination_retro', 'O=C(O)c1ccc(Br)cc1', ['Br', 'Nc1ccc(C(=O)O)cc1']),
    ('G294_sandmeyer_chlorination_retro', 'Clc1ccccc1C#N', ['Cl', 'N#Cc1ccccc1N']),
    ('G295_sandmeyer_cyanation_cyanide_retro', 'Cc1ccccc1C#N', ['Cc1ccccc1N', '[C-]#N']),
    ('G296_phenol_from_aniline_diazotization_retro', 'Oc1cccc([N+](=O)[O-])c1', ['Nc1cccc([N+](=O)[O-])c1', 'O=NO']),
    ('G297_curtius_cbz_retro', 'O=C(NC1CCCCC1)OCc1ccccc1',
     ['O=C(O)C1CCCCC1', 'OCc1ccccc1', 'O=P(N=[N+]=[N-])(c1ccccc1)c1ccccc1']),
    ('G298_boronic_acid_triethyl_borate_retro', 'COc1ccc(B(O)O)cc1', ['CCOB(OCC)OCC', 'COc1ccc(Br)cc1']),
    ('G299_boronic_acid_triisopropyl_borate_retro', 'OB(O)c1cccnc1', ['Brc1cccnc1', 'CC(C)OB(OC(C)C)OC(C)C']),
    ('G300_tetrazole_tributyltin_azide_retro', 'c1ccc(-c2nnn[nH]2)cc1', ['CCCC[Sn](CCCC)(CCCC)N=[N+]=[N-]', 'N#Cc1ccccc1']),
    ('G301_tetrazole_tms_azide_retro', 'c1ccc(-c2nnn[nH]2)cc1', ['C[Si](C)(C)N=[N+]=[N-]', 'N#Cc1ccccc1']),
    ('G302_acrylamide_elimination_retro', 'C=CC(=O)Nc1ccccc1', ['O=C(CCCl)Nc1ccccc1']),
    ('G303_doebner_knoevenagel_retro', 'O=C(O)/C=C/c1ccccc1', ['O=C(O)CC(=O)O', 'O=Cc1ccccc1']),
    ('G304_triazolone_semicarbazide_retro', 'Cn1c(-c2ccccc2)n[nH]c1=O', ['CNC(=O)NNC(=O)c1ccccc1']),
    ('G305_benzoxazole_acid_retro', 'c1ccc(-c2nc3ccccc3o2)cc1', ['Nc1ccccc1O', 'O=C(O)c1ccccc1']),
    ('G306_benzimidazole_orthoformate_retro', 'Cn1cnc2ccccc21', ['CCOC(OCC)OCC', 'CNc1ccccc1N']),
    ('G307_pyridopyrimidinone_ethyl_ketoester_retro', 'Cc1cc(=O)n2ccccc2n1', ['CCOC(=O)CC(C)=O', 'Nc1ccccn1']),
    ('G307_pyridopyrimidinone_ethyl_ketoester_retro', 'O=c1cc(CCl)nc2ccc(F)cn12', ['CCOC(=O)CC(=O)CCl', 'Nc1ccc(F)cn1']),
    ('G308_pyridopyrimidinone_methyl_ketoester_retro', 'CCC(Br)c1cc(=O)n2c(C)cccc2n1', ['CCC(Br)C(=O)CC(=O)OC', 'Cc1cccc(N)n1']),
    ('G309_pyrazolopyrimidinol_ketoester_retro', 'Cc1cc(O)n2nc(-c3ccccc3Cl)c(-c3ccc(Cl)cc3)c2n1', ['CCOC(=O)CC(C)=O', 'Nc1[nH]nc(-c2ccccc2Cl)c1-c1ccc(Cl)cc1']),
    ('G309_pyrazolopyrimidinol_ketoester_retro', 'Cc1cc(O)n2nccc2n1', ['CCOC(=O)CC(C)=O', 'Nc1ccn[nH]1']),
    ('G310_pyrazolopyrimidinone_ketoester_retro', 'Cc1cc(=O)n2nccc2[nH]1', ['CCOC(=O)CC(C)=O', 'Nc1ccn[nH]1']),
    ('G311_isothiocyanate_tcdp_retro', 'S=C=Nc1ccc(Cl)c(Cl)n1', ['Nc1ccc(Cl)c(Cl)n1', 'O=c1ccccn1C(=S)n1ccccc1=O']),
    ('G312_isothiocyanate_thiophosgene_retro', 'S=C=Nc1ccc(Cl)cc1', ['Nc1ccc(Cl)cc1', 'S=C(Cl)Cl']),
    ('G313_isothiocyanate_tcdi_retro', 'S=C=NCc1ccccc1', ['NCc1ccccc1', 'S=C(n1ccnc1)n1ccnc1']),
    ('G314_alcohol_bromination_nbs_retro', 'CC(C)C(=O)N1CCC(CBr)CC1', ['CC(C)C(=O)N1CCC(CO)CC1', 'O=C1CCC(=O)N1Br']),
    ('G315_alcohol_bromination_br2_retro', 'COC(=O)c1ccc(F)c(-c2c(F)cc(CBr)cc2F)n1', ['BrBr', 'COC(=O)c1ccc(F)c(-c2c(F)cc(CO)cc2F)n1']),
    ('G316_thiouracil_ketoester_thiourea_retro', 'Cc1[nH]c(=S)[nH]c(=O)c1C', ['CCOC(=O)C(C)C(C)=O', 'NC(N)=S']),
    ('G316_thiouracil_ketoester_thiourea_retro', 'Cc1cc(=O)[nH]c(=S)[nH]1', ['CCOC(=O)CC(C)=O', 'NC(N)=S']),
    ('G317_s_methylation_thiouracil_retro', 'CSc1nc(C)c(C)c(=O)[nH]1', ['CI', 'Cc1[nH]c(=S)[nH]c(=O)c1C']),
    ('G318_snar_methylthio_pyrimidinone_amine_retro', 'Cc1nc(NCc2ccccn2)[nH]c(=O)c1C', ['CSc1nc(C)c(C)c(=O)[nH]1', 'NCc1ccccn1']),
    ('G319_arylpiperazine_bis_chloroethylamine_retro', 'c1ccc(N2CCNCC2)cc1', ['ClCCNCCCl', 'Nc1ccccc1']),
    ('G320_arylpiperazine_bis_bromoethylamine_retro', 'O=C(CCBr)Nc1ccc(N2CCNCC2)cc1', ['BrCCNCCBr', 'Nc1ccc(NC(=O)CCBr)cc1']),
    ('G321_reissert_henze_cyanation_retro', 'N#Cc1ccccn1', ['C[Si](C)(C)C#N', '[O-][n+]1ccccc1']),
    ('G321_reissert_henze_cyanation_retro', 'CC(c1ccc(C#N)nc1)C(O)(Cn1cncn1)c1ccc(F)cc1F', ['CC(c1ccc[n+]([O-])c1)C(O)(Cn1cncn1)c1ccc(F)cc1F', 'C[Si](C)(C)C#N']),
    ('G322_phosphonate_ester_deprotection_retro', 'O=Cc1ccc(O)c(CP(=O)(O)O)c1', ['CCOP(=O)(Cc1cc(C=O)ccc1O)OCC']),
    ('G323_masamune_claisen_retro', 'CCOC(=O)CC(=O)c1ccc(Br)c(C)c1F', ['CCOC(=O)CC(=O)O', 'Cc1c(Br)ccc(C(=O)O)c1F']),
    ('G324_krapcho_malonate_retro', 'CCOC(=O)Cc1cc(F)cc(OCc2ccccc2)c1', ['CCOC(=O)C(C(=O)OCC)c1cc(F)cc(OCc2ccccc2)c1']),
    ('G325_epoxide_opening_azole_retro', 'CC(c1cccnc1)C(O)(Cn1cncn1)c1ccc(F)cc1F', ['CC(c1cccnc1)C1(c2ccc(F)cc2F)CO1', 'c1nc[nH]n1']),
    ('G325_epoxide_opening_azole_retro', 'OC(Cn1ccnc1)c1ccccc1', ['c1c[nH]cn1', 'c1ccc(C2CO2)cc1']),
    ('G326_weinreb_amide_to_aldehyde_retro', 'CCn1ncc2c(NC3CC3)c(C=O)cnc21', ['CCn1ncc2c(NC3CC3)c(C(=O)N(C)OC)cnc21']),
    ('G327_tertiary_alcohol_dehydration_retro', 'Cc1cc(Br)ccc1C1=CCC(C(=O)N[C@H]2CC[C@@H](O)CC2)CC1', ['Cc1cc(Br)ccc1C1(O)CCC(C(=O)N[C@H]2CC[C@@H](O)CC2)CC1']),
    ('G327_tertiary_alcohol_dehydration_retro', 'C1=C(c2ccccc2)CCCC1', ['OC1(c2ccccc2)CCCCC1']),
    ('G328_sulfone_sulfinate_iodide_retro', 'O=C(O)c1cc(S(=O)(=O)CCCCl)ccc1O', ['ClCCCI', 'O=C(O)c1cc(S(=O)O)ccc1O']),
    ('G329_sulfone_sulfinate_bromide_retro', 'CCS(=O)(=O)c1ccccc1', ['CCBr', 'O=S(O)c1ccccc1']),
    ('G330_indole_glyoxylate_methyl_retro', 'COC(=O)C(=O)c1c[nH]c2cc(OCc3ccccc3)ccc12', ['CO', 'O=C(Cl)C(=O)Cl', 'c1ccc(COc2ccc3cc[nH]c3c2)cc1']),
    ('G331_indole_glyoxylate_ethyl_retro', 'CCOC(=O)C(=O)c1c[nH]c2ccccc12', ['CCO', 'O=C(Cl)C(=O)Cl', 'c1ccc2[nH]ccc2c1']),
    ('G332_ozonolysis_terminal_alkene_retro', 'Cc1cc(C)c(CC=O)c(OC(F)F)c1', ['C=CCc1c(C)cc(C)cc1OC(F)F', 'O=[O+][O-]']),
    ('G333_trityl_deprotection_azole_retro', 'CCNc1n[nH]c2cc(NC(=O)N[C@H](C)c3ccccc3)ncc12', ['CCNc1nn(C(c2ccccc2)(c2ccccc2)c2ccccc2)c2cc(NC(=O)N[C@H](C)c3ccccc3)ncc12']),
    ('G333_trityl_deprotection_azole_retro', 'c1ccc(-c2nn[nH]n2)cc1', ['c1ccc(-c2nnn(C(c3ccccc3)(c3ccccc3)c3ccccc3)n2)cc1']),
    ('G334_pmb_amine_deprotection_retro', 'Nc1cc2c(Nc3ccc(Br)c(Cl)c3)ncnc2cn1', ['COc1ccc(CNc2cc3c(Nc4ccc(Br)c(Cl)c4)ncnc3cn2)cc1']),
    ('G335_pivalamide_deprotection_retro', 'Nc1ccc(Cl)c(Cl)n1', ['CC(C)(C)C(=O)Nc1ccc(Cl)c(Cl)n1']),
    ('G336_aryl_iodide_ketone_addition_retro', 'CCOC(=O)C1CCC(O)(c2ccc(Br)cc2C)CC1', ['CCOC(=O)C1CCC(=O)CC1', 'Cc1cc(Br)ccc1I']),
    ('G337_tbu_ether_deprotection_retro', 'O=C(NOCCO)c1c(Nc2ccc(I)cc2F)c(F)c(=O)n2c1CCC2', ['CC(C)(C)OCCONC(=O)c1c(Nc2ccc(I)cc2F)c(F)c(=O)n2c1CCC2']),
    ('G338_nitrile_from_aldehyde_hydroxylamine_retro', 'Cc1c(C#N)c(=O)n(C)n1C', ['Cc1c(C=O)c(=O)n(C)n1C', 'NO']),
    ('G339_amide_pnp_ester_retro', 'COc1ccc(C(=O)Nc2c(Cl)cncc2Cl)c2cc(C(C)C)nn12', ['COc1ccc(C(=O)Oc2ccc([N+](=O)[O-])cc2)c2cc(C(C)C)nn12', 'Nc1c(Cl)cncc1Cl']),
    ('G340_urea_pnp_carbamate_retro', 'COC(=O)C1CC(c2ccc(CC(F)(F)F)cc2)CN(C(=O)N2CCSCC2)C1', ['C1CSCCN1', 'COC(=O)C1CC(c2ccc(CC(F)(F)F)cc2)CN(C(=O)Oc2ccc([N+](=O)[O-])cc2)C1']),
    ('G341_urea_cdt_retro', 'CNC(=O)Nc1ccccc1', ['CN', 'Nc1ccccc1', 'O=C(n1cncn1)n1cncn1']),
    ('G342_stille_ethoxyvinyl_methyl_ketone_retro', 'CC(=O)c1ccc(NC(=O)c2nc(C#N)cn2COCC[Si](C)(C)C)c(C2=CCCCC2)c1', ['C=C(OCC)[Sn](CCCC)(CCCC)CCCC', 'C[Si](C)(C)CCOCn1cc(C#N)nc1C(=O)Nc1ccc(Br)cc1C1=CCCCC1']),
    # nifedipine (the keto ester twice) and amlodipine (two different keto esters)
    ('G343_hantzsch_dihydropyridine_retro', 'COC(=O)C1=C(C)NC(C)=C(C(=O)OC)C1c1ccccc1[N+](=O)[O-]', ['COC(=O)CC(C)=O', 'COC(=O)CC(C)=O', 'N', 'O=Cc1ccccc1[N+](=O)[O-]']),
    ('G343_hantzsch_dihydropyridine_retro', 'CCOC(=O)C1=C(COCCN)NC(C)=C(C(=O)OC)C1c1ccccc1Cl', ['CCOC(=O)CC(=O)COCCN', 'COC(=O)CC(C)=O', 'N', 'O=Cc1ccccc1Cl']),
    # warfarin from 4-hydroxycoumarin and benzalacetone
    ('G344_michael_enol_retro', 'CC(=O)CC(c1ccccc1)c1c(O)c2ccccc2oc1=O', ['CC(=O)C=Cc1ccccc1', 'O=c1cc(O)c2ccccc2o1']),
    # phenytoin from benzil and urea (Biltz), and from benzophenone, cyanide, ammonia and carbonate (Bucherer-Bergs)
    ('G345_biltz_hydantoin_retro', 'O=C1NC(=O)C(c2ccccc2)(c2ccccc2)N1', ['NC(N)=O', 'O=C(C(=O)c1ccccc1)c1ccccc1']),
    ('G346_bucherer_bergs_hydantoin_retro', 'O=C1NC(=O)C(c2ccccc2)(c2ccccc2)N1',
     ['N', 'O=C(c1ccccc1)c1ccccc1', 'O=C([O-])[O-]', '[C-]#N']),
    # tadalafil's tetrahydro-beta-carboline from D-tryptophan methyl ester and piperonal (the new stereocentre is set
    # by the reaction: the stereo variant reads either configuration), and a racemic one from tryptamine
    ('G348_pictet_spengler_stereo_retro', 'COC(=O)[C@H]1Cc2c([nH]c3ccccc23)[C@@H](c2ccc3c(c2)OCO3)N1',
     ['COC(=O)[C@H](N)Cc1c[nH]c2ccccc12', 'O=Cc1ccc2c(c1)OCO2']),
    ('G347_pictet_spengler_retro', 'CC1NCCc2c1[nH]c1ccccc21', ['CC=O', 'NCCc1c[nH]c2ccccc12']),
    # a spirohydantoin from cyclohexanone
    ('G346_bucherer_bergs_hydantoin_retro', 'O=C1NC(=O)C2(CCCCC2)N1', ['N', 'O=C([O-])[O-]', 'O=C1CCCCC1', '[C-]#N']),
    # olanzapine (Lilly): Gewald aminothiophene from propionaldehyde, malononitrile and sulfur; SNAr; SnCl2 reduction
    # with cyclisation onto the nitrile; amidine exchange with N-methylpiperazine.  The Gewald ester from cyclohexanone
    # (a tetrahydrobenzothiophene); quetiapine's imino chloride from its lactam (POCl3)
    ('G349_gewald_aminothiophene_nitrile_retro', 'Cc1cc(C#N)c(N)s1', ['CCC=O', 'N#CCC#N', '[S]']),
    ('G350_gewald_aminothiophene_ester_retro', 'CCOC(=O)c1c(N)sc2c1CCCC2', ['CCOC(=O)CC#N', 'O=C1CCCCC1', '[S]']),
    ('G351_nitro_nitrile_reductive_amidine_retro', 'Cc1cc2c(s1)Nc1ccccc1N=C2N',
     ['Cc1cc(C#N)c(Nc2ccccc2[N+](=O)[O-])s1']),
    ('G352_lactam_imidoyl_chloride_pocl3_retro', 'ClC1=Nc2ccccc2Sc2ccccc21',
     ['O=C1Nc2ccccc2Sc2ccccc21', 'O=P(Cl)(Cl)Cl']),
    ('G353_cyclic_amidine_transamination_retro', 'Cc1cc2c(s1)Nc1ccccc1N=C2N1CCN(C)CC1',
     ['CN1CCNCC1', 'Cc1cc2c(s1)Nc1ccccc1N=C2N']),
    # bortezomib (Millennium): (+)-pinanediol isobutylboronate, Matteson homologation with LiCHCl2, LiHMDS, peptide
    # coupling, the pinanediol exchanged onto isobutylboronic acid.  The templates of chem.templates keep the
    # configuration rdchiral copies (the single-step model's named templates invert the LiHMDS carbon: see
    # tests/retro/test_sn2_stereo.py)
    ('G354_pinanediol_boronate_cleavage_retro', 'CC(C)C[C@H](NC(=O)[C@H](Cc1ccccc1)NC(=O)c1cnccn1)B(O)O',
     ['CC(C)C[C@H](NC(=O)[C@H](Cc1ccccc1)NC(=O)c1cnccn1)B1O[C@@H]2C[C@@H]3C[C@@H](C3(C)C)[C@]2(C)O1']),
    ('G355_alpha_aminoboronate_hmds_retro', 'CC(C)CC(N)B1OC(C)(C)C(C)(C)O1',
     ['CC(C)CC(Cl)B1OC(C)(C)C(C)(C)O1', 'C[Si](C)(C)[N-][Si](C)(C)C']),
    ('G356_matteson_homologation_retro', 'CC(C)C[C@@H](Cl)B1O[C@@H]2C[C@@H]3C[C@@H](C3(C)C)[C@]2(C)O1',
     ['CC(C)CB1O[C@@H]2C[C@@H]3C[C@@H](C3(C)C)[C@]2(C)O1', 'ClCCl']),
    ('G357_pinanediol_boronate_esterification_retro', 'CC(C)CB1O[C@@H]2C[C@@H]3C[C@@H](C3(C)C)[C@]2(C)O1',
     ['CC(C)CB(O)O', 'CC1(C)[C@@H]2C[C@@H](O)[C@@](C)(O)[C@H]1C2']),
    # enzalutamide (Medivation) and apalutamide: the aryl isothiocyanate closes the thiohydantoin on an alpha-(arylamino)
    # ester, or on the alpha-aminonitrile whose 4-imine is then hydrolysed (the original MDV3100 route); a spiro ring
    # carbon is fine
    ('G358_thiohydantoin_isothiocyanate_ester_retro',
     'CNC(=O)c1ccc(N2C(=S)N(c3ccc(C#N)c(C(F)(F)F)c3)C(=O)C2(C)C)cc1F',
     ['CNC(=O)c1ccc(NC(C)(C)C(=O)OC)cc1F', 'N#Cc1ccc(N=C=S)cc1C(F)(F)F']),
    ('G359_thiohydantoin_isothiocyanate_aminonitrile_retro',
     'CNC(=O)c1ccc(N2C(=S)N(c3cnc(C#N)c(C(F)(F)F)c3)C(=O)C23CCC3)cc1F',
     ['CNC(=O)c1ccc(NC2(C#N)CCC2)cc1F', 'N#Cc1ncc(N=C=S)cc1C(F)(F)F']),
    # lenalidomide (Celgene): methyl 2-(bromomethyl)-3-nitrobenzoate alkylates 3-aminopiperidine-2,6-dione and the
    # amine closes the lactam onto the ester; the nitro group is reduced afterwards
    ('G360_isoindolinone_bromomethylbenzoate_retro', 'O=C1CCC(N2Cc3c(cccc3[N+](=O)[O-])C2=O)C(=O)N1',
     ['COC(=O)c1cccc([N+](=O)[O-])c1CBr', 'NC1CCC(=O)NC1=O']),
    # propofol (2,6-diisopropylphenol) and 2,6-di-tert-butylphenol: phenol alkylated ortho by propene or
    # isobutylene over aluminium phenoxide, one alkyl at a time
    ('G361_phenol_ortho_isopropylation_propene_retro', 'CC(C)c1cccc(C(C)C)c1O', ['CC(C)c1ccccc1O', 'C=CC']),
    ('G362_phenol_ortho_tert_butylation_isobutylene_retro', 'CC(C)(C)c1cccc(C(C)(C)C)c1O',
     ['CC(C)(C)c1ccccc1O', 'C=C(C)C']),
    ('G363_ullmann_goldberg_halobenzoic_acid_cl_retro', 'Cc1cccc(Nc2ccccc2C(=O)O)c1C',
     ['Cc1cccc(N)c1C', 'O=C(O)c1ccccc1Cl']),
    ('G364_ullmann_goldberg_halobenzoic_acid_br_retro', 'O=C(O)c1ccccc1N1CCOCC1', ['C1COCCN1', 'O=C(O)c1ccccc1Br']),
    # tamoxifen's tetrasubstituted alkene from propiophenone and a benzophenone (McMurry, an E/Z mixture)
    ('G365_mcmurry_ketone_coupling_retro', 'CC/C(=C(\\c1ccccc1)c1ccc(OCCN(C)C)cc1)c1ccccc1',
     ['CCC(=O)c1ccccc1', 'CN(C)CCOc1ccc(C(=O)c2ccccc2)cc1']),    # (S)-naproxen by Ru-BINAP hydrogenation of the 2-aryl acrylic acid (Noyori); the Knowles L-DOPA enamide; a
    # CBS or Noyori reduction of an aryl ketone (duloxetine's (S)-alcohol): each only where the centre is drawn
    ('G366_asymmetric_hydrogenation_acrylic_acid_retro', 'COc1ccc2cc([C@H](C)C(=O)O)ccc2c1',
     ['C=C(C(=O)O)c1ccc2cc(OC)ccc2c1']),
    ('G367_asymmetric_hydrogenation_enamide_retro', 'CC(=O)N[C@@H](Cc1ccc(OC(C)=O)c(OC)c1)C(=O)O',
     ['COc1cc(C=C(NC(C)=O)C(=O)O)ccc1OC(C)=O']),
    ('G368_asymmetric_ketone_reduction_retro', 'CN(C)CC[C@H](O)c1cccs1', ['CN(C)CCC(=O)c1cccs1']),
    # clonidine and tizanidine from the aryl amine and 1-acetylimidazolidin-2-one in POCl3, then deacetylation; the
    # same with the amidine drawn as its imino tautomer
    ('G369_arylaminoimidazoline_acetylimidazolidinone_retro', 'Clc1ccc2nsnc2c1NC1=NCCN1',
     ['Nc1c(Cl)ccc2nsnc12', 'CC(=O)N1CCNC1=O']),
    ('G370_arylaminoimidazoline_acetylimidazolidinone_imino_retro', 'Clc1cccc(Cl)c1N=C1NCCN1',
     ['Nc1c(Cl)cccc1Cl', 'CC(=O)N1CCNC1=O']),
    # metformin from dimethylamine and dicyandiamide, in each of the biguanide's three drawn tautomers; phenformin
    ('G371_biguanide_amine_dicyandiamide_retro', 'CN(C)C(=N)NC(=N)N', ['CNC', 'N#CNC(=N)N']),
    ('G372_biguanide_amine_dicyandiamide_conjugated_retro', 'CN(C)C(=N)N=C(N)N', ['CNC', 'N#CNC(=N)N']),
    ('G373_biguanide_amine_dicyandiamide_amino_retro', 'CN(C)C(N)=NC(=N)N', ['CNC', 'N#CNC(=N)N']),
    # amitriptyline and cyclobenzaprine from their tertiary carbinols (the Grignard adducts of the tricyclic
    # ketones), loratadine's and tamoxifen's tetrasubstituted alkenes likewise
    ('G374_diaryl_carbinol_dehydration_retro', 'CN(C)CCC=C1c2ccccc2CCc2ccccc21',
     ['CN(C)CCCC1(O)c2ccccc2CCc2ccccc21']),
    ('G374_diaryl_carbinol_dehydration_retro', 'CN(C)CCC=C1c2ccccc2C=Cc2ccccc21',
     ['CN(C)CCCC1(O)c2ccccc2C=Cc2ccccc21']),
    ('G375_diaryl_carbinol_dehydration_tetrasubstituted_retro', 'CCOC(=O)N1CCC(=C2c3ccc(Cl)cc3CCc3cccnc32)CC1',
     ['CCOC(=O)N1CCC(C2(O)c3ccc(Cl)cc3CCc3cccnc32)CC1']),
    ('G375_diaryl_carbinol_dehydration_tetrasubstituted_retro', 'CC/C(=C(\\c1ccccc1)c1ccc(OCCN(C)C)cc1)c1ccccc1',
     ['CCC(c1ccccc1)C(O)(c1ccccc1)c1ccc(OCCN(C)C)cc1']),
    ('G371_biguanide_amine_dicyandiamide_retro', 'N=C(N)NC(=N)NCCc1ccccc1', ['NCCc1ccccc1', 'N#CNC(=N)N']),
]


def _canon(smiles: str) -> str:
    return Chem.MolToSmiles(Chem.MolFromSmiles(smiles))


def test_every_template_has_an_example():
    assert {t.id for t in load_named_templates()} == {row[0] for row in EXAMPLES}


@pytest.mark.parametrize(("template_id", "product", "expected"), EXAMPLES, ids=[row[0] for row in EXAMPLES])
def test_template_regenerates_expected_precursors(template_id, product, expected):
    outcomes = apply_named_template(template_id, product)
    assert sorted(_canon(s) for s in expected) in outcomes, outcomes


#: electrophilic aromatic halogenations (NBS, NIS, NCS, Br2, I2): not at positions an electron-withdrawing group
#: or a pyridine-type nitrogen deactivates (ortho/para), unless a donor activates them
SEAR_HALOGENATIONS = ("G56_aromatic_bromination_retro", "G141_aromatic_iodination_retro",
                      "G142_aromatic_chlorination_retro", "G199_aromatic_bromination_br2_retro",
                      "G258_aromatic_iodination_i2_retro")


@pytest.mark.parametrize("template_id", SEAR_HALOGENATIONS)
@pytest.mark.parametrize(("product", "allowed"), [
    ("Oc1ccc({X})cc1", True),  # para to OH
    ("Nc1ccccc1{X}", True),  # ortho to NH2
    ("CC(=O)Nc1ccc({X})cc1", True),  # para to an anilide
    ("O=[N+]([O-])c1cc({X})c2c(c1)CCN2", True),  # ortho to the indoline N (a ring donor)
    ("Nc1ccc([N+](=O)[O-])cc1{X}", True),  # ortho to NH2 wins over meta to NO2
    ("Nc1ncc({X})cn1", True),  # C5 of 2-aminopyrimidine
    ("{X}c1c[nH]c2ccccc12", True),  # indole C3
    ("O=c1[nH]cc({X})cc1", True),  # pyridone C5
    ("Cc1ccc({X})cc1", True),  # para to an alkyl group
    ("O=C(O)c1cc({X})cc([N+](=O)[O-])c1", True),  # meta to two withdrawing groups (forcing conditions)
    ("{X}c1cccnc1", True),  # pyridine C3
    ("Oc1cccc({X})c1", False),  # meta to OH, no other director
    ("CC(=O)NNC(=O)c1ccccc1{X}", False),  # ortho to a carbonyl
    ("O=[N+]([O-])c1ccc({X})cc1", False),  # para to NO2
    ("CC(=O)c1ccc({X})cc1", False),
    ("FC(F)(F)Oc1ccc({X})cc1", False),  # OCF3 does not activate
    ("{X}c1ccccn1", False),  # pyridine C2
    ("{X}c1ccncc1", False),  # pyridine C4
])
def test_aromatic_halogenation_respects_directing_groups(template_id, product, allowed):
    halogen = {"G56": "Br", "G141": "I", "G142": "Cl", "G199": "Br", "G258": "I"}[template_id.split("_")[0]]
    outcomes = apply_named_template(template_id, product.format(X=halogen))
    assert bool(outcomes) is allowed, outcomes


@pytest.mark.parametrize(("template_id", "product"), [
    # an amidoxime is made from a nitrile (G188), never from an amide and hydroxylamine
    ("G128_oxime_formation_retro", "NC(=NO)c1ccccc1"),
    ("G128_oxime_formation_retro", "Cc1ccc(/C(N)=N/O)cc1"),
    # the 2-aminoazine nitrogen must be a ring nitrogen of a fused bicycle, not a 2-pyrimidinone
    ("G307_pyridopyrimidinone_ethyl_ketoester_retro", "Cc1cc(=O)[nH]c(C)n1"),
    # a pyrazolo[1,5-a]pyrimidine needs the five-membered ring; a pyrido[1,2-a]pyrimidine is not one
    ("G309_pyrazolopyrimidinol_ketoester_retro", "Cc1cc(=O)n2ccccc2n1"),
    # only an endocyclic trisubstituted alkene next to an aryl group comes from a tertiary alcohol
    ("G327_tertiary_alcohol_dehydration_retro", "C=C(C)c1ccccc1"),
    # the glyoxylation is at an indole/pyrrole C3 next to a free C2-H, not on a benzene ring
    ("G330_indole_glyoxylate_methyl_retro", "COC(=O)C(=O)c1ccccc1"),
    # ozonolysis gives the aldehyde of a terminal alkene, not an aryl aldehyde
    ("G332_ozonolysis_terminal_alkene_retro", "O=Cc1ccccc1"),
    # the Reissert-Henze cyanation is next to the ring nitrogen only
    ("G321_reissert_henze_cyanation_retro", "N#Cc1cccnc1"),
    # a secondary benzylic alcohol comes from an aldehyde, not from a ketone and an aryl iodide
    ("G336_aryl_iodide_ketone_addition_retro", "CC(O)c1ccccc1"),
    # the 4-nitrophenyl carbamate route gives ureas, not carbamates
    ("G340_urea_pnp_carbamate_retro", "CCOC(=O)Nc1ccccc1"),
    # the aluminium phenoxide alkylation goes ortho to a free OH: not meta or para, not on an anisole, not a
    # secondary alkyl other than isopropyl
    ("G361_phenol_ortho_isopropylation_propene_retro", "CC(C)c1cccc(O)c1"),
    ("G361_phenol_ortho_isopropylation_propene_retro", "CC(C)c1ccc(O)cc1"),
    ("G361_phenol_ortho_isopropylation_propene_retro", "COc1ccccc1C(C)C"),
    ("G361_phenol_ortho_isopropylation_propene_retro", "CCC(C)c1ccccc1O"),
    ("G362_phenol_ortho_tert_butylation_isobutylene_retro", "CC(C)(C)c1ccc(O)cc1"),
    ("G362_phenol_ortho_tert_butylation_isobutylene_retro", "COc1ccccc1C(C)(C)C"),
    # the copper amination of a 2-halobenzoic acid: not where a ring nitrogen or a nitro group activates the halide
    # for S_N_Ar (niflumic acid from 2-chloronicotinic acid), not without the ortho acid
    ("G363_ullmann_goldberg_halobenzoic_acid_cl_retro", "OC(=O)c1cccnc1Nc1cccc(C(F)(F)F)c1"),
    ("G363_ullmann_goldberg_halobenzoic_acid_cl_retro", "O=C(O)c1cc([N+](=O)[O-])ccc1NC1CC1"),
    ("G363_ullmann_goldberg_halobenzoic_acid_cl_retro", "O=C(O)c1ccc(Nc2ccccc2)cc1"),
    ("G364_ullmann_goldberg_halobenzoic_acid_br_retro", "COC(=O)c1ccccc1Nc1ccccc1"),
    # McMurry only for an open-chain tetrasubstituted alkene with an aryl on each carbon (a Wittig or HWE reaction
    # makes the others), and not an enol ether
    ("G365_mcmurry_ketone_coupling_retro", "C/C=C/c1ccccc1"),
    ("G365_mcmurry_ketone_coupling_retro", "CC(C)=C(C)C"),
    ("G365_mcmurry_ketone_coupling_retro", "CC1=C(c2ccccc2)CCC1"),
    ("G365_mcmurry_ketone_coupling_retro", "COC(c1ccccc1)=C(C)c1ccccc1"),
    # an alkylidene oxindole or an unsaturated ketone or nitrile is a condensation product (aldol, Knoevenagel)
    ("G365_mcmurry_ketone_coupling_retro", "CC(=C1C(=O)Nc2ccc(Cl)cc21)c1ccco1"),
    ("G365_mcmurry_ketone_coupling_retro", "CC(=O)C(=C(C)c1ccccc1)c1ccccc1"),
    ("G365_mcmurry_ketone_coupling_retro", "N#CC(=C(C)c1ccccc1)c1ccccc1"),
    # an asymmetric catalyst only for a centre drawn: not a racemate, not a carbon that is no stereocentre
    # (isobutyric acid, benzhydrol), not a dialkyl carbinol (low ee), not an ester of the acrylic acid (Ru-BINAP
    # needs the free acid)
    ("G366_asymmetric_hydrogenation_acrylic_acid_retro", "COc1ccc2cc(C(C)C(=O)O)ccc2c1"),
    ("G366_asymmetric_hydrogenation_acrylic_acid_retro", "CC(C)C(=O)O"),
    ("G366_asymmetric_hydrogenation_acrylic_acid_retro", "C[C@H](C(=O)OC)c1ccccc1"),
    ("G367_asymmetric_hydrogenation_enamide_retro", "CC(=O)NC(Cc1ccccc1)C(=O)O"),
    ("G367_asymmetric_hydrogenation_enamide_retro", "N[C@@H](Cc1ccccc1)C(=O)O"),
    ("G368_asymmetric_ketone_reduction_retro", "CC(O)c1ccccc1"),
    ("G368_asymmetric_ketone_reduction_retro", "OC(c1ccccc1)c1ccccc1"),
    ("G368_asymmetric_ketone_reduction_retro", "CC[C@H](C)O"),
    # the imidazoline of 1-acetylimidazolidin-2-one only: not a ring with a substituent, not an alkyl or an
    # N-methyl aryl amine, not an aromatic 2-aminoimidazole; each tautomer by its own template
    ("G369_arylaminoimidazoline_acetylimidazolidinone_retro", "CC1CN=C(Nc2ccccc2)N1"),
    ("G369_arylaminoimidazoline_acetylimidazolidinone_retro", "CCNC1=NCCN1"),
    ("G369_arylaminoimidazoline_acetylimidazolidinone_retro", "c1ccc(N(C)C2=NCCN2)cc1"),
    ("G369_arylaminoimidazoline_acetylimidazolidinone_retro", "c1ccc(Nc2ncc[nH]2)cc1"),
    ("G369_arylaminoimidazoline_acetylimidazolidinone_retro", "Clc1cccc(Cl)c1N=C1NCCN1"),
    ("G370_arylaminoimidazoline_acetylimidazolidinone_imino_retro", "Clc1cccc(Cl)c1NC1=NCCN1"),
    ("G370_arylaminoimidazoline_acetylimidazolidinone_imino_retro", "CCN=C1NCCN1"),
    # a biguanide with a free NH2 end only, from a primary or secondary amine: not the parent biguanide (ammonia),
    # not proguanil's 1,5-disubstituted one, not an acyl biguanide, not a guanidine; each tautomer by its own template
    ("G371_biguanide_amine_dicyandiamide_retro", "N=C(N)NC(=N)N"),
    ("G371_biguanide_amine_dicyandiamide_retro", "CC(C)NC(=N)NC(=N)Nc1ccc(Cl)cc1"),
    ("G371_biguanide_amine_dicyandiamide_retro", "CC(=O)NC(=N)NC(=N)N"),
    ("G371_biguanide_amine_dicyandiamide_retro", "CN(C)C(=N)N"),
    ("G371_biguanide_amine_dicyandiamide_retro", "CN(C)C(=N)N=C(N)N"),
    ("G372_biguanide_amine_dicyandiamide_conjugated_retro", "CN(C)C(=N)NC(=N)N"),
    ("G373_biguanide_amine_dicyandiamide_amino_retro", "CN(C)C(=N)NC(=N)N"),
    # a diaryl carbinol's dehydration: not an alkene with one aryl group, a 1,1-diarylethylene, an enol ether, or
    # a ring alkene (3-phenylindene)
    ("G374_diaryl_carbinol_dehydration_retro", "CC=C(C)c1ccccc1"),
    ("G374_diaryl_carbinol_dehydration_retro", "C=C(c1ccccc1)c1ccccc1"),
    ("G374_diaryl_carbinol_dehydration_retro", "C1=C(c2ccccc2)c2ccccc2C1"),
    ("G375_diaryl_carbinol_dehydration_tetrasubstituted_retro", "COC(C)=C(c1ccccc1)c1ccccc1"),
    ("G375_diaryl_carbinol_dehydration_tetrasubstituted_retro", "CC(C)=C(C)c1ccccc1"),
])
def test_template_does_not_fire_on_the_wrong_site(template_id, product):
    assert apply_named_template(template_id, product) == []


@pytest.mark.parametrize(("template_id", "product"), [
    # no keto-ester or diketone carbonyls on the dihydropyridine: not a Hantzsch product
    ("G343_hantzsch_dihydropyridine_retro", "CC1=C(C)C(c2ccccc2)C(C)=C(C)N1"),
    # a phenol's ortho carbon is no enol nucleophile (no carbonyl next to it): a Friedel-Crafts question
    ("G344_michael_enol_retro", "CC(=O)CC(c1ccccc1)c1ccccc1O"),
    # the Biltz rearrangement moves an aryl group: a 5-alkyl-5-aryl hydantoin does not come from a 1,2-dione so
    ("G345_biltz_hydantoin_retro", "CC1(c2ccccc2)NC(=O)NC1=O"),
    # Bucherer-Bergs gives an N-H hydantoin from a ketone, not an N-alkyl one, nor a 5-monosubstituted one here
    ("G346_bucherer_bergs_hydantoin_retro", "CN1C(=O)NC(c2ccccc2)(c2ccccc2)C1=O"),
    ("G346_bucherer_bergs_hydantoin_retro", "O=C1NC(=O)C(c2ccccc2)N1"),
    # Pictet-Spengler needs the indole's C2: a plain phenethylamine does not cyclise so, and an N-methyl ring nitrogen
    # is not written (the template reads an N-H product)
    ("G347_pictet_spengler_retro", "c1ccc2c(c1)CCNC2c1ccccc1"),
    ("G347_pictet_spengler_retro", "CN1CCc2c([nH]c3ccccc23)C1c1ccccc1"),
    ("G348_pictet_spengler_stereo_retro", "CC1NCCc2c1[nH]c1ccccc21"),
    # Gewald: the carbonyl partner's alpha carbon becomes the ring carbon next to sulfur; an aldehyde or ketone with an
    # alpha CH2 is read here, so a 5-unsubstituted thiophene (from acetaldehyde) is not written, nor a 2-alkylamino one
    ("G349_gewald_aminothiophene_nitrile_retro", "N#Cc1c(N)scc1C"),
    ("G349_gewald_aminothiophene_nitrile_retro", "CNc1sc(C)cc1C#N"),
    ("G350_gewald_aminothiophene_ester_retro", "CCOC(=O)c1cc(C)sc1NC(C)=O"),
    # the reductive cyclisation closes the seven-membered ring of a 1,5-benzodiazepine-type amidine only
    ("G351_nitro_nitrile_reductive_amidine_retro", "NC1=NCCc2ccccc21"),
    ("G351_nitro_nitrile_reductive_amidine_retro", "Nc1nc2ccccc2[nH]1"),
    # POCl3 turns a ring lactam into its imino chloride: not a 2-chlorobenzimidazole (aromatic, G138's) or an acyclic
    # imidoyl chloride
    ("G352_lactam_imidoyl_chloride_pocl3_retro", "Clc1nc2ccccc2[nH]1"),
    ("G352_lactam_imidoyl_chloride_pocl3_retro", "ClC(=Nc1ccccc1)c1ccccc1"),
    # amidine exchange needs a ring amidine whose amine is a plain secondary amine: not an acyclic amidine or an amide N
    ("G353_cyclic_amidine_transamination_retro", "CN(C)C(=Nc1ccccc1)c1ccccc1"),
    ("G353_cyclic_amidine_transamination_retro", "CC(=O)N(C)C1=Nc2ccccc2Nc2ccccc21"),
    # the pinanediol exchange needs an alpha-amino or alpha-amido alkylboronic acid; LiHMDS and the Matteson
    # homologation need a boronic ester (a free boronic acid is not alkylated so); the esterification a ring-fused
    # diol (a pinacol ester is made otherwise: Miyaura borylation)
    ("G354_pinanediol_boronate_cleavage_retro", "CC(C)CB(O)O"),
    ("G354_pinanediol_boronate_cleavage_retro", "OB(O)c1ccccc1"),
    ("G355_alpha_aminoboronate_hmds_retro", "CC(C)CC(N)B(O)O"),
    ("G356_matteson_homologation_retro", "CC(C)CC(Cl)B(O)O"),
    ("G357_pinanediol_boronate_esterification_retro", "CC(C)CB1OC(C)(C)C(C)(C)O1"),
    # a thiohydantoin needs its C=S and C=O where the isothiocyanate and the ester put them, and an amine nitrogen
    # (an N-acyl amino ester does not add to the isothiocyanate)
    ("G358_thiohydantoin_isothiocyanate_ester_retro", "CC1(C)NC(=O)N(c2ccccc2)C1=O"),
    ("G358_thiohydantoin_isothiocyanate_ester_retro", "CC1(C)C(=S)N(c2ccccc2)C(=O)N1C"),
    ("G358_thiohydantoin_isothiocyanate_ester_retro", "CC(=O)N1C(=S)N(c2ccccc2)C(=O)C1(C)C"),
    ("G359_thiohydantoin_isothiocyanate_aminonitrile_retro", "CC(=O)N1C(=S)N(c2ccccc2)C(=O)C1(C)C"),
    # the isoindolinone's CH2 next to the nitrogen comes from the benzyl bromide: not an imide, not a
    # dihydroisoquinolinone, not an N-H lactam (no amine partner written)
    ("G360_isoindolinone_bromomethylbenzoate_retro", "CN1C(=O)c2ccccc2C1=O"),
    ("G360_isoindolinone_bromomethylbenzoate_retro", "CN1CCc2ccccc2C1=O"),
    ("G360_isoindolinone_bromomethylbenzoate_retro", "O=C1NCc2ccccc21"),
])
def test_ring_synthesis_and_enol_michael_need_their_carbonyls(template_id, product):
    assert apply_named_template(template_id, product) == []
