"""AnalysisAgent: answers ``molecule_query`` with RDKit numbers and structural analysis.

For each molecule in ``inputs["smiles"]`` (names already resolved by the planner) it computes
:func:`molx_agent.chem.properties.compute_properties` and the functional groups
(:func:`molx_agent.chem.fg_detect.detect_functional_groups`).  With ``options["deep_analysis"]`` (the
retrosynthesis plan) it adds ``molx_agent.chem.analyze_molecule`` (strategic bonds, CS score) when that
is available.  The summary lists the properties the user asked for first, in the user's language.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from molx_agent.agents.base import BaseAgent
from molx_agent.agents.modules.state import AgentState, Task
from molx_agent.errors import ChemistryError, DataError, RetroError

logger = logging.getLogger(__name__)

# key -> (English label, Chinese label, unit, English keywords, Chinese keywords)
PROPERTY_LABELS: dict[str, tuple[str, str, str, tuple[str, ...], tuple[str, ...]]] = {
    "formula": ("Formula", "分子式", "", ("formula",), ("分子式",)),
    "molecular_weight": ("Molecular weight", "分子量", " g/mol", ("molecular weight", "mol weight", "mw", "weight"),
                         ("分子量",)),
    "exact_mass": ("Exact mass", "精确质量", "", ("exact mass", "monoisotopic", "mass"), ("精确质量", "质量")),
    "clogp": ("cLogP (Crippen)", "cLogP (Crippen)", "", ("logp", "clogp", "lipophilicity"), ("脂水分配", "logp", "亲脂")),
    "tpsa": ("TPSA", "TPSA(拓扑极性表面积)", " Å²", ("tpsa", "psa", "polar surface"), ("极性表面积", "tpsa")),
    "hbd": ("H-bond donors", "氢键供体", "", ("donor", "hbd"), ("氢键供体", "供体")),
    "hba": ("H-bond acceptors", "氢键受体", "", ("acceptor", "hba"), ("氢键受体", "受体")),
    "rotatable_bonds": ("Rotatable bonds", "可旋转键", "", ("rotatable",), ("可旋转",)),
    "rings": ("Rings", "环数", "", ("ring",), ("环",)),
    "aromatic_rings": ("Aromatic rings", "芳香环", "", ("aromatic",), ("芳香",)),
    "heavy_atoms": ("Heavy atoms", "重原子数", "", ("heavy atom",), ("重原子",)),
    "qed": ("QED", "QED(类药性)", "", ("qed", "drug-like", "druglike", "drug likeness"), ("qed", "类药")),
    "sa_score": ("SA score (1 easy-10 hard)", "SA 合成可及性评分(1 易 - 10 难)", "",
                 ("sa score", "synthetic accessibility", "sascore"), ("合成可及",)),
    "lipinski": ("Lipinski rule of five", "Lipinski 五规则", "", ("lipinski", "rule of five", "ro5"), ("lipinski", "五规则")),
}


#: Chinese labels of the functional groups of ``data/functional_groups.json`` (every group has one: a test).
FG_LABELS_ZH: dict[str, str] = {
    "carboxylic_acid": "羧酸", "carboxylate": "羧酸根", "acid_chloride": "酰氯", "anhydride": "酸酐", "ester": "酯",
    "lactone": "内酯", "amide_generic": "酰胺", "primary_amide": "伯酰胺", "secondary_amide": "仲酰胺",
    "tertiary_amide": "叔酰胺", "lactam": "内酰胺", "carbamate": "氨基甲酸酯", "urea": "脲", "ketone": "酮",
    "aldehyde": "醛", "enone": "α,β-不饱和羰基", "phenol": "酚", "primary_alcohol": "伯醇", "secondary_alcohol": "仲醇",
    "tertiary_alcohol": "叔醇", "ether": "醚", "cyclic_ether": "环醚", "aryl_methyl_ether": "芳基甲基醚",
    "epoxide": "环氧", "acetal": "缩醛/缩酮", "primary_amine": "伯胺", "secondary_amine": "仲胺", "tertiary_amine": "叔胺",
    "aniline": "苯胺（芳香伯胺）", "secondary_aryl_amine": "芳香仲胺", "tertiary_aryl_amine": "芳香叔胺",
    "quaternary_ammonium": "季铵", "imine": "亚胺", "oxime": "肟", "hydrazine": "肼", "hydrazone": "腙",
    "amidine": "脒", "guanidine": "胍", "nitro": "硝基", "aromatic_nitro": "芳香硝基", "nitrile": "腈", "azide": "叠氮",
    "aryl_fluoride": "芳基氟", "aryl_chloride": "芳基氯", "aryl_bromide": "芳基溴", "aryl_iodide": "芳基碘",
    "alkyl_fluoride": "烷基氟", "alkyl_chloride": "烷基氯", "alkyl_bromide": "烷基溴", "alkyl_iodide": "烷基碘",
    "trifluoromethyl": "三氟甲基", "boronic_acid": "硼酸", "boronic_ester": "硼酸酯", "silyl_ether": "硅醚",
    "sulfonamide": "磺酰胺", "sulfonyl_chloride": "磺酰氯", "sulfonate_ester": "磺酸酯", "sulfonic_acid": "磺酸",
    "sulfone": "砜", "sulfoxide": "亚砜", "thiol": "硫醇", "thioether": "硫醚", "disulfide": "二硫键", "thiourea": "硫脲",
    "alkene": "烯烃", "terminal_alkene": "末端烯烃", "alkyne": "炔烃", "terminal_alkyne": "末端炔烃",
    "cyclopropane": "环丙烷", "phenyl": "苯环", "pyridine": "吡啶", "pyrimidine": "嘧啶", "pyrazine": "吡嗪",
    "pyridazine": "哒嗪", "triazine": "三嗪", "pyrrole": "吡咯", "imidazole": "咪唑", "pyrazole": "吡唑",
    "tetrazole": "四唑", "oxazole": "噁唑", "isoxazole": "异噁唑", "thiazole": "噻唑", "thiophene": "噻吩",
    "furan": "呋喃", "indole": "吲哚", "benzimidazole": "苯并咪唑", "quinoline": "喹啉", "isoquinoline": "异喹啉",
    "quinazoline": "喹唑啉", "purine": "嘌呤", "piperidine": "哌啶", "piperazine": "哌嗪", "morpholine": "吗啉",
    "pyrrolidine": "吡咯烷", "acid_halide": "酰卤", "weinreb_amide": "Weinreb 酰胺", "carbonate": "碳酸酯",
    "isocyanate": "异氰酸酯", "isothiocyanate": "异硫氰酸酯", "formamide": "甲酰胺", "thioamide": "硫代酰胺",
    "enol": "烯醇", "peroxide": "过氧化物", "hemiacetal": "半缩醛", "hydroxylamine": "羟胺", "amidoxime": "偕胺肟",
    "diazo": "重氮", "n_oxide": "N-氧化物", "aryl_triflate": "芳基三氟甲磺酸酯", "vinyl_halide": "烯基卤",
    "heteroaryl_halide": "杂芳基卤", "trifluoroborate": "三氟硼酸盐", "organostannane": "有机锡", "organozinc": "有机锌",
    "grignard": "格氏试剂", "organolithium": "有机锂", "phosphonate": "膦酸酯", "phosphonium_ylide": "磷叶立德",
    "phosphine": "膦", "diene": "二烯", "allene": "联烯", "triazole_123": "1,2,3-三唑", "triazole_124": "1,2,4-三唑",
    "oxadiazole_124": "1,2,4-噁二唑", "oxadiazole_134": "1,3,4-噁二唑", "benzoxazole": "苯并噁唑",
    "benzothiazole": "苯并噻唑",
}


#: Chinese words of the bond kinds ``chem.atom_bond_map.chemical_label`` writes (the bond notation, ``Ar-N``, stays).
BOND_LABELS_ZH: dict[str, str] = {
    "aromatic ring bond": "芳环键", "alkene": "碳碳双键", "double bond": "双键", "alkyne": "碳碳三键",
    "triple bond": "三键", "urea/carbamate": "脲/氨基甲酸酯", "amide": "酰胺", "carboxylic acid": "羧酸",
    "carbonate/carbamate": "碳酸酯/氨基甲酸酯", "ester": "酯", "thioester": "硫酯", "sulfonamide": "磺酰胺",
    "sulfonate": "磺酸酯", "sulfonyl": "磺酰基", "biaryl": "联芳基", "aryl ketone/acid": "芳基酮/芳基羧酸",
    "aryl-vinyl": "芳基-烯基", "benzylic": "苄位", "alpha-carbonyl": "羰基 α 位", "aryl halide": "芳基卤",
    "alkyl halide": "烷基卤", "N-aryl azole": "N-芳基唑", "aryl amine": "芳胺", "aryl ether": "芳基醚",
    "aryl thioether": "芳基硫醚", "aryl": "芳基", "alcohol": "醇", "N-alkyl azole": "N-烷基唑", "amine": "胺",
    "ether": "醚", "thioether": "硫醚", "sulfoxide": "亚砜", "sulfone": "砜", "guanidine": "胍", "amidine": "脒",
}
#: The bond kinds, longest first ("aryl amine" before "aryl" and "amine").
_BOND_WORDS = sorted(BOND_LABELS_ZH, key=len, reverse=True)
#: The guidance's own capping of a thioether's S-C(sp3) bond, which none of the seed's rules covers: the thiol and the
#: alkyl bromide (:func:`_s_alkylation`); a sulfoxide or sulfone is reached through its sulfide.
S_ALKYLATION = "S-alkylation (SN2)"
#: The guidance's capping of an aryl ketone's Ar-C(=O) bond, tried before the seed's Grignard rule: the arene's C-H and
#: the acyl chloride (:func:`_fc_acylation`).
FC_ACYLATION = "Friedel-Crafts acylation"
#: The guidance's capping of the exocyclic N-C(=N) bond of a guanidine (clonidine's 2-arylaminoimidazoline), which no
#: seed rule caps: the amine and the S-methylisothiourea (:func:`_guanidinylation`).
GUANIDINYLATION = "Guanidinylation (S-methylisothiourea)"
#: The note on a Buchwald-Hartwig capping whose nitrogen is a guanidine's or amidine's (:func:`_amidine_arylation`).
AMIDINE_ARYLATION_NOTE = ("the nitrogen is part of a guanidine or amidine, which binds palladium and is arylated poorly "
                          "and unselectively: the group is usually built on the aryl amine instead (an "
                          "S-methylisothiourea, a cyanamide, or an activated cyclic urea)")
#: Chinese names of the seed's capping rules (``chem.smart_cap.CAPPING_RULES``), of the guidance's S-alkylation and of
#: the name a chemist gives the "Heck" rule on an arene; person names stay as written.
CAPPING_NAMES_ZH: dict[str, str] = {
    "Suzuki coupling": "Suzuki 偶联", "Negishi coupling": "Negishi 偶联", "Stille coupling": "Stille 偶联",
    "Amide bond formation": "酰胺键形成", "Amide (acid chloride)": "酰胺键形成（酰氯）", "Ester hydrolysis": "酯水解",
    "N-alkylation (SN2)": "N-烷基化（SN2）", "Reductive amination": "还原胺化", "Williamson ether": "Williamson 醚合成",
    "Buchwald-Hartwig": "Buchwald-Hartwig 胺化", "SNAr/Ullmann": "SNAr/Ullmann 芳基醚合成", "Heck": "Heck 反应",
    "Grignard": "Grignard 反应", "Friedel-Crafts alkylation": "Friedel-Crafts 烷基化",
    S_ALKYLATION: "S-烷基化（SN2）", f"{S_ALKYLATION}, then oxidation to the sulfoxide": "S-烷基化（SN2）后氧化为亚砜",
    f"{S_ALKYLATION}, then oxidation to the sulfone": "S-烷基化（SN2）后氧化为砜",
    FC_ACYLATION: "Friedel-Crafts 酰基化", "radical C-H fluoroalkylation": "自由基 C-H 氟烷基化",
    GUANIDINYLATION: "胍基化（S-甲基异硫脲）", "SNAr amination": "SNAr 胺化",
}


def bond_label_zh(label: str | None) -> str:
    """A bond's label (``chemical_label``: "aryl amine Ar-N", "ring ester C(=O)-O") in Chinese ("芳胺 Ar-N",
    "环内酯 C(=O)-O"); the bond notation stays, and so does a label without words ("C-C")."""
    if not label:
        return ""
    ring = label.startswith("ring ")
    body = label[5:] if ring else label
    for words in _BOND_WORDS:
        if body == words or body.startswith(words + " "):
            body = BOND_LABELS_ZH[words] + body[len(words):]
            break
    if not ring:
        return body
    return "环内" + ("" if "\u4e00" <= body[:1] <= "\u9fff" else " ") + body


#: Chinese words of the group classes a protection plan names (``chem.selectivity``: "amine", "alcohol", ...); a
#: functional-group name falls back to :data:`FG_LABELS_ZH`.
PROTECTION_LABELS_ZH: dict[str, str] = {
    "amine": "胺", "aniline": "苯胺", "alcohol": "醇", "phenol": "酚", "thiol": "硫醇", "carboxylic_acid": "羧酸",
    "aldehyde": "醛", "ketone": "酮", "carbonyl": "羰基", "diol": "二醇", "terminal_alkyne": "末端炔烃",
    "azole_nh": "唑 N-H", "indole_nh": "吲哚 N-H", "aryl_halide": "芳基卤", "ester": "酯",
}


def protection_label_zh(name: str) -> str:
    """A protection plan's group ("amine", "secondary_alcohol") in Chinese (the name itself when unknown)."""
    return PROTECTION_LABELS_ZH.get(name) or FG_LABELS_ZH.get(name) or name


