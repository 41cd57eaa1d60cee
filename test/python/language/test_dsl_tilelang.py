"""The TileLang surface that tilec accepts as written: what each feature records in
the tile IR, and the located error for each misuse.

Lines that the tests look for carry a `# tag` comment.
"""

import pytest
from dsl_helpers import build, expect_error, ops, tagged_line

import tilec.language as T
from tilec import ir
from tilec.language import layouts

F = __file__


def kernel_error(kernel: T.PrimFunc, tag: str, *fragments: str) -> T.DSLError:
    return expect_error(kernel.ir, F, tag, *fragments)


def only(module: ir.Module, name: str) -> ir.Operation:
    """The one op `name` in `module`, which must outlive it."""
    found = [info.op for info in ops(module) if info.name == name]
    assert len(found) == 1, f"{len(found)} {name} ops"
    return found[0]


def tile_attrs(op: ir.Operation) -> dict[str, str]:
    """The discardable `tile.*` attributes of `op`, as text."""
    return {name: str(op.attributes[name]) for name in op.attributes if name.startswith("tile.")}


def gemm_kernel(**hints: object) -> T.PrimFunc:
    @T.prim_func
    def k(A: T.Tensor((64, 32), "float16"), C: T.Tensor((64, 64), "float32")):
        with T.Kernel(1):
            a = T.alloc_shared((64, 32), "float16")
            b = T.alloc_shared((32, 64), "float16")
            c = T.alloc_fragment((64, 64), "float32")
            T.gemm(a, b, c, **hints)  # gemm

    return k


# -- T.gemm's scheduling arguments ----------------------------------------------


@pytest.mark.parametrize(
    ("hints", "recorded"),
    [
        ({}, {}),
        ({"policy": T.GemmWarpPolicy.FullRow}, {"tile.policy": '"full_row"'}),
        ({"policy": T.GemmWarpPolicy.FullCol}, {"tile.policy": '"full_col"'}),
        ({"policy": T.GemmWarpPolicy.Square}, {"tile.policy": '"square"'}),
        ({"policy": 1, "k_pack": 2}, {"tile.policy": '"full_row"', "tile.k_pack": "2 : i64"}),
        ({"wg_wait": -1}, {"tile.wg_wait": "-1 : i64"}),
    ],
)
def test_gemm_records_policy_k_pack_and_wg_wait(context, hints, recorded):
    module = build(gemm_kernel(**hints))
    gemm = only(module, "tile.gemm")
    assert tile_attrs(gemm) == recorded


@pytest.mark.parametrize(
    ("hints", "message"),
    [
        ({"policy": "FullRow"}, "policy must be one of T.GemmWarpPolicy.Square, FullRow, FullCol"),
        (
            {"policy": 3},
            "policy must be one of T.GemmWarpPolicy.Square, FullRow, FullCol but got 3",
        ),
        ({"k_pack": 0}, "T.gemm: k_pack must be a positive Python int but got int 0"),
        ({"wg_wait": -2}, "T.gemm: wg_wait must be a Python int of at least -1"),
    ],
)
def test_gemm_scheduling_arguments_are_checked(hints, message):
    kernel_error(gemm_kernel(**hints), "gemm", message)


# -- T.use_swizzle and T.annotate_layout ----------------------------------------


def test_use_swizzle_records_on_the_kernel(context):
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(4, 4):
            T.use_swizzle(panel_size=10)
        with T.Kernel(4, 4):
            T.use_swizzle(8, order="column")
        with T.Kernel(4, 4):
            T.use_swizzle(10, enable=False)

    kernels = [info.op for info in ops(build(k)) if info.name == "tile.kernel"]
    swizzles = [
        str(op.attributes["tile.swizzle"]) if "tile.swizzle" in op.attributes else None
        for op in kernels
    ]
    assert swizzles == [
        '{order = "row", panel_size = 10 : i64}',
        '{order = "column", panel_size = 8 : i64}',
        None,
    ]


