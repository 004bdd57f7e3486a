"""Moved to :mod:`molx_agent.interfaces.pipeline`; this old import path (and every submodule under it) still works.

``molx_agent.retro.pipeline`` and ``molx_agent.retro.pipeline.<module>`` are the very modules of ``molx_agent.interfaces.pipeline``.
"""

from molx_agent._compat import alias_package

alias_package(__name__, "molx_agent.interfaces.pipeline")