def capping_name_zh(name: str | None) -> str:
    """The Chinese name of a capping rule's or a named template's reaction (the name itself when neither knows it)."""
    if not name:
        return ""
    if name in CAPPING_NAMES_ZH:
        return CAPPING_NAMES_ZH[name]
    from molx_agent.chem.templates import template_name_zh

    return template_name_zh(name)


def requested_properties(query: str) -> list[str]:
    """Property keys the query asks for, in the order of :data:`PROPERTY_LABELS`."""
    low = (query or "").lower()
    out = []
    for key, (_en, _zh, _unit, en_kw, zh_kw) in PROPERTY_LABELS.items():
        if any(re.search(rf"(?<![a-z]){re.escape(k)}", low) for k in en_kw) or any(k in low for k in zh_kw):
            out.append(key)
    if "exact_mass" in out and "molecular_weight" in out and "exact mass" not in low and "精确" not in low:
        out.remove("exact_mass")  # "molecular weight" contains neither; plain "mass" next to MW means MW
    return out


def _fmt(key: str, props: dict[str, Any], lang: str) -> str:
    en, zh, unit, *_ = PROPERTY_LABELS[key]
    label = zh if lang == "zh" else en
    if key == "lipinski":
        lip = props["lipinski"]
        if lang == "zh":
            verdict = "符合" if lip["passes"] else "不符合"
            return f"{label}: {lip['violations']} 项违反（{verdict}）"
        verdict = "passes" if lip["passes"] else "fails"
        return f"{label}: {lip['violations']} violation(s) ({verdict})"
    value = props.get(key)
    if value is None:
        return f"{label}: {'无法计算' if lang == 'zh' else 'not computable'}"
    return f"{label}: {value}{unit}"


