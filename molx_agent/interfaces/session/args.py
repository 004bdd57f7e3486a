"""Argument schemas of the session commands and their checking (clear errors, nothing guessed)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from molx_agent.errors import ValidationError


@dataclass(frozen=True)
class Arg:
    type: str  # "str", "int", "number", "bool", "list[str]", "list[dict]", "dict", "pair[int]"
    required: bool = False
    choices: tuple[str, ...] = ()
    default: Any = None


SPECS: dict[str, dict[str, Arg]] = {
    "init": {"target": Arg("str", True), "name": Arg("str", default=""),
             "terminal_cs_threshold": Arg("number"), "max_steps": Arg("int"), "max_depth": Arg("int"),
             "stock": Arg("str"), "language": Arg("str", choices=("en", "zh")), "top_k": Arg("int"),
             "strategic_plan": Arg("dict"), "overwrite": Arg("bool", default=False)},
    "next": {},
    "context": {"detail": Arg("str", choices=("compact", "full", "status", "tree"), default="compact")},
    "explore": {"bond_idx": Arg("int", True)},
    "explore_fgi": {},
    "try_bond": {"bond_idx": Arg("int", True), "alt_idx": Arg("int", default=0)},
    "try_precursors": {"precursors": Arg("list[str]", True), "reaction_type": Arg("str", default=""),
                       "template_id": Arg("str", default=""), "category": Arg("str", default="")},
    "try_fgi": {"fgi_idx": Arg("int", True)},
    "smart_cap": {"bond_idx": Arg("int"), "smiles": Arg("str"), "bond": Arg("pair[int]"), "max": Arg("int")},
    "custom_cap": {"bond_idx": Arg("int", True), "cap_i": Arg("str", True), "cap_j": Arg("str", True),
                   "reaction_type": Arg("str", default="")},
    "sandbox_list": {},
    "sandbox_clear": {},
    "select": {"idx": Arg("int", True)},
    "commit": {"idx": Arg("int"), "reasoning": Arg("str", default=""),
               "confidence": Arg("str", choices=("high", "medium", "low"), default="medium"),
               "rejected": Arg("list[dict]", default=[]), "protection_needed": Arg("bool", default=False),
               "risk_assessment": Arg("str", default=""), "protections": Arg("list[dict]", default=[]),
               "strategic_plan": Arg("dict"), "override_gates": Arg("bool", default=False)},
    "accept": {"reason": Arg("str", default="")},
    "skip": {"reason": Arg("str", default="")},
    "tree": {},
    "status": {},
    "finalize": {"summary": Arg("str", default="")},
    "report": {},
    "export": {"name": Arg("str", default=""), "output_dir": Arg("str")},
}

COMMANDS: tuple[str, ...] = tuple(SPECS)


def _type_ok(value: Any, kind: str) -> bool:
    if kind == "str":
        return isinstance(value, str)
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":  # finite only: NaN/Infinity would not survive the JSON session file
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "dict":
        return isinstance(value, dict)
    if kind == "list[str]":
        return isinstance(value, list) and all(isinstance(v, str) for v in value)
    if kind == "list[dict]":
        return isinstance(value, list) and all(isinstance(v, dict) for v in value)
    if kind == "pair[int]":
        return (isinstance(value, (list, tuple)) and len(value) == 2
                and all(isinstance(v, int) and not isinstance(v, bool) for v in value))
    raise AssertionError(kind)  # pragma: no cover


def check_args(command: str, args: Any) -> dict[str, Any]:
    """Validated arguments with defaults filled in; a ``ValidationError`` naming the problem otherwise."""
    if command not in SPECS:
        raise ValidationError("unknown_command", f"unknown session command {command!r}", value=command,
                              hint="commands: " + ", ".join(COMMANDS))
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ValidationError("bad_args", f"{command}: arguments must be a JSON object, got {type(args).__name__}",
                              value=repr(args)[:80])
    spec = SPECS[command]
    unknown = sorted(set(args) - set(spec))
    if unknown:
        raise ValidationError("unknown_argument", f"{command}: unknown argument(s) {', '.join(unknown)}",
                              value=unknown[0], hint="accepted: " + (", ".join(spec) or "none"))
    out: dict[str, Any] = {}
    for name, arg in spec.items():
        if name not in args or args[name] is None:
            if arg.required:
                raise ValidationError("missing_argument", f"{command}: missing required argument {name!r}",
                                      value=name, hint=f"{name} must be {arg.type}")
            out[name] = list(arg.default) if isinstance(arg.default, list) else arg.default
            continue
        value = args[name]
        if not _type_ok(value, arg.type):
            raise ValidationError("bad_argument_type",
                                  f"{command}: argument {name!r} must be {arg.type}, got {type(value).__name__}",
                                  value=repr(value)[:80])
        if arg.choices and value not in arg.choices:
            raise ValidationError("bad_argument_value",
                                  f"{command}: argument {name!r} must be one of {', '.join(arg.choices)}",
                                  value=value)
        out[name] = value
    return out


__all__ = ["Arg", "SPECS", "COMMANDS", "check_args"]
