"""`AutoTuner` and `@autotune`: TileLang's tuning surface over tilec's compiler.

A run compiles the kernel of every config at once on a thread pool (each
compile has its own MLIR context; the DSL's state is per context variable,
and LLVM's code generation runs outside the GIL, so two cores compile about
1.5x as fast as one, measured), then runs the candidates one at a time on the
same made-up inputs: checks each against `ref_prog`, measures it (see
`tilec.autotuner.measure`) and keeps the best. A config whose kernel fails to
compile or to run, or whose outputs differ from the reference, is skipped
with the reason in `AutotuneResult.trials`. The winner is cached on disk
(`tilec.autotuner.tuning_cache`), so tuning the same kernel for the same
shapes and target again measures nothing.
"""

from __future__ import annotations

import functools
import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from tilec import backends
from tilec import ir as tilec_ir
from tilec.autotuner import tuning_cache
from tilec.autotuner.measure import Measurement, check_backend, simulated, wall_median
from tilec.autotuner.progress import Progress
from tilec.autotuner.results import AutotuneError, AutotuneResult, Trial
from tilec.autotuner.supply import TensorSupplyType, supply_inputs
from tilec.diagnostics import CompileError
from tilec.pass_config import compile_options
from tilec.runtime import compiler
from tilec.runtime.compiler import CompiledKernel
from tilec.runtime.jit import load_or_build
from tilec.runtime.jit_styles import JitFactory

Config = dict[str, object]
Configs = Sequence[Config] | Callable[..., Sequence[Config]]

_TARGETS = {"auto": None}
"""TileLang's target names that are not tilec target specs."""


@dataclass
class CompileArgs:
    out_idx: int | Sequence[int] | None = None
    target: str | None = None
    options: dict[str, object] = field(default_factory=dict)


@dataclass
class ProfileArgs:
    supply_type: TensorSupplyType = TensorSupplyType.Auto
    ref_prog: Callable[..., object] | None = None
    supply_prog: Callable[[list], Sequence[object]] | None = None
    rtol: float = 1e-2
    atol: float = 1e-2
    max_mismatched_ratio: float = 0.01
    skip_check: bool = False
    manual_check_prog: Callable[[list, list], object] | None = None
    backend: str = "event"
    timeout: float = 30.0


@dataclass
class _Candidate:
    config: Config
    kernel: CompiledKernel | None = None
    error: str | None = None


def _failure(exc: BaseException) -> str:
    """The reason a config is skipped: a compile error as its located diagnostics."""
    return str(exc) if isinstance(exc, CompileError) else f"{type(exc).__name__}: {exc}"


def _as_list(value: object) -> list[object]:
    return list(value) if isinstance(value, tuple | list) else [value]