def test_use_swizzle_arguments_are_checked():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(4):
            T.use_swizzle(0)  # panel

    kernel_error(k, "panel", "T.use_swizzle: panel_size must be a positive Python int but got 0")

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32")):
        with T.Kernel(4):
            T.use_swizzle(4, order="diagonal")  # order

    kernel_error(k2, "order", "order must be one of 'row', 'column', 'mlx' but got 'diagonal'")

    @T.prim_func
    def k3(A: T.Tensor((64,), "float32")):
        T.use_swizzle(4)  # outside

    kernel_error(k3, "outside", "T.use_swizzle must be inside a `with T.Kernel(...)` block")


def make_dq_layout(dQ):
    # As TileLang's flash attention backward writes it: a function of the buffer.
    return T.Layout(
        dQ.shape, lambda b, s, d: [b, s // 8, d // 8, d % 2, 4 * (s % 8) + (d % 8) // 2]
    )


def test_annotate_layout_records_maps_on_tiles_and_parameters(context):
    @T.prim_func
    def k(dQ: T.Tensor((2, 64, 32), "float32")):
        with T.Kernel(1):
            a = T.alloc_shared((64, 32), "float16")
            b = T.alloc_shared((32, 64), "float16")
            c = T.alloc_fragment((64, 64), "float32")
            T.annotate_layout(
                {
                    a: T.Layout((64, 32), lambda i, j: (i, j ^ (i % 8))),
                    b: lambda i, j: [j, i],
                    c: T.Fragment(
                        (64, 64),
                        forward_thread_fn=lambda i, j, rep: (i // 16) * 32 + j % 32 + rep * 64,
                        forward_index_fn=lambda i, j: i % 16 * 2 + j // 32,
                        replicate=2,
                    ),
                    dQ: make_dq_layout(dQ),
                }
            )

    module = build(k)
    allocs = [info.op for info in ops(module) if info.name == "tile.alloc"]
    layouts = [str(op.attributes["tile.layout"]) for op in allocs]
    # A swizzle's xor is no affine map: its expressions are kept as text.
    assert layouts[0] == '{forward = "(i0, i1) -> (i0, (i1 ^ (i0 % 8)))"}'
    assert layouts[1] == "{forward = affine_map<(d0, d1) -> (d1, d0)>}"
    assert layouts[2] == (
        "{forward = affine_map<(d0, d1) -> ((d0 mod 16) * 2 + d1 floordiv 32)>, "
        "replicate = 2 : i64, "
        "thread = affine_map<(d0, d1, d2) -> ((d0 floordiv 16) * 32 + d1 mod 32 + d2 * 64)>}"
    )
    fn = module.body.operations[0]
    assert str(ir.DictAttr(ir.ArrayAttr(fn.attributes["arg_attrs"])[0])["tile.layout"]) == (
        "{forward = affine_map<(d0, d1, d2) -> (d0, d1 floordiv 8, d2 floordiv 8, d2 mod 2, "
        "(d1 mod 8) * 4 + (d2 mod 8) floordiv 2)>}"
    )


def test_swizzled_layouts_are_recorded_by_kind(context):
    """tilelang.layout's constructors (tilec.language.layouts, `tilec.layout`): a swizzle
    is recorded by kind, a linear layout as the identity map."""

    @T.prim_func
    def k(A: T.Tensor((64, 32), "float16")):
        with T.Kernel(1):
            tiles = [T.alloc_shared((64, 32), "float16") for _ in range(6)]
            T.annotate_layout(
                {
                    tiles[0]: layouts.make_swizzled_layout(tiles[0]),
                    tiles[1]: layouts.make_swizzled_layout(tiles[1], k_major=False),
                    tiles[2]: layouts.make_wgmma_swizzled_layout(tiles[2], continuity=32),
                    tiles[3]: layouts.make_full_bank_swizzled_layout(tiles[3]),
                    tiles[4]: layouts.make_quarter_bank_swizzled_layout(tiles[4][0, 0]),
                    tiles[5]: layouts.make_linear_layout(tiles[5]),
                }
            )

    allocs = [info.op for info in ops(build(k)) if info.name == "tile.alloc"]
    assert [str(op.attributes["tile.layout"]) for op in allocs] == [
        '{allow_pad = true, k_major = true, swizzle = "auto"}',
        '{allow_pad = true, k_major = false, swizzle = "auto"}',
        '{continuity = 32 : i64, k_major = true, swizzle = "wgmma"}',
        '{swizzle = "128B"}',
        '{swizzle = "32B"}',
        "{forward = affine_map<(d0, d1) -> (d0, d1)>}",
    ]


def test_swizzled_layout_arguments_are_checked():
    @T.prim_func
    def k(A: T.Tensor((64, 32), "float16")):
        with T.Kernel(1):
            a = T.alloc_shared((64, 32), "float16")
            T.annotate_layout({a: layouts.make_swizzled_layout(a, k_major=1)})  # k-major

    kernel_error(k, "k-major", "make_swizzled_layout: k_major must be a Python bool but got 1")

    @T.prim_func
    def k2(A: T.Tensor((64, 32), "float16")):
        with T.Kernel(1):
            a = T.alloc_fragment((64, 32), "float16")
            T.annotate_layout({a: layouts.make_swizzled_layout(a)})  # on-fragment

    kernel_error(k2, "on-fragment", "'a' is a fragment, so its layout must be a T.Fragment")


def test_annotate_layout_arguments_are_checked():
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            c = T.alloc_fragment((64,), "float32")
            T.annotate_layout({c: T.Layout((64,), lambda i: i)})  # fragment

    kernel_error(k, "fragment", "'c' is a fragment, so its layout must be a T.Fragment")

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            s = T.alloc_shared((64, 8), "float32")
            T.annotate_layout({s: T.Layout((8, 64), lambda i, j: (j, i))})  # shape

    kernel_error(k2, "shape", "the layout is for shape (8, 64) but 's' has shape (64, 8)")

    @T.prim_func
    def k3(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.annotate_layout({"A": T.Layout((64,), lambda i: i)})  # key

    kernel_error(k3, "key", "T.annotate_layout: the keys must be buffers but got str 'A'")

    @T.prim_func
    def k4(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.annotate_layout({A: 3})  # value

    kernel_error(k4, "value", "the layout of 'A' must be a T.Layout, a T.Fragment or a function")

    @T.prim_func
    def k5(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.annotate_layout({A: T.Layout((64,), lambda i: 0.5)})  # float

    kernel_error(k5, "float", "the forward function of T.Layout must return index expressions")


# -- T.Pipelined's schedule -------------------------------------------------------


def pipelined_kernel(**schedule: object) -> T.PrimFunc:
    @T.prim_func
    def k(A: T.Tensor((64, 64), "float32")):
        with T.Kernel(1):
            a = T.alloc_shared((64, 16), "float32")
            for i in T.Pipelined(4, **schedule):  # pipelined
                T.copy(A[0, i * 16], a)
                T.copy(a, A[0, i * 16])

    return k


@pytest.mark.parametrize(
    ("schedule", "stages", "recorded"),
    [
        ({}, 1, {}),
        ({"num_stages": 0}, 1, {}),
        ({"num_stages": 3}, 3, {}),
        (
            {"order": [1, 0], "stage": [0, 2]},
            3,
            {"tile.order": "[1, 0]", "tile.stage": "[0, 2]"},
        ),
        (
            {
                "num_stages": 2,
                "order": [0, 1],
                "stage": [0, 0],
                "group": [[0], [1]],
                "sync": [[0, 1]],
            },
            2,
            {
                "tile.order": "[0, 1]",
                "tile.stage": "[0, 0]",
                "tile.group": "[[0], [1]]",
                "tile.sync": "[[0, 1]]",
            },
        ),
    ],
)
def test_pipelined_records_its_schedule(context, schedule, stages, recorded):
    module = build(pipelined_kernel(**schedule))
    op = only(module, "tile.pipelined")
    assert f"num_stages = {stages} " in str(op)
    assert tile_attrs(op) == recorded


@pytest.mark.parametrize(
    ("schedule", "message"),
    [
        ({"order": [0, 0]}, "order must be a permutation of 0..1"),
        ({"order": [1, 0], "stage": [0]}, "order has 2 entries but stage has 1"),
        ({"stage": [0, -1]}, "stage must hold non-negative Python ints but holds int -1"),
        ({"order": 3}, "order must be a list of Python ints but got int 3"),
        ({"group": 3}, "group must be a list of lists of Python ints"),
        ({"num_stages": 1.5}, "num_stages must be a Python int of at least 0 but got 1.5"),
    ],
)
def test_pipelined_schedule_is_checked(schedule, message):
    kernel_error(pipelined_kernel(**schedule), "pipelined", message)


# -- T.dynamic, T.const, T.empty ----------------------------------------------------


def test_dynamic_and_const_are_symbolic_dims(context):
    M, N = T.dynamic("M, N")
    K = T.const("K")
    B, H = T.symbolic("B H")
    assert [d.name for d in (M, N, K, B, H)] == ["M", "N", "K", "B", "H"]

    @T.prim_func
    def k(A: T.Tensor((M, K), "float32"), C: T.Tensor((N, K), "float32")):
        pass

    fn = build(k).body.operations[0]
    assert str(fn.type) == "(memref<?x?xf32>, memref<?x?xf32>) -> ()"


def test_dynamic_names_are_checked():
    bad_name = 'T.dynamic needs a name such as "M"'
    expect_error(lambda: T.dynamic("M, 2N"), F, "bad-name", bad_name)  # bad-name
    bad_dtype = "a dim is an int32 or int64"
    expect_error(lambda: T.const("M", "float32"), F, "bad-dtype", bad_dtype)  # bad-dtype


def test_empty_outputs_become_the_last_parameters(context):
    M, N = T.dynamic("M, N")

    @T.prim_func
    def k(X: T.Tensor((M, N), "float32")):
        Y = T.empty((M, N), "float16")  # Y
        S = T.empty([M], T.float32)
        with T.Kernel(1):
            pass
        return Y, S

    module = build(k)
    fn = module.body.operations[0]
    assert str(fn.type) == "(memref<?x?xf32>, memref<?x?xf16>, memref<?xf32>) -> ()"
    assert [str(a) for a in ir.ArrayAttr(fn.attributes["arg_attrs"])][1:] == [
        '{tile.dims = ["M", "N"], tile.name = "Y", tile.output}',
        '{tile.dims = ["M"], tile.name = "S", tile.output}',
    ]
    assert fn.regions[0].blocks[0].arguments[1].location.start_line == tagged_line(F, "Y")
    assert k.out_idx == [-2, -1]


def test_empty_misuses():
    @T.prim_func
    def k(X: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.empty((64,), "float32")  # inside

    kernel_error(k, "inside", "call it in the body of the kernel function, before `with T.Kernel`")

    # (a dim computed from the tensors' dims in the body is one the caller computes:
    # test_dsl_tilelang_names.py; one computed from a scalar argument is not)
    @T.prim_func
    def k2(X: T.Tensor(("M",), "float32"), n: T.int32):
        T.empty((n * 2,), "float32")  # expression

    kernel_error(k2, "expression", "T.empty: dim 0 must be a Python int or a dim of an input")

    @T.prim_func
    def k3(X: T.Tensor((64,), "float32")):
        A = T.empty((64,), "float32")
        B = T.empty((64,), "float32")
        return B, A  # return-order

    kernel_error(
        k3, "return-order", "returns them all, in the order they are declared: return A, B"
    )

    @T.prim_func
    def k4(X: T.Tensor((64,), "float32")):
        T.empty((64,), "float32")
        return X  # not-empty

    kernel_error(k4, "not-empty", "return output 0")

    @T.prim_func
    def k5(X: T.Tensor((64,), "float32")):
        return X  # no-empty

    kernel_error(
        k5, "no-empty", "a kernel returns nothing, or the tensors it declares with T.empty"
    )


# -- dtypes, casts, allocations, views ------------------------------------------------


def test_tilelang_dtype_names():
    assert T.float is T.float32 and T.half is T.float16 and T.double is T.float64
    assert T.float8_e4m3fn is T.float8_e4m3 and T.int is T.int32 and T.uint is T.uint32
    from tilec.language.dtypes import parse_dtype

    for name, dtype in [
        ("float", T.float32),
        ("half", T.float16),
        ("float8_e4m3fn", T.float8_e4m3),
        ("float8_e5m2", T.float8_e5m2),
        ("uint8", T.uint8),
        ("bool", T.bool),
    ]:
        assert parse_dtype(name) is dtype


def test_unsigned_integers_use_unsigned_ops(context):
    @T.prim_func
    def k(A: T.Tensor((16,), "uint8"), B: T.Tensor((16,), "float32"), C: T.Tensor((16,), "int32")):
        with T.Kernel(1):
            for i in T.Parallel(16):
                B[i] = A[i] // 3 + (A[i] >> 1)
                C[i] = T.if_then_else(A[i] < 7, T.max(A[i], 2), ~A[i] << 1)

    module = build(k)
    text = str(module)
    for op in (
        "arith.divui",
        "arith.shrui",
        "arith.uitofp",
        "arith.cmpi ult",
        "arith.maxui",
        "arith.shli",
        "arith.extui",
    ):
        assert op in text, op
    # The memref's i8 does not say unsigned: the parameter records it for the runtime.
    fn = module.body.operations[0]
    assert str(ir.ArrayAttr(fn.attributes["arg_attrs"])[0]) == (
        '{tile.dims = ["16"], tile.dtype = "uint8", tile.name = "A"}'
    )


def test_reduce_into_a_wider_destination_converts_first(context):
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            s = T.alloc_fragment((8, 16), "float16")
            m = T.alloc_fragment((8,), "float32")
            T.reduce_sum(s, m, dim=1)

    names = [info.name for info in ops(build(k))]
    tail = names[names.index("tile.kernel") + 1 :]
    assert [n for n in tail if n.startswith("tile.")] == [
        "tile.alloc",
        "tile.alloc",
        "tile.alloc",
        "tile.copy",
        "tile.reduce",
        "tile.yield",
    ]


def test_allocation_scopes_as_tilelang_names_them(context):
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.alloc_shared((8,), "float32", scope="shared")
            T.alloc_shared((8,), "float32", "shared.dyn")
            T.alloc_fragment((8,), "float32", scope="local.fragment")
            T.alloc_local((8,), "float32", scope="local")
            T.alloc_fragment((8,), "float32", scope="shared")  # TileLang's shared "fragment"

    text = str(build(k))
    assert text.count("memref<8xf32, #tile.scope<shared>>") == 3
    assert text.count("memref<8xf32, #tile.scope<fragment>>") == 1

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.alloc_shared((8,), "float32", scope="global")  # scope

    kernel_error(
        k2, "scope", "T.alloc_shared: unknown scope 'global'; expected one of 'shared.dyn'"
    )


def test_alloc_global_is_freed_at_the_end(context):
    @T.prim_func
    def k(A: T.Tensor(("N",), "float32")):
        partial = T.alloc_global((4, 16), "float32")
        scratch = T.alloc_global((A.shape[0],), T.float16)
        with T.Kernel(1):
            T.clear(partial)
            T.clear(scratch)

    text = str(build(k))
    assert "memref.alloc() : memref<4x16xf32>" in text
    assert "memref.alloc(%dim) : memref<?xf16>" in text
    assert text.count("memref.dealloc") == 2

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.alloc_global((4,), "float32")  # in-kernel

    kernel_error(k2, "in-kernel", "T.alloc_global allocates global memory for the whole function")


def test_tensor_views_of_contiguous_buffers(context):
    K, F = T.dynamic("K, F")

    @T.prim_func
    def k(W: T.Tensor((3, 3, K, F), "float16"), V: T.Tensor((6, 8), "float32")):
        with T.Kernel(1):
            flat = T.Tensor((3 * 3 * K, F), "float16", W.data)  # two dynamic dims
            half_flat = T.Tensor((9 * K * F,), "float16", W.data)
            cube = T.Tensor((2, 3, 8), "float32", V.data)
            T.clear(T.reshape(V, (48,)))
            flat[0, 0] = 1.0
            half_flat[0] = 1.0
            cube[1, 2, 3] = flat.shape[0]  # a dynamic dim of a view is a value too

    text = str(build(k))
    assert "memref.reinterpret_cast" in text and "strided<[?, 1]>" in text
    assert "memref.collapse_shape %arg0 [[0, 1, 2, 3]]" in text
    assert "memref<48xf32> into memref<2x3x8xf32>" in text

    @T.prim_func
    def k2(V: T.Tensor((6, 8), "float32")):
        with T.Kernel(1):
            T.Tensor((7, 7), "float32", V.data)  # count

    kernel_error(k2, "count", "'V' has 48 elements (6, 8) but the view has 49 (7, 7)")

    @T.prim_func
    def k3(V: T.Tensor((6, 8), "float32")):
        with T.Kernel(1):
            T.Tensor((48,), "float16", V.data)  # view-dtype

    kernel_error(k3, "view-dtype", "'V' is float32, so its view must be float32 but is float16")

    @T.prim_func
    def k4(V: T.Tensor((6, 8), "float32")):
        with T.Kernel(1):
            T.Tensor((48,), "float32", V)  # no-data

    kernel_error(k4, "no-data", "data must be the .data of a buffer")


def test_unroll_and_thread_bindings(context):
    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(4, 2, threads=1):
            tx = T.get_thread_binding()
            for i in T.unroll(4):
                A[i] = 0.0
            for i in T.unroll(0, 8, 2, unroll_factor=2, explicit=True):
                A[i + tx] = 1.0
            A[T.get_block_binding(1)] = T.cast(T.get_thread_extent(), "float32")

    module = build(k)
    loops = [info.op for info in ops(module) if info.name == "scf.for"]
    assert [tile_attrs(op) for op in loops] == [
        {"tile.unroll": "true"},
        {"tile.unroll": "2 : i64", "tile.unroll_explicit": "true"},
    ]
    text = str(module)
    assert "arith.constant 1.000000e+00 : f32" in text  # the thread extent
    assert "memref.store %cst, %arg0[%arg2]" in text  # by, the second block index

    @T.prim_func
    def k2(A: T.Tensor((64,), "float32")):
        with T.Kernel(4):
            T.get_block_binding(1)  # block-dim

    kernel_error(k2, "block-dim", "T.get_block_binding: dim 1 is past the 1-D grid of T.Kernel")


# -- what tilec does not have ----------------------------------------------------------


def test_tilelang_names_tilec_lacks_are_located_errors():
    unsupported = "T.gemm_sp (TileLang) is not supported"
    err = expect_error(lambda: T.gemm_sp, F, "gemm_sp", unsupported)  # gemm_sp
    assert "T.gemm on the dense operands" in err.message
    assert isinstance(err, AttributeError) and not hasattr(T, "ballot_sync")
    typo = "tilec.language has no 'gemmm'; did you mean T.gemm"
    expect_error(lambda: T.gemmm, F, "typo", typo)  # typo

    @T.prim_func
    def k(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.ballot(A[0] > 0)  # ballot

    kernel_error(k, "ballot", "T.ballot (TileLang) is not supported", "block as a whole")


def test_parallel_records_coalesced_width_and_loop_layout(context):
    fragment = T.Fragment(
        (4, 8), forward_thread_fn=lambda i, j: i * 8 + j, forward_index_fn=lambda i, j: 0
    )

    @T.prim_func
    def k(A: T.Tensor((4, 8), "float32")):
        with T.Kernel(1):
            for i, j in T.Parallel(4, 8, coalesced_width=2, loop_layout=fragment):
                A[i, j] = 0.0

    module = build(k)
    assert tile_attrs(only(module, "tile.parallel")) == {
        "tile.coalesced_width": "2 : i64",
        "tile.layout": "{forward = affine_map<(d0, d1) -> (0)>, replicate = 1 : i64, "
        "thread = affine_map<(d0, d1) -> (d0 * 8 + d1)>}",
    }

    @T.prim_func
    def k2(A: T.Tensor((4, 8), "float32")):
        with T.Kernel(1):
            for i in T.Parallel(4, loop_layout=fragment):  # loop-layout
                A[i, 0] = 0.0

    kernel_error(k2, "loop-layout", "loop_layout must be a T.Fragment over the 1 loop indices")


def test_copy_records_tilelang_hints_and_copies_between_regions(context):
    @T.prim_func
    def k(A: T.Tensor(("N", 64), "float32"), B: T.Tensor((4, 64, 64), "float32")):
        with T.Kernel(1):
            s = T.alloc_shared((64, 64), "float32")
            T.copy(A[0, 0], s, disable_tma=True, eviction_policy="evict_first", coalesced_width=4)
            T.copy(s[:25, :], B[1, 0:25, :])  # region to region

    module = build(k)
    first, second = (info.op for info in ops(module) if info.name == "tile.copy")
    assert tile_attrs(first) == {
        "tile.coalesced_width": "4 : i64",
        "tile.disable_tma": "true",
        "tile.eviction_policy": '"evict_first"',
    }
    assert "sizes [1, 25, 64]" in str(second)

    @T.prim_func
    def k2(A: T.Tensor(("N", 64), "float32"), B: T.Tensor((64, 64), "float32")):
        with T.Kernel(1) as i:
            T.copy(A[i:, :], B[0:16, :])  # open-slice

    kernel_error(k2, "open-slice", "the extent of the slice of dim 0 of 'A' is unknown")

    @T.prim_func
    def k3(A: T.Tensor((64, 64), "float32")):
        with T.Kernel(1):
            s = T.alloc_shared((64, 64), "float32")
            T.copy(A, s, eviction_policy="evict_all")  # policy

    kernel_error(k3, "policy", "eviction_policy must be one of 'evict_normal', 'evict_first'")


def test_reducer_persistent_and_region_errors_point_at_the_call():
    @T.prim_func
    def op(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.alloc_reducer((64,), "float32", op="prod")  # reducer-op

    kernel_error(op, "reducer-op", "T.alloc_reducer: op must be one of 'sum', 'max'")

    @T.prim_func
    def not_reducer(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            f = T.alloc_fragment((64,), "float32")
            T.reducer_update(f[0], 1.0)  # not-reducer

    kernel_error(not_reducer, "not-reducer", "T.reducer_update needs a tile from T.alloc_reducer")

    @T.prim_func
    def domain(A: T.Tensor((64,), "float32")):
        with T.Kernel(4) as b:
            for i in T.Persistent(8, 4, b):  # domain
                A[i] = 0.0

    kernel_error(domain, "domain", "T.Persistent: the domain must be a non-empty list")

    @T.prim_func
    def short(Out: T.Tensor((4, 100, 8), "float32")):
        with T.Kernel(1):
            t = T.alloc_fragment((64, 8), "float32")
            T.atomic_add(Out[0, 0:25, 0:8], t)  # short

    kernel_error(short, "short", "the region of 'Out' is smaller than tile 't' (64, 8)")
