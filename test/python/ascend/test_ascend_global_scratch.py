"""Global scratch (`T.alloc_global`) on the ascend target.

A GM buffer that a kernel function allocates itself becomes a trailing
argument with `ascend.scratch` (its dims as expressions over the call's
arguments) that the backend allocates per call; the kernels of the function
run one after the other (an `ascend.sync_all` between them), so what one
writes the next reads. The motivating case is split-KV MLA decode
(examples/mla_decode.py, `num_split > 1`): a mix kernel writes partial
outputs and log-sum-exps, a vector kernel merges them. Every run is in the
simulator, which fails it on a race, a deadlock or an unbalanced flag.
"""

import re

import numpy as np
import pytest
from example_kernels import example

import tilec
import tilec.language as T
from tilec.sim import simulate
from tilec.targets import AscendTarget

pytestmark = pytest.mark.e2e

PROFILES = list(AscendTarget.variants)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize(
    ("shape", "num_split", "dtype", "tolerance"),
    [
        ((1, 16, 100, 64, 16), 2, "float32", 1e-5),  # 4 key tiles: 2 + 2
        ((1, 16, 100, 64, 16), 3, "float32", 1e-5),  # 2 + 2 + 0: the last split has no keys
        ((2, 8, 130, 64, 16), 4, "float32", 1e-5),  # 5 key tiles: 2 + 2 + 1 + 0, ragged
        ((1, 20, 77, 64, 32), 2, "float16", 5e-3),  # 20 heads: a partial head block
        ((2, 16, 300, 64, 32), 3, "bfloat16", 3e-2),
    ],
)
def test_mla_decode_split_kv(profile, shape, num_split, dtype, tolerance):
    """The split kernel (AIC and AIVs) writes O_partial and LSE into scratch
    the merge kernel (AIVs) reads; a split with no keys has weight 0."""
    batch, heads, seqlen_kv, dim, pe_dim = shape
    error = example("mla_decode").check(batch, heads, seqlen_kv, dim, pe_dim, dtype=dtype,
                                        num_split=num_split, block_H=16, block_N=32,
                                        target=f"ascend:{profile}")
    assert error <= tolerance


def test_mla_decode_split_kv_with_a_symbolic_cache_length():
    error = example("mla_decode").check(1, 16, 90, 64, 16, dtype="float32", num_split=4,
                                        dynamic_seq=True, block_H=16, block_N=32,
                                        target="ascend:910b")
    assert error <= 1e-5


def _reversed_through_scratch():
    """Rows doubled into scratch of N rows (a symbolic size) by one kernel,
    copied out by another in the opposite block order, so each block reads
    rows that another core wrote."""
    N = T.dynamic("N")

    @T.prim_func
    def twice(X: T.Tensor((N, 16), "float32"), Y: T.Tensor((N, 16), "float32")):
        scratch = T.alloc_global((N, 16), "float32")
        with T.Kernel(T.ceildiv(N, 8)) as b:
            x = T.alloc_fragment((8, 16), "float32")
            T.copy(X[b * 8, 0], x)
            for i, j in T.Parallel(8, 16):
                x[i, j] = x[i, j] * 2
            T.copy(x, scratch[b * 8, 0])
        with T.Kernel(T.ceildiv(N, 8)) as b:
            y = T.alloc_fragment((8, 16), "float32")
            row = (T.ceildiv(N, 8) - 1 - b) * 8
            T.copy(scratch[row, 0], y)
            T.copy(y, Y[row, 0])

    return twice


@pytest.mark.parametrize("profile", PROFILES)
def test_scratch_of_a_symbolic_size(profile):
    kernel = tilec.compile(_reversed_through_scratch(), target="ascend", profile=profile)
    for rows in (5, 37, 64):  # less than a tile, ragged, aligned: one binary
        x = np.random.default_rng(rows).standard_normal((rows, 16)).astype(np.float32)
        y = np.zeros_like(x)
        kernel(x, y)
        np.testing.assert_array_equal(y, 2 * x)
    text = kernel.ir(kernel.stages()[-1])
    assert 'ascend.scratch = [["dim", 0, 0], 16]' in text
    assert not re.search(r"memref\.alloc\([^\n]*#ascend\.mem<gm>", text)
    assert "memref.dealloc" not in text