def _functional_groups(smiles: str) -> tuple[list[dict[str, Any]], str]:
    try:
        from molx_agent.chem.fg_detect import detect_functional_groups
    except ImportError:  # pragma: no cover - chem.fg_detect ships with the package
        return [], "unavailable"
    groups = detect_functional_groups(smiles)
    return [{"name": g["name"], "label": g.get("label", g["name"]), "count": g["count"], "atoms": g["atoms"],
             **({"count_capped": True} if g.get("count_capped") else {})}
            for g in groups], "chem.fg_detect"


def _deep_analysis(smiles: str) -> dict[str, Any] | None:
    try:
        from molx_agent.chem import analyze_molecule  # type: ignore[attr-defined]
    except ImportError:
        return None
    try:
        return analyze_molecule(smiles)
    except RetroError as exc:
        return {"error": exc.to_dict()}


MAX_GUIDANCE_BONDS = 3
#: Capping proposals tried per strategic bond (the first one no mechanism flag names is kept).
MAX_CAPPINGS = 3


#: A bond that cuts off at most this many heavy atoms of the molecule (a methyl, a methoxy) with a near analog of it
#: on the other side only trims the molecule (:func:`_near_analog_fragment`).
MAX_TRIMMED_ATOMS = 2


def _mechanism_notes(mapped_reaction: str | None) -> list[str]:
    """The route judgement's mechanism flags that name a step a chemist would not run as written
    (``retro.judge.IMPLAUSIBLE_MECHANISM_ISSUES``: a Friedel-Crafts alkylation through a carbocation next to a
    carbonyl, a carbanion nothing activates...) on a capping's atom-mapped reaction, as notes."""
    from molx_agent.chem.mechanism import step_mechanism
    from molx_agent.retro.judge import IMPLAUSIBLE_MECHANISM_ISSUES

    return [f"{flag['code']}: {flag['reason']}" for flag in step_mechanism(mapped_reaction or "")
            if flag["code"] in IMPLAUSIBLE_MECHANISM_ISSUES]


