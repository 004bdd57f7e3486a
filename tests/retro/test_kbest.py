"""The k-best route extraction (``search_routes._kbest``) against an exhaustive enumeration on random AND-OR trees."""

from __future__ import annotations

import itertools
import random

import pytest

from molx_agent.retro.search_routes import _kbest, rank_key
from molx_agent.retro.search_types import MolNode, ReactionEdge


def _random_tree(rng: random.Random, depth: int = 0, counter: list[int] | None = None) -> MolNode:
    counter = counter if counter is not None else [0]
    counter[0] += 1
    leaf = depth >= 3 or rng.random() < 0.3
    mol = MolNode(counter[0], f"m{counter[0]}", depth, None, frozenset(), in_stock=leaf, source="s" if leaf else None)
    if leaf:
        mol.solved = True
        mol.leaf_cost = rng.choice([0.0, 0.0, 0.5, rng.random()])
        mol.n_flags = int(rng.random() < 0.1)
        return mol
    mol.expanded = True
    for _ in range(rng.randint(1, 4)):
        counter[0] += 1
        # costs on a coarse grid make exact ties between different routes common (the ids then decide)
        rxn = ReactionEdge(counter[0], mol, None, rng.choice([0.1, 0.5, 1.0, 1.5, rng.random() * 3]), {})
        rxn.implausible = rng.random() < 0.1
        rxn.validated = rng.random() < 0.8
        rxn.children = [_random_tree(rng, depth + 1, counter) for _ in range(rng.randint(1, 3))]
        rxn.solved = rng.random() < 0.9 and all(c.solved for c in rxn.children)
        mol.reactions.append(rxn)
    mol.solved = any(r.solved for r in mol.reactions)
    return mol


def _all_routes(mol: MolNode, validated_only: bool) -> list[tuple]:
    """Every solved route below ``mol`` as a k-best entry (exhaustive)."""
    if mol.in_stock:
        return [(0, mol.leaf_cost, (), (mol, None, []), mol.n_flags)]
    out = []
    for rxn in mol.reactions:
        if not rxn.solved or (validated_only and not rxn.validated):
            continue
        for subs in itertools.product(*(_all_routes(c, validated_only) for c in rxn.children)):
            out.append((1 + sum(s[0] for s in subs), rxn.cost + sum(s[1] for s in subs),
                        (rxn.id, *itertools.chain.from_iterable(s[2] for s in subs)), (mol, rxn, [s[3] for s in subs]),
                        int(rxn.implausible) + sum(s[4] for s in subs)))
    return out


@pytest.mark.parametrize("rank_by", ["score", "steps", "cost"])
def test_kbest_equals_the_exhaustive_k_best(rank_by):
    key = rank_key(rank_by, 1.0)
    checked = 0
    for seed in range(60):
        root = _random_tree(random.Random(seed))
        if not root.solved:
            continue
        for validated_only in (False, True):
            everything = sorted(_all_routes(root, validated_only), key=key)
            for k in (1, 3, 10):
                got = _kbest(root, k, {}, key, validated_only)
                assert [(e[0], round(e[1], 9), e[2], e[4]) for e in got] == \
                    [(e[0], round(e[1], 9), e[2], e[4]) for e in everything[:k]]
                checked += 1
    assert checked > 100
