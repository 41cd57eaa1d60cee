"""Python control flow in kernels: `if`/`elif`/`else`, `and`/`or`/`not`, conditional
expressions and chained comparisons on traced values become `scf.if` and boolean
ops; on Python values they are Python's. T.alloc_var is a mutable scalar.

The IR tests check the structure and locations; the cpu tests run TileLang's
patterns (guarded stores, block-sparse skips, per-group bounds) against numpy.
"""

import numpy as np
import pytest
from dsl_helpers import build, ops, tagged_col, tagged_line

import tilec
import tilec.language as T

F = __file__
RNG = np.random.default_rng(2)


def names_in(module) -> list[str]:
    return [info.name for info in ops(module)]


# -- IR structure ---------------------------------------------------------------------


def test_if_elif_else_become_nested_scf_if_at_the_if_line(context):
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), n: T.int32):
        with T.Kernel(1):
            for i in T.Parallel(64):
                if i < n:  # if
                    A[i] = 1.0
                elif i == n:  # elif
                    A[i] = 2.0
                else:
                    A[i] = 3.0

    module = build(k)
    ifs = [info for info in ops(module) if info.name == "scf.if"]
    assert [(i.line, i.col) for i in ifs] == [
        (tagged_line(F, "if"), tagged_col(F, "if", "if i")),
        (tagged_line(F, "elif"), tagged_col(F, "elif", "elif")),
    ]
    outer, inner = (info.op for info in ifs)
    assert len(outer.regions[1].blocks) == 1 and len(inner.regions[1].blocks) == 1
    # Each branch is traced once: one store per branch, in its own region.
    assert names_in(module).count("memref.store") == 3
    assert inner.parent.name == "scf.if"


def test_if_on_python_values_runs_only_the_branch_taken(context):
    def kernel_for(dtype: str) -> T.PrimFunc:
        @T.prim_func
        def k(A: T.Tensor((64,), dtype)):
            with T.Kernel(1):
                for i in T.Parallel(64):
                    if dtype == "float32" and not False:
                        A[i] = 1.5
                    else:
                        A[i] = 2

        return k

    for dtype in ("float32", "int32"):
        names = names_in(build(kernel_for(dtype)))
        assert "scf.if" not in names
        assert names.count("memref.store") == 1


def test_and_or_short_circuit_like_c(context):
    @T.prim_func
    def k(A: T.Tensor(("N",), "float32"), n: T.int32):
        with T.Kernel(1):
            for i in T.Parallel(64):
                if i < n and A[i] > 0:  # and
                    A[i] = 0.0
                A[i] = T.if_then_else(i < 2 or A[i] < 0, 1.0, A[i])  # or

    module = build(k)
    typed_ifs = [info for info in ops(module) if info.name == "scf.if" and info.op.results]
    assert [(i.line, str(i.op.results[0].type)) for i in typed_ifs] == [
        (tagged_line(F, "and"), "i1"),
        (tagged_line(F, "or"), "i1"),
    ]
    # The load of A[i] in `i < n and A[i] > 0` happens only where i < n.
    first = typed_ifs[0].op
    then_ops = [op.name for op in first.regions[0].blocks[0].operations]
    else_ops = [op.name for op in first.regions[1].blocks[0].operations]
    assert "memref.load" in then_ops
    assert else_ops == ["arith.constant", "scf.yield"]
    # `or`: the then-branch is `true`, the operand is evaluated in the else-branch.
    second = typed_ifs[1].op
    assert "memref.load" in [op.name for op in second.regions[1].blocks[0].operations]


def test_not_conditional_expression_and_chained_comparison(context):
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), lo: T.int32, hi: T.int32):
        with T.Kernel(1):
            for i in T.Parallel(64):
                A[i] = 1.0 if not lo <= i < hi else 0.0  # mixed

    text = str(build(k))
    assert "arith.select" in text  # `x if c else y` on a symbolic c
    assert "arith.xori" in text  # not
    assert text.count("arith.cmpi sle") == 1 and text.count("arith.cmpi slt") == 1


