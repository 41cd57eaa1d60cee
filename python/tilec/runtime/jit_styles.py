"""The ways `tilec.jit` wraps what it is given, as `tilelang.jit` does.

- a kernel (a `@T.prim_func`, an ir.Module, tile IR text): a JitKernel, compiled
  for the shapes of each call;
- a factory, a function that returns a kernel (`@tilec.jit(out_idx=[-1])` over
  `def matmul(M, N, K, ...): ... return main`): calling it gives the JitKernel of
  the kernel it returns, once per set of arguments;
- an eager kernel, a function of the tensors themselves whose body annotates them
  (TileLang's current style; see tilec.language.eager): `matmul(a, b, block_M=128)`
  builds the kernel for the Python values given and the T.const sizes of the
  arrays, once per distinct set, runs it and returns its T.empty outputs;
  `matmul.compile(M=..., N=..., K=..., block_M=128)` gives the kernel for those
  sizes, to call with the tensors alone.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

from tilec import backends
from tilec.language.eager import EagerFunction, EagerKernel, tensor_parameters
from tilec.pass_config import compile_options
from tilec.runtime.calls import output_positions
from tilec.runtime.jit import JitKernel
from tilec.runtime.target_names import tilec_target


class JitFactory:
    """A function that returns a kernel (TileLang's `@tilelang.jit` style):
    each call makes (once per set of arguments) a JitKernel of its result."""

    def __init__(
        self,
        factory: Callable[..., object],
        target: str | None,
        options: dict[str, object],
        out_idx: int | Sequence[int] | None,
        workspace_idx: int | Sequence[int] | None = None,
    ):
        self._factory = factory
        self._target, self._options, self._out_idx = target, options, out_idx
        self._workspace_idx = workspace_idx
        self._kernels: dict[object, JitKernel] = {}
        self.__name__ = getattr(factory, "__name__", "kernel")
        self.__doc__ = getattr(factory, "__doc__", None)

    def __call__(self, *args: object, **kwargs: object) -> JitKernel:
        key = (args, tuple(sorted(kwargs.items())))
        try:
            cached = self._kernels.get(key)
        except TypeError:  # unhashable arguments: a kernel per call
            key, cached = None, None
        if cached is None:
            cached = JitKernel(self._factory(*args, **kwargs), self._target, self._options,
                               self._out_idx, self._workspace_idx)
            if key is not None:
                self._kernels[key] = cached
        return cached


class EagerJit:
    """An eager kernel function: callable on its tensors, or compiled for given sizes.

    Its `workspace_idx` are positions among its tensor parameters: the call
    leaves those tensors out, and each call gets them zero-filled."""

    def __init__(
        self,
        fn: Callable[..., object],
        target: str | None,
        options: dict[str, object],
        out_idx: int | Sequence[int] | None,
        workspace_idx: int | Sequence[int] | None = None,
    ):
        self._function = EagerFunction(fn)
        self._target, self._options, self._out_idx = target, options, out_idx
        tensors = self._function.tensors
        self._workspace = output_positions(workspace_idx, len(tensors), "workspace_idx")
        self._workspace_names = tuple(tensors[i] for i in self._workspace)
        self._kernels: dict[object, tuple[JitKernel, EagerKernel]] = {}
        self._lock = threading.Lock()
        self.__name__ = fn.__name__
        self.__doc__ = fn.__doc__

    def compile(self, **given: object) -> JitKernel:
        """The kernel for the T.const sizes and Python parameters `given`
        (`matmul.compile(M=1024, N=1024, K=512, block_M=128)`); it takes the tensors."""
        params = self._function.signature.parameters
        tensors = [name for name in given if name in self._function.tensors]
        if tensors:
            raise TypeError(
                f"{self.__name__}.compile() takes T.const dims and Python parameters, not the "
                f"tensor '{tensors[0]}'"
            )
        values = self._function.values({k: v for k, v in given.items() if k in params})
        consts = {k: v for k, v in given.items() if k not in params}
        for name, size in consts.items():
            if isinstance(size, bool) or not isinstance(size, int):
                raise TypeError(
                    f"{self.__name__}.compile(): {name} must be an int size but got {size!r}"
                )
        kernel, function = self._kernel(values, consts)
        unknown = sorted(set(consts) - set(function.const_names))
        if unknown:
            raise TypeError(
                f"{self.__name__}.compile() got {unknown[0]}=..., which is neither a parameter "
                "nor a T.const dim of the kernel"
            )
        return kernel

    def _kernel(self, values: dict[str, object], consts: dict[str, int]
                ) -> tuple[JitKernel, EagerKernel]:
        key: object = (tuple(sorted(values.items())), tuple(sorted(consts.items())))
        try:
            hash(key)
        except TypeError:  # unhashable Python values: a kernel per call
            key = None
        with self._lock:
            built = self._kernels.get(key) if key is not None else None
            if built is None:
                function = EagerKernel(self._function, values, consts)
                function.ir()  # a mistake in the body is reported here, not at the first call
                built = JitKernel(function, self._target, self._options, self._out_idx,
                                  self._workspace), function
                if key is not None:
                    self._kernels[key] = built
        return built

    def __call__(self, *args: object, **kwargs: object) -> object:
        """Runs the kernel on the tensors given (compiling it first for their sizes and
        these Python values); returns its T.empty outputs."""
        values, tensors = self._function.bind(args, kwargs, self._workspace_names)
        consts = self._function.const_sizes(values, tensors)
        kernel, _ = self._kernel(values, consts)
        return kernel(*tensors.values())

    def __repr__(self) -> str:
        return f"<eager tilec.jit {self.__name__}, {len(self._kernels)} builds>"


def _is_factory(kernel: object) -> bool:
    """A plain function, not a DSL kernel, module or IR text."""
    return callable(kernel) and not hasattr(kernel, "build") and not isinstance(kernel, str)


def jit(
    kernel: object | None = None,
    *,
    target: str | None = None,
    out_idx: int | Sequence[int] | None = None,
    workspace_idx: int | Sequence[int] | None = None,
    pass_configs: Mapping[object, object] | None = None,
    **options: object,
) -> JitKernel | JitFactory | EagerJit | Callable[[object], object]:
    """Wraps `kernel` (a DSL kernel, an ir.Module or tile IR text) so that it
    compiles for the shapes of its arguments at the first call with them.

    Usable as `tilec.jit(kernel)`, `@tilec.jit` or `@tilec.jit(opt_level=2)`;
    takes the target and options of `tilec.compile`. Compiled kernels are
    cached in memory and in `$TILEC_CACHE_DIR` (default ~/.cache/tilec).

    On a function that returns a kernel (`@tilec.jit(out_idx=[-1])` over
    `def matmul(M, N, K, ...): ... return gemm`, as with `tilelang.jit`),
    calling the function gives the JitKernel of the kernel it returns. With
    `out_idx` the kernel is called with its inputs only and returns the
    outputs it allocates (`C = kernel(A, B)`).

    On an eager kernel, a function of the tensors whose body annotates them
    (`A: T.Tensor((M, K), dtype)`, TileLang's current style), calling it with
    arrays runs it and returns its T.empty outputs; `.compile(M=..., ...)` gives
    the kernel for those T.const sizes.

    As tilelang-ascend's: the parameters at `workspace_idx` (GM workspaces) are
    not passed but allocated, zero-filled, at every call, and not returned (on
    an eager kernel, positions among its tensor parameters); `pass_configs`
    (`{tilec.PassConfigKey.TL_ASCEND_AUTO_SYNC: True}`) become compile options,
    as `tilec.pass_config` describes; its target strings "auto" and "ascendc" name
    tilec's targets (`tilec.runtime.target_names`).
    """
    target = tilec_target(target)
    options = {**options, **compile_options(pass_configs, backends.resolve(target)[0].name,
                                            options)}

    def wrap(k: object) -> JitKernel | JitFactory | EagerJit:
        if tensor_parameters(k):
            return EagerJit(k, target, options, out_idx, workspace_idx)  # type: ignore[arg-type]
        if _is_factory(k):
            return JitFactory(k, target, options, out_idx, workspace_idx)  # type: ignore[arg-type]
        return JitKernel(k, target, options, out_idx, workspace_idx)

    # Check the target and options where they are written, not at the first call.
    backends.configure(target, options)
    return wrap if kernel is None else wrap(kernel)
