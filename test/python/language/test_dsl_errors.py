"""Every DSL error: raised as DSLError at the user's line, with a message that says
what to do, rendered with the source line and a caret.

The offending line of each kernel carries a `# tag` comment that the test
looks up.
"""

import sys
from collections.abc import Callable

import pytest
from dsl_helpers import expect_error, tagged_col, tagged_line

import tilec.language as T
from tilec.language import DSLError

F = __file__


def kernel_error(kernel: T.PrimFunc, tag: str, *fragments: str) -> DSLError:
    return expect_error(kernel.ir, F, tag, *fragments)


def exact_error(action: Callable[[], object], tag: str, message: str) -> DSLError:
    """The DSLError of `action` at the line tagged `tag`, whose message is exactly `message`."""
    err = expect_error(action, F, tag)
    assert err.message == message
    return err


# -- where things may appear ----------------------------------------------------


def test_tile_op_outside_kernel():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        T.fill(A, 0.0)  # fill-outside

    kernel_error(k, "fill-outside", "T.fill must be inside a `with T.Kernel(...)` block")


def test_dsl_call_outside_any_kernel():
    expect_error(
        lambda: T.alloc_shared((64,), "float32"),  # no-trace
        F,
        "no-trace",
        "T.alloc_shared can only be used inside the body of a @T.prim_func kernel",
    )


def test_tile_op_inside_parallel():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            a = T.alloc_fragment((64,), "float32")
            for _ in T.Parallel(64):  # loop
                T.copy(A, a)  # copy-in-parallel

    err = kernel_error(k, "copy-in-parallel", "T.copy cannot be used inside T.Parallel")
    assert f"(line {tagged_line(F, 'loop')})" in err.message


def test_nested_kernels():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):  # outer
            T.fill(A, 0.0)
            with T.Kernel(2):  # inner
                pass

    err = kernel_error(k, "inner", "T.Kernel cannot be nested")
    assert f"line {tagged_line(F, 'outer')}" in err.message


def test_nested_parallel():
    @T.prim_func
    def k(A: T.Tensor((64, 64), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                for j in T.Parallel(64):  # inner-parallel
                    A[i, j] = 0.0

    kernel_error(k, "inner-parallel", "T.Parallel cannot be nested in T.Parallel")


def test_element_access_outside_kernel():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        A[0] = 1.0  # store-outside

    kernel_error(k, "store-outside", "writing to buffer 'A' must be inside")


# -- Python control flow ----------------------------------------------------------


def is_positive(x):
    # A plain function: its source is not rewritten, so Python needs a truth value.
    if x > 0:  # helper-if
        return 1.0
    return 0.0


def test_python_if_on_a_symbolic_value_outside_the_kernel_code():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                A[i] = is_positive(A[i])

    err = kernel_error(k, "helper-if", "no Python truth value", "T.macro", "T.if_then_else")
    assert err.loc.col == tagged_col(F, "helper-if", "x > 0")


def test_python_assert_conditions():
    """(A `while` on a symbolic value is a loop: test_dsl_tilelang_names.py.)"""

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32"), n: T.int32):
        with T.Kernel(1):
            assert n > 0  # assert

    kernel_error(k2, "assert", "no Python truth value")


def test_symbolic_if_outside_a_kernel():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), n: T.int32):
        if n > 0:  # outside
            with T.Kernel(1):
                T.fill(A, 0.0)

    err = kernel_error(k, "outside", "an `if` on a symbolic value must be inside a `with T.Kernel")
    assert err.loc.col == tagged_col(F, "outside", "if n")


def test_leaving_a_symbolic_if_with_break_continue_or_return():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), n: T.int32):
        with T.Kernel(1):
            for i in range(4):
                if i < n:
                    break  # break

    kernel_error(k, "break", "'break' under an `if` on a symbolic value leaves a Python loop")

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32"), n: T.int32):
        with T.Kernel(1):
            if n > 2:  # return
                pass
            else:
                return

    kernel_error(k2, "return", "leaving an `if` on a symbolic value")

    # A break of a loop inside the branch stays in the branch.
    @T.prim_func
    def k3(A: T.Tensor((64,), "float32"), n: T.int32):
        with T.Kernel(1):
            if n > 2:
                for i in range(4):
                    A[i] = 1.0
                    if i == 2:
                        break

    assert k3.ir().count("memref.store") == 3


