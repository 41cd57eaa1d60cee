"""What a call passes to a kernel: framework tensors as numpy views, and
the outputs a kernel allocates itself (TileLang's `out_idx`).

Whatever has `__dlpack__` (torch, jax, cupy and numpy tensors) is viewed as
a numpy array over the same memory (`numpy.from_dlpack`, no copy), so a
framework can call a kernel on its own tensors; the argument checks and
drivers then take it like any other array. A tensor in device memory (a GPU
tensor) is passed as it is to a driver that takes them (cuda: zero-copy)
and is an error for the others.

With `out_idx=[-1]` a kernel `gemm(A, B, C)` is called as `C = gemm(A, B)`:
the parameters at those positions are not passed but allocated, with their
static dims and, for a symbolic dim, the size the inputs give that name
(for an expression of symbolic dims, `T.ceildiv(K, 128)`, its value for
those), and returned (one array, or a tuple of them in parameter order).
With `workspace_idx` (tilelang-ascend's GM workspaces) the parameters at those
positions are allocated the same way, zero-filled at every call, and neither
passed nor returned.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tilec.runtime.signature import ArgumentError, Param, derived_size, numpy_dtype


def output_positions(out_idx: int | Sequence[int] | None, count: int,
                     what: str = "out_idx") -> tuple[int, ...]:
    """`out_idx` (or the `what` that names positions) as sorted non-negative
    positions among `count` parameters."""
    if out_idx is None:
        return ()
    given = [out_idx] if isinstance(out_idx, int) else list(out_idx)
    positions = []
    for index in given:
        if isinstance(index, bool) or not isinstance(index, int) or not -count <= index < count:
            raise ArgumentError(
                f"{what} {out_idx!r}: {index!r} is not a parameter position of a kernel "
                f"with {count} parameters"
            )
        positions.append(index % count)
    if len(set(positions)) != len(positions):
        raise ArgumentError(f"{what} {out_idx!r} names a parameter twice")
    return tuple(sorted(positions))


def workspace_positions(workspace_idx: int | Sequence[int] | None, count: int,
                        outputs: tuple[int, ...]) -> tuple[int, ...]:
    """`workspace_idx` as sorted positions among `count` parameters, none of them an output."""
    positions = output_positions(workspace_idx, count, "workspace_idx")
    both = sorted(set(positions) & set(outputs))
    if both:
        raise ArgumentError(f"workspace_idx {workspace_idx!r} names parameter {both[0]}, which "
                            "out_idx names too: a workspace is not returned")
    return positions


_DLPACK_CPU = 1
"""DLPack's device type of host memory (kDLCPU)."""


def on_device(value: object) -> bool:
    """Whether `value` is a DLPack tensor outside host memory (a GPU tensor)."""
    device = getattr(value, "__dlpack_device__", None)
    if device is None or isinstance(value, np.ndarray):
        return False
    try:
        return int(device()[0]) != _DLPACK_CPU
    except (TypeError, ValueError, IndexError, RuntimeError, BufferError):
        return False


def _sizes_by_name(params: Sequence[Param], args: Sequence[object]) -> dict[str, tuple[int, str]]:
    """The size of each symbolic dim of the inputs, with the input it comes from."""
    sizes: dict[str, tuple[int, str]] = {}
    for param, arg in zip(params, args, strict=True):
        shape = tuple(getattr(arg, "shape", ()))
        if param.is_array and hasattr(arg, "shape") and len(shape) == len(param.dim_names):
            for name, size in zip(param.dim_names, shape, strict=True):
                if name is not None:
                    sizes.setdefault(name, (int(size), param.name))
    return sizes


def _as_arrays(kernel: str, params: Sequence[Param], args: Sequence[object],
               device_tensors: bool) -> list[object]:
    """`args` with every host DLPack tensor for an array parameter viewed as
    numpy; device tensors kept when `device_tensors`, else an error."""
    converted = list(args)
    for i, (param, arg) in enumerate(zip(params, args, strict=False)):
        if not param.is_array or isinstance(arg, np.ndarray) or not hasattr(arg, "__dlpack__"):
            continue
        if on_device(arg):
            if not device_tensors:
                raise ArgumentError(
                    f"kernel '{kernel}': argument '{param.name}' ({type(arg).__name__}) is in "
                    "device memory, and this target's kernels take host arrays (copy it to the "
                    "host, or compile for cuda)"
                )
            continue
        try:
            converted[i] = np.from_dlpack(arg)
        except (BufferError, RuntimeError, TypeError, ValueError) as exc:
            raise ArgumentError(
                f"kernel '{kernel}': argument '{param.name}' ({type(arg).__name__}) cannot be "
                f"viewed as a host array: {exc}"
            ) from None
    return converted


def call_arguments(
    kernel: str, params: Sequence[Param], positions: tuple[int, ...], given: Sequence[object],
    device_tensors: bool = False, workspace: tuple[int, ...] = (),
) -> tuple[list[object], list[np.ndarray]]:
    """Every argument of a call (host framework tensors viewed as numpy,
    device tensors kept when the driver takes them, outputs at `positions`
    and zeroed workspaces at `workspace` allocated on the host), and the
    allocated outputs."""
    allocated = set(positions) | set(workspace)
    if not allocated:
        return _as_arrays(kernel, params, given, device_tensors), []
    input_params = [p for i, p in enumerate(params) if i not in allocated]
    inputs = _as_arrays(kernel, input_params, given, device_tensors)
    if len(inputs) != len(input_params):
        names = ", ".join(p.name for p in input_params)
        what = " and ".join(kind for kind, named in (("outputs", positions),
                                                    ("workspaces", workspace)) if named)
        raise ArgumentError(
            f"kernel '{kernel}' takes {len(input_params)} inputs ({names}) and allocates its "
            f"{what} but got {len(inputs)} arguments"
        )
    next_input = iter(inputs)
    sizes = _sizes_by_name(input_params, inputs)
    args: list[object] = []
    outputs: list[np.ndarray] = []
    for i, param in enumerate(params):
        if i not in allocated:
            args.append(next(next_input))
            continue
        role, named = ("output", "out_idx") if i in positions else ("workspace", "workspace_idx")
        if not param.is_array:
            raise ArgumentError(f"{named} names '{param.name}', a scalar parameter, not an array")
        shape = []
        assert param.shape is not None
        names = param.dim_names or (None,) * len(param.shape)
        for dim, (size, name) in enumerate(zip(param.shape, names, strict=True)):
            if size is None and param.dim_expr(dim) is not None:
                size, origin = derived_size(param, dim, sizes)
                if size < 0:
                    raise ArgumentError(
                        f"cannot allocate {role} '{param.name}': its dim {dim} "
                        f"({param.dim_exprs[dim]}) is {size} with {origin}"
                    )
            elif size is None:
                if name is None or name not in sizes:
                    raise ArgumentError(
                        f"cannot allocate {role} '{param.name}': its dim {dim} "
                        f"({name or '?'}) is not the size of any input's dim"
                    )
                size = sizes[name][0]
            shape.append(size)
        output = np.zeros(shape, numpy_dtype(param.element))
        args.append(output)
        if i in positions:
            outputs.append(output)
    return args, outputs


def returned(outputs: list[np.ndarray]) -> np.ndarray | tuple[np.ndarray, ...] | None:
    """What the call returns: nothing, the one output, or a tuple of them."""
    if not outputs:
        return None
    return outputs[0] if len(outputs) == 1 else tuple(outputs)
