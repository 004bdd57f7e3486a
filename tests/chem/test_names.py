"""The packaged drug/reagent name table and name lookup in text."""

from __future__ import annotations

import pytest
from rdkit import Chem
from rdkit.Chem import rdCIPLabeler, rdMolDescriptors

from molx_agent.chem.names import find_names_in_text, load_name_table, lookup_name, resolve_name


def test_table_size_and_every_smiles_parses_with_its_recorded_formula():
    table = load_name_table()
    assert len(table) >= 200
    assert sum(e.kind == "drug" for e in table) >= 150
    for e in table:
        mol = Chem.MolFromSmiles(e.smiles)
        assert mol is not None, e.name
        # the formula was recorded independently of the SMILES: a mismatch means a wrong structure
        assert rdMolDescriptors.CalcMolFormula(mol) == e.formula, e.name


def test_aliases_are_unambiguous():
    seen: dict[str, str] = {}
    for e in load_name_table():
        for alias in e.aliases:
            key = alias.lower()
            assert seen.setdefault(key, e.name) == e.name, f"{alias!r} names {seen[key]} and {e.name}"


def test_chinese_names_present():
    zh = {a for e in load_name_table() for a in e.zh}
    assert {"阿司匹林", "对乙酰氨基酚", "布洛芬", "伊马替尼"} <= zh
    assert len(zh) >= 150


@pytest.mark.parametrize(
    ("name", "smiles"),
    [
        ("aspirin", "CC(=O)Oc1ccccc1C(=O)O"),
        ("Acetaminophen", "CC(=O)Nc1ccc(O)cc1"),
        ("  PARACETAMOL ", "CC(=O)Nc1ccc(O)cc1"),
        ("阿司匹林", "CC(=O)Oc1ccccc1C(=O)O"),
        ("扑热息痛", "CC(=O)Nc1ccc(O)cc1"),
        ("DMF", "CN(C)C=O"),
    ],
)
def test_resolve_name(name, smiles):
    assert resolve_name(name) == smiles


def test_unknown_names_resolve_to_none():
    assert resolve_name("unobtainium") is None and resolve_name("") is None and lookup_name(None) is None  # type: ignore[arg-type]


def test_known_stereo_is_kept():
    assert Chem.FindMolChiralCenters(Chem.MolFromSmiles(resolve_name("naproxen"))) == [(1, "S")]
    assert Chem.FindMolChiralCenters(Chem.MolFromSmiles(resolve_name("levodopa"))) == [(1, "S")]


def test_find_names_in_text_order_longest_and_case():
    assert [n for n, _ in find_names_in_text("Compare amoxicillin with penicillin G")] == [
        "amoxicillin", "benzylpenicillin"]
    assert [n for n, _ in find_names_in_text("请比较对乙酰氨基酚和布洛芬")] == ["paracetamol", "ibuprofen"]
    assert find_names_in_text("5-氟尿嘧啶的水溶性")[0][0] == "fluorouracil"  # 水 alone is not matched
    assert find_names_in_text("tea and a necessary scan") == []  # abbreviations match case-sensitively only
    assert find_names_in_text("add TEA") == [("triethylamine", "CCN(CC)CC")]


def test_name_for_smiles_reverse_lookup():
    from molx_agent.chem.names import name_for_smiles

    assert name_for_smiles("OC(=O)c1ccccc1OC(C)=O") == "aspirin"
    assert name_for_smiles("CC(=O)Nc1ccc(O)cc1", "zh") == "对乙酰氨基酚"
    assert name_for_smiles("CCCCCCCCCCCCCCCCCC") is None and name_for_smiles("C1CC") is None


@pytest.mark.parametrize(
    ("name", "labels"),
    [
        # CIP descriptors of the marketed single isomers, from their IUPAC names (recorded apart from the SMILES)
        ("escitalopram", "S"), ("esomeprazole", "S"), ("linezolid", "S"), ("tenofovir", "R"), ("atomoxetine", "R"),
        ("tamsulosin", "R"), ("apremilast", "S"), ("valaciclovir", "S"), ("linagliptin", "R"), ("vildagliptin", "S"),
        ("montelukast", "R"), ("voriconazole", "RS"), ("moxifloxacin", "SS"), ("ramipril", "SSSSS"),
        ("canagliflozin", "SRRSR"), ("ticagrelor", "SSRSRS"), ("ropivacaine", "S"), ("zolmitriptan", "S"),
        ("pramipexole", "S"), ("rasagiline", "R"), ("lacosamide", "R"), ("tolterodine", "R"), ("repaglinide", "S"),
        ("ambrisentan", "S"), ("alogliptin", "R"), ("tapentadol", "RR"), ("mirabegron", "R"), ("selegiline", "R"),
    ],
)
def test_single_isomer_drugs_carry_their_configuration(name, labels):
    mol = Chem.MolFromSmiles(resolve_name(name))
    rdCIPLabeler.AssignCIPLabels(mol)
    got = sorted(a.GetProp("_CIPCode") for a in mol.GetAtoms() if a.HasProp("_CIPCode"))
    assert got == sorted(labels), name