#: Mechanism flags a protecting group fixes (the amine of an amino acid coupled at its acid: Boc or Cbz first): in
#: the guidance such a capping is a warned disconnection (``needs_protection``), not a demoted one.
PROTECTION_FIXES = ("unprotected_amino_acid:",)


def _guidance_rank(bond: dict[str, Any]) -> int:
    """Where a strategic bond goes in the guidance, the order of the analysis kept within each rank: 0 a clean
    disconnection; 1 one whose precursors carry a warning (an unstable boronic acid, a Grignard reagent's partner
    with a free acid: a protection or another reagent fixes it); 2 a bond that only trims a near analog of the
    molecule (a methyl ether from the phenol, an aryl fluoride displaced by methanol: a functional-group
    interconversion of a molecule as hard to make as the target, not a disconnection that simplifies it); 3 one
    whose capping reaction a mechanism flag names (2-bromopropionic acid alkylating an arene: forward it gives
    nothing). A flag a protecting group fixes (:data:`PROTECTION_FIXES`: sitagliptin's amino acid coupled at its
    acid) counts as no warning: the bond says ``needs_protection``, and the strategy line asks for the protection."""
    if bond.get("mechanism_flagged"):
        return 3
    if bond.get("interconversion"):
        return 2
    return 1 if any(not n.startswith(PROTECTION_FIXES) for n in bond.get("notes") or []) else 0


def _smaller_side(smiles: str, bond_idx: int) -> int | None:
    """Heavy atoms on the smaller side of an acyclic bond of ``smiles`` (``None`` for a ring bond or a bad index)."""
    from rdkit import Chem

    mol = Chem.MolFromSmiles(smiles)
    if mol is None or not 0 <= bond_idx < mol.GetNumBonds() or mol.GetBondWithIdx(bond_idx).IsInRing():
        return None
    pieces = Chem.GetMolFrags(Chem.FragmentOnBonds(mol, [bond_idx], addDummies=False))
    return min(len(p) for p in pieces) if len(pieces) == 2 else None


def _near_analog_fragment(fragments: list[str], smiles: str, bond_idx: int) -> str | None:
    """The fragment that is a near analog of ``smiles`` (the route judge's analog rule,
    ``retro.judge.analog_similarity``: the same ring skeleton, Tanimoto >= 0.5, at most two heavy atoms fewer) when the
    bond cuts off at most :data:`MAX_TRIMMED_ATOMS` heavy atoms, else ``None``: such a bond (a methyl ether made
    from the phenol, a methoxy from the aryl fluoride) trims a molecule as hard to make as the target instead of
    splitting it; dimethylamine on a phenethyl bromide (three atoms) is a disconnection."""
    from molx_agent.retro.judge import analog_similarity

    side = _smaller_side(smiles, bond_idx)
    if side is None or side > MAX_TRIMMED_ATOMS:
        return None
    # a fragment RDKit cannot read (a capping's organometallic) is no analog: analog_similarity gives None
    return next((f for f in fragments if analog_similarity(f, smiles) is not None), None)


def _acyclic_bond_atoms(smiles: str, bond: dict[str, Any]) -> tuple[Any, Any, Any] | None:
    """(molecule, first atom, second atom) of the acyclic strategic bond ``bond`` (its ``atoms``) of ``smiles``;
    ``None`` for a ring bond or a molecule RDKit cannot read."""
    from rdkit import Chem

    mol = Chem.MolFromSmiles(smiles)
    if mol is None or bond.get("in_ring") or len(bond.get("atoms") or []) != 2:
        return None
    a, b = (mol.GetAtomWithIdx(int(i)) for i in bond["atoms"])
    return mol, a, b


def _s_alkylation(smiles: str, bond: dict[str, Any]) -> dict[str, Any] | None:
    """The S-alkylation capping of an acyclic thioether S-C(sp3) bond (the thiol and the alkyl bromide: RS-CR3 ->
    RSH + Br-CR3), in :func:`chem.smart_cap.suggest_capping`'s form; ``None`` for another bond."""
    from rdkit import Chem

    found = _acyclic_bond_atoms(smiles, bond)
    if found is None:
        return None
    mol, a, b = found
    sulfur, carbon = (a, b) if a.GetAtomicNum() == 16 else (b, a)
    if sulfur.GetAtomicNum() != 16 or sulfur.GetIsAromatic() or sulfur.GetDegree() != 2 or sulfur.GetFormalCharge() \
            or carbon.GetAtomicNum() != 6 or carbon.GetIsAromatic() \
            or carbon.GetHybridization() != Chem.HybridizationType.SP3:
        return None
    return _capping(mol, sulfur.GetIdx(), carbon.GetIdx(), "Br", S_ALKYLATION, "RS-CR₃ → RSH + Br-CR₃", "S-C(sp3)")


def _capping(mol: Any, keep_h: int, capped: int, cap: str, name: str, description: str,
             bond_class: str) -> dict[str, Any] | None:
    """One of the guidance's own cappings of the bond ``keep_h``-``capped`` (H on the first atom, ``cap`` on the
    second), in :func:`chem.smart_cap.suggest_capping`'s form with its atom map; ``None`` when no molecule results."""
    from molx_agent.chem.smart_cap import cap_bonds_mapped, precursor_notes

    try:
        frags, mapped = cap_bonds_mapped(mol, [(keep_h, capped, "H", cap)])
    except RetroError:
        return None
    return {"reaction_type": name, "fragments": frags, "confidence": None, "description": description,
            "caps": {str(keep_h): "H", str(capped): cap}, "bond_class": bond_class, "notes": precursor_notes(frags),
            "mapped_reaction": mapped}


