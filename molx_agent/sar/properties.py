"""Properties of the compounds of a SAR set: MW, cLogP, TPSA, HBD, HBA, heavy atoms, LE and LLE.

The descriptors use the same RDKit definitions as :func:`molx_agent.chem.properties.compute_properties`
(average MW, Wildman-Crippen cLogP, TPSA, ``CalcNumHBD``/``CalcNumHBA``); QED and SA score are left out
here because a SAR set can hold thousands of compounds.  Efficiency metrics:

- LE (ligand efficiency) = 1.37 x pActivity / heavy atoms (kcal/mol per heavy atom at 298 K);
- LLE (lipophilic ligand efficiency) = pActivity - cLogP.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

PROPERTY_COLUMNS = ["mw", "clogp", "tpsa", "hbd", "hba", "heavy_atoms", "le", "lle"]
#: 2.303 RT at 298 K in kcal/mol.
LE_FACTOR = 1.37


def compute_sar_properties(mols: Sequence, p_activity: Sequence[float | None]) -> pd.DataFrame:
    """One row per molecule with :data:`PROPERTY_COLUMNS` (LE/LLE are NaN without a potency)."""
    from rdkit.Chem import Crippen, Descriptors, rdMolDescriptors

    rows = []
    for m, p in zip(mols, p_activity, strict=True):
        ha = m.GetNumHeavyAtoms()
        clogp = Crippen.MolLogP(m)
        has_p = p is not None and p == p
        rows.append({
            "mw": round(Descriptors.MolWt(m), 2),
            "clogp": round(clogp, 2),
            "tpsa": round(rdMolDescriptors.CalcTPSA(m), 2),
            "hbd": int(rdMolDescriptors.CalcNumHBD(m)),
            "hba": int(rdMolDescriptors.CalcNumHBA(m)),
            "heavy_atoms": int(ha),
            "le": round(LE_FACTOR * float(p) / ha, 3) if has_p and ha else float("nan"),
            "lle": round(float(p) - clogp, 2) if has_p else float("nan"),
        })
    return pd.DataFrame(rows, columns=PROPERTY_COLUMNS)


__all__ = ["compute_sar_properties", "PROPERTY_COLUMNS", "LE_FACTOR"]