def test_numbers_are_true_when_not_zero(context):
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), Mask: T.Tensor((64,), "int32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                if Mask[i]:
                    A[i] = 0.0

    text = str(build(k))
    assert "arith.cmpi ne" in text and "scf.if" in text


def test_if_around_tile_ops_in_a_pipelined_body(context):
    @T.prim_func
    def k(A: T.Tensor((64, 64), "float16"), Mask: T.Tensor((4,), "bool")):
        with T.Kernel(1):
            a = T.alloc_shared((64, 16), "float16")
            c = T.alloc_fragment((64, 64), "float32")
            for k in T.Pipelined(4, num_stages=2):
                if Mask[k]:
                    T.copy(A[0, k * 16], a)
                    T.gemm(a, a, c, transpose_B=True)

    module = build(k)
    (branch,) = [info.op for info in ops(module) if info.name == "scf.if"]
    assert branch.parent.name == "tile.pipelined"
    inside = [op.name for op in branch.regions[0].blocks[0].operations]
    assert "tile.copy" in inside and "tile.gemm" in inside


def test_macro_helpers_are_rewritten_too(context):
    @T.macro
    def clamp_store(buf, i, value, limit):
        if value > limit:
            buf[i] = limit
        else:
            buf[i] = value

    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                clamp_store(A, i, A[i], 1.0)

    assert names_in(build(k)).count("scf.if") == 1


@T.macro
def _add_times(buf, n):
    """A recursive macro at module level: its own name is a global."""
    if n > 0:
        buf[0] = buf[0] + 1.0
        _add_times(buf, n - 1)


def test_recursive_macros_unroll_on_python_values():
    """A macro that calls itself under a Python `if` (issue 22: a KeyError in the
    rewrite, which bound the macro's name to the rewritten function), at module level
    and as a closure."""

    @T.macro
    def nested(buf, n):
        if n > 0:
            buf[1] = buf[1] + 2.0
            nested(buf, n - 1)

    @T.prim_func
    def k(A: T.Tensor((4,), "float32")):
        with T.Kernel(1, threads=1):
            _add_times(A, 3)
            nested(A, 4)

    a = np.zeros(4, np.float32)
    tilec.compile(k, target="cpu")(a)
    np.testing.assert_array_equal(a, [3.0, 8.0, 0.0, 0.0])


def test_alloc_var_assignments_store(context):
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), n: T.int32):
        with T.Kernel(1):
            acc = T.alloc_var("float32")  # var
            acc = 0  # store-zero
            for i in T.serial(n):
                acc += A[i]
            acc = acc * 2.0
            other = acc  # a second name for the var reads it
            A[0] = other

    module = build(k)
    stores = [info for info in ops(module) if info.name == "memref.store"]
    assert stores[0].line == tagged_line(F, "store-zero")
    assert len(stores) == 4
    allocs = [info for info in ops(module) if info.name == "tile.alloc"]
    assert len(allocs) == 1 and allocs[0].line == tagged_line(F, "var")


def test_assigning_a_var_to_a_var_stores_its_value():
    """`a = b` with both T.alloc_var stores b's value into a (it once rebound the name,
    so a loop that carries `a` read b's later values: a silently wrong result)."""

    @T.prim_func
    def carried(Out: T.Tensor((4,), "int32")):
        with T.Kernel(1, threads=1):
            a = T.alloc_var("int32", init=0)
            b = T.alloc_var("int32", init=0)
            for i in T.serial(4):
                Out[i] = a
                b = i + 10
                a = b
            b = 99  # a keeps its own value
            Out[3] = Out[3] + a - 13

    out = np.zeros(4, np.int32)
    tilec.compile(carried)(out)
    np.testing.assert_array_equal(out, [0, 10, 11, 12])


def test_alloc_var_arguments_as_tilelang_takes_them(context):
    @T.prim_func
    def k(A: T.Tensor((64,), "int32")):
        with T.Kernel(1):
            a = T.alloc_var("int32", 1)
            b = T.alloc_var("int32", "local.var")
            c = T.alloc_var("int32", 2, "local.var")
            d = T.alloc_var(T.int32, init=3)
            A[0] = a + b + c + d

    assert names_in(build(k)).count("memref.store") == 4


# -- on cpu, against numpy ----------------------------------------------------------------


def test_guarded_store_in_parallel_on_ragged_sizes():
    N = T.symbolic("N")

    @T.prim_func
    def relu_tail(X: T.Tensor((N,), "float32"), Y: T.Tensor((N,), "float32"), n: T.int32):
        with T.Kernel(T.ceildiv(N, 64)) as bx:
            for i in T.Parallel(64):
                g = bx * 64 + i
                if g < n and X[g] > 0:
                    Y[g] = X[g]
                elif g < n:
                    Y[g] = X[g] * 0.125
                else:
                    Y[g] = -1.0

    kernel = tilec.compile(relu_tail)
    for size in (1, 63, 150):
        x = RNG.standard_normal(size).astype(np.float32)
        y = np.full(size + 7, 9.0, np.float32)[:size]
        n = size - size // 3
        kernel(x, y, n)
        index = np.arange(size)
        expected = np.where(index < n, np.where(x > 0, x, x * 0.125), -1.0)
        np.testing.assert_array_equal(y, expected.astype(np.float32))