def _fc_acylation(smiles: str, bond: dict[str, Any]) -> dict[str, Any] | None:
    """The Friedel-Crafts acylation capping of an acyclic aryl ketone bond (the arene's C-H and the acyl chloride:
    Ar-C(=O)R -> ArH + ClC(=O)R), in :func:`chem.smart_cap.suggest_capping`'s form, when the aryl carbon's ring holds
    no pyridine-type nitrogen (an azine takes no Friedel-Crafts electrophile); ``None`` for another bond. The route
    judgement's mechanism flags then say whether the arene takes the acyl group at that carbon (a deactivated ring,
    a site no substituent directs to), and a flagged capping gives way to the next."""
    from rdkit import Chem

    found = _acyclic_bond_atoms(smiles, bond)
    if found is None:
        return None
    mol, a, b = found
    aryl, acyl = (a, b) if a.GetIsAromatic() else (b, a)
    if not aryl.GetIsAromatic() or aryl.GetAtomicNum() != 6 or acyl.GetIsAromatic() or acyl.GetAtomicNum() != 6 \
            or acyl.GetDegree() != 3 or sum(n.GetAtomicNum() == 6 for n in acyl.GetNeighbors()) != 2 \
            or not any(x.GetBondType() == Chem.BondType.DOUBLE and x.GetOtherAtom(acyl).GetAtomicNum() == 8
                       for x in acyl.GetBonds()):
        return None  # not a ketone's carbonyl carbon on an aromatic carbon
    rings = [r for r in mol.GetRingInfo().AtomRings() if aryl.GetIdx() in r
             and all(mol.GetAtomWithIdx(i).GetIsAromatic() for i in r)]
    if not rings or any(mol.GetAtomWithIdx(i).GetAtomicNum() == 7 and mol.GetAtomWithIdx(i).GetDegree() == 2
                        and not mol.GetAtomWithIdx(i).GetTotalNumHs() for i in min(rings, key=len)):
        return None
    return _capping(mol, aryl.GetIdx(), acyl.GetIdx(), "Cl", FC_ACYLATION, "Ar-C(=O)R → Ar-H + Cl-C(=O)R", "Ar-C(=O)")


def _guanidinylation(smiles: str, bond: dict[str, Any]) -> dict[str, Any] | None:
    """The guanidinylation capping of the acyclic single bond between an uncharged amine nitrogen and a guanidine's
    carbon (the amine and the S-methylisothiourea: RNH-C(=N)N -> RNH2 + MeS-C(=N)N; clonidine's 2,6-dichloroaniline
    and 2-methylthio-2-imidazoline), in :func:`chem.smart_cap.suggest_capping`'s form; ``None`` for another bond."""
    from rdkit import Chem

    from molx_agent.chem.atom_bond_map import amidine_nitrogens

    found = _acyclic_bond_atoms(smiles, bond)
    if found is None:
        return None
    mol, a, b = found
    amine, carbon = (a, b) if a.GetAtomicNum() == 7 else (b, a)
    link = mol.GetBondBetweenAtoms(a.GetIdx(), b.GetIdx())
    if amine.GetAtomicNum() != 7 or amine.GetFormalCharge() != 0 or amine.GetIsAromatic() \
            or link.GetBondType() != Chem.BondType.SINGLE or amidine_nitrogens(carbon) != 3 \
            or any(amidine_nitrogens(n) or (n.GetAtomicNum() in (6, 16) and any(
                x.GetBondType() == Chem.BondType.DOUBLE and x.GetOtherAtom(n).GetAtomicNum() == 8 for x in n.GetBonds()))
                   for n in amine.GetNeighbors() if n.GetIdx() != carbon.GetIdx()):
        return None  # not an amine on a guanidine carbon (an acyl or sulfonyl guanidine, a biguanide's inner N)
    return _capping(mol, amine.GetIdx(), carbon.GetIdx(), "SC", GUANIDINYLATION,
                    "RNH-C(=N)NR₂ → RNH₂ + MeS-C(=N)NR₂", "N-C(=N)")


def _amidine_arylation(smiles: str, bond: dict[str, Any]) -> bool:
    """Whether the acyclic aryl C-N bond ``bond`` of ``smiles`` joins the aryl carbon to a nitrogen on a guanidine's or
    amidine's carbon (a Buchwald-Hartwig capping would arylate the guanidine: :data:`AMIDINE_ARYLATION_NOTE`)."""
    from molx_agent.chem.atom_bond_map import amidine_nitrogens

    found = _acyclic_bond_atoms(smiles, bond)
    if found is None:
        return False
    _mol, a, b = found
    aryl, nitrogen = (a, b) if a.GetIsAromatic() else (b, a)
    return aryl.GetIsAromatic() and aryl.GetAtomicNum() == 6 and nitrogen.GetAtomicNum() == 7 \
        and not nitrogen.GetIsAromatic() and any(amidine_nitrogens(n) for n in nitrogen.GetNeighbors())