def test_value_of_a_branch_used_after_the_if():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), n: T.int32):
        with T.Kernel(1):
            if n > 2:  # branch
                x = A[0] * 2.0
                A[3] = x
            else:
                x = A[1]
            A[2] = x  # after

    err = kernel_error(
        k, "after", "comes from the `else` branch at line", "declare `x = T.alloc_var(dtype)`"
    )
    assert f"line {tagged_line(F, 'branch')}" in err.message


def test_python_range_over_a_symbolic_value():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), n: T.int32):
        with T.Kernel(1):
            for _ in range(n):  # range
                pass

    kernel_error(k, "range", "loop over it with T.serial")


def test_break_out_of_a_traced_loop():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(64):  # broken
                A[i] = 0.0
                break
            T.fill(A, 1.0)

    kernel_error(k, "broken", "leaving T.Parallel with 'break' or 'return'")


def test_return_out_of_a_traced_loop():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), n: T.int32):
        with T.Kernel(1):
            for _ in T.serial(n):  # returned
                return

    kernel_error(k, "returned", "leaving T.serial with 'break' or 'return'")


def test_kernel_returning_a_value():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.fill(A, 0.0)
        return 1  # returns

    err = kernel_error(k, "returns", "a kernel returns nothing")
    assert err.loc.col == tagged_col(F, "returns", "return 1")

    # A bare return ends the trace early, as Python would; a nested function may return.
    @T.prim_func
    def early(A: T.Tensor((64,), "float32")):
        def zero() -> float:
            return 0.0

        with T.Kernel(1):
            T.fill(A, zero())
        return
        T.fill(A, 1.0)

    assert early.ir().count("tile.fill") == 1


# -- scopes of values and buffers -------------------------------------------------


def test_buffer_used_outside_its_kernel():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):  # first-kernel
            a = T.alloc_fragment((64,), "float32")
        with T.Kernel(1):
            T.copy(a, A)  # reuse

    err = kernel_error(k, "reuse", "buffer 'a' comes from the T.Kernel at line", "after it ends")
    assert f"line {tagged_line(F, 'first-kernel')}" in err.message


def test_loop_value_used_after_its_loop():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                x = A[i] * 2.0
            A[0] = x  # escaped

    kernel_error(k, "escaped", "comes from the T.Parallel at line")