def test_a_drug_named_inside_a_longer_name_is_not_matched_for_it():
    assert [n for n, _ in find_names_in_text("请为艾司奥美拉唑设计逆合成路线")] == ["esomeprazole"]
    assert [n for n, _ in find_names_in_text("desloratadine, loratadine")] == ["desloratadine", "loratadine"]
    assert [n for n, _ in find_names_in_text("艾司西酞普兰和西酞普兰")] == ["escitalopram", "citalopram"]
    assert resolve_name("valacyclovir") == resolve_name("伐昔洛韦") == resolve_name("valaciclovir")
    assert resolve_name("替米沙坦") == resolve_name("telmisartan")


def test_reagent_names_do_not_match_inside_other_names_or_words():
    # the commodity reagents of the names table (bromine, formic acid, ethyl formate, potassium iodide, ...) are
    # named where a query names them, and not inside a longer name or an ordinary abbreviation: formic acid has
    # no alias 甲酸 (it would match inside every methyl benzoate or phthalate), ethyl chloroformate is listed so
    # that 氯甲酸乙酯 is not ethyl formate, and KI, HI, O3 and DMC are no aliases (Ki values, a greeting)
    assert [n for n, _ in find_names_in_text("用液溴溴化苯胺")] == ["bromine", "aniline"]
    assert [n for n, _ in find_names_in_text("KSCN and Br2 in AcOH")] == ["potassium thiocyanate", "bromine", "acetic acid"]
    assert resolve_name("蚁酸") == resolve_name("formic acid") == "O=CO"
    assert find_names_in_text("请为对苯二甲酸二甲酯设计路线") == []
    assert [n for n, _ in find_names_in_text("用氯甲酸乙酯保护")] == ["ethyl chloroformate"]
    assert find_names_in_text("the Ki and KI values; HI there; O3 and DMC") == []


def test_a_chinese_name_inside_a_longer_chinese_name_is_not_matched():
    # Chinese names have no spaces: 4-氟苯胺 (4-fluoroaniline) is no request for 苯胺 (aniline), nor 4-甲氧基苯甲酸甲酯
    # for benzoic acid or 对溴苯甲酸 for bromobenzene; a name the table lacks resolves to nothing (the agent asks for
    # a SMILES) rather than to a wrong molecule
    for text in ("请为4-氟苯胺设计逆合成路线", "请为4-甲氧基苯甲酸甲酯设计逆合成路线", "请为对溴苯甲酸设计路线",
                 "请为4-羟基他莫昔芬设计路线", "N-乙酰-L-谷氨酸"):
        assert find_names_in_text(text) == [], text
    # the name alone, in a list, or after a salt word still counts
    assert [n for n, _ in find_names_in_text("请为苯胺设计路线")] == ["aniline"]
    assert [n for n, _ in find_names_in_text("分析苯胺、苯甲酸和对乙酰氨基酚")] == ["aniline", "benzoic acid", "paracetamol"]
    assert "riluzole" in [n for n, _ in find_names_in_text("盐酸利鲁唑")]
    assert [n for n, _ in find_names_in_text("甲磺酸伊马替尼的合成")] == ["imatinib"]
    assert [n for n, _ in find_names_in_text("伊马替尼甲磺酸盐")] == ["imatinib"]
    assert "clopidogrel" in [n for n, _ in find_names_in_text("硫酸氢氯吡格雷")]
    assert [n for n, _ in find_names_in_text("imatinib（伊马替尼）")] == ["imatinib"]
    assert [n for n, _ in find_names_in_text("请为5-氟尿嘧啶设计路线")] == ["fluorouracil"]
    assert [n for n, _ in find_names_in_text("分析阿司匹林,布洛芬")] == ["aspirin", "ibuprofen"]


def test_the_acid_of_a_chinese_salt_name_is_part_of_the_drug_name_not_a_second_molecule():
    # 盐酸利鲁唑 is riluzole hydrochloride: one molecule to plan for, not hydrochloric acid and riluzole
    assert [n for n, _ in find_names_in_text("请为盐酸利鲁唑设计逆合成路线")] == ["riluzole"]
    assert [n for n, _ in find_names_in_text("硫酸氢氯吡格雷的逆合成")] == ["clopidogrel"]
    assert [n for n, _ in find_names_in_text("富马酸喹硫平")] == ["quetiapine"]
    # the acid named on its own, or apart from the drug, is still a molecule of the request
    assert [n for n, _ in find_names_in_text("用盐酸处理")] == ["hydrochloric acid"]
    assert [n for n, _ in find_names_in_text("盐酸和利鲁唑")] == ["hydrochloric acid", "riluzole"]
    # an acetate or benzoate before a steroid is an ester, another molecule: both names stay
    assert [n for n, _ in find_names_in_text("醋酸地塞米松")] == ["acetic acid", "dexamethasone"]


def test_every_chinese_name_is_found_in_a_request():
    # the rule that keeps a name inside a longer name unmatched leaves every name of the table matched where a
    # request names it
    for e in load_name_table():
        for zh in (z for z in e.zh if len(z) >= 2):
            for text in (f"请为{zh}设计逆合成路线", f"{zh}的分子量是多少", f"分析{zh}和阿司匹林"):
                assert e.name in [n for n, _ in find_names_in_text(text)], text
