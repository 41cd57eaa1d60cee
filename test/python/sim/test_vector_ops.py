"""Every vector op against numpy, on UB buffers loaded from and stored to GM."""

from __future__ import annotations

import numpy as np
import pytest

from tilec.sim import simulate
from tilec.sim.dtypes import ELEMENT_TYPES

ROWS, COLS = 4, 64


def _type(shape: tuple[int, ...], element: str, space: str) -> str:
    return f"memref<{'x'.join(map(str, shape))}x{element}, #ascend.mem<{space}>>"


def vector_kernel(inputs: dict, outputs: dict, body: str, scalars: dict | None = None) -> str:
    """A kernel that loads `inputs` (name -> (shape, element type)) into UB
    buffers %u_NAME, runs `body` (with `{NAME}` standing for the UB type of
    buffer NAME; one op a line), and stores `outputs` back to GM."""
    scalars = scalars or {}
    buffers = {**inputs, **outputs}
    ub = {name: _type(shape, element, "ub") for name, (shape, element) in buffers.items()}
    gm = {name: _type(shape, element, "gm") for name, (shape, element) in buffers.items()}
    params = [f"%{name}: {gm[name]}" for name in buffers] + [
        f"%{name}: {t}" for name, t in scalars.items()]
    zeros = lambda shape: ", ".join(["%c0"] * len(shape))  # noqa: E731
    lines = [f"func.func @k({', '.join(params)})",
             "    attributes {ascend.kernel = #ascend.core<aiv>} {",
             "  %c0 = arith.constant 0 : index"]
    lines += [f"  %u_{name} = memref.alloc() : {ub[name]}" for name in buffers]
    for name, (shape, _) in inputs.items():
        sizes = ", ".join(map(str, shape))
        lines.append(f"  ascend.copy %{name}[{zeros(shape)}], %u_{name}[{zeros(shape)}] "
                     f"sizes [{sizes}] : {gm[name]}, {ub[name]}")
    lines += ["  ascend.set_flag mte2 -> v, 0", "  ascend.wait_flag mte2 -> v, 0"]
    # the 910b's vector pipe overlaps dependent ops: a barrier between every two
    lines += ["  " + line for line in "\nascend.pipe_barrier v\n".join(
        body.format(**ub).strip().split("\n")).split("\n")]
    lines += ["  ascend.set_flag v -> mte3, 0", "  ascend.wait_flag v -> mte3, 0"]
    for name, (shape, _) in outputs.items():
        sizes = ", ".join(map(str, shape))
        lines.append(f"  ascend.copy %u_{name}[{zeros(shape)}], %{name}[{zeros(shape)}] "
                     f"sizes [{sizes}] : {ub[name]}, {gm[name]}")
    lines += ["  return", "}"]
    return "\n".join(lines)


RNG = np.random.default_rng(3)
A = RNG.standard_normal((ROWS, COLS)).astype(np.float32)
B = RNG.standard_normal((ROWS, COLS)).astype(np.float32)
S = np.float32(0.75)
MATRIX = ((ROWS, COLS), "f32")


def run_binary(body: str, out_shape=(ROWS, COLS), out_type: str = "f32"):
    text = vector_kernel({"a": MATRIX, "b": MATRIX}, {"out": (out_shape, out_type)}, body,
                         {"s": "f32"})
    result = simulate(text, [A, B, np.zeros(out_shape, ELEMENT_TYPES[out_type].storage), S])
    assert result.ok, "\n".join(d.render() for d in result.diagnostics)
    return result["out"]


