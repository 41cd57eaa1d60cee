"""T.Tensor dims that are expressions of symbolic dims (`T.ceildiv(K, 128)`, `2 * N`,
`M // 2`), as TileLang's shapes are: dynamic in the memref, the expression's value in
the kernel, checked at every call against the sizes the other arguments give, kept
through the disk cache and tilec.jit's specializations, and allocated for outputs."""

from __future__ import annotations

import json

import numpy as np
import pytest
from dsl_helpers import expect_error, tagged_col

import tilec
import tilec.language as T
from tilec.runtime import cache, dim_exprs
from tilec.runtime.signature import ArgumentError, Param

F = __file__
RNG = np.random.default_rng(7)
M, N, K = T.symbolic("M"), T.symbolic("N"), T.symbolic("K")
GROUP = 128
BLOCK_M = 32


@T.prim_func
def scaled_row_sums(
    A: T.Tensor((M, K), "float32"),
    S: T.Tensor((M, T.ceildiv(K, GROUP)), "float32"),
    O: T.Tensor((M,), "float32"),  # noqa: E741 - the output
):
    """O[m] = sum over k of A[m, k] * S[m, k // 128]: an FP8 activation's per-token,
    per-128-group scale applied to its row sums, walking S's own dim."""
    with T.Kernel(T.ceildiv(M, BLOCK_M)) as bx:
        a = T.alloc_fragment((BLOCK_M, GROUP), "float32")
        part = T.alloc_fragment((BLOCK_M,), "float32")
        total = T.alloc_fragment((BLOCK_M,), "float32")
        T.clear(total)
        for g in T.serial(S.shape[1]):
            T.copy(A[bx * BLOCK_M, g * GROUP], a)
            T.reduce_sum(a, part, dim=1)
            for i in T.Parallel(BLOCK_M):
                total[i] += part[i] * S[bx * BLOCK_M + i, g]
        T.copy(total, O[bx * BLOCK_M])