def _oxidised_sulfur_bonds(smiles: str) -> list[dict[str, Any]]:
    """Each acyclic S-C(sp3) bond of a sulfoxide or sulfone (a sulfur with one or two oxo oxygens and two carbons) as
    a strategic-bond candidate reached through the sulfide: ``sulfide`` (the molecule with those oxygens removed),
    ``sulfide_bond`` (the same bond there, as ``{atoms, in_ring}``), ``oxidation`` ("sulfoxide" or "sulfone") and the
    thioether bond's ``strategic_priority`` in the sulfide's atom/bond map, ``sulfide_key`` whether it is the sulfide's
    key disconnection (``chem.strategy.decide_strategy``). A chemist makes such a bond as the
    sulfide's (a thiol alkylated) and oxidises afterwards (omeprazole's sulfide from
    2-mercapto-5-methoxybenzimidazole and the 2-chloromethylpyridine)."""
    from rdkit import Chem

    from molx_agent.chem.atom_bond_map import build_atom_bond_map
    from molx_agent.chem.strategy import decide_strategy

    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return []
    out: list[dict[str, Any]] = []
    for sulfur in mol.GetAtoms():
        if sulfur.GetAtomicNum() != 16 or sulfur.GetIsAromatic():
            continue
        oxo = [n.GetIdx() for n in sulfur.GetNeighbors() if n.GetAtomicNum() == 8 and n.GetDegree() == 1]
        carbons = [n for n in sulfur.GetNeighbors() if n.GetAtomicNum() == 6]
        if len(oxo) not in (1, 2) or len(carbons) != 2 or sulfur.GetDegree() != len(oxo) + 2:
            continue
        rw = Chem.RWMol(mol)
        rw.GetAtomWithIdx(sulfur.GetIdx()).SetFormalCharge(0)
        rw.GetAtomWithIdx(sulfur.GetIdx()).SetChiralTag(Chem.ChiralType.CHI_UNSPECIFIED)
        for idx in sorted(oxo, reverse=True):
            rw.RemoveAtom(idx)
        sulfide = rw.GetMol()
        try:
            Chem.SanitizeMol(sulfide)
        except Exception:  # noqa: BLE001 - RDKit raises several types; all mean "no sulfide"
            continue
        sulfide_smiles = Chem.MolToSmiles(sulfide)
        order = list(sulfide.GetPropsAsDict(includePrivate=True, includeComputed=True)["_smilesAtomOutputOrder"])
        # an atom of the molecule -> the same atom in the sulfide's SMILES (the oxygens removed, then written out)
        shifted = {i: order.index(i - sum(o < i for o in oxo)) for i in range(mol.GetNumAtoms()) if i not in oxo}
        sulfide_map = None
        for carbon in carbons:
            bond = mol.GetBondBetweenAtoms(sulfur.GetIdx(), carbon.GetIdx())
            if bond.IsInRing() or carbon.GetIsAromatic() or carbon.GetHybridization() != Chem.HybridizationType.SP3:
                continue
            if sulfide_map is None:
                sulfide_map = build_atom_bond_map(Chem.MolFromSmiles(sulfide_smiles))
                sulfide_key = ((decide_strategy(sulfide_smiles).get("convergent_feasibility") or {})
                               .get("key_disconnection") or {}).get("bond_idx")
            atoms = sorted((shifted[sulfur.GetIdx()], shifted[carbon.GetIdx()]))
            entry = next((x for x in sulfide_map["bonds"] if sorted(x["atoms"]) == atoms), None)
            out.append({"bond_idx": bond.GetIdx(), "atoms": [sulfur.GetIdx(), carbon.GetIdx()],
                        "chemical_label": ("sulfoxide" if len(oxo) == 1 else "sulfone") + " S-C(sp3)",
                        "in_ring": False, "reaction_types": [], "fragment_balance": (entry or {}).get("fragment_balance"),
                        "strategic_priority": (entry or {}).get("strategic_priority") or 0.0,
                        "sulfide": sulfide_smiles, "sulfide_bond": {"atoms": atoms, "in_ring": False},
                        "sulfide_key": entry is not None and entry.get("bond_idx") == sulfide_key,
                        "oxidation": "sulfoxide" if len(oxo) == 1 else "sulfone"})
    return out


#: What a bond reached through the sulfide adds (its ``via["note"]``: a step to run, not a warning).
_OXIDATION_NOTE = {
    "sulfoxide": "the sulfide {sulfide} is oxidised to the sulfoxide afterwards (one equivalent of mCPBA or H2O2; a "
                 "single enantiomer needs an asymmetric oxidation, such as Kagan's Ti/tartrate)",
    "sulfone": "the sulfide {sulfide} is oxidised to the sulfone afterwards (two equivalents of mCPBA, or Oxone)",
}


def _trifluoromethyl_heteroatom_bonds(smiles: str) -> set[int]:
    """Indices of the bonds from an O, N or S to a CF3 carbon (a trifluoromethoxy, -thio or -amino group), and of the
    O's or N's other bonds.  Such a group comes with its building block (4-(trifluoromethoxy)aniline, not an
    alkylation by CF3Br: a CF3 carbon takes no S_N2 substitution; nor from trifluoromethanol or an
    N-trifluoromethylamine, which lose HF), so none of those bonds is a strategic disconnection (riluzole's strategy
    line of 2026-12-07 was a Williamson ether synthesis from CF3Br).  An aryl-SCF3 bond stays (aryl halides are
    trifluoromethylthiolated with CuSCF3 or AgSCF3)."""
    from rdkit import Chem

    mol = Chem.MolFromSmiles(smiles) if smiles else None
    if mol is None:
        return set()
    pattern = Chem.MolFromSmarts("[O,N,S]-[CX4](F)(F)F")
    out: set[int] = set()
    for x, c, *_ in mol.GetSubstructMatches(pattern):
        out.add(mol.GetBondBetweenAtoms(x, c).GetIdx())
        if mol.GetAtomWithIdx(x).GetAtomicNum() != 16:
            out.update(bond.GetIdx() for bond in mol.GetAtomWithIdx(x).GetBonds())
    return out