class AutoTuner:
    """Tunes the kernel `fn(**config)` returns over `configs` (dicts of its parameters)."""

    def __init__(self, fn: Callable[..., object], configs: Configs):
        self.fn = fn
        self.configs = configs
        self.compile_args = CompileArgs()
        self.profile_args = ProfileArgs()
        self._memory: dict[str, AutotuneResult] = {}

    @classmethod
    def from_kernel(cls, kernel: Callable[..., object], configs: Sequence[Config]) -> AutoTuner:
        return cls(kernel, configs)

    def set_compile_args(self, out_idx: int | Sequence[int] | None = None, target: str = "auto",
                         pass_configs: Mapping[object, object] | None = None,
                         **options: object) -> AutoTuner:
        """How every candidate is compiled: TileLang's `out_idx`, `target` ("auto": the
        best one here, as `tilec.compile` picks it; else a tilec spec such as "cpu" or
        "ascend:950") and `pass_configs` (compile options, as `tilec.jit` takes them),
        and tilec's compile options. (`workspace_idx` kernels are not tuned yet.)"""
        resolved = _TARGETS.get(target, target) if isinstance(target, str) else target
        kind = backends.resolve(resolved)[0].name
        options = {**options, **compile_options(pass_configs, kind, options)}
        backends.configure(resolved, options)  # a bad target or option fails here
        self.compile_args = CompileArgs(out_idx, resolved, options)
        return self

    def set_profile_args(self, warmup: int = 25, rep: int = 100, timeout: float = 30,
                         supply_type: TensorSupplyType = TensorSupplyType.Auto,
                         ref_prog: Callable[..., object] | None = None,
                         supply_prog: Callable[[list], Sequence[object]] | None = None,
                         rtol: float = 1e-2, atol: float = 1e-2,
                         max_mismatched_ratio: float = 0.01, skip_check: bool = False,
                         manual_check_prog: Callable[[list, list], object] | None = None,
                         cache_input_tensors: bool = False,
                         backend: str = "event") -> AutoTuner:
        """How candidates are fed, checked and timed, with TileLang's parameters.
        Inputs come from `supply_prog(params)` or are made up by `supply_type`;
        they are the same arrays for every candidate (so `cache_input_tensors` is
        always in effect). Outputs must match `ref_prog(*inputs)` within
        `rtol`/`atol` but for `max_mismatched_ratio` of the elements, or pass
        `manual_check_prog(outputs, ref_outputs)`, unless `skip_check`. `backend`
        takes TileLang's timing backends; the measure is the target's (module docstring)."""
        del warmup, rep, cache_input_tensors  # run() takes the budgets; inputs are always shared
        if not isinstance(supply_type, TensorSupplyType):
            raise TypeError(f"supply_type must be a tilec.TensorSupplyType, not {supply_type!r}")
        self.profile_args = ProfileArgs(supply_type, ref_prog, supply_prog, rtol, atol,
                                        max_mismatched_ratio, skip_check, manual_check_prog,
                                        check_backend(backend), float(timeout))
        return self

    # -- a run ---------------------------------------------------------------

    def run(self, warmup: int = 25, rep: int = 100, timeout: float | None = None) -> AutotuneResult:
        """Tunes (or reads the winner from the tuning cache); `warmup` and `rep` are
        millisecond budgets of calls before and while timing each candidate."""
        configs = self._configs()
        key = self._key(configs)
        if key in self._memory:
            return self._memory[key]
        result = self.cached()
        if result is None:
            budget = self.profile_args.timeout if timeout is None else float(timeout)
            result = self._tune(configs, warmup, rep, budget)
            tuning_cache.store(key, configs.index(result.config), result.trials)
        self._memory[key] = result
        return result

    def cached(self) -> AutotuneResult | None:
        """The winner of an earlier run from the tuning cache, measuring nothing; None
        when this kernel has not been tuned for these configs, target and options."""
        configs = self._configs()
        key = self._key(configs)
        if key in self._memory:
            return self._memory[key]
        entry = tuning_cache.load(key, configs)
        if entry is None:
            return None
        winner, trials = entry
        return self._cached_result(configs[winner], trials)

    def _key(self, configs: list[Config]) -> str:
        args = self.compile_args
        target, _, options = backends.configure(args.target, args.options)
        return tuning_cache.tuning_key(tuning_cache.function_identity(self.fn), configs,
                                       target.parameters(), options.key(), args.out_idx)

    def __call__(self) -> AutotuneResult:
        return self.run()

    def _name(self) -> str:
        fn = getattr(self.fn, "func", self.fn)  # through functools.partial (unless named)
        return getattr(self.fn, "__name__", None) or getattr(fn, "__name__", "kernel")

    def _configs(self) -> list[Config]:
        configs = self.configs() if callable(self.configs) else self.configs
        configs = [dict(c) for c in configs]
        if not configs:
            raise ValueError(f"autotune {self._name()}: no configs to tune")
        parameters = inspect.signature(self.fn).parameters
        open_ended = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
        for config in configs:
            unknown = sorted(set(config) - set(parameters))
            if unknown and not open_ended:
                raise ValueError(f"autotune {self._name()}: config {config} names {unknown[0]}, "
                                 f"which is not a parameter of the kernel function "
                                 f"({', '.join(parameters)})")
        return configs

    def _compile(self, config: Config) -> CompiledKernel:
        kernel = self.fn(**config)
        args = self.compile_args
        target, backend, options = backends.configure(args.target, args.options)
        module = compiler.load_module(kernel, tilec_ir.make_context())
        out_idx = args.out_idx if args.out_idx is not None else getattr(kernel, "out_idx", None)
        return load_or_build(module, target, backend, options).with_out_idx(out_idx)

    def _compile_all(self, configs: list[Config]) -> list[_Candidate]:
        candidates = [_Candidate(c) for c in configs]
        progress = Progress(f"autotune {self._name()}: compiling", len(configs))

        def build(candidate: _Candidate) -> None:
            try:
                candidate.kernel = self._compile(candidate.config)
            except Exception as exc:  # a config may break the kernel function in any way
                candidate.error = _failure(exc)
            progress.step("" if candidate.error is None else f"{candidate.config} failed")

        workers = max(1, min(len(configs), os.cpu_count() or 1))
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(build, candidates))
        return candidates

    def _tune(self, configs: list[Config], warmup: float, rep: float,
              timeout: float) -> AutotuneResult:
        candidates = self._compile_all(configs)
        bench = _Bench(self.profile_args, warmup, rep, timeout)
        progress = Progress(f"autotune {self._name()}: measuring", len(candidates))
        trials = []
        for candidate in candidates:
            if candidate.kernel is None:
                trials.append(Trial(candidate.config, None, candidate.error))
            else:
                try:
                    trials.append(Trial(candidate.config, bench.measure(candidate.kernel)))
                except Exception as exc:  # a run that fails or differs from ref_prog
                    trials.append(Trial(candidate.config, None, _failure(exc)))
            progress.step(trials[-1].describe())
        measured = [i for i, t in enumerate(trials) if t.measurement is not None]
        if not measured:
            lines = "\n".join(t.describe() for t in trials)
            raise AutotuneError(f"autotune {self._name()}: no config compiled, ran and matched "
                                f"the reference:\n{lines}")
        best = min(measured, key=lambda i: trials[i].measurement.score)  # type: ignore[union-attr]
        kernel = candidates[best].kernel
        assert kernel is not None
        return self._result(configs[best], kernel, trials, bench.ref_latency(kernel))

    def _result(self, config: Config, kernel: object, trials: list[Trial],
                ref_latency: float | None, from_cache: bool = False) -> AutotuneResult:
        measurement = next(t.measurement for t in trials if t.config == config)
        assert measurement is not None
        return AutotuneResult(config, kernel, measurement.latency, measurement.cycles,
                              ref_latency, trials, from_cache)

    def _cached_result(self, config: Config, trials: list[Trial]) -> AutotuneResult:
        return self._result(config, self._compile(config), trials, None, from_cache=True)


