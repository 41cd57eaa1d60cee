"""The registry of tilec passes and named pipelines.

A pass is a small frozen dataclass: its class attributes say what it is
(`argument`, `summary`, the op it anchors on) and its fields are its typed
options, so `TileVerifyKernelsPass(target="cuda")` in Python and
`tile-verify-kernels{target=cuda}` in a pipeline mean the same thing. One
registry serves tile-opt, the Python API and the tests.
"""

from __future__ import annotations

import abc
import dataclasses
import functools
import importlib
import pkgutil
import shlex
import typing
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import ClassVar, Literal

from mlir import ir

from tilec.diagnostics import CompileError, Diagnostic


class PassFailure(Exception):
    """Raised by a pass after it has emitted its error diagnostics."""


def emit_error(target: ir.Operation | ir.OpView | ir.Location, message: str) -> PassFailure:
    """Emits `message` as an error at `target` and returns the exception to raise."""
    location = target if isinstance(target, ir.Location) else target.location
    location.emit_error(message)
    return PassFailure(message)


class Pass(abc.ABC):
    """Base of every tilec pass; subclasses are frozen dataclasses.

    `anchor` names the ops the pass runs on (None: whatever op it is nested
    on, the module at top level). Python passes are always scheduled at module
    level (nesting a Python pass on func.func aborts the bindings), and the
    runner hands the pass each anchor op in turn.
    """

    argument: ClassVar[str]
    summary: ClassVar[str]
    anchor: ClassVar[str | None] = None

    @abc.abstractmethod
    def run(self, op: ir.Operation) -> None:
        """Transforms or checks one anchor op; raises PassFailure on error."""

    @classmethod
    def options(cls) -> list[Option]:
        hints = typing.get_type_hints(cls)
        return [
            Option(
                f.name.replace("_", "-"),
                f.name,
                hints[f.name],
                f.default,
                _field_help(f),
                f.metadata.get("check"),
            )
            for f in dataclasses.fields(cls)  # type: ignore[arg-type]
        ]

    def pipeline_text(self) -> str:
        """This pass with its options as a pipeline element."""
        fields = dataclasses.fields(self)  # type: ignore[arg-type]
        opts = " ".join(
            f"{f.name.replace('_', '-')}={_format_value(getattr(self, f.name))}"
            for f in fields
            if getattr(self, f.name) != f.default
        )
        return f"{self.argument}{{{opts}}}" if opts else self.argument


def _field_help(f: dataclasses.Field) -> str:
    return f.metadata.get("help", "")


def option(
    default: object, help: str, check: Callable[[str], object] | None = None
) -> typing.Any:
    """A pass option: a dataclass field with a default and a help text.
    `check` validates a textual value (raising ValueError with the reason)."""
    return dataclasses.field(default=default, metadata={"help": help, "check": check})


@dataclass(frozen=True)
class Option:
    flag: str
    attribute: str
    type: object
    default: object
    help: str
    check: Callable[[str], object] | None = None

    def describe_type(self) -> str:
        if typing.get_origin(self.type) is Literal:
            return "|".join(str(a) for a in typing.get_args(self.type))
        return getattr(self.type, "__name__", str(self.type))

    def parse(self, text: str, pass_argument: str) -> object:
        """Converts the textual value of this option, or raises CompileError."""
        kind = self.type
        try:
            if typing.get_origin(kind) is Literal:
                choices = [str(a) for a in typing.get_args(kind)]
                if text not in choices:
                    raise ValueError(f"expected one of {', '.join(choices)}")
                return text
            if kind is bool:
                if text in ("true", "1", ""):
                    return True
                if text in ("false", "0"):
                    return False
                raise ValueError("expected true or false")
            if kind is int:
                return int(text, 0)
            if kind is float:
                return float(text)
            if kind is str:
                if self.check is not None:
                    self.check(text)
                return text
        except ValueError as exc:
            raise CompileError(
                Diagnostic(
                    "error",
                    f"invalid value '{text}' for option '{self.flag}' of pass "
                    f"'{pass_argument}': {exc}",
                )
            ) from None
        raise TypeError(f"unsupported option type {kind!r} for {pass_argument}")


def _format_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


