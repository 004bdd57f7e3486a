"""Import-path aliases for code that moved, so every public import path keeps working.

``alias_package(old, new)`` makes the package ``old`` *be* the package ``new`` (the same module object in
``sys.modules``) and makes every submodule ``old.x.y`` resolve to the very module ``new.x.y`` (not a second copy),
lazily, through a small meta-path finder.  Used by the shims ``molx_agent/retro/{skills,pipeline,session}`` since
the protocols moved to :mod:`molx_agent.interfaces`.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
from types import ModuleType

_LOCK = threading.Lock()


class _AliasFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Resolves ``old.<sub>`` to the already-importable module ``new.<sub>``."""

    def __init__(self) -> None:
        self.aliases: dict[str, str] = {}

    def _target(self, fullname: str) -> str | None:
        for old, new in self.aliases.items():
            if fullname.startswith(old + "."):
                return new + fullname[len(old):]
        return None

    def find_spec(self, fullname: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        new = self._target(fullname)
        if new is None or importlib.util.find_spec(new) is None:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = self._target(spec.name)
        assert new is not None
        return importlib.import_module(new)

    def exec_module(self, module: ModuleType) -> None:  # the target module is already executed
        return None


_FINDER = _AliasFinder()


def alias_package(old: str, new: str) -> ModuleType:
    """Make ``old`` (a package name) an alias of ``new``; return the ``new`` package."""
    with _LOCK:
        _FINDER.aliases[old] = new
        if _FINDER not in sys.meta_path:
            sys.meta_path.insert(0, _FINDER)
    module = importlib.import_module(new)
    sys.modules[old] = module
    # submodules already imported under the new name are the same objects under the old one
    for name, sub in list(sys.modules.items()):
        if name.startswith(new + ".") and sub is not None:
            sys.modules.setdefault(old + name[len(new):], sub)
    return module


__all__ = ["alias_package"]