class _Bench:
    """Runs, checks and measures candidates on inputs shared by all of them."""

    def __init__(self, profile: ProfileArgs, warmup: float, rep: float, timeout: float):
        self._profile = profile
        self._warmup, self._rep, self._timeout = warmup, rep, timeout
        self._inputs: dict[tuple, list[object]] = {}
        self._expected: dict[tuple, list[np.ndarray]] = {}

    def _params(self, kernel: CompiledKernel) -> list:
        return [p for i, p in enumerate(kernel.params) if i not in kernel.out_positions]

    def inputs(self, kernel: CompiledKernel) -> list[object]:
        """Fresh copies of the inputs for `kernel`'s parameters (made once per signature)."""
        params = self._params(kernel)
        signature = tuple(params)
        if signature not in self._inputs:
            if self._profile.supply_prog is not None:
                made = list(self._profile.supply_prog(params))
            else:
                made = list(supply_inputs(kernel.name, params, self._profile.supply_type))
            self._inputs[signature] = made
        return [np.array(a, copy=True) if isinstance(a, np.ndarray) else a
                for a in self._inputs[signature]]

    def outputs(self, kernel: CompiledKernel, args: list[object]) -> list[np.ndarray]:
        """Runs `kernel` on `args`; its returned outputs, or the arrays it may write."""
        returned = kernel(*args)
        if kernel.out_positions:
            return [np.asarray(r) for r in _as_list(returned)]
        return [a for p, a in zip(self._params(kernel), args, strict=True) if p.written]

    def _reference(self, kernel: CompiledKernel) -> list[np.ndarray]:
        signature = tuple(self._params(kernel))
        if signature not in self._expected:
            assert self._profile.ref_prog is not None
            expected = self._profile.ref_prog(*self.inputs(kernel))
            self._expected[signature] = [np.asarray(e) for e in _as_list(expected)]
        return self._expected[signature]

    def check(self, kernel: CompiledKernel, outputs: list[np.ndarray]) -> None:
        """Raises AssertionError when `outputs` differ from the reference's."""
        profile = self._profile
        if profile.skip_check or profile.ref_prog is None:
            return
        expected = self._reference(kernel)
        if profile.manual_check_prog is not None:
            profile.manual_check_prog(outputs, expected)
            return
        if len(expected) != len(outputs):
            raise AssertionError(f"ref_prog returned {len(expected)} outputs, the kernel "
                                 f"{len(outputs)}")
        for index, (out, ref) in enumerate(zip(outputs, expected, strict=True)):
            if out.shape != ref.shape:
                raise AssertionError(f"output {index} has shape {out.shape}, ref_prog's "
                                     f"{ref.shape}")
            got, want = out.astype(np.float64), ref.astype(np.float64)
            close = np.isclose(got, want, rtol=profile.rtol, atol=profile.atol)
            wrong = int(close.size - np.count_nonzero(close))
            if wrong > profile.max_mismatched_ratio * close.size:
                worst = float(np.max(np.abs(got - want)))
                raise AssertionError(
                    f"output {index}: {wrong} of {close.size} elements differ from ref_prog "
                    f"beyond rtol={profile.rtol}, atol={profile.atol} (largest difference "
                    f"{worst:.3g})")

    def measure(self, kernel: CompiledKernel) -> Measurement:
        args = self.inputs(kernel)
        self.check(kernel, self.outputs(kernel, args))
        cycles = simulated(kernel)
        if cycles is not None:
            return cycles  # the run just checked, simulated: exact
        return wall_median(lambda: kernel(*args), self._warmup, self._rep, self._timeout)

    def ref_latency(self, kernel: CompiledKernel) -> float | None:
        """The reference's median wall time on the same inputs, where wall time is the measure."""
        ref_prog = self._profile.ref_prog
        if ref_prog is None or simulated(kernel) is not None:
            return None
        args = self.inputs(kernel)
        return wall_median(lambda: ref_prog(*args), self._warmup, self._rep,
                           self._timeout).latency