@dataclass(frozen=True)
class NamedPipeline:
    """A pipeline registered under a name, expanded where it is used.

    `options` maps each option a pipeline takes to its help text; `build`
    receives the given ones as keyword arguments (strings), so
    `tile-to-ascend{target=ascend:950}` calls `build(target="ascend:950")`."""

    argument: str
    summary: str
    build: Callable[..., str]
    options: Mapping[str, str] = dataclasses.field(default_factory=dict)

    def pipeline_text(self, options_text: str = "") -> str:
        values: dict[str, str] = {}
        try:
            words = shlex.split(options_text)
        except ValueError as exc:
            raise CompileError(Diagnostic(
                "error", f"malformed options for pipeline '{self.argument}': {exc}")) from None
        for word in words:
            key, _, text = word.partition("=")
            if key not in self.options:
                known = ", ".join(self.options) or "none"
                raise CompileError(Diagnostic("error", f"pipeline '{self.argument}' has no "
                                                       f"option '{key}' (options: {known})"))
            values[key.replace("-", "_")] = text
        try:
            return self.build(**values)
        except ValueError as exc:
            raise CompileError(Diagnostic(
                "error", f"pipeline '{self.argument}': {exc}")) from None


_PASSES: dict[str, type[Pass]] = {}
_PIPELINES: dict[str, NamedPipeline] = {}


def register_pass(cls: type[Pass]) -> type[Pass]:
    """Class decorator adding a pass to the registry under its `argument`."""
    if cls.argument in _PASSES or cls.argument in _PIPELINES:
        raise ValueError(f"pass argument '{cls.argument}' is registered twice")
    _PASSES[cls.argument] = cls
    return cls


def register_pipeline(argument: str, summary: str, build: Callable[..., str],
                      options: Mapping[str, str] | None = None) -> NamedPipeline:
    if argument in _PASSES or argument in _PIPELINES:
        raise ValueError(f"pipeline argument '{argument}' is registered twice")
    pipeline = NamedPipeline(argument, summary, build, dict(options or {}))
    _PIPELINES[argument] = pipeline
    return pipeline


def import_package(name: str) -> None:
    """Import every module of the package `name`, so that a pass, pipeline or
    lowering registers itself by being a file in its folder."""
    for module in pkgutil.iter_modules(importlib.import_module(name).__path__):
        importlib.import_module(f"{name}.{module.name}")


def passes() -> Iterator[type[Pass]]:
    _load_all()
    return iter(sorted(_PASSES.values(), key=lambda c: c.argument))


def pipelines() -> Iterator[NamedPipeline]:
    _load_all()
    return iter(sorted(_PIPELINES.values(), key=lambda p: p.argument))


def lookup(argument: str) -> type[Pass] | NamedPipeline | None:
    _load_all()
    return _PASSES.get(argument) or _PIPELINES.get(argument)


def instantiate(cls: type[Pass], options_text: str) -> Pass:
    """`cls` configured from mlir-style options text: `a=1 b=true`."""
    by_flag = {o.flag: o for o in cls.options()}
    by_flag.update({o.attribute: o for o in cls.options()})
    values: dict[str, object] = {}
    try:
        words = shlex.split(options_text)
    except ValueError as exc:
        raise CompileError(
            Diagnostic("error", f"malformed options for pass '{cls.argument}': {exc}")
        ) from None
    for word in words:
        key, _, text = word.partition("=")
        opt = by_flag.get(key)
        if opt is None:
            known = ", ".join(o.flag for o in cls.options()) or "none"
            raise CompileError(
                Diagnostic(
                    "error",
                    f"pass '{cls.argument}' has no option '{key}' (options: {known})",
                )
            )
        values[opt.attribute] = opt.parse(text, cls.argument)
    return cls(**values)


@functools.cache
def _load_all() -> None:
    """Imports every module of passes/, so that each pass, pipeline and lowering has
    registered itself: adding one is adding a file in its folder. A target's passes are
    its manifest's `passes` package, so a target installed from outside tilec has its own."""
    from tilec.targets import manifests

    import_package("tilec.passes")
    import_package("tilec.passes.conversion")
    for target in manifests():
        target.import_passes()