@pytest.mark.parametrize(("kind", "fn"), [
    ("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide),
    ("max", np.maximum), ("min", np.minimum)])
def test_vbin(kind: str, fn) -> None:
    out = run_binary(f"ascend.vbin {kind} %u_out, %u_a, %u_b : {{out}}")
    np.testing.assert_array_equal(out, fn(A, B))


@pytest.mark.parametrize(("kind", "fn"), [
    ("adds", np.add), ("muls", np.multiply), ("maxs", np.maximum), ("mins", np.minimum)])
def test_vbins(kind: str, fn) -> None:
    out = run_binary(f"ascend.vbins {kind} %u_out, %u_a, %s : {{out}}, f32")
    np.testing.assert_array_equal(out, fn(A, S))


@pytest.mark.parametrize(("kind", "fn"), [
    ("exp", np.exp), ("ln", np.log), ("abs", np.abs), ("sqrt", np.sqrt),
    ("rsqrt", lambda x: 1 / np.sqrt(x)), ("relu", lambda x: np.maximum(x, 0)),
    ("rec", lambda x: 1 / x), ("neg", np.negative)])
def test_vunary(kind: str, fn) -> None:
    out = run_binary(f"ascend.vunary {kind} %u_out, %u_a : {{out}}")
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(out, fn(A), rtol=1e-6, equal_nan=True)


def test_vdup() -> None:
    out = run_binary("ascend.vdup %u_out, %s : {out}, f32")
    np.testing.assert_array_equal(out, np.full((ROWS, COLS), S))


@pytest.mark.parametrize(("kind", "fn"), [("sum", np.sum), ("max", np.max), ("min", np.min)])
@pytest.mark.parametrize("shape", [(ROWS,), (ROWS, 1)])
def test_vreduce_rows(kind: str, fn, shape: tuple[int, ...]) -> None:
    out = run_binary(f"ascend.vreduce {kind} %u_out, %u_a : {{out}}, {{a}}", out_shape=shape)
    np.testing.assert_allclose(out.reshape(ROWS), fn(A, axis=-1), rtol=1e-6)


def test_vbrcb_and_a_softmax() -> None:
    """softmax of each row: max, broadcast, subtract, exp, sum, reciprocal, scale."""
    body = """
ascend.vreduce max %u_m, %u_a : {m}, {a}
ascend.vbrcb %u_w, %u_m : {w}, {m}
ascend.vbin sub %u_out, %u_a, %u_w : {out}
ascend.vunary exp %u_out, %u_out : {out}
ascend.vreduce sum %u_m, %u_out : {m}, {out}
ascend.vunary rec %u_m, %u_m : {m}
ascend.vbrcb %u_w, %u_m : {w}, {m}
ascend.vbin mul %u_out, %u_out, %u_w : {out}
"""
    text = vector_kernel({"a": MATRIX}, {"out": MATRIX, "m": ((ROWS,), "f32"), "w": MATRIX},
                         body)
    result = simulate(text, [A, np.zeros_like(A), np.zeros(ROWS, np.float32), np.zeros_like(A)])
    assert result.ok
    e = np.exp(A - A.max(axis=1, keepdims=True))
    np.testing.assert_allclose(result["out"], e / e.sum(axis=1, keepdims=True), rtol=1e-6)


@pytest.mark.parametrize("mask_type", ["i1", "i8"])
def test_vcmp_and_vsel(mask_type: str) -> None:
    body = """
ascend.vcmp lt %u_mask, %u_a, %u_b : {mask}, {a}
ascend.vsel %u_out, %u_mask, %u_a, %u_b : {out}, {mask}
"""
    text = vector_kernel({"a": MATRIX, "b": MATRIX},
                         {"out": MATRIX, "mask": ((ROWS, COLS), mask_type)}, body)
    mask_storage = ELEMENT_TYPES[mask_type].storage
    result = simulate(text, [A, B, np.zeros_like(A), np.zeros((ROWS, COLS), mask_storage)])
    assert result.ok
    np.testing.assert_array_equal(result["out"], np.minimum(A, B))
    np.testing.assert_array_equal(result["mask"], A < B)


@pytest.mark.parametrize(("mode", "fn"), [
    ("rint", np.rint), ("floor", np.floor), ("ceil", np.ceil), ("trunc", np.trunc),
    ("round", lambda x: np.sign(x) * np.floor(np.abs(x) + 0.5))])
def test_vcast_to_int_rounds(mode: str, fn) -> None:
    values = np.array([[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 2.4, -2.6] * 8] * ROWS, np.float32)
    text = vector_kernel({"a": MATRIX}, {"out": ((ROWS, COLS), "i32")},
                         f"ascend.vcast %u_out, %u_a round {mode} : {{out}}, {{a}}")
    result = simulate(text, [values, np.zeros((ROWS, COLS), np.int32)])
    np.testing.assert_array_equal(result["out"], fn(values).astype(np.int32))


@pytest.mark.parametrize("target", ["f16", "bf16"])
def test_vcast_narrowing_rounds_to_nearest_even(target: str) -> None:
    text = vector_kernel({"a": MATRIX}, {"out": ((ROWS, COLS), target)},
                         "ascend.vcast %u_out, %u_a round rint : {out}, {a}")
    element = ELEMENT_TYPES[target]
    result = simulate(text, [A, np.zeros((ROWS, COLS), element.storage)])
    expected = element.values(element.store(A))
    np.testing.assert_array_equal(result["out"], expected)
    assert np.abs(result["out"] - A).max() <= np.abs(A).max() * (2.0 ** -8 if target == "bf16"
                                                                  else 2.0 ** -11)


def test_bf16_arithmetic_rounds_each_result() -> None:
    bf16 = ELEMENT_TYPES["bf16"]
    matrix = ((ROWS, COLS), "bf16")
    text = vector_kernel({"a": matrix, "b": matrix}, {"out": matrix},
                         "ascend.vbin add %u_out, %u_a, %u_b : {out}")
    result = simulate(text, [A, B, np.zeros((ROWS, COLS), np.float32)])
    a, b = bf16.values(bf16.store(A)), bf16.values(bf16.store(B))
    np.testing.assert_array_equal(result["out"], bf16.values(bf16.store(a + b)))


def test_vector_cost_splits_at_255_repeats() -> None:
    """A 64 KiB f32 add is 256 repeats of 256 bytes: two instructions."""
    from tilec.sim import get_profile

    p = get_profile("910b")
    big = ((128, 128), "f32")
    text = vector_kernel({"a": big}, {"out": big}, "ascend.vbin add %u_out, %u_a, %u_a : {out}")
    x = np.ones((128, 128), np.float32)
    result = simulate(text, [x, np.zeros_like(x)], profile=p)
    assert result.pipe_busy["V"] == 2 * p.startup_cycles["v"] + 256 * p.vector_cycles_per_repeat