# -- @autotune ----------------------------------------------------------------


def _jit_parts(jit: object) -> tuple[Callable[..., object], CompileArgs]:
    """The kernel function a `@tilec.jit` factory wraps and the settings it compiles with."""
    if isinstance(jit, JitFactory):
        # JitFactory keeps these private; they are what `@tilec.jit(...)` was given.
        return jit._factory, CompileArgs(jit._out_idx, jit._target, dict(jit._options))
    if callable(jit):
        return jit, CompileArgs()
    raise TypeError(f"@tilec.autotune decorates a kernel function or its @tilec.jit, "
                    f"not {type(jit).__name__}")


class Autotuned:
    """A kernel function under `@autotune`: called without its tunable parameters it
    tunes them (once per set of arguments) and returns the winner's kernel; called
    with them, it compiles that config as `@tilec.jit` would."""

    def __init__(self, jit: object, configs: Configs,
                 warmup: int, rep: int, profile: dict[str, object]):
        self._jit = jit
        self._function, self._compile_args = _jit_parts(jit)
        self._configs, self._warmup, self._rep, self._profile = configs, warmup, rep, profile
        self._results: dict[object, AutotuneResult] = {}
        self.__name__ = getattr(self._function, "__name__", "kernel")
        self.__doc__ = getattr(self._function, "__doc__", None)

    def tuner(self, *args: object, **kwargs: object) -> AutoTuner:
        """The AutoTuner of the kernel for these (non-tunable) arguments."""
        configs = self._configs(*args, **kwargs) if callable(self._configs) else self._configs
        bound = functools.partial(self._function, *args, **kwargs)
        tuner = AutoTuner(bound, list(configs)).set_profile_args(**self._profile)  # type: ignore[arg-type]
        given = self._compile_args
        return tuner.set_compile_args(given.out_idx, given.target or "auto", **given.options)

    def __call__(self, *args: object, **kwargs: object) -> object:
        configs = self._configs(*args, **kwargs) if callable(self._configs) else self._configs
        given = inspect.signature(self._function).bind_partial(*args, **kwargs).arguments
        if {name for config in configs for name in config} & set(given):
            return self._jit(*args, **kwargs)  # type: ignore[operator]
        key = (args, tuple(sorted(kwargs.items())))
        if key not in self._results:
            self._results[key] = self.tuner(*args, **kwargs).run(self._warmup, self._rep)
        return self._results[key].kernel

    def result(self, *args: object, **kwargs: object) -> AutotuneResult:
        """The tuning result of the kernel for these arguments (tuning it if needed)."""
        self(*args, **kwargs)
        return self._results[(args, tuple(sorted(kwargs.items())))]


def autotune(func: Callable[..., object] | None = None, *, configs: Configs,
             warmup: int = 25, rep: int = 100, timeout: float = 100,
             supply_type: TensorSupplyType = TensorSupplyType.Auto,
             ref_prog: Callable[..., object] | None = None,
             supply_prog: Callable[[list], Sequence[object]] | None = None,
             rtol: float = 1e-2, atol: float = 1e-2, max_mismatched_ratio: float = 0.01,
             skip_check: bool = False,
             manual_check_prog: Callable[[list, list], object] | None = None,
             cache_input_tensors: bool = False,
             backend: str = "event") -> Callable[[object], Autotuned]:
    """`@tilec.autotune(configs=[...], ...)` over `@tilec.jit(out_idx=...)` on a kernel
    function, as TileLang writes it: `matmul(M, N, K)` tunes the parameters the
    configs name and returns the best kernel; `matmul.result(M, N, K)` gives the
    `AutotuneResult`. `configs` may be a function of the call's arguments."""
    if func is not None:
        raise TypeError("@tilec.autotune needs configs: write @tilec.autotune(configs=[...])")
    profile = dict(timeout=timeout, supply_type=supply_type, ref_prog=ref_prog,
                   supply_prog=supply_prog, rtol=rtol, atol=atol,
                   max_mismatched_ratio=max_mismatched_ratio, skip_check=skip_check,
                   manual_check_prog=manual_check_prog, cache_input_tensors=cache_input_tensors,
                   backend=check_backend(backend))
    return lambda jit: Autotuned(jit, configs, warmup, rep, profile)
