"""How often each molecule is a reactant in the template library's reactions: evidence for the single-step ranker.

Chemists reach for the same reagents and building blocks again and again (methyl iodide, Boc anhydride, mesyl
chloride, morpholine, benzyl bromide...). Of two candidate precursor sets that a template gives equally well, the one
whose partner is a common reactant is more often the recorded one. :class:`ReactantCounts` holds, per canonical
molecule, the number of library reactions (USPTO-50K training and the library's PaRoutes reactions; never a
validation or test reaction) it is a reactant of, built by ``scripts/build_reactant_counts.py`` into
``molx_agent/data/retro_reactant_counts.tsv.gz``. :func:`reactant_count_features` turns a candidate's counts into the
ranker's four ``reactant_*`` features.
"""

from __future__ import annotations

import gzip
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from molx_agent.errors import DataError
from molx_agent.retro.templates_db import DATA_DIR

REACTANT_COUNTS_FILE = "retro_reactant_counts.tsv.gz"
#: the ranker features of :func:`reactant_count_features`, in its order
REACTANT_COUNT_FEATURES: tuple[str, ...] = ("reactant_log_count_min", "reactant_log_count_max",
                                           "reactant_log_count_mean", "reactants_unseen")


@dataclass(frozen=True)
class ReactantCounts:
    """Canonical SMILES -> number of library reactions with that molecule among their reactants."""

    counts: dict[str, int]
    meta: str = field(default="")

    def count(self, smiles: str) -> int:
        return self.counts.get(smiles, 0)

    def __len__(self) -> int:
        return len(self.counts)


def reactant_count_features(counts: tuple[int, ...]) -> tuple[float, float, float, float]:
    """``(min, max, mean of log(1 + count), number of precursors never used as a reactant)``; zeros for ``()``."""
    if not counts:
        return 0.0, 0.0, 0.0, 0.0
    logs = [math.log1p(c) for c in counts]
    return min(logs), max(logs), sum(logs) / len(logs), float(sum(c == 0 for c in counts))


def read_reactant_counts(path: str | Path) -> ReactantCounts:
    """The table from its gzip TSV (a ``#`` metadata line, then ``count<TAB>smiles``); ``DataError`` if unreadable."""
    path = Path(path)
    counts: dict[str, int] = {}
    meta = ""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for line in fh:
                if line.startswith("#"):
                    meta = line[1:].strip()
                    continue
                n, smiles = line.rstrip("\n").split("\t")
                counts[smiles] = int(n)
    except (OSError, EOFError, ValueError, UnicodeDecodeError) as exc:
        raise DataError("bad_data_file", f"Reactant counts unreadable: {path}", value=str(path),
                        hint="rebuild with scripts/build_reactant_counts.py") from exc
    return ReactantCounts(counts, meta)


@lru_cache(maxsize=1)
def load_reactant_counts() -> ReactantCounts | None:
    """The packaged table, or ``None`` when its file is absent (the ranker's ``reactant_*`` features are then 0)."""
    path = DATA_DIR / REACTANT_COUNTS_FILE
    if not path.is_file():
        return None
    return read_reactant_counts(path)


__all__ = ["REACTANT_COUNTS_FILE", "REACTANT_COUNT_FEATURES", "ReactantCounts", "load_reactant_counts", "reactant_count_features",
           "read_reactant_counts"]
