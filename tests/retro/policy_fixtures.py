"""A tiny random template policy for tests (numpy weights; not a trained model)."""

from __future__ import annotations

import numpy as np

from molx_agent.retro.policy import TemplatePolicy


def toy_policy(n_templates: int = 7, hidden: int = 4, seed: int = 0) -> TemplatePolicy:
    rng = np.random.default_rng(seed)
    return TemplatePolicy(
        w1=rng.normal(size=(2048, hidden)).astype(np.float32),
        b1=rng.normal(size=hidden).astype(np.float32),
        w2=rng.normal(size=(hidden, n_templates)).astype(np.float32),
        b2=rng.normal(size=n_templates).astype(np.float32),
    )
