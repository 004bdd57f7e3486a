"""Small-molecule losses: the byproduct library and the loss tables of the two-tier atom balance.

``BYPRODUCTS`` lists the molecules a reaction commonly releases (water, hydrogen halides, N2, CO2,
alcohols, Ph3PO, tin and boron residues, silanols, ...).  ``CATEGORY_LOSSES`` says which of them each
of the 19 reaction categories may release (tier 1); ``GENERIC_LOSSES`` are the six tier-2 losses that
never contain a skeleton atom (C/N/S).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from molx_agent.chem.utils import cached_mol, mol_formula_counter


@dataclass(frozen=True)
class Byproduct:
    """A known small-molecule byproduct."""

    name: str
    smiles: str

    @property
    def formula(self) -> Counter[str]:
        return _formula(self.smiles)


@lru_cache(maxsize=256)
def _formula(smiles: str) -> Counter[str]:
    if smiles == "[H][H]":
        return Counter({"H": 2})
    return mol_formula_counter(cached_mol(smiles))


BYPRODUCTS: tuple[Byproduct, ...] = (
    Byproduct("H2O", "O"),
    Byproduct("HCl", "Cl"),
    Byproduct("HBr", "Br"),
    Byproduct("HI", "I"),
    Byproduct("HF", "F"),
    Byproduct("H2", "[H][H]"),
    Byproduct("N2", "N#N"),
    Byproduct("CO2", "O=C=O"),
    Byproduct("CO", "[C-]#[O+]"),
    Byproduct("NH3", "N"),
    Byproduct("SO2", "O=S=O"),
    Byproduct("MeOH", "CO"),
    Byproduct("EtOH", "CCO"),
    Byproduct("tBuOH", "CC(C)(C)O"),
    Byproduct("isobutylene", "C=C(C)C"),
    Byproduct("AcOH", "CC(=O)O"),
    Byproduct("TFA", "OC(=O)C(F)(F)F"),
    Byproduct("B(OH)3", "OB(O)O"),
    Byproduct("pinB-OH", "OB1OC(C)(C)C(C)(C)O1"),
    Byproduct("B(OH)2Cl", "OB(O)Cl"),
    Byproduct("B(OH)2Br", "OB(O)Br"),
    Byproduct("B(OH)2I", "OB(O)I"),
    Byproduct("pinB-Cl", "ClB1OC(C)(C)C(C)(C)O1"),
    Byproduct("pinB-Br", "BrB1OC(C)(C)C(C)(C)O1"),
    Byproduct("pinacol", "CC(C)(O)C(C)(C)O"),
    Byproduct("Ph3PO", "O=P(c1ccccc1)(c1ccccc1)c1ccccc1"),
    Byproduct("diethyl phosphate", "CCOP(=O)(O)OCC"),
    Byproduct("dimethyl phosphate", "COP(=O)(O)OC"),
    Byproduct("Bu3SnCl", "CCCC[Sn](Cl)(CCCC)CCCC"),
    Byproduct("Bu3SnBr", "CCCC[Sn](Br)(CCCC)CCCC"),
    Byproduct("Bu3SnI", "CCCC[Sn](I)(CCCC)CCCC"),
    Byproduct("Me3SnCl", "C[Sn](C)(C)Cl"),
    Byproduct("Me3SnBr", "C[Sn](C)(C)Br"),
    Byproduct("ZnCl2", "Cl[Zn]Cl"),
    Byproduct("ZnBrCl", "Cl[Zn]Br"),
    Byproduct("ZnBr2", "Br[Zn]Br"),
    Byproduct("MgBr(OH)", "O[Mg]Br"),
    Byproduct("MgCl(OH)", "O[Mg]Cl"),
    Byproduct("MgBr2", "Br[Mg]Br"),
    Byproduct("MsOH", "CS(=O)(=O)O"),
    Byproduct("TsOH", "Cc1ccc(S(=O)(=O)O)cc1"),
    Byproduct("TfOH", "OS(=O)(=O)C(F)(F)F"),
    Byproduct("HOBt", "On1nnc2ccccc21"),
    Byproduct("imidazole", "c1c[nH]cn1"),
    Byproduct("succinimide", "O=C1CCC(=O)N1"),
    Byproduct("NHS", "O=C1CCC(=O)N1O"),
    Byproduct("dicyclohexylurea", "O=C(NC1CCCCC1)NC1CCCCC1"),
    Byproduct("dibenzofulvene", "C=C1c2ccccc2-c2ccccc21"),
    Byproduct("toluene", "Cc1ccccc1"),
    Byproduct("benzyl alcohol", "OCc1ccccc1"),
    Byproduct("TBSOH", "CC(C)(C)[Si](C)(C)O"),
    Byproduct("TMSOH", "C[Si](C)(C)O"),
    Byproduct("TIPSOH", "CC(C)[Si](O)(C(C)C)C(C)C"),
    Byproduct("TBDPSOH", "CC(C)(C)[Si](O)(c1ccccc1)c1ccccc1"),
    Byproduct("DEAD-H2", "CCOC(=O)NNC(=O)OCC"),
    Byproduct("DIAD-H2", "CC(C)OC(=O)NNC(=O)OC(C)C"),
    Byproduct("dimethylamine", "CNC"),
    Byproduct("ethylene glycol", "OCCO"),
    Byproduct("acetone", "CC(C)=O"),
    Byproduct("phenol", "Oc1ccccc1"),
    Byproduct("4-nitrophenol", "O=[N+]([O-])c1ccc(O)cc1"),
    Byproduct("ethyl bromide", "CCBr"),
    Byproduct("methyl iodide", "CI"),
    Byproduct("HN3", "N=[N+]=[N-]"),
    Byproduct("phthalhydrazide", "O=c1[nH][nH]c(=O)c2ccccc12"),
)
BYPRODUCT_BY_NAME: dict[str, Byproduct] = {b.name: b for b in BYPRODUCTS}

#: Tier 2: generic losses tried for every reaction; none contains C, N or S.
GENERIC_LOSSES: tuple[str, ...] = ("HCl", "HBr", "HI", "HF", "H2O", "H2")

#: Tier 1: what each of the 19 reaction categories may release.
CATEGORY_LOSSES: dict[str, tuple[str, ...]] = {
    "amide_coupling": ("HOBt", "imidazole", "NHS", "dicyclohexylurea", "4-nitrophenol", "phenol", "MeOH", "EtOH", "AcOH", "CO2", "TFA"),
    "esterification": ("AcOH", "imidazole", "dicyclohexylurea", "TFA"),
    "ester_hydrolysis": ("MeOH", "EtOH", "tBuOH", "isobutylene", "benzyl alcohol", "phenol"),
    "friedel_crafts": ("AcOH", "TFA"),
    "elimination": ("MsOH", "TsOH", "TfOH", "AcOH", "tBuOH"),
    "curtius": ("N2", "CO2", "diethyl phosphate", "HN3"),
    "wittig": ("Ph3PO",),
    "hwe": ("diethyl phosphate", "dimethyl phosphate"),
    "suzuki": ("B(OH)3", "B(OH)2Cl", "B(OH)2Br", "B(OH)2I", "pinB-OH", "pinB-Cl", "pinB-Br", "pinacol"),
    "stille": ("Bu3SnCl", "Bu3SnBr", "Bu3SnI", "Me3SnCl", "Me3SnBr"),
    "negishi": ("ZnCl2", "ZnBrCl", "ZnBr2"),
    "grignard": ("MgBr(OH)", "MgCl(OH)", "MgBr2", "MeOH", "dimethylamine"),
    "buchwald_hartwig": ("TfOH",),
    "alkylation": ("MsOH", "TsOH", "TfOH"),
    "reductive_amination": (),
    "boc_deprotection": ("isobutylene", "CO2", "tBuOH"),
    "cbz_deprotection": ("toluene", "CO2", "benzyl alcohol"),
    "deprotection": (
        "isobutylene", "CO2", "tBuOH", "toluene", "benzyl alcohol", "dibenzofulvene", "TBSOH", "TMSOH",
        "TIPSOH", "TBDPSOH", "MeOH", "EtOH", "AcOH", "acetone", "ethylene glycol", "phthalhydrazide", "TFA",
    ),
    "mitsunobu": ("Ph3PO", "DEAD-H2", "DIAD-H2"),
}

#: Other names users, templates and datasets give the categories (USPTO-50K class numbers included).
CATEGORY_ALIASES: dict[str, str] = {
    "amide": "amide_coupling", "amidation": "amide_coupling", "acylation": "amide_coupling",
    "amide_formation": "amide_coupling", "2": "amide_coupling",
    "ester_formation": "esterification", "saponification": "ester_hydrolysis", "hydrolysis": "ester_hydrolysis",
    "friedel-crafts": "friedel_crafts", "dehydration": "elimination", "curtius_rearrangement": "curtius",
    "wittig_olefination": "wittig", "horner_wadsworth_emmons": "hwe", "hwe_olefination": "hwe",
    "suzuki_coupling": "suzuki", "suzuki-miyaura": "suzuki", "stille_coupling": "stille",
    "negishi_coupling": "negishi", "grignard_addition": "grignard", "organolithium_addition": "grignard",
    "buchwald-hartwig": "buchwald_hartwig", "buchwald": "buchwald_hartwig",
    "n-alkylation": "alkylation", "sn2": "alkylation", "sn2_alkylation": "alkylation", "o-alkylation": "alkylation",
    "williamson": "alkylation", "williamson_ether": "alkylation", "heteroatom_alkylation": "alkylation", "1": "alkylation",
    "boc_removal": "boc_deprotection", "cbz_removal": "cbz_deprotection", "hydrogenolysis": "cbz_deprotection",
    "6": "deprotection",
}


def normalize_category(category: str | int | None) -> str | None:
    """Canonical tier-1 category key for ``category`` (alias, class number), or ``None`` when unknown."""
    if category is None:
        return None
    key = str(category).strip().lower().replace(" ", "_")
    if key in CATEGORY_LOSSES:
        return key
    key = CATEGORY_ALIASES.get(key, key)
    if key in CATEGORY_LOSSES:
        return key
    for name in CATEGORY_LOSSES:  # e.g. "suzuki_coupling_retro", "boc deprotection (TFA)"
        if name in key:
            return name
    return None


__all__ = [
    "BYPRODUCTS",
    "BYPRODUCT_BY_NAME",
    "CATEGORY_ALIASES",
    "CATEGORY_LOSSES",
    "GENERIC_LOSSES",
    "Byproduct",
    "normalize_category",
]
