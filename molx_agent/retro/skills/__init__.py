"""Moved to :mod:`molx_agent.interfaces.skills`; this old import path (and every submodule under it) still works.

``molx_agent.retro.skills`` and ``molx_agent.retro.skills.<module>`` are the very modules of ``molx_agent.interfaces.skills``.
"""

from molx_agent._compat import alias_package

alias_package(__name__, "molx_agent.interfaces.skills")