def test_buffer_of_another_kernel():
    leaked = []

    @T.prim_func
    def first(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            leaked.append(T.alloc_fragment((64,), "float32"))

    @T.prim_func
    def second(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.copy(leaked[0], A)  # foreign

    first.ir()
    kernel_error(second, "foreign", "belongs to another kernel")


def test_unknown_symbolic_dim():
    N = T.symbolic("N")

    @T.prim_func
    def k(A: T.Tensor(("M",), "float32")):
        with T.Kernel(T.ceildiv(N, 64)):  # unbound
            pass

    kernel_error(k, "unbound", "symbolic dim 'N' is not a dim of any T.Tensor parameter")


# -- types ----------------------------------------------------------------------


def test_mixing_a_boolean_with_a_number():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                A[i] = A[i] * (i > 3)  # mix

    kernel_error(k, "mix", "cannot combine float32 with bool", 'T.cast(x, "float32")')

    @T.prim_func
    def k2(A: T.Tensor((64,), "int32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                A[i] = T.if_then_else(i > 3, 0.5, i > 2)  # float-literal

    kernel_error(k2, "float-literal", "the float 0.5 cannot be used as bool")


def test_integer_true_division():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), n: T.int32):
        with T.Kernel(n / 2):  # true-div
            pass

    kernel_error(k, "true-div", "'/' on index operands: use '//'")


DIVISIONS_BY_ZERO = [
    (
        "floordiv-zero",
        lambda A, n: A[0] // 0,  # floordiv-zero
        "'//': integer division by zero",
    ),
    (
        "mod-zero",
        lambda A, n: A[0] % 0,  # mod-zero
        "'%': integer division by zero",
    ),
    (
        "typed-zero",
        lambda A, n: A[0] // T.int32(0),  # typed-zero
        "'//': integer division by zero",
    ),
    (
        "ceildiv-zero",
        lambda A, n: T.ceildiv(n, 0),  # ceildiv-zero
        "T.ceildiv: integer division by zero",
    ),
    (
        "ceildiv-py-zero",
        lambda A, n: T.ceildiv(8, 0),  # ceildiv-py-zero
        "T.ceildiv: integer division by zero",
    ),
]


@pytest.mark.parametrize(("tag", "body", "message"), DIVISIONS_BY_ZERO)
def test_integer_division_by_a_constant_zero(tag, body, message):
    @T.prim_func
    def k(A: T.Tensor((64,), "int32"), n: T.int32):
        with T.Kernel(1):
            body(A, n)

    exact_error(k.ir, tag, message)


def test_store_of_a_float_that_has_no_integer_value():
    @T.prim_func
    def k(A: T.Tensor((64,), "int32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                A[i] = float("inf")  # inf-into-int

    kernel_error(k, "inf-into-int", "storing into buffer 'A': the float inf has no int32 value")


def test_math_on_integers_and_bad_conditions():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                A[i] = T.exp(i)  # exp-int

    kernel_error(k, "exp-int", "T.exp needs a float operand but got index")

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                A[i] = T.if_then_else(A[i], 1.0, 0.0)  # cond

    kernel_error(k2, "cond", "T.if_then_else needs a boolean condition")

    @T.prim_func
    def k3(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                A[i] = T.cast(A[i], "float13")  # dtype

    kernel_error(k3, "dtype", "T.cast: unknown dtype 'float13'")


def test_bad_subscripts():
    @T.prim_func
    def k(A: T.Tensor((64, 64), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                A[i] = 0.0  # rank

    kernel_error(k, "rank", "buffer 'A' has 2 dims but is indexed with 1 subscripts")

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            a = T.alloc_fragment((64,), "float32")
            a[64] = 0.0  # bounds

    kernel_error(k2, "bounds", "index 64 is out of bounds for dim 0 of buffer 'a' (size 64)")

    @T.prim_func
    def k3(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                A[A[i]] = 0.0  # float-index

    kernel_error(k3, "float-index", "must be an integer but got a float32 value")


def test_element_reused_after_naming_a_region():
    @T.prim_func
    def k(A: T.Tensor((64, 64), "float32")):
        with T.Kernel(1):
            s = T.alloc_shared((16, 16), "float32")
            start = A[0, 16]
            T.copy(start, s)
            s[0, 0] = start  # reuse-element

    kernel_error(k, "reuse-element", "this element of buffer 'A' named the start of a region")


# -- integers that do not fit their type -------------------------------------------

BIG = 1 << 70
IN_INDEX = "does not fit in index (-9223372036854775808 to 9223372036854775807)"

RANGE_MISUSES = [
    (
        "pipelined-stop",
        lambda A: list(T.Pipelined(BIG)),  # pipelined-stop
        f"the stop of T.Pipelined: {BIG} {IN_INDEX}",
    ),
    (
        "serial-start",
        lambda A: list(T.serial(-BIG, 4)),  # serial-start
        f"the start of T.serial: {-BIG} {IN_INDEX}",
    ),
    (
        "serial-step",
        lambda A: list(T.serial(0, 4, BIG)),  # serial-step
        f"T.serial step: {BIG} {IN_INDEX}",
    ),
    (
        "parallel-extent",
        lambda A: list(T.Parallel(4, BIG)),  # parallel-extent
        f"T.Parallel extent 1: {BIG} {IN_INDEX}",
    ),
    (
        "big-stages",
        lambda A: list(T.Pipelined(4, num_stages=BIG)),  # big-stages
        f"T.Pipelined num_stages: {BIG} {IN_INDEX}",
    ),
    (
        "alloc-dim",
        lambda A: T.alloc_fragment((BIG,), "float32"),  # alloc-dim
        f"T.alloc_fragment dim 0: {BIG} {IN_INDEX}",
    ),
    (
        "offset",
        lambda A: T.copy(A[BIG], T.alloc_shared((4,), "float32")),  # offset
        f"index 0 of buffer 'A': {BIG} {IN_INDEX}",
    ),
    (
        "index-constant",
        lambda A: A.shape[0] + BIG,  # index-constant
        f"'+': {BIG} {IN_INDEX}",
    ),
    (
        "int32-constant",
        lambda A: T.fill(T.alloc_fragment((4,), "int32"), 1 << 40),  # int32-constant
        "T.fill: 1099511627776 does not fit in int32 (-2147483648 to 2147483647)",
    ),
    (
        "int64-cast",
        lambda A: T.cast(1 << 63, "int64"),  # int64-cast
        "T.cast: 9223372036854775808 does not fit in int64 "
        "(-9223372036854775808 to 9223372036854775807)",
    ),
]


@pytest.mark.parametrize(("tag", "body", "message"), RANGE_MISUSES)
def test_integers_that_do_not_fit_their_type(tag, body, message):
    @T.prim_func
    def k(A: T.Tensor(("M",), "float32")):
        with T.Kernel(1):
            body(A)

    exact_error(k.ir, tag, message)


def test_grid_threads_and_tensor_dims_that_do_not_fit_index():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1 << 70):  # grid
            pass

    exact_error(k.ir, "grid", f"grid size 0 of T.Kernel: {BIG} {IN_INDEX}")

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=1 << 70):  # big-threads
            pass

    exact_error(k2.ir, "big-threads", f"T.Kernel threads: {BIG} {IN_INDEX}")

    exact_error(
        lambda: T.Tensor((64, 1 << 70), "float32"),  # big-tensor
        "big-tensor",
        f"T.Tensor dim 1: {BIG} {IN_INDEX}",
    )


# -- tile ops ---------------------------------------------------------------------


def test_alloc_with_bad_shapes_and_dtypes():
    @T.prim_func
    def k(A: T.Tensor(("M",), "float32")):
        with T.Kernel(1):
            T.alloc_shared((A.shape[0],), "float32")  # symbolic-shape

    kernel_error(k, "symbolic-shape", "tile shapes are static")

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.alloc_fragment((64, 0), "float32")  # zero

    kernel_error(k2, "zero", "dim 1 must be positive but got 0")

    @T.prim_func
    def k3(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.alloc_local((4,), "float12")  # unknown-dtype

    kernel_error(k3, "unknown-dtype", "unknown dtype 'float12'; expected one of float16")


def test_copy_between_incompatible_scopes():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            s = T.alloc_shared((64,), "float32")
            u = T.alloc((64,), "float32", "ub")
            T.copy(s, u)  # families

    kernel_error(
        k, "families", "T.copy from shared buffer 's' to ub buffer 'u' mixes the generic scopes"
    )


def test_copy_shapes_and_arguments():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            s = T.alloc_shared((64,), "float32")
            f = T.alloc_fragment((32,), "float32")
            T.copy(s, f)  # whole-mismatch

    kernel_error(k, "whole-mismatch", "'s' has shape (64) but 'f' has (32)")

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.copy(A[0:32], B[0:16])  # two-regions

    kernel_error(k2, "two-regions", "the region of 'A' has extents (32) but the region of 'B'")

    @T.prim_func
    def k3(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.copy(0.0, A)  # not-a-buffer

    kernel_error(k3, "not-a-buffer", "src must be a buffer or a region such as A[i, j]")


@pytest.mark.parametrize(
    ("tensor", "tile", "message"),
    [
        ((128, 128), (64, 64), "T.copy: 'A' has shape (128, 128) but 't' has (64, 64)"),
        ((32, 32), (64, 64), "T.copy: 'A' has shape (32, 32) but 't' has (64, 64)"),
        (("M", 64), (64, 64), "T.copy: 'A' has shape (M, 64) but 't' has (64, 64)"),
        ((1, 64), (64,), "T.copy: 'A' has shape (1, 64) but 't' has (64)"),
    ],
)
def test_whole_tensor_copied_into_a_tile_of_another_shape(tensor, tile, message):
    @T.prim_func
    def k(A: T.Tensor(tensor, "float32")):
        with T.Kernel(1):
            t = T.alloc_shared(tile, "float32")
            T.copy(A, t)  # whole-tensor

    exact_error(k.ir, "whole-tensor", message + "; index one side (A[i, j]) to copy a region")

    # From a start point the tile gives the extent, past the tensor's edge too.
    @T.prim_func
    def start(A: T.Tensor(tensor, "float32")):
        with T.Kernel(1):
            t = T.alloc_shared(tile, "float32")
            T.copy(A[(0,) * len(tensor)], t)

    assert "tile.copy" in start.ir()


def test_copy_slices():
    @T.prim_func
    def k(Q: T.Tensor((4, 256, 128), "float16")):
        with T.Kernel(1):
            q = T.alloc_shared((64, 128), "float16")
            T.copy(Q[0:, 0:, 0:], q)  # slice-count

    kernel_error(k, "slice-count", "slices 3 dims but tile 'q' has 2")

    @T.prim_func
    def k2(Q: T.Tensor((256, 128), "float16")):
        with T.Kernel(1) as bx:
            q = T.alloc_shared((64, 128), "float16")
            T.copy(Q[bx * 64 : bx * 64 + 96, :], q)  # slice-extent

    kernel_error(
        k2, "slice-extent", "the slice of dim 0 of 'Q' has extent 96, more than the 64 of tile 'q'"
    )

    @T.prim_func
    def k3(Q: T.Tensor((256, 128), "float16")):
        with T.Kernel(2) as bx:
            q = T.alloc_shared((64, 128), "float16")
            T.copy(Q[bx * bx : 64, :], q)  # slice-unknown

    kernel_error(k3, "slice-unknown", "cannot tell the extent of this slice")


def test_copy_extent_that_does_not_fit_comes_from_the_verifier():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            f = T.alloc_fragment((64, 64), "float32")
            s = T.alloc_shared((32, 32), "float32")
            T.copy(f, s[0, 0])  # too-big

    kernel_error(k, "too-big", "'tile.copy' op expected dst shape of at least 64x64")


@pytest.mark.parametrize(
    ("a_shape", "b_shape", "flags", "fragments"),
    [
        ((32, 32), (32, 64), {}, ["C ('c') is 64x64, so A ('a', M x K) needs M = 64 but is 32x32"]),
        (
            (64, 32),
            (64, 32),
            {},
            ["B ('b') must be 32x64 (K x N)", "pass transpose_B=True if it is stored the other"],
        ),
        ((32, 64), (32, 64), {"transpose_A": True}, []),
        ((64, 32), (64, 32), {"transpose_B": True}, []),
    ],
)
def test_gemm_shapes(a_shape, b_shape, flags, fragments):
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            a = T.alloc_shared(a_shape, "float16")
            b = T.alloc_shared(b_shape, "float16")
            c = T.alloc_fragment((64, 64), "float32")
            T.gemm(a, b, c, **flags)  # gemm-shape

    if fragments:
        kernel_error(k, "gemm-shape", *fragments)
    else:
        assert "tile.gemm" in k.ir()


@pytest.mark.parametrize(
    ("a", "b", "c", "fragment"),
    [
        (
            ("shared", "float16"),
            ("shared", "float32"),
            ("fragment", "float32"),
            "A is float16 but B is float32",
        ),
        (
            ("shared", "bfloat16"),
            ("shared", "bfloat16"),
            ("fragment", "bfloat16"),
            "bfloat16 tiles accumulate into float32 but C ('c') is bfloat16",
        ),
        (
            ("shared", "float16"),
            ("shared", "float16"),
            ("shared", "float32"),
            "the accumulator C ('c') must be a fragment (T.alloc_fragment) but is a shared buffer",
        ),
        (
            ("shared", "int32"),
            ("shared", "int32"),
            ("fragment", "int32"),
            "cannot multiply int32 tiles",
        ),
    ],
)
def test_gemm_dtypes_and_scopes(a, b, c, fragment):
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            ta = T.alloc((64, 32), a[1], a[0])
            tb = T.alloc((32, 64), b[1], b[0])
            tc = T.alloc((64, 64), c[1], c[0])
            T.gemm(ta, tb, tc)  # gemm-type

    kernel_error(k, "gemm-type", fragment.replace("('c')", "('tc')"))


def test_gemm_operands():
    @T.prim_func
    def k(A: T.Tensor((64, 32), "float16")):
        with T.Kernel(1):
            b = T.alloc_shared((32, 64), "float16")
            c = T.alloc_fragment((64, 64), "float32")
            T.gemm(A, b, c)  # global-operand

    kernel_error(k, "global-operand", "A ('A') is a global tensor; T.copy a tile of it")

    @T.prim_func
    def k2(A: T.Tensor((64, 32), "float16")):
        with T.Kernel(1):
            b = T.alloc_shared((32, 64), "float16")
            c = T.alloc_fragment((64, 64), "float32")
            T.gemm(A[0, 0], b, c)  # region-operand

    kernel_error(k2, "region-operand", "A must be a whole tile, not a region")

    @T.prim_func
    def k3(A: T.Tensor((64, 32), "float16")):
        with T.Kernel(1):
            a = T.alloc_shared((2, 64, 32), "float16")
            b = T.alloc_shared((32, 64), "float16")
            c = T.alloc_fragment((64, 64), "float32")
            T.gemm(a, b, c, transpose_A=1)  # flag

    kernel_error(k3, "flag", "transpose_A must be a Python bool")


def test_reductions():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            s = T.alloc_fragment((64, 128), "float32")
            m = T.alloc_fragment((128,), "float32")
            T.reduce_max(s, m, dim=1)  # reduce-shape

    kernel_error(
        k,
        "reduce-shape",
        "T.reduce_max: dst ('m') must have shape (64) (src shape (64, 128) "
        "without dim 1) but has (128)",
    )

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            s = T.alloc_fragment((64, 128), "float32")
            m = T.alloc_fragment((64,), "float32")
            T.reduce_sum(s, m, dim=2)  # reduce-dim

    kernel_error(k2, "reduce-dim", "dim 2 is out of range for a 2-D tile")

    @T.prim_func
    def k3(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            s = T.alloc_fragment((64, 128), "float32")
            m = T.alloc_fragment((64,), "float16")
            T.reduce_sum(s, m)  # reduce-dtype

    kernel_error(
        k3, "reduce-dtype", "dst ('m') is float16 but src ('s') is float32", "or a wider one"
    )

    @T.prim_func
    def k4(A: T.Tensor((64, 64), "float32")):
        with T.Kernel(1):
            m = T.alloc_fragment((64,), "float32")
            T.reduce_absmax(A, m)  # reduce-global

    kernel_error(k4, "reduce-global", "src ('A') must be an on-chip tile but is a global tensor")


def test_cumsum_fill_and_atomic_add():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            s = T.alloc_fragment((64,), "float32")
            d = T.alloc_fragment((32,), "float32")
            T.cumsum(s, d)  # cumsum

    kernel_error(k, "cumsum", "must have the shape and dtype of src")

    @T.prim_func
    def k3(A: T.Tensor((64, 64), "float32")):
        with T.Kernel(1):
            t = T.alloc_fragment((16, 16), "float16")
            T.atomic_add(A[0, 0], t)  # atomic-dtype

    kernel_error(k3, "atomic-dtype", "tile 't' is float16 but 'A' is float32")

    @T.prim_func
    def k4(A: T.Tensor((64, 64), "float32")):
        with T.Kernel(1):
            T.atomic_add(A, 1.0)  # atomic-scalar

    kernel_error(k4, "atomic-scalar", "needs one element as the destination")


# -- launch and loops -------------------------------------------------------------


def test_kernel_and_loop_arguments():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, 2, 3, 4):  # four
            pass

    kernel_error(k, "four", "T.Kernel takes 1 to 3 grid sizes but got 4")

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32")):
        with T.Kernel(1, threads=0):  # threads
            pass

    kernel_error(k2, "threads", "threads must be a positive Python int or a tuple of 1 to 3 "
                 "of them (x, y, z) but got 0")

    @T.prim_func
    def k3(A: T.Tensor((64,), "float32"), n: T.int32):
        with T.Kernel(1):
            for i in T.Parallel(n):  # symbolic-extent
                A[i] = 0.0

    kernel_error(k3, "symbolic-extent", "extent 0 must be a Python int")

    @T.prim_func
    def k4(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            for _ in T.Pipelined(4, num_stages=-1):  # stages
                pass

    kernel_error(k4, "stages", "num_stages must be a Python int of at least 0 but got -1")

    @T.prim_func
    def k5(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            for _ in T.serial(0, 8, -1):  # step
                pass

    kernel_error(k5, "step", "T.serial: step must be positive but got -1")


# -- kernels calling kernels ------------------------------------------------------


def test_kernel_calling_itself():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            k(A)  # self-call

    exact_error(k.ir, "self-call", "kernel 'k' calls itself; kernels cannot be recursive")

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.fill(A, 0.0)
        k2.ir()  # self-build

    exact_error(k2.ir, "self-build", "kernel 'k2' calls itself; kernels cannot be recursive")

    # The undecorated function recursing ends in a RecursionError deep inside
    # the DSL or MLIR's bindings; it is reported where the recursion begins.
    def body(A: T.Tensor(("N",), "float32")):
        T.ceildiv(A.shape[0], 64)
        body(A)  # raw-self-call

    exact_error(
        T.prim_func(body).ir,
        "raw-self-call",
        "kernel 'body' calls itself; kernels cannot be recursive",
    )


def test_helper_recursing_without_end():
    def helper(A, n):
        A[0] = A[0] + 1.0
        helper(A, n - 1)  # helper-call

    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            helper(A, 3)

    exact_error(
        k.ir,
        "helper-call",
        "function 'test_helper_recursing_without_end.<locals>.helper' calls itself without end "
        f"while the kernel is traced (past Python's recursion limit of {sys.getrecursionlimit()})",
    )


def test_kernel_calling_another_kernel_or_called_from_python():
    @T.prim_func
    def other(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.fill(A, 0.0)

    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            other(A)  # other-call

    exact_error(
        k.ir,
        "other-call",
        "kernel 'k' calls kernel 'other'; a kernel cannot call another, so write the shared "
        "code as a plain Python function and call that",
    )
    exact_error(
        lambda: other(None),  # host-call
        "host-call",
        "kernel 'other' cannot be called directly; compile it with tilec.compile(other) and "
        "call the result",
    )


# -- parameters and unexpected failures ------------------------------------------


def test_parameter_annotations():
    def missing(A):  # missing-annotation
        pass

    expect_error(
        lambda: T.prim_func(missing), F, "missing-annotation", "kernel parameter 'A' needs an"
    )

    def wrong(A: int):  # wrong-annotation
        pass

    expect_error(lambda: T.prim_func(wrong), F, "wrong-annotation", "T.Tensor(shape, dtype)")

    def variadic(*A: T.float32):  # variadic
        pass

    expect_error(lambda: T.prim_func(variadic), F, "variadic", "must be a plain parameter")

    expect_error(
        lambda: T.Tensor((64, 1.5), "float32"),  # tensor-dim
        F,
        "tensor-dim",
        "T.Tensor: dim 1 must be a Python int, a name or T.symbolic(name) but got 1.5",
    )


def test_prim_func_of_something_that_is_not_a_python_function():
    exact_error(
        lambda: T.prim_func(print),  # builtin
        "builtin",
        "T.prim_func needs a Python function but got <built-in function print>",
    )

    def generator(A: T.Tensor((64,), "float32")):
        yield

    exact_error(
        lambda: T.prim_func(generator),  # generator
        "generator",
        "T.prim_func needs a plain function but 'generator' is a generator or async function, "
        "whose body does not run when it is called",
    )


def test_unexpected_python_errors_point_at_the_user_line():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                A[i] = undefined_name  # noqa: F821  # name-error

    kernel_error(k, "name-error", "NameError: name 'undefined_name' is not defined")

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                A[i] = A[i] ** 2  # power

    kernel_error(k2, "power", "TypeError: unsupported operand type(s) for ** or pow()")


# -- one-line misuses, each at the tagged line of its lambda -----------------------

SCALAR_MISUSES = [
    (
        "float-and",
        lambda A, B, i, n: A[i] & A[i],  # float-and
        "'&' needs integer or boolean operands",
    ),
    (
        "bool-plus",
        lambda A, B, i, n: (i < n) + (i > n),  # bool-plus
        "'+' on booleans",
    ),
    (
        "bool-mix",
        lambda A, B, i, n: (i < n) + B[i],  # bool-mix
        "cannot combine bool with int8",
    ),
    (
        "neg-bool",
        lambda A, B, i, n: -(i < n),  # neg-bool
        "unary '-' on a boolean",
    ),
    (
        "invert-float",
        lambda A, B, i, n: ~A[i],  # invert-float
        "'~' needs an integer or boolean operand",
    ),
    (
        "abs-bool",
        lambda A, B, i, n: T.abs(i < n),  # abs-bool
        "T.abs needs a number but got a boolean",
    ),
    (
        "int8-range",
        lambda A, B, i, n: B[i] + 300,  # int8-range
        "300 does not fit in int8 (-128 to 127)",
    ),
    (
        "ceildiv-float",
        lambda A, B, i, n: T.ceildiv(A[i], 2),  # ceildiv-float
        "T.ceildiv needs integer operands",
    ),
    (
        "ceildiv-py",
        lambda A, B, i, n: T.ceildiv(7.0, 2),  # ceildiv-py
        "T.ceildiv needs integer operands",
    ),
    (
        "not-a-number",
        lambda A, B, i, n: A[i] + "x",  # not-a-number
        "expects a number or a symbolic value",
    ),
    (
        "region-value",
        lambda A, B, i, n: A[i] + A[0:8],  # region-value
        "a sliced region A[a:b] is not a value",
    ),
    (
        "float-subscript",
        lambda A, B, i, n: A[2.0],  # float-subscript
        "must be an integer but got the float 2.0",
    ),
    (
        "slice-step",
        lambda A, B, i, n: T.copy(A[0:64:2], A),  # slice-step
        "slices with a step",
    ),
    (
        "float-of",
        lambda A, B, i, n: float(A[i]),  # float-of
        "no Python float value",
    ),
    (
        "iter-scalar",
        lambda A, B, i, n: list(A[i]),  # iter-scalar
        "not iterable; loop with T.serial",
    ),
    (
        "iter-buffer",
        lambda A, B, i, n: list(A),  # iter-buffer
        "buffer 'A' is not iterable",
    ),
    (
        "not-a-boolean",
        lambda A, B, i, n: (i < n) == 2,  # not-a-boolean
        "2 is not a boolean",
    ),
    (
        "infinity-int",
        lambda A, B, i, n: T.infinity("int32"),  # infinity-int
        "T.infinity needs a float dtype",
    ),
]


@pytest.mark.parametrize(("tag", "body", "fragment"), SCALAR_MISUSES)
def test_scalar_misuses(tag, body, fragment):
    @T.prim_func
    def k(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "int8"), n: T.int32):
        with T.Kernel(1):
            for i in T.Parallel(64):
                body(A, B, i, n)

    kernel_error(k, tag, fragment)


TILE_MISUSES = [
    (
        "store-slice",
        lambda A, S, F: A.__setitem__(slice(0, 4), 1.0),  # store-slice
        "a slice selects a region",
    ),
    (
        "bad-scope",
        lambda A, S, F: T.alloc((4,), "float32", "register"),  # bad-scope
        "unknown scope 'register'",
    ),
    (
        "whole-symbolic",
        lambda A, S, F: T.copy(A, A),  # whole-symbolic
        "neither has a static shape",
    ),
    (
        "extent-symbolic",
        lambda A, S, F: T.copy(A, S[0, 0]),  # extent-symbolic
        "which is not static (M)",
    ),
    (
        "gemm-3d",
        lambda A, S, F: T.gemm(S, S, T.alloc_fragment((2, 2, 2), "float32")),  # gemm-3d
        "must be 2-D",
    ),
    (
        "reduce-dim-str",
        lambda A, S, F: T.reduce_sum(F, F, dim="x"),  # reduce-dim-str
        "dim must be a Python int",
    ),
    (
        "fill-region",
        lambda A, S, F: T.fill(S[0:2, 0], 0.0),  # fill-region
        "must be a whole tile, not a region",
    ),
    (
        "atomic-target",
        lambda A, S, F: T.atomic_add(1.0, F),  # atomic-target
        "the destination must be a buffer",
    ),
    (
        "atomic-rank",
        lambda A, S, F: T.atomic_add(A[0], F),  # atomic-rank
        "has 2 dims but 'A' has 1",
    ),
    (
        "empty-parallel",
        lambda A, S, F: list(T.Parallel()),  # empty-parallel
        "T.Parallel needs at least one extent",
    ),
    (
        "zero-parallel",
        lambda A, S, F: list(T.Parallel(0)),  # zero-parallel
        "extent 0 must be positive but got 0",
    ),
    (
        "bad-symbolic",
        lambda A, S, F: T.symbolic("1M"),  # bad-symbolic
        "T.symbolic needs a name",
    ),
    (
        "tensor-neg",
        lambda A, S, F: T.Tensor((-1,), "float32"),  # tensor-neg
        "must not be negative",
    ),
    (
        "tensor-empty",
        lambda A, S, F: T.Tensor((), "float32"),  # tensor-empty
        "T.Tensor needs at least one dim",
    ),
    (
        "tensor-dtype",
        lambda A, S, F: T.Tensor((4,), "f32"),  # tensor-dtype
        "T.Tensor: unknown dtype 'f32'",
    ),
]


@pytest.mark.parametrize(("tag", "body", "fragment"), TILE_MISUSES)
def test_tile_misuses(tag, body, fragment):
    @T.prim_func
    def k(A: T.Tensor(("M",), "float32")):
        with T.Kernel(1):
            body(A, T.alloc_shared((4, 4), "float32"), T.alloc_fragment((4, 4), "float32"))

    kernel_error(k, tag, fragment)


def test_loops_outside_a_kernel_and_values_of_another_kernel():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        for _ in T.serial(4):  # serial-outside
            pass

    kernel_error(k, "serial-outside", "T.serial must be inside a `with T.Kernel(...)` block")

    leaked = []

    @T.prim_func
    def first(A: T.Tensor((64,), "float32"), n: T.int32):
        leaked.append(n * 2)

    @T.prim_func
    def second(A: T.Tensor((64,), "float32")):
        with T.Kernel(leaked[0]):  # foreign-value
            pass

    first.ir()
    kernel_error(second, "foreign-value", "this value belongs to another kernel")


def test_loops_closed_out_of_order():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            outer = iter(T.serial(4))  # outer-loop
            next(outer)
            inner = iter(T.serial(2))  # inner-loop
            next(inner)
            next(outer, None)  # close-outer

    err = kernel_error(k, "outer-loop", "T.serial at line", "is still open")
    assert f"T.serial at line {tagged_line(F, 'inner-loop')} is still open" in err.message


def test_sync_threads_inside_parallel():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(64):
                T.sync_threads()  # sync-in-parallel
                A[i] = 0.0

    kernel_error(k, "sync-in-parallel", "T.sync_threads cannot be used inside T.Parallel")