def synthesis_guidance(smiles: str, analysis: dict[str, Any]) -> dict[str, Any]:
    """What the route search can use from the analysis: the recommended strategy (linear / convergent / mixed), the
    strategic bonds with the precursors a capping rule gives (acyclic bonds first, ring bonds as a fallback), the
    groups needing protection and the methods to avoid.  The ``disconnection`` worker records it; a re-plan
    disconnects first at ``strategic_bonds[0]`` and searches the fragments."""
    from molx_agent.chem.smart_cap import chemist_reaction_name, suggest_capping
    from molx_agent.chem.strategy import decide_strategy, get_global_strategy

    decision = decide_strategy(smiles)
    glob = get_global_strategy(smiles)
    key = (decision.get("convergent_feasibility") or {}).get("key_disconnection") or {}
    oxidised = _oxidised_sulfur_bonds(smiles)
    replaced = {x["bond_idx"] for x in oxidised}
    unit = _trifluoromethyl_heteroatom_bonds(smiles)
    candidates = [b for b in (analysis.get("atom_bond_map") or {}).get("strategic_bonds") or []
                  if b.get("bond_idx") not in replaced and b.get("bond_idx") not in unit] + oxidised
    candidates.sort(key=lambda b: (b.get("in_ring", False),
                                   b.get("bond_idx") != key.get("bond_idx") and not b.get("sulfide_key"),
                                   -float(b.get("strategic_priority") or 0)))
    bonds: list[dict[str, Any]] = []
    for b in candidates:
        via = b.get("sulfide")
        try:
            caps = [] if via else suggest_capping(smiles, b["bond_idx"], max_proposals=MAX_CAPPINGS)
        except RetroError:
            continue
        if not caps:  # a thioether's S-C(sp3) bond, which no seed rule caps (a sulfoxide's or sulfone's: its sulfide's)
            cap = _s_alkylation(via, b["sulfide_bond"]) if via else _s_alkylation(smiles, b)
            caps = [cap] if cap else []
        acylation = None if via else _fc_acylation(smiles, b)
        if acylation is not None:  # an aryl ketone: the acylation first, the seed's Grignard rule after it
            caps = [acylation, *caps][:MAX_CAPPINGS]
        guanidine = None if via else _guanidinylation(smiles, b)
        if guanidine is not None:  # a guanidine's N-C(=N) bond, which no seed rule caps
            caps = [guanidine, *caps][:MAX_CAPPINGS]
        if not via and _amidine_arylation(smiles, b):  # a Buchwald-Hartwig capping that arylates a guanidine
            caps = [{**cap, "notes": [*(cap.get("notes") or []), AMIDINE_ARYLATION_NOTE]}
                    if cap.get("reaction_type") == "Buchwald-Hartwig" else cap for cap in caps]
        if not caps:
            continue
        # a bond reached through the sulfide keeps the sulfide's S-alkylation as its mapped reaction
        flagged = [_mechanism_notes(cap.get("mapped_reaction")) for cap in caps]
        hard = [[n for n in notes if not n.startswith(PROTECTION_FIXES)] for notes in flagged]
        # the first capping no mechanism flag names and no precursor note warns of (an aryl Grignard before a
        # Friedel-Crafts alkylation by 2-bromopropionic acid), else the first without a flag a protection cannot fix
        # (sitagliptin's amino acid before its self-acylating acid chloride), else the first
        pick = min(range(len(caps)), key=lambda i: (bool(hard[i]), bool(flagged[i] or caps[i].get("notes"))))
        cap, mechanism = caps[pick], flagged[pick]
        same = (cap["reaction_type"], *sorted(cap["fragments"]))
        if any((x["capping_rule"], *sorted(x["fragments"])) == same for x in bonds):
            continue  # a symmetry-equivalent bond (either methyl of a dimethyl carbinol) gives the same precursors
        name = chemist_reaction_name(via or smiles, cap)
        if via:
            name = f"{name}, then oxidation to the {b['oxidation']}"
        bonds.append({"bond_idx": b["bond_idx"], "atoms": b["atoms"], "label": b["chemical_label"],
                      "in_ring": b["in_ring"], "reaction_type": name,
                      "capping_rule": cap["reaction_type"],
                      "named_reactions": list(b.get("reaction_types") or [])[:3], "fragments": cap["fragments"],
                      "confidence": cap.get("confidence"), "mapped_reaction": cap.get("mapped_reaction"),
                      "priority": b.get("strategic_priority"), "balance": b.get("fragment_balance"),
                      "notes": list(cap.get("notes") or []) + mechanism,
                      "mechanism_flagged": bool(hard[pick]),
                      "needs_protection": bool(mechanism) and not hard[pick],
                      "interconversion": _near_analog_fragment(cap["fragments"], smiles, b["bond_idx"]),
                      "via": {"sulfide": via, "oxidation": b["oxidation"],
                              "note": _OXIDATION_NOTE[b["oxidation"]].format(sulfide=via)} if via else None})
        if sum(_guidance_rank(x) == 0 for x in bonds) >= MAX_GUIDANCE_BONDS:
            break
    bonds = sorted(bonds, key=_guidance_rank)[:MAX_GUIDANCE_BONDS]
    pg = glob.get("pg_policy") or {}
    return {
        "strategy": decision["recommended_strategy"], "scores": decision["scores"],
        "rationale": decision["rationale"], "key_disconnection": key.get("chemical_label"),
        "strategic_bonds": bonds, "protection": list(pg.get("groups_needing_protection") or []),
        "pg_policy": pg.get("policy", ""), "avoid": list((glob.get("method_preferences") or {}).get("avoid") or []),
        "step_budget": glob.get("step_budget"),
    }


def describe_guidance(guide: dict[str, Any], lang: str) -> str:
    bond = (guide.get("strategic_bonds") or [{}])[0]
    if lang == "zh":
        text = f"- 合成策略：推荐{ {'linear': '线性', 'convergent': '汇聚', 'mixed': '混合'}.get(guide['strategy'], guide['strategy'])}路线"
        if bond:
            text += (f"；战略键 {bond_label_zh(bond.get('label'))}（{capping_name_zh(bond.get('reaction_type'))}）→ "
                     f"{' + '.join(bond.get('fragments') or [])}")
            if bond.get("needs_protection"):
                text += "（氨基酸的氨基需先保护，如 Boc 或 Cbz）"
        if guide.get("protection"):
            text += f"；需保护：{'、'.join(protection_label_zh(g) for g in guide['protection'])}"
        return text
    text = f"- Synthesis strategy: {guide['strategy']}"
    if bond:
        text += f"; strategic bond {bond.get('label')} ({bond.get('reaction_type')}) -> {' + '.join(bond.get('fragments') or [])}"
        if bond.get("needs_protection"):
            text += " (the amino acid's amine protected first, e.g. Boc or Cbz)"
    if guide.get("protection"):
        text += f"; protect: {', '.join(guide['protection'])}"
    return text


