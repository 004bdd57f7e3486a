"""OCAT (one change at a time) series.

An OCAT series is a set of at least two compounds of one series that share the core and every
substituent except one position: reading it shows the effect of that single change with everything
else held constant.  Built on the R-group tables (:mod:`molx_agent.sar.rgroup`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from molx_agent.sar.rgroup import RGroupTable, context_series


def identify_ocat_series(tables: Sequence[RGroupTable], min_size: int = 2, site: str | None = None) -> list[dict[str, Any]]:
    """OCAT series of every table (optionally only at position ``site``), largest and widest first.

    Each item: ``series_id``, ``position``, ``fixed`` (the other positions' substituents), ``members``
    (id, substituent, p_activity; best first; exact potencies only), ``best``, ``worst``, ``range``.
    """
    out = [
        item
        for table in tables
        for pos in table.positions
        if site is None or pos == site
        for item in context_series(table, pos, min_size=min_size, min_variants=2)
    ]
    out.sort(key=lambda s: (-len(s["members"]), -s["range"], s["series_id"], s["position"]))
    return out


__all__ = ["identify_ocat_series"]