def test_the_sync_all_between_the_kernels_orders_the_scratch():
    """Without the barrier between the two kernels, a core reads scratch rows
    another core may not have written yet: the simulator reports the race."""
    kernel = tilec.compile(_reversed_through_scratch(), target="ascend", profile="910b")
    text = kernel.ir(kernel.stages()[-1])
    assert text.count("ascend.sync_all") == 1
    x = np.random.default_rng(0).standard_normal((37, 16)).astype(np.float32)
    scratch = np.zeros_like(x)
    result = simulate(text, [x, np.zeros_like(x), scratch], profile="910b", block_dim=5)
    assert result.ok
    np.testing.assert_array_equal(list(result.outputs.values())[1], 2 * x)
    broken = re.sub(r"\n\s*ascend\.sync_all", "", text)
    result = simulate(broken, [x, np.zeros_like(x), scratch], profile="910b", block_dim=5)
    assert not result.ok
    assert any("race (read-after-write)" in str(d) and "scratch0" in str(d)
               for d in result.diagnostics)


def _read_unwritten_scratch():
    @T.prim_func
    def peek(Y: T.Tensor((8, 16), "float32")):
        scratch = T.alloc_global((8, 16), "float32")
        with T.Kernel(1):
            y = T.alloc_fragment((8, 16), "float32")
            T.copy(scratch[0, 0], y)
            T.copy(y, Y)

    return peek


def test_scratch_is_not_initialized_as_on_cpu():
    """On cpu, T.alloc_global is a plain `malloc` (its lowering neither
    zeroes nor fills it), so a kernel may not rely on its contents; the
    simulator gives it all-ones bytes (NaN here), so such a kernel gets
    garbage on ascend, never zeros that happen to be right."""
    cpu = tilec.compile(_read_unwritten_scratch(), target="cpu")
    llvm = cpu.ir(cpu.stages()[-1])
    assert re.search(r"llvm\.call @malloc", llvm)
    assert not re.search(r"calloc|memset", llvm)
    kernel = tilec.compile(_read_unwritten_scratch(), target="ascend", profile="910b")
    y = np.zeros((8, 16), np.float32)
    kernel(y)
    assert np.isnan(y).all()


@pytest.mark.parametrize("profile", PROFILES)
def test_each_call_gets_its_own_scratch(profile):
    """Scratch is allocated per call, sized from that call's arguments: a
    second call with other rows sees none of the first call's values."""
    kernel = tilec.compile(_reversed_through_scratch(), target="ascend", profile=profile)
    x = np.ones((40, 16), np.float32)
    kernel(x, np.zeros_like(x))
    x = np.arange(24 * 16, dtype=np.float32).reshape(24, 16)
    y = np.zeros_like(x)
    kernel(x, y)
    np.testing.assert_array_equal(y, 2 * x)


def test_the_ascendc_launcher_documents_the_scratch():
    """The AscendC output still emits: the scratch is a GM argument whose
    byte size the launcher states in terms of the host's arguments."""
    kernel = tilec.compile(_reversed_through_scratch(), target="ascend", profile="910b")
    source = kernel.source()
    assert "GM_ADDR scratch0" in source
    assert "// scratch0: a GM buffer of N * 16 * 4 bytes (not initialized" in source
    assert ("void launch_twice(uint32_t blockDim, aclrtStream stream, uint8_t* X, uint8_t* Y, "
            "uint8_t* scratch0, int64_t N)") in source
    assert "SyncAll" in source


def _first_of_each_row():
    """Scratch of ceildiv(N, 8) rows (a dim expression): row b holds X[8b:8b+8]."""
    N = T.dynamic("N")
    rows = T.ceildiv(N, 8)

    @T.prim_func
    def firsts(X: T.Tensor((N,), "float32"), Y: T.Tensor((rows,), "float32")):
        scratch = T.alloc_global((rows, 8), "float32")
        with T.Kernel(rows) as b:
            t = T.alloc_fragment((8,), "float32")
            T.copy(X[b * 8], t)
            T.copy(t, scratch[b, 0])
        with T.Kernel(rows) as b:
            first = T.alloc_fragment((1,), "float32")
            T.copy(scratch[b, 0:1], first)
            T.copy(first, Y[b])

    return firsts


@pytest.mark.parametrize("profile", PROFILES)
def test_scratch_sized_by_a_dim_expression(profile):
    kernel = tilec.compile(_first_of_each_row(), target="ascend", profile=profile)
    for n in (21, 64, 3):
        x = np.random.default_rng(n).standard_normal(n).astype(np.float32)
        y = np.zeros(-(-n // 8), np.float32)
        kernel(x, y)
        np.testing.assert_array_equal(y, x[::8])
    text = kernel.ir(kernel.stages()[-1])
    assert 'ascend.scratch = [["arith.ceildivsi", ["dim", 0, 0], 8], 8]' in text
    # The launcher computes the dim no argument has from the host's N.
    source = kernel.source()
    assert "// scratch0: a GM buffer of ((N + 8 - 1) / 8) * 8 * 4 bytes" in source
    assert "    int64_t scratch0_dim0 = ((N + 8 - 1) / 8);" in source
