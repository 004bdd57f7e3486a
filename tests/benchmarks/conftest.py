"""Shared helper of the benchmark-script tests: load a script of ``benchmarks/`` as a module."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def benchmark_script() -> Callable[[str], ModuleType]:
    """``benchmark_script("name")``: ``benchmarks/name.py`` loaded as a fresh module."""

    def load(name: str) -> ModuleType:
        spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load