def _scaled_inputs(rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    a = RNG.standard_normal((rows, cols)).astype(np.float32)
    s = (2.0 ** RNG.integers(-4, 5, (rows, -(-cols // GROUP)))).astype(np.float32)
    return a, s


def _scaled_reference(a: np.ndarray, s: np.ndarray) -> np.ndarray:
    return (a.astype(np.float64) * np.repeat(s, GROUP, axis=1)[:, : a.shape[1]]).sum(1)


def test_the_dim_is_dynamic_and_names_its_expression():
    text = scaled_row_sums.ir()
    assert 'memref<?x?xf32> {tile.dims = ["M", "ceildiv(K, 128)"], tile.name = "S"}' in text
    # In the kernel it is computed from K, A's dim, where S is declared.
    assert "arith.ceildivsi" in text


@pytest.mark.parametrize("shape", [(70, 300), (32, 128), (5, 129), (1, 1000)])
def test_fp8_scale_like_row_sums(shape):
    kernel = tilec.compile(scaled_row_sums)
    a, s = _scaled_inputs(*shape)
    o = np.zeros(shape[0], np.float32)
    kernel(a, s, o)
    np.testing.assert_allclose(o, _scaled_reference(a, s), rtol=1e-5, atol=1e-4)


def test_a_call_with_the_wrong_derived_dim_names_argument_dim_expression_and_values():
    kernel = tilec.compile(scaled_row_sums)
    a, s = _scaled_inputs(5, 129)
    with pytest.raises(ArgumentError) as info:
        kernel(a, np.zeros((5, 3), np.float32), np.zeros(5, np.float32))
    assert str(info.value) == (
        "argument 'S' expects dim 1 to be ceildiv(K, 128) = 2, with K = 129 from argument 'A', "
        "but got 3 (shape (5, 3))"
    )
    # The plain dim M is checked as before.
    with pytest.raises(ArgumentError, match="argument 'S' has M = 4 but argument 'A' has M = 5"):
        kernel(a, s[:4], np.zeros(5, np.float32))


def test_a_derived_dim_that_divides_by_a_zero_size_is_refused_at_the_call():
    @T.prim_func
    def quotient(A: T.Tensor((M, N), "float32"), Q: T.Tensor((M // N,), "float32")):
        with T.Kernel(1):
            for i in T.serial(Q.shape[0]):
                Q[i] = 1.0

    kernel = tilec.compile(quotient)
    q = np.zeros(3, np.float32)
    kernel(np.zeros((7, 2), np.float32), q)
    np.testing.assert_array_equal(q, 1.0)
    with pytest.raises(ArgumentError) as info:
        kernel(np.zeros((7, 0), np.float32), q)
    assert str(info.value) == (
        "argument 'Q' has dim 0 = M // N, which divides by zero with M = 7 from argument 'A', "
        "N = 0 from argument 'A'"
    )


BATCH, HEADS, SEQ = T.symbolic("batch, heads, seq")
SPLIT_BLOCK = 16


@T.prim_func
def split_max(
    X: T.Tensor((BATCH, HEADS, SEQ), "float32"),
    Partial: T.Tensor((BATCH, HEADS, T.ceildiv(SEQ, SPLIT_BLOCK)), "float32"),
    Out: T.Tensor((BATCH, HEADS), "float32"),
):
    """Split-KV style: one block per (split, head, batch) writes the maximum of its
    part of the sequence into a scratch tensor; a second kernel combines the splits."""
    with T.Kernel(T.ceildiv(SEQ, SPLIT_BLOCK), HEADS, BATCH) as (s, h, b):
        x = T.alloc_fragment((SPLIT_BLOCK,), "float32")
        m = T.alloc_fragment((1,), "float32")
        for i in T.Parallel(SPLIT_BLOCK):
            x[i] = T.if_then_else(
                s * SPLIT_BLOCK + i < SEQ, X[b, h, s * SPLIT_BLOCK + i], -T.infinity("float32")
            )
        T.reduce_max(x, m, dim=0)
        Partial[b, h, s] = m[0]
    with T.Kernel(HEADS, BATCH) as (h, b):
        best = T.alloc_var("float32", init=-T.infinity("float32"))
        for s in T.serial(Partial.shape[2]):
            best = T.max(best, Partial[b, h, s])
        Out[b, h] = best


@pytest.mark.parametrize("shape", [(2, 3, 50), (1, 1, 16), (3, 2, 1)])
def test_split_scratch(shape):
    batch, heads, seq = shape
    x = RNG.standard_normal(shape).astype(np.float32)
    splits = -(-seq // SPLIT_BLOCK)
    partial = np.full((batch, heads, splits), np.nan, np.float32)
    out = np.zeros((batch, heads), np.float32)
    tilec.compile(split_max)(x, partial, out)
    padded = np.full((batch, heads, splits * SPLIT_BLOCK), -np.inf, np.float32)
    padded[..., :seq] = x
    np.testing.assert_array_equal(partial, padded.reshape(batch, heads, splits, -1).max(-1))
    np.testing.assert_array_equal(out, x.max(-1))


@T.prim_func
def interleave(
    X: T.Tensor((N,), "float32"),
    Y: T.Tensor((2 * N,), "float32"),
    Pairs: T.Tensor((N // 2,), "float32"),
    Head: T.Tensor((T.min(N, 8),), "float32"),
    Tail: T.Tensor((N % 3 + 1,), "float32"),
):
    """Y = X and -X interleaved; Pairs[i] = X[2i] + X[2i + 1]; Head = X[:8]; Tail the
    last N % 3 elements, then N. Every loop runs over the derived dim's own size."""
    with T.Kernel(1):
        for i in T.serial(Y.shape[0]):
            Y[i] = T.if_then_else(i % 2 == 0, X[i // 2], -X[i // 2])
        for i in T.serial(Pairs.shape[0]):
            Pairs[i] = X[2 * i] + X[2 * i + 1]
        for i in T.serial(Head.shape[0]):
            Head[i] = X[i]
        for i in T.serial(Tail.shape[0] - 1):
            Tail[i] = X[N - N % 3 + i]
        Tail[Tail.shape[0] - 1] = T.cast(N, "float32")


@pytest.mark.parametrize("n", [1, 7, 8, 20])
def test_products_quotients_remainders_and_minimums(n):
    x = RNG.standard_normal(n).astype(np.float32)
    y, pairs = np.zeros(2 * n, np.float32), np.zeros(n // 2, np.float32)
    head, tail = np.zeros(min(n, 8), np.float32), np.zeros(n % 3 + 1, np.float32)
    tilec.compile(interleave)(x, y, pairs, head, tail)
    np.testing.assert_array_equal(y, np.stack([x, -x], 1).reshape(-1))
    np.testing.assert_array_equal(pairs, x[: n // 2 * 2].reshape(-1, 2).sum(1))
    np.testing.assert_array_equal(head, x[:8])
    np.testing.assert_array_equal(tail, np.append(x[n - n % 3 :], np.float32(n)))


def test_a_dim_used_only_inside_expressions_is_an_error_at_its_annotation():
    def unrecoverable(
        A: T.Tensor((M, N), "float32"),
        S: T.Tensor((M, T.ceildiv(K, 128)), "float32"),  # unrecoverable
    ):
        pass

    err = expect_error(
        lambda: T.prim_func(unrecoverable),
        F,
        "unrecoverable",
        "T.Tensor dim 1 of 'S' is ceildiv(K, 128), but dim 'K' is not a dim of any tensor "
        "parameter by itself, so it cannot be recovered from the arguments",
    )
    assert err.loc.col == tagged_col(F, "unrecoverable", "T.Tensor")


def test_operations_a_dim_cannot_be_computed_with_are_errors_at_their_line():
    expect_error(
        lambda: M / 2,  # true-division
        F,
        "true-division",
        "'/' on symbolic dims outside a kernel: a T.Tensor dim computed from symbolic dims "
        "may use + - * // % T.ceildiv T.min T.max on them and on ints",
    )
    expect_error(lambda: M * 1.5, F, "float-factor", "but got float 1.5")  # float-factor
    expect_error(lambda: T.ceildiv(K, 0), F, "zero", "integer division by zero")  # zero
    expect_error(
        lambda: M < 4,  # comparison
        F,
        "comparison",
        "symbolic dim 'M' can only be used inside the body of a @T.prim_func kernel, or in a "
        "T.Tensor dim as + - * // % T.ceildiv T.min T.max of symbolic dims and ints",
    )


def test_an_expression_defined_outside_the_kernel_has_its_value_inside():
    groups = T.ceildiv(K, 4)  # not the dim of any tensor: computed where it is used

    @T.prim_func
    def count_groups(A: T.Tensor((K,), "float32"), Out: T.Tensor((1,), "int32")):
        with T.Kernel(1):
            Out[0] = groups * 10

    out = np.zeros(1, np.int32)
    tilec.compile(count_groups)(np.zeros(9, np.float32), out)
    assert out[0] == 30


GROUPS = T.ceildiv(K, 4)


@T.prim_func
def group_sums(A: T.Tensor((M, K), "float32")):
    """A T.empty output whose dim is an expression: the caller allocates it."""
    Sums = T.empty((M, GROUPS), "float32")
    with T.Kernel(M, GROUPS) as (bx, by):
        for i in T.serial(4):
            Sums[bx, by] += A[bx, by * 4 + i]
    return Sums


def _group_reference(a: np.ndarray) -> np.ndarray:
    padded = np.zeros((a.shape[0], -(-a.shape[1] // 4) * 4), np.float32)
    padded[:, : a.shape[1]] = a
    return padded.reshape(a.shape[0], -1, 4).sum(-1)


@T.prim_func
def group_scales(A: T.Tensor((M, K), "float32"), S: T.Tensor((M, T.ceildiv(K, GROUP)), "float32")):
    """S = the max |A| of each row's 128-wide group: an FP8 activation's quantization
    scales (before the division by the format's largest value)."""
    with T.Kernel(T.ceildiv(K, GROUP), T.ceildiv(M, BLOCK_M)) as (bx, by):
        a = T.alloc_fragment((BLOCK_M, GROUP), "float32")
        s = T.alloc_fragment((BLOCK_M,), "float32")
        T.copy(A[by * BLOCK_M, bx * GROUP], a)
        T.reduce_absmax(a, s, dim=1)
        for i in T.Parallel(BLOCK_M):
            S[by * BLOCK_M + i, bx] = s[i]


def _group_absmax(a: np.ndarray) -> np.ndarray:
    padded = np.zeros((a.shape[0], -(-a.shape[1] // GROUP) * GROUP), np.float32)
    padded[:, : a.shape[1]] = a
    return np.abs(padded.reshape(a.shape[0], -1, GROUP)).max(-1)


def test_outputs_with_derived_dims_are_allocated():
    a = RNG.standard_normal((3, 10)).astype(np.float32)
    sums = tilec.compile(group_sums)(a)
    assert sums.shape == (3, 3)
    np.testing.assert_allclose(sums, _group_reference(a), rtol=1e-6)
    # out_idx on a T.Tensor parameter with a derived dim allocates it too.
    scales = tilec.compile(group_scales, out_idx=[-1])
    a = RNG.standard_normal((45, 300)).astype(np.float32)
    s = scales(a)
    assert s.shape == (45, 3)
    np.testing.assert_array_equal(s, _group_absmax(a))


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("TILEC_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_parameters_survive_the_disk_cache(cache_dir):
    a, s = _scaled_inputs(40, 200)
    o = np.zeros(40, np.float32)
    tilec.jit(scaled_row_sums)(a, s, o)
    [meta] = cache_dir.glob("*/meta.json")
    recorded = json.loads(meta.read_text())
    assert recorded["format"] == cache.FORMAT
    [scale_param] = [Param.from_json(p) for p in recorded["params"] if p["name"] == "S"]
    assert scale_param.dim_names == ("M", None)
    assert scale_param.dim_exprs == (None, "ceildiv(K, 128)")
    assert Param.from_json(scale_param.to_json()) == scale_param
    # A new JitKernel loads the entry and checks the derived dim as the first did.
    loaded = tilec.jit(scaled_row_sums)
    compiled = loaded.compiled(a, s, o)
    assert compiled.from_cache
    o2 = np.zeros(40, np.float32)
    loaded(a, s, o2)
    np.testing.assert_array_equal(o2, o)
    with pytest.raises(ArgumentError, match=r"expects dim 1 to be ceildiv\(K, 128\) = 2"):
        loaded(a, np.zeros((40, 1), np.float32), o)


def test_jit_specializes_on_the_shapes_and_rejects_a_wrong_one_before_compiling(cache_dir):
    kernel = tilec.jit(scaled_row_sums)
    for shape in [(33, 256), (33, 257), (7, 50)]:
        a, s = _scaled_inputs(*shape)
        o = np.zeros(shape[0], np.float32)
        kernel(a, s, o)
        np.testing.assert_allclose(o, _scaled_reference(a, s), rtol=1e-5, atol=1e-4)
    # K = 257 gives S 3 columns: a specialization of its own, with static dims.
    specialized = kernel.compiled(*_scaled_inputs(33, 257), np.zeros(33, np.float32))
    assert "memref<33x3xf32>" in specialized.ir("tile")
    with pytest.raises(ArgumentError, match=r"ceildiv\(K, 128\) = 1, with K = 50"):
        kernel(a, np.zeros((7, 2), np.float32), o)
    assert "3 specializations" in repr(kernel)


def test_jit_out_idx_allocates_a_derived_output(cache_dir):
    kernel = tilec.jit(group_sums)
    for shape in [(2, 9), (4, 16)]:
        a = RNG.standard_normal(shape).astype(np.float32)
        np.testing.assert_allclose(kernel(a), _group_reference(a), rtol=1e-6)


def test_on_ascend():
    kernel = tilec.compile(group_scales, target="ascend")
    a = RNG.standard_normal((45, 300)).astype(np.float32)
    s = np.zeros((45, 3), np.float32)
    kernel(a, s)
    np.testing.assert_array_equal(s, _group_absmax(a))
    wrong = np.zeros((45, 2), np.float32)
    with pytest.raises(ArgumentError, match=r"ceildiv\(K, 128\) = 3, with K = 300 from arg"):
        kernel(a, wrong)


def test_the_runtime_reads_the_expressions_the_dsl_writes():
    texts = {
        T.ceildiv(K, 128): ("ceildiv(K, 128)", {"K": 257}, 3),
        (M + 1) * 2 - K % 3: ("(M + 1) * 2 - K % 3", {"M": 4, "K": 5}, 8),
        M - (K - 1): ("M - (K - 1)", {"M": 4, "K": 6}, -1),
        T.max(T.min(M, 64), K // -2): ("max(min(M, 64), K // (-2))", {"M": 70, "K": 7}, 64),
        T.ceildiv(M - 7, 2): ("ceildiv(M - 7, 2)", {"M": 2}, -2),
    }
    for expr, (text, sizes, size) in texts.items():
        assert expr.name == text
        parsed = dim_exprs.parse(text)
        assert parsed is not None and set(parsed.names) == set(sizes)
        assert parsed.value(sizes) == size
    # Plain names, numbers and other text are not expressions.
    for text in ["M", "64", "A.shape[0]", "M / 2", "f(M, 2)", "2 * 3", "M +"]:
        assert dim_exprs.parse(text) is None


def test_a_string_annotation_that_breaks_a_rule_says_which_at_its_parameter():
    # This file's annotations are strings (`from __future__ import annotations`).
    def halves(A: T.Tensor((M / 2,), "float32")):  # string-annotation
        pass

    err = expect_error(
        lambda: T.prim_func(halves), F, "string-annotation", "'/' on symbolic dims outside"
    )
    assert err.loc.col == tagged_col(F, "string-annotation", "A: T.Tensor")
