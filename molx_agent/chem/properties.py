"""Whole-molecule descriptors: ``compute_properties(smiles) -> dict``.

Every number comes straight from RDKit (``Descriptors``, ``Crippen``, ``rdMolDescriptors``,
``QED``) and the Ertl-Schuffenhauer SA score shipped in ``rdkit.Contrib.SA_Score``.

This module holds the one SA-score implementation (:func:`sa_score`, fragment table cached as arrays) and the one
copy of the seed's SA classes (:data:`SA_PURCHASABLE`, :data:`SA_EASY`, :func:`sa_class`); ``chem.mol_info``,
``retro.stock`` and the pipeline's ``SAThresholds`` re-export them.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from rdkit import Chem, RDLogger
from rdkit.Chem import QED, Crippen, Descriptors, Lipinski, rdMolDescriptors

from molx_agent.errors import ChemistryError

logger = logging.getLogger(__name__)

#: SA-score classes of seed 000 (``SAThresholds``): purchasable < 2.2 <= easily synthesizable < 3.5 <= complex.
SA_PURCHASABLE = 2.2
SA_EASY = 3.5

#: Lipinski's rule of five thresholds (Lipinski et al., Adv. Drug Deliv. Rev. 1997).
LIPINSKI_LIMITS: dict[str, float] = {"molecular_weight": 500.0, "clogp": 5.0, "hbd": 5, "hba": 10}


class FragmentScores:
    """Read-only ``{fragment bit id: score}`` backed by sorted numpy arrays (the ``.get`` sascorer uses).

    RDKit's ``sascorer.readFragmentScores`` unpickles ~700k fragments into a dict, which costs ~1-2 s per
    process.  The same table is converted once into sorted arrays cached under ``MOLX_HOME/cache`` (built
    locally from RDKit's own file, nothing downloaded); later processes load it in milliseconds.  Lookups
    return exactly the values of RDKit's table, so SA scores are unchanged.
    """

    def __init__(self, keys: Any, values: Any) -> None:
        self.keys = keys
        self.values = values

    def get(self, key: int, default: float) -> float:
        import numpy as np

        i = int(np.searchsorted(self.keys, key))
        if i < len(self.keys) and int(self.keys[i]) == key:
            return float(self.values[i])
        return default

    def __len__(self) -> int:
        return len(self.keys)


def _fragment_scores_from_rdkit(sascorer: Any) -> FragmentScores:
    import gzip
    import pickle

    import numpy as np

    path = Path(sascorer.__file__).with_name("fpscores.pkl.gz")
    with gzip.open(path) as fh:
        data = pickle.load(fh)  # noqa: S301 - RDKit's own packaged file
    keys = np.fromiter((k for row in data for k in row[1:]), dtype=np.int64)
    values = np.fromiter((float(row[0]) for row in data for _ in row[1:]), dtype=np.float64)
    # dict semantics of readFragmentScores: a later row wins for a repeated key
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    last = np.append(keys[1:] != keys[:-1], True)
    return FragmentScores(keys[last], values[last])


def _cache_file(sascorer: Any) -> Path | None:
    try:
        from rdkit import rdBase

        from molx_agent.config import get_settings

        src = Path(sascorer.__file__).with_name("fpscores.pkl.gz")
        tag = f"{rdBase.rdkitVersion}_{src.stat().st_size}"
        return get_settings().home_dir / "cache" / f"sa_fragment_scores_{tag}.npz"
    except Exception as exc:  # noqa: BLE001 - no cache: fall back to building in memory
        logger.debug("no SA cache location: %s", exc)
        return None


@lru_cache(maxsize=1)
def _sascorer() -> Any:
    import io

    import numpy as np
    from rdkit.Contrib.SA_Score import sascorer

    cache = _cache_file(sascorer)
    table: FragmentScores | None = None
    if cache is not None and cache.is_file():
        try:
            with np.load(cache) as npz:
                table = FragmentScores(npz["keys"], npz["values"])
        except (OSError, ValueError, KeyError) as exc:
            logger.info("ignoring unreadable SA cache %s: %s", cache, exc)
    if table is None:
        table = _fragment_scores_from_rdkit(sascorer)
        if cache is not None:
            try:
                from molx_agent.io_utils import atomic_write_bytes

                buf = io.BytesIO()
                np.savez(buf, keys=table.keys, values=table.values)
                atomic_write_bytes(cache, buf.getvalue())
            except OSError as exc:
                logger.info("could not write SA cache %s: %s", cache, exc)
    sascorer._fscores = table
    return sascorer


def sa_score(mol_or_smiles: Chem.Mol | str) -> float:
    """Ertl-Schuffenhauer synthetic accessibility score (1 easy .. 10 hard), rounded to 2 decimals.

    RDKit Contrib ``sascorer`` with its fragment table loaded from cached arrays (identical values).
    Raises :class:`ChemistryError` (``invalid_smiles``) on an unparsable SMILES.
    """
    mol = mol_or_smiles if isinstance(mol_or_smiles, Chem.Mol) else _to_mol(mol_or_smiles)
    return round(float(_sascorer().calculateScore(mol)), 2)


def sa_class(score: float | None) -> str | None:
    """Seed 000 SA classes: ``purchasable`` (< 2.2), ``easily_synthesizable`` (< 3.5), ``complex``; ``None`` for
    no score."""
    if score is None:
        return None
    if score < SA_PURCHASABLE:
        return "purchasable"
    return "easily_synthesizable" if score < SA_EASY else "complex"


def _to_mol(smiles: str) -> Chem.Mol:
    if not isinstance(smiles, str) or not smiles.strip():
        raise ChemistryError("invalid_smiles", "empty SMILES", value=smiles, hint="give a SMILES string")
    lg = RDLogger.logger()
    lg.setLevel(RDLogger.CRITICAL)
    try:
        mol = Chem.MolFromSmiles(smiles.strip())
    finally:
        lg.setLevel(RDLogger.WARNING)
    if mol is None:
        raise ChemistryError(
            "invalid_smiles", f"RDKit cannot parse SMILES {smiles!r}", value=smiles, hint="check valences and ring closures"
        )
    return mol


def lipinski_rule_of_five(props: dict[str, Any]) -> dict[str, Any]:
    """Count rule-of-five violations; ``passes`` allows at most one (Lipinski's original wording)."""
    violated = [k for k, limit in LIPINSKI_LIMITS.items() if props[k] > limit]
    return {"violations": len(violated), "violated": violated, "passes": len(violated) <= 1}


def compute_properties(smiles: str) -> dict[str, Any]:
    """Descriptors of one molecule.

    Returns ``smiles`` (input), ``canonical_smiles``, ``formula``, ``molecular_weight`` (average, g/mol),
    ``exact_mass`` (monoisotopic), ``clogp`` (Wildman-Crippen), ``mr``, ``tpsa``, ``hbd``, ``hba``
    (Lipinski NH/OH and N+O counts as in RDKit's ``rdMolDescriptors.CalcNumHBD/HBA``),
    ``rotatable_bonds``, ``rings``, ``aromatic_rings``, ``heavy_atoms``, ``fraction_csp3``,
    ``formal_charge``, ``stereocenters``, ``qed``, ``sa_score`` (1 easy .. 10 hard) and
    ``lipinski`` (``violations``, ``violated``, ``passes``).

    Raises :class:`ChemistryError` (``invalid_smiles``) on an unparsable SMILES.
    """
    mol = _to_mol(smiles)
    props: dict[str, Any] = {
        "smiles": smiles,
        "canonical_smiles": Chem.MolToSmiles(mol),
        "formula": rdMolDescriptors.CalcMolFormula(mol),
        "molecular_weight": round(Descriptors.MolWt(mol), 2),
        "exact_mass": round(Descriptors.ExactMolWt(mol), 4),
        "clogp": round(Crippen.MolLogP(mol), 2),
        "mr": round(Crippen.MolMR(mol), 2),
        "tpsa": round(rdMolDescriptors.CalcTPSA(mol), 2),
        "hbd": int(rdMolDescriptors.CalcNumHBD(mol)),
        "hba": int(rdMolDescriptors.CalcNumHBA(mol)),
        "rotatable_bonds": int(rdMolDescriptors.CalcNumRotatableBonds(mol)),
        "rings": int(rdMolDescriptors.CalcNumRings(mol)),
        "aromatic_rings": int(rdMolDescriptors.CalcNumAromaticRings(mol)),
        "heavy_atoms": int(mol.GetNumHeavyAtoms()),
        "fraction_csp3": round(rdMolDescriptors.CalcFractionCSP3(mol), 3),
        "formal_charge": int(Chem.GetFormalCharge(mol)),
        "stereocenters": len(Chem.FindMolChiralCenters(mol, includeUnassigned=True, useLegacyImplementation=False)),
    }
    try:
        props["qed"] = round(QED.qed(mol), 3)
    except Exception as exc:  # noqa: BLE001 - QED fails on a few exotic species; report, do not guess
        logger.info("QED failed for %s: %s", smiles, exc)
        props["qed"] = None
    try:
        props["sa_score"] = sa_score(mol)
    except Exception as exc:  # noqa: BLE001
        logger.info("SA score failed for %s: %s", smiles, exc)
        props["sa_score"] = None
    for key in ("clogp", "mr", "fraction_csp3"):
        props[key] = props[key] + 0.0  # no "-0.0"
    props["lipinski"] = lipinski_rule_of_five(props)
    # Lipinski.NumHDonors/Acceptors are the classic Lipinski definitions; kept for reference.
    props["lipinski"]["hbd_lipinski"] = int(Lipinski.NumHDonors(mol))
    props["lipinski"]["hba_lipinski"] = int(Lipinski.NumHAcceptors(mol))
    return props


def compute_properties_batch(smiles_list: Iterable[str]) -> list[dict[str, Any]]:
    """Batch twin of :func:`compute_properties`: a bad SMILES becomes an error record, never a drop."""
    out: list[dict[str, Any]] = []
    for smi in smiles_list:
        try:
            out.append(compute_properties(smi))
        except ChemistryError as exc:
            out.append({"smiles": smi, "error": exc.to_dict()})
    return out


__all__ = ["compute_properties", "compute_properties_batch", "lipinski_rule_of_five", "LIPINSKI_LIMITS", "sa_score",
           "sa_class", "SA_PURCHASABLE", "SA_EASY"]
