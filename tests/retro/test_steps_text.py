"""A route's forward steps as the answers write them (``retro.search_routes.steps_text``)."""

from __future__ import annotations

from molx_agent.retro.reaction_class import REACTION_CLASSES, REACTION_CLASSES_ZH
from molx_agent.retro.search_routes import steps_text

STEPS = [("C-C bond formation", ["N#Cc1ccc(Br)cc1", "N#Cc1ccc(C=O)cc1"], "N#Cc1ccc(C(O)c2ccc(C#N)cc2)cc1"),
         ("Suzuki Coupling", ["Brc1ccccc1", "OB(O)c1ccccc1"], "c1ccc(-c2ccccc2)cc1"),
         (None, ["CC(=O)Cl", "Nc1ccc(O)cc1"], "CC(=O)Nc1ccc(O)cc1")]


def test_a_chinese_answer_names_reaction_classes_and_named_reactions_in_chinese():
    zh = steps_text(STEPS, "zh")
    assert zh.startswith("(1) C-C 键形成: N#Cc1ccc(Br)cc1 + N#Cc1ccc(C=O)cc1 -> ")
    assert "(2) Suzuki 偶联: " in zh and "(3) 步骤: " in zh and "C-C bond formation" not in zh
    assert "Suzuki Coupling" not in zh
    # a name that is neither a class nor a template's stays as written
    assert steps_text([("Pd-catalysed carbonylation", ["A"], "B")], "zh") == "(1) Pd-catalysed carbonylation: A -> B"
    en = steps_text(STEPS, "en")
    assert en.startswith("(1) C-C bond formation: ") and "(2) Suzuki Coupling: " in en and "(3) step: " in en


def test_every_named_template_has_one_chinese_name_of_its_own():
    from molx_agent.chem.templates import load_named_templates, template_name_zh
    from molx_agent.chem.utils import load_data

    names = {t.name for t in load_named_templates()}
    table = load_data("named_template_names_zh")
    assert set(table) == names
    zh = [template_name_zh(n) for n in sorted(names)]
    assert len(set(zh)) == len(zh) and all(z != n for z, n in zip(zh, sorted(names), strict=True))
    # every name has Chinese words; person names and reagents stay as chemists write them
    assert all(any("\u4e00" <= ch <= "\u9fff" for ch in z) for z in zh)
    assert template_name_zh("Buchwald-Hartwig Amination (Aryl Chloride)") == "Buchwald-Hartwig 胺化（芳基氯）"
    assert template_name_zh("Deoxychlorination of Heteroaryl Lactam (POCl3)") == "杂芳基内酰胺的脱氧氯化（POCl3）"


def test_every_reaction_class_has_a_chinese_name():
    assert set(REACTION_CLASSES_ZH) == set(REACTION_CLASSES)
    assert all(name and name != REACTION_CLASSES[k] for k, name in REACTION_CLASSES_ZH.items())


def test_a_reagent_choice_summary_in_chinese_names_only_the_choices_the_route_needs():
    from molx_agent.agents.validation import issue_summary
    from molx_agent.chem.mechanism import step_mechanism
    from molx_agent.retro.search_routes import issue_summary_zh
    from tests.chem.test_mechanism import ACID_METHYLATION, LETROZOLE_ADDITION

    knochel = "conditions: " + step_mechanism(LETROZOLE_ADDITION)[0]["reason"]
    text = issue_summary({"code": "reagent_choice", "message": knochel}, "zh")
    assert "iPrMgCl·LiCl" in text and "还原硝基" not in text and "双负离子" not in text
    both = issue_summary_zh("reagent_choice", [knochel, "conditions: " + step_mechanism(ACID_METHYLATION)[0]["reason"]])
    assert "iPrMgCl·LiCl" in both and "双负离子" in both and "NaBH(OAc)3" not in both
    # a message the table does not know (or none) keeps the summary of every choice
    assert all(k in issue_summary_zh("reagent_choice") for k in ("还原硝基", "NaBH(OAc)3", "LiBH4", "双负离子", "Knochel"))
