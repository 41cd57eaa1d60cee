"""What a backend is: how a lowered tile module becomes something callable.

As in Triton's `backends/<target>/{compiler,driver}`, a backend has two
halves. The compiler half says which pipeline takes tile IR to the target's
IR, which options exist (and which of them enter the cache key), how the
pipeline's result becomes a binary, and what `.source()` shows. The driver
half says whether the hardware is here, how a binary is loaded and called
with checked arguments, and how it is written to and read from the disk
cache. Everything target-neutral — tracing, stages, argument checks, the
cache, `jit` — lives in `tilec.runtime` and calls these.
"""

from __future__ import annotations

import abc
import dataclasses
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from mlir import ir

from tilec.runtime.signature import Param
from tilec.targets import TargetDescription


class OptionError(TypeError):
    """An unknown compile option or a bad value; the message names the candidates."""


@dataclass(frozen=True)
class Options:
    """Compile options every backend has. A backend's options extend it;
    every field but `timing` changes the generated code."""

    timing: bool = False

    RUN_ONLY: ClassVar[frozenset[str]] = frozenset({"timing"})
    """Options that change how a kernel is compiled or run, not its code."""

    def key(self) -> str:
        """The options that enter the cache key, as text."""
        return " ".join(
            f"{f.name}={getattr(self, f.name)}"
            for f in dataclasses.fields(self)
            if f.name not in self.RUN_ONLY
        )

    def check(self) -> None:
        """Raises OptionError for a value outside the option's domain."""
        hints = typing.get_type_hints(type(self))
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            expected = hints[f.name]
            # bool is an int in Python; an int option must not take True.
            wrong_bool = expected is int and isinstance(value, bool)
            if wrong_bool or not isinstance(value, expected):
                raise OptionError(
                    f"compile option '{f.name}' expects {expected.__name__} but got "
                    f"{value!r} ({type(value).__name__})"
                )


@dataclass(frozen=True)
class CodegenOptions(Options):
    """The options of a backend whose code generation is LLVM's."""

    opt_level: int = 3
    """LLVM's optimization level, 0 to 3."""

    def check(self) -> None:
        super().check()
        if not 0 <= self.opt_level <= 3:
            raise OptionError(f"compile option 'opt_level' must be 0 to 3 but got {self.opt_level}")


OptionsT = TypeVar("OptionsT", bound=Options)


def parse_options(options_type: type[OptionsT], given: Mapping[str, Any], target: str) -> OptionsT:
    """`given` as an `options_type`, or OptionError naming the known options."""
    known = [f.name for f in dataclasses.fields(options_type)]
    unknown = sorted(set(given) - set(known))
    if unknown:
        raise OptionError(
            f"unknown compile options for target {target}: {', '.join(unknown)} "
            f"(options: {', '.join(known)})"
        )
    options = options_type(**given)
    options.check()
    return options


Launcher = Callable[[Sequence[object]], None]
"""Calls a loaded binary with arguments already checked against its params."""


class Binary(abc.ABC):
    """A compiled kernel as the driver needs it (native code, PTX, ...)."""

    @abc.abstractmethod
    def source(self) -> str:
        """What `.source()` shows: the text closest to what the hardware runs."""

    def final_ir(self) -> str:
        """The IR of the backend's last stage (`kernel.ir(final_stage)`)."""
        return self.source()

    def report(self) -> object:
        """What the last run measured, on targets that measure their runs."""
        raise RuntimeError(f"{type(self).__name__} kernels keep no report of their runs "
                           "(ascend kernels, run in the simulator, do)")

    def resources(self, kernel: str | None = None) -> object:
        """Registers, spills and shared memory per kernel, where the
        assembler reports them."""
        raise RuntimeError(f"{type(self).__name__} kernels have no assembler report of their "
                           "resources (cuda kernels, from ptxas -v, do)")


BinaryT = TypeVar("BinaryT", bound=Binary)
TargetT = TypeVar("TargetT", bound=TargetDescription)


class Driver(abc.ABC, Generic[BinaryT, OptionsT]):
    """Loads and calls binaries of one target: the `BinaryT`s its backend makes with
    options of its `OptionsT`."""

    takes_device_tensors: ClassVar[bool] = False
    """Whether a call may pass tensors in device memory (DLPack) as they are."""

    def present(self) -> bool:
        """Whether the hardware this driver runs on is here."""
        return False

    def check_params(self, params: Sequence[Param]) -> None:
        """Raises ArgumentError for a parameter the calling convention cannot pass."""

    @abc.abstractmethod
    def launcher(self, binary: BinaryT, params: Sequence[Param]) -> Launcher: ...

    @abc.abstractmethod
    def save(self, binary: BinaryT, directory: Path) -> None:
        """Writes `binary` into a fresh cache entry directory."""

    @abc.abstractmethod
    def load(self, directory: Path, entry: str, options: OptionsT) -> BinaryT:
        """Reads a binary written by `save`; OSError or ValueError when it is unusable."""


class Backend(abc.ABC, Generic[TargetT, OptionsT, BinaryT]):
    """The compiler half of a target; `driver` is the other half. A backend compiles
    for one kind of target description (`TargetT`) with its options (`OptionsT`, of
    which `options_type` is the class) into its binaries (`BinaryT`)."""

    name: ClassVar[str]
    options_type: type[OptionsT]
    driver: Driver[BinaryT, OptionsT]
    codegen_stage: ClassVar[str] = "codegen"
    """The name of `codegen`'s entry in `CompiledKernel.timings()`."""
    final_stage: ClassVar[str] = "binary"
    """The name of the stage holding `Binary.final_ir()` (the source itself, except on
    ascend, whose source is AscendC C++ and whose last stage the ascend IR)."""

    def configure(self, target: TargetT, options: OptionsT) -> TargetT:
        """The target as the options refine it (ascend's `profile=`)."""
        return target

    def retry(self, failure: Exception, options: OptionsT) -> OptionsT | None:
        """Options to lower again with after the pipeline failed with
        `failure`, or None when nothing can be relaxed."""
        return None

    @abc.abstractmethod
    def pipeline(self, target: TargetT, options: OptionsT) -> str:
        """The pass pipeline from tile IR to what `codegen` takes."""

    @abc.abstractmethod
    def codegen(
        self, module: ir.Module, entry: str, target: TargetT, options: OptionsT
    ) -> BinaryT:
        """The binary of a module the pipeline has lowered."""
