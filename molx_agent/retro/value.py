"""A learned estimate of what making a molecule costs: the search's optional value for open molecules.

Retro* (Chen et al., ICML 2020) values an unexpanded molecule outside the stock with a network trained on the
costs of known routes.  The search's default estimate (``SearchConfig.leaf_estimate = "size"``) is a line in the
molecule's heavy-atom count, fitted on development reference routes.  This module is the learned alternative
(``leaf_estimate = "learned"``):

- a ridge regression from the molecule's library fingerprint (Morgan radius 2, 2048 bits, the single-step model's
  own) and its heavy-atom count to the **number of reactions** of its reference sub-route in the PaRoutes routes
  (``scripts/train_value_model.py``: only the reactions the template library may learn from, so nothing of the
  reported benchmarks or of the USPTO-50K validation and test splits), numpy inference only (a dot product);
- the predicted reaction count becomes a cost in the search's units by the linear map that gives the average
  molecule the same estimate as the size line: ``cost_base + cost_per_step x steps`` (both in the file's meta;
  see the training script).  The search keeps ``leaf_cost`` as the floor.

The file is ``molx_agent/data/retro_value.npz`` (about 10 kB): ``w`` (2048 float32 fingerprint weights),
``coef`` (float64: weight of heavy atoms / ``ATOM_SCALE``, intercept) and ``meta_json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from rdkit import Chem

from molx_agent.errors import DataError
from molx_agent.io_utils import read_npz_with_meta
from molx_agent.retro.templates_db import DATA_DIR, FINGERPRINT, fingerprint_bits_of_mol

VALUE_FILE = "retro_value.npz"
#: Heavy atoms enter the regression divided by this (about the scale of the fingerprint bits' weights).
ATOM_SCALE = 30.0
#: The least a molecule outside the stock can need (one reaction); predictions below it are raised to it.
MIN_STEPS = 1.0


@dataclass(frozen=True)
class ValueModel:
    """``steps = w[bits].sum() + coef[0] x heavy_atoms / ATOM_SCALE + coef[1]``; cost = base + per_step x steps."""

    w: np.ndarray  # (fp_size,) float32
    atom_weight: float
    intercept: float
    cost_base: float
    cost_per_step: float
    meta: dict[str, Any] = field(default_factory=dict)

    def steps_from_bits(self, bits: list[int] | np.ndarray, heavy_atoms: int) -> float:
        """Predicted reactions to make a molecule given its fingerprint on-bits and heavy-atom count (at least 1)."""
        idx = np.asarray(bits, dtype=np.int64)
        raw = float(self.w[idx].sum(dtype=np.float64)) + self.atom_weight * heavy_atoms / ATOM_SCALE + self.intercept
        return max(MIN_STEPS, raw)

    def steps(self, smiles: str) -> float | None:
        """Predicted reactions to make ``smiles``; ``None`` when RDKit cannot parse it."""
        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            return None
        return self.steps_from_bits(fingerprint_bits_of_mol(mol), mol.GetNumHeavyAtoms())

    def cost_of_steps(self, steps: float) -> float:
        """A predicted reaction count in the search's cost units."""
        return self.cost_base + self.cost_per_step * steps


def read_value_model(path: str | Path) -> ValueModel:
    """A value model from its ``.npz``; ``DataError`` when unreadable or built for another fingerprint."""
    path = Path(path)
    try:
        arrays, meta = read_npz_with_meta(path)
        w = arrays["w"].astype(np.float32)
        coef = arrays["coef"].astype(np.float64)
        cost_base, cost_per_step = float(meta["cost_base"]), float(meta["cost_per_step"])
    except (OSError, ValueError, KeyError) as exc:
        raise DataError("bad_data_file", f"Value model unreadable: {path}", value=str(path),
                        hint="retrain with scripts/train_value_model.py") from exc
    if meta.get("fingerprint") != FINGERPRINT or w.shape != (FINGERPRINT["fp_size"],) or coef.shape != (2,):
        raise DataError("bad_data_file", "Value model was trained on another fingerprint", value=str(path),
                        hint="retrain with scripts/train_value_model.py")
    return ValueModel(w=w, atom_weight=float(coef[0]), intercept=float(coef[1]), cost_base=cost_base,
                      cost_per_step=cost_per_step, meta=meta)


@lru_cache(maxsize=1)
def load_value_model() -> ValueModel | None:
    """The packaged value model, or ``None`` when its file is absent."""
    path = DATA_DIR / VALUE_FILE
    if not path.is_file():
        return None
    return read_value_model(path)


__all__ = ["VALUE_FILE", "ATOM_SCALE", "MIN_STEPS", "ValueModel", "read_value_model", "load_value_model"]