def describe_molecule(entry: dict[str, Any], asked: list[str], lang: str) -> str:
    props = entry["properties"]
    title = f"{entry['name']} ({props['canonical_smiles']})" if entry.get("name") else props["canonical_smiles"]
    lines = [title]
    keys = list(PROPERTY_LABELS)
    first = [k for k in asked if k in keys]
    for k in first:
        lines.append(f"- {_fmt(k, props, lang)}")
    rest = [k for k in keys if k not in first]
    if rest:
        if lang == "zh":
            head = "其他性质" if first else "性质"
        else:
            head = "Other properties" if first else "Properties"
        lines.append(f"- {head}: " + "; ".join(_fmt(k, props, lang) for k in rest))
    groups = entry.get("functional_groups") or []
    if groups:
        head = "官能团" if lang == "zh" else "Functional groups"
        def label(g: dict[str, Any]) -> str:
            return FG_LABELS_ZH.get(g["name"], g["label"]) if lang == "zh" else g["label"]

        def count(g: dict[str, Any]) -> str:  # a capped count is a lower bound and says so
            return f" ×≥{g['count']}" if g.get("count_capped") else (f" ×{g['count']}" if g["count"] > 1 else "")

        lines.append(f"- {head}: " + ("、" if lang == "zh" else ", ").join(label(g) + count(g) for g in groups))
    return "\n".join(lines)


class AnalysisAgent(BaseAgent):
    """Worker ``analysis``."""

    name = "analysis"
    description = "Molecular properties (RDKit), functional groups and structural analysis"
    option_keys = ("deep_analysis",)

    def _run(self, task: Task, state: AgentState) -> dict[str, Any]:
        from molx_agent.chem.properties import compute_properties

        inputs = task.get("inputs") or {}
        lang = state.get("language", "en")
        smiles_list = [s for s in inputs.get("smiles") or [] if s]
        if not smiles_list:
            raise DataError(
                "no_molecule",
                "没有在问题中找到分子（SMILES 或已知药物/试剂名）" if lang == "zh"
                else "no molecule (SMILES or known drug/reagent name) found in the query",
                value=inputs.get("query"),
                hint="give a SMILES, e.g. CC(=O)Oc1ccccc1C(=O)O, or a common name such as aspirin",
            )
        names = _names_by_smiles(inputs)
        options = inputs.get("options") or {}
        asked = requested_properties(inputs.get("query", ""))
        molecules: list[dict[str, Any]] = []
        for smi in smiles_list:
            try:
                props = compute_properties(smi)
            except ChemistryError as exc:
                molecules.append({"smiles": smi, "error": exc.to_dict()})
                continue
            groups, fg_source = _functional_groups(smi)
            entry: dict[str, Any] = {
                "smiles": smi,
                "name": names.get(smi) or _table_name(smi, lang),
                "properties": props,
                "functional_groups": groups,
                "functional_groups_source": fg_source,
            }
            if options.get("deep_analysis"):
                deep = _deep_analysis(smi)
                if deep is not None:
                    entry["analysis"] = {k: v for k, v in deep.items() if k != "atom_bond_map"}
                    if "error" not in deep:
                        entry["analysis"]["strategic_bonds"] = [
                            {k: b.get(k) for k in ("bond_idx", "atoms", "chemical_label", "in_ring", "reaction_types",
                                                   "strategic_priority", "fragment_balance")}
                            for b in (deep.get("atom_bond_map") or {}).get("strategic_bonds", [])[:10]]
                        try:
                            entry["guidance"] = synthesis_guidance(smi, deep)
                        except RetroError as exc:
                            entry["guidance_error"] = exc.to_dict()
            molecules.append(entry)
        good = [m for m in molecules if "properties" in m]
        if not good:  # every molecule failed: the task fails and names each of them
            first = molecules[0]["error"]
            message = "; ".join(str(m["error"].get("message", f"invalid SMILES {m['smiles']!r}")) for m in molecules)
            raise ChemistryError(first.get("code", "invalid_smiles"), message,
                                 value=smiles_list[0] if len(smiles_list) == 1 else smiles_list)
        parts = [describe_molecule(m, asked, lang) + ("\n" + describe_guidance(m["guidance"], lang)
                                                      if m.get("guidance") else "") for m in good]
        for m in molecules:
            if "error" in m:
                parts.append(("无法解析 " if lang == "zh" else "Could not parse ") + f"{m['smiles']}: {m['error']['message']}")
        return {
            "molecules": molecules,
            "requested_properties": asked,
            "n_molecules": len(molecules),
            "n_errors": len(molecules) - len(good),
            "summary": "\n\n".join(parts),
        }


def _table_name(smiles: str, lang: str) -> str | None:
    from molx_agent.chem.names import name_for_smiles

    return name_for_smiles(smiles, lang)


def _names_by_smiles(inputs: dict[str, Any]) -> dict[str, str]:
    from molx_agent.chem.names import resolve_name

    out: dict[str, str] = {}
    for name in inputs.get("names") or []:
        smi = resolve_name(name)
        if smi:
            out.setdefault(smi, name)
    return out


__all__ = ["AnalysisAgent", "PROPERTY_LABELS", "requested_properties", "describe_molecule", "synthesis_guidance"]
