"""The learned template-relevance policy of the single-step model (NeuralSym-style), numpy inference only.

A small network trained by ``scripts/train_template_policy.py`` (torch, build time only) on the USPTO-50K
training reactions of the template library: the product's Morgan fingerprint (the library's own, 2048 bits)
-> one hidden layer of ELU units -> a logit per library template; a softmax gives each template's relevance.
The weights ship as float16 in ``molx_agent/data/retro_policy.npz``; at run time the hidden layer is a sum of
the weight rows of the product's on-bits, and the output a single matrix-vector product (a few ms).

The **general policy** (``retro_general_policy.npz``, :func:`load_general_policy`) is the same network over the
library's general (radius-0) templates; the model applies its most relevant ones to reach products whose reaction
centre has surroundings no training reaction had.

:class:`TemplatePolicy` says which templates to apply to a product (the most relevant ones, best first)
and how relevant each is; ``retro.single_step.TemplateKNNModel`` applies them next to the templates of the
nearest training products and gives the ranker the policy's probabilities as features.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from molx_agent.errors import DataError
from molx_agent.io_utils import read_npz_with_meta
from molx_agent.retro.fast_rdkit import blas_one_thread
from molx_agent.retro.templates_db import DATA_DIR, FINGERPRINT

POLICY_FILE = "retro_policy.npz"
#: The general policy: the same network over the library's general (radius-0) templates.
GENERAL_POLICY_FILE = "retro_general_policy.npz"


@dataclass(frozen=True)
class TemplatePolicy:
    """Template relevance from the product fingerprint: ``softmax(elu(sum W1[bits] + b1) @ W2 + b2)``."""

    w1: np.ndarray  # (fp_size, hidden) float32
    b1: np.ndarray  # (hidden,) float32
    w2: np.ndarray  # (hidden, n_templates) float32
    b2: np.ndarray  # (n_templates,) float32
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def n_templates(self) -> int:
        return int(self.b2.shape[0])

    def logits(self, bits: np.ndarray | list[int]) -> np.ndarray:
        """One logit per template for a product given by its fingerprint's on-bit indices."""
        idx = np.asarray(bits, dtype=np.int64)
        h = self.w1[idx].sum(axis=0) + self.b1
        h = np.where(h > 0, h, np.expm1(np.minimum(h, 0)))  # ELU
        with blas_one_thread():  # no spinning BLAS worker threads after the product (see blas_one_thread)
            return h @ self.w2 + self.b2

    def probabilities(self, bits: np.ndarray | list[int]) -> np.ndarray:
        z = self.logits(bits)
        z = z - z.max()
        e = np.exp(z)
        return e / e.sum()

    def top_templates(
        self, bits: np.ndarray | list[int], *, max_templates: int = 50, cumulative: float = 0.999
    ) -> tuple[np.ndarray, np.ndarray]:
        """Indices and probabilities of the most relevant templates, best first.

        At most ``max_templates``; fewer when the best ones already hold ``cumulative`` of the probability.
        Ties are broken by template index (deterministic).
        """
        p = self.probabilities(bits)
        n = min(max_templates, p.shape[0])
        top = np.argpartition(-p, n - 1)[:n]
        top = top[np.lexsort((top, -p[top]))]
        probs = p[top]
        keep = int(np.searchsorted(np.cumsum(probs), cumulative) + 1)
        return top[:keep], probs[:keep]


def read_policy(path: str | Path, *, n_templates: int | None = None) -> TemplatePolicy:
    """A policy from its ``.npz``; ``DataError`` when unreadable or built for another library."""
    path = Path(path)
    try:
        arrays, meta = read_npz_with_meta(path)
    except (OSError, ValueError, KeyError) as exc:
        raise DataError("bad_data_file", f"Template policy unreadable: {path}", value=str(path),
                        hint="retrain with scripts/train_template_policy.py") from exc
    if meta.get("fingerprint") not in (None, FINGERPRINT):
        raise DataError("bad_data_file", "Template policy was trained on another fingerprint", value=str(path))
    policy = TemplatePolicy(
        w1=arrays["w1"].astype(np.float32),
        b1=arrays["b1"].astype(np.float32),
        w2=np.ascontiguousarray(arrays["w2"].astype(np.float32)),
        b2=arrays["b2"].astype(np.float32),
        meta=meta,
    )
    if n_templates is not None and policy.n_templates != n_templates:
        raise DataError("bad_data_file",
                        f"Template policy has {policy.n_templates} outputs, the library {n_templates} templates",
                        value=str(path), hint="retrain with scripts/train_template_policy.py")
    return policy


def policy_check_data(path: str | Path) -> tuple[list[np.ndarray], np.ndarray]:
    """The reference inputs (on-bits) and the trainer's logits stored with a policy (for tests)."""
    with np.load(path, allow_pickle=False) as npz:
        bits, offs, logits = npz["check_bits"], npz["check_offsets"], npz["check_logits"]
    return [bits[offs[i]:offs[i + 1]] for i in range(len(offs) - 1)], logits


@lru_cache(maxsize=1)
def load_policy() -> TemplatePolicy | None:
    """The packaged policy, or ``None`` when its file is absent (the model then runs without it)."""
    path = DATA_DIR / POLICY_FILE
    if not path.is_file():
        return None
    return read_policy(path)


@lru_cache(maxsize=1)
def load_general_policy() -> TemplatePolicy | None:
    """The packaged general policy (over the general templates), or ``None`` when its file is absent or the
    packaged library has no general templates (the model then applies no general template)."""
    from molx_agent.retro.templates_db import load_template_library

    path = DATA_DIR / GENERAL_POLICY_FILE
    library = load_template_library()
    if not path.is_file() or not library.has_general:
        return None
    return read_policy(path, n_templates=len(library.general_templates))


__all__ = ["POLICY_FILE", "GENERAL_POLICY_FILE", "TemplatePolicy", "read_policy", "load_policy", "load_general_policy",
           "policy_check_data"]