def test_block_sparse_gemm_skips_tiles_in_a_pipelined_body():
    block_M, block_N, block_K = 32, 32, 16
    M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")

    @T.prim_func
    def blocksparse(
        A: T.Tensor((M, K), "float16"),
        B: T.Tensor((K, N), "float16"),
        # TileLang's mask is "bool"; cpu has no i1 tensors, and a number is a condition too.
        BlockMask: T.Tensor(("MB", "NB", "KB"), "int8"),
        C: T.Tensor((M, N), "float32"),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), "float16")
            B_shared = T.alloc_shared((block_K, block_N), "float16")
            C_local = T.alloc_fragment((block_M, block_N), "float32")
            T.clear(C_local)
            for k in T.Pipelined(T.ceildiv(K, block_K), num_stages=2):
                if BlockMask[by, bx, k]:
                    T.copy(A[by * block_M, k * block_K], A_shared)
                    T.copy(B[k * block_K, bx * block_N], B_shared)
                    T.gemm(A_shared, B_shared, C_local)
            T.copy(C_local, C[by * block_M, bx * block_N])

    m, n, k = 70, 50, 40
    a = RNG.standard_normal((m, k)).astype(np.float16)
    b = RNG.standard_normal((k, n)).astype(np.float16)
    mask = (RNG.random((3, 2, 3)) > 0.5).astype(np.int8)
    c = np.zeros((m, n), np.float32)
    tilec.compile(blocksparse)(a, b, mask, c)
    expected = np.zeros((m, n), np.float32)
    for i in range(3):
        for j in range(2):
            for kk in range(3):
                if mask[i, j, kk]:
                    rows, cols, inner = (
                        slice(i * 32, (i + 1) * 32),
                        slice(j * 32, (j + 1) * 32),
                        slice(kk * 16, (kk + 1) * 16),
                    )
                    expected[rows, cols] += a[rows, inner].astype(np.float32) @ b[
                        inner, cols
                    ].astype(np.float32)
    np.testing.assert_allclose(c, expected, rtol=1e-4, atol=1e-4)


def test_alloc_var_accumulates_and_finds_the_group_of_a_block():
    @T.prim_func
    def groups(
        Offsets: T.Tensor((5,), "int32"),
        Sums: T.Tensor(("G",), "float32"),
        X: T.Tensor(("N",), "float32"),
        Group: T.Tensor(("B",), "int32"),
    ):
        with T.Kernel(Group.shape[0]) as bx:
            # Which group block bx falls in, as TileLang's grouped gemm computes it.
            group = T.alloc_var(T.int32)
            group = 0
            for g in range(4):
                if bx * 8 >= Offsets[g + 1]:
                    group = g + 1
            Group[bx] = group
        with T.Kernel(Sums.shape[0]) as g:
            total = T.alloc_var("float32", init=0)
            for i in T.serial(Offsets[g], Offsets[g + 1]):
                if X[i] > 0 or i == Offsets[g]:
                    total += X[i]
            Sums[g] = total

    offsets = np.array([0, 8, 24, 40, 53], np.int32)
    x = RNG.standard_normal(53).astype(np.float32)
    sums, group = np.zeros(4, np.float32), np.zeros(7, np.int32)
    tilec.compile(groups)(offsets, sums, x, group)
    np.testing.assert_array_equal(group, np.searchsorted(offsets[1:], np.arange(7) * 8, "right"))
    for g in range(4):
        part = x[offsets[g] : offsets[g + 1]]
        expected = part[0] + part[1:][part[1:] > 0].sum()
        np.testing.assert_allclose(sums[g], expected, rtol=1e-5)


# -- the rewrite keeps Python's meaning ------------------------------------------------------


def test_rewrite_keeps_python_semantics_of_python_values():
    from tilec.language import control
    from tilec.language.rewrite import rewrite

    scale = 3

    def plain(a, b=2, *, c=None):
        values = [x for x in range(6) if x % 2 and not x > 4]
        first = a or b
        both = a and b
        picked = "big" if a > b else "small"
        chained = 0 <= a < b <= 10
        if (n := len(values)) > 1 and n < 5:
            n += scale
        elif c is not None:
            n = -1
        else:
            return None
        return values, first, both, picked, chained, n, c

    rewritten = rewrite(plain, control)
    assert rewritten is not None and rewritten.__code__ is not plain.__code__
    for args, kwargs in [((0,), {}), ((1, 5), {"c": 4}), ((7, 1), {})]:
        assert rewritten(*args, **kwargs) == plain(*args, **kwargs)

    def nothing_to_rewrite(a):
        return a + scale

    assert rewrite(nothing_to_rewrite, control) is None


def test_kernels_without_source_are_traced_as_written():
    namespace = {"T": T}
    exec(
        "@T.prim_func\n"
        "def k(A: T.Tensor((64,), 'float32'), n: T.int32):\n"
        "    with T.Kernel(1):\n"
        "        if n > 0:\n"
        "            A[0] = 1.0\n",
        namespace,
    )
    with pytest.raises(T.DSLError, match="no Python truth value"):
        namespace["k"].ir()
