"""The tile IR that DSL kernels become: signatures, ops, types and locations.

Kernels are defined inside the tests and traced in the `context` fixture;
lines that the tests look for carry a `# tag` comment. This file does not use
`from __future__ import annotations`, as TileLang kernels usually don't
(test_dsl_annotations.py covers string annotations).
"""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from dsl_helpers import build, names, ops, tagged_col, tagged_line

import tilec
import tilec.language as T
from tilec import ir
from tilec.dialects import tile


def body_ops(module: ir.Module, name: str) -> list:
    return [info for info in ops(module) if info.name == name]


def test_signature_tensors_scalars_and_entry_attribute(context):
    M = T.symbolic("M")

    @T.prim_func
    def sig(
        A: T.Tensor((M, 64), "float16"),  # param-A
        B: T.Tensor(("K", M), T.bfloat16),
        n: T.int32,
        alpha: T.float32,
    ):
        pass

    module = build(sig)
    fn = module.body.operations[0]
    assert fn.name.value == "sig"
    assert "tile.entry" in fn.attributes
    assert str(fn.type) == "(memref<?x64xf16>, memref<?x?xbf16>, index, f32) -> ()"
    # The arguments carry the names (and dim names) that runtime errors use,
    # and are located at their parameters.
    assert str(fn.attributes["arg_attrs"]) == (
        '[{tile.dims = ["M", "64"], tile.name = "A"}, {tile.dims = ["K", "M"], tile.name = "B"}, '
        '{tile.name = "n"}, {tile.name = "alpha"}]'
    )
    args = fn.regions[0].blocks[0].arguments
    assert args[0].location.start_line == tagged_line(__file__, "param-A")
    assert args[0].location.start_col == tagged_col(__file__, "param-A", "A:")
    assert sig.name == "sig"
    assert [p.name for p in sig.params] == ["A", "B", "n", "alpha"]


def test_symbolic_dims_read_from_the_first_tensor_that_has_them(context):
    M = T.symbolic("M")

    @T.prim_func
    def dims(A: T.Tensor((M, 8), "float32"), B: T.Tensor((4, M), "float32")):
        with T.Kernel(T.ceildiv(M, 64)):
            pass

    text = str(build(dims))
    assert text.count("memref.dim") == 1
    assert "memref.dim %arg0, %c0 : memref<?x8xf32>" in text
    assert "arith.ceildivsi %dim, %c64 : index" in text


def test_kernel_grid_threads_and_block_indices(context):
    @T.prim_func
    def grid(A: T.Tensor((64,), "float32"), n: T.int32):
        with T.Kernel(4, n, 2, threads=256) as (bx, by, bz):
            s = T.alloc_local((1,), "float32")
            s[0] = T.cast(bx + by * 2 + bz, "float32")

    module = build(grid)
    text = str(module)
    assert "tile.kernel blocks(%arg2, %arg3, %arg4) in (%c4, %arg1, %c2) threads = 256" in text
    [kernel] = body_ops(module, "tile.kernel")
    assert isinstance(kernel.op.opview, tile.KernelOp)


def test_one_dim_kernel_yields_a_single_index(context):
    @T.prim_func
    def one(A: T.Tensor((64,), "float32")):
        with T.Kernel(2) as bx:
            a = T.alloc_fragment((32,), "float32")
            T.copy(A[bx * 32], a)

    assert "tile.kernel blocks(%arg1) in (%c2) threads = 128" in str(build(one))


def test_allocations_in_every_scope(context):
    @T.prim_func
    def allocs(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            T.alloc_shared((64, 32), "float16")
            T.alloc_fragment((64,), T.float32)
            T.alloc_local((4, 4), "int32")
            T.alloc_var("bfloat16")
            T.alloc((16, 16), "float16", "l1")

    text = str(build(allocs))
    for type_ in (
        "memref<64x32xf16, #tile.scope<shared>>",
        "memref<64xf32, #tile.scope<fragment>>",
        "memref<4x4xi32, #tile.scope<local>>",
        "memref<1xbf16, #tile.scope<local>>",
        "memref<16x16xf16, #tile.scope<l1>>",
    ):
        assert f"tile.alloc : {type_}" in text


def test_alloc_var_init_and_element_access(context):
    @T.prim_func
    def var(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            acc = T.alloc_var("float32", init=0.0)
            for k in T.serial(64):
                acc[0] = acc[0] + A[k]
            A[0] = acc[0]

    text = str(build(var))
    assert "scf.for" in text
    assert text.count("memref.store") == 3  # init, update, result


def test_copy_regions_take_their_extent_from_the_other_side(context):
    @T.prim_func
    def copies(A: T.Tensor(("M", "K"), "float16"), C: T.Tensor(("M", "N"), "float32")):
        with T.Kernel(4, 4) as (bx, by):
            a = T.alloc_shared((64, 32), "float16")
            c = T.alloc_fragment((64, 64), "float32")
            T.copy(A[by * 64, bx * 32], a)
            T.copy(c, C[by * 64, bx * 64])

    module = build(copies)
    [load, store] = body_ops(module, "tile.copy")
    assert str(load.op).startswith("tile.copy %arg0[%")
    assert "sizes" not in str(load.op)  # the verifier's default: the on-chip dst
    assert "sizes" not in str(store.op)
    # Regions given as A[i, j] leave no element load behind.
    assert "memref.load" not in str(module)


def test_copy_sizes_follow_the_tile_when_ranks_differ(context):
    @T.prim_func
    def ranks(Q: T.Tensor((2, 256, 8, 128), "float16")):
        with T.Kernel(4) as bx:
            q = T.alloc_shared((64, 128), "float16")
            T.copy(Q[1, bx * 64, 3, 0], q)  # leading
            T.copy(Q[1, bx * 64 :, 3, :], q)  # sliced
            T.copy(Q[0, bx * 64 : (bx + 1) * 64, 2, 0:128], q)  # bounded

    module = build(ranks)
    copies = body_ops(module, "tile.copy")
    assert "sizes [1, 1, 64, 128]" in str(copies[0].op)
    assert "sizes [1, 64, 1, 128]" in str(copies[1].op)
    assert "sizes [1, 64, 1, 128]" in str(copies[2].op)
    assert [c.line for c in copies] == [
        tagged_line(__file__, tag) for tag in ("leading", "sliced", "bounded")
    ]


def test_whole_buffer_copies_and_sizes_only_where_needed(context):
    @T.prim_func
    def whole(A: T.Tensor((64, 64), "float32"), B: T.Tensor(("M", 64), "float32")):
        with T.Kernel(1):
            s = T.alloc_shared((64, 64), "float32")
            f = T.alloc_fragment((32, 64), "float16")
            T.copy(A, s)
            T.copy(f, B[0, 0])
            T.copy(f, s[32, 0])

    module = build(whole)
    copies = [str(c.op) for c in body_ops(module, "tile.copy")]
    assert len(copies) == 3
    # tile.copy's default extent is the on-chip side's shape; only a region of
    # an on-chip dst needs the extent spelled out.
    assert "sizes" not in copies[0] + copies[1]
    assert "sizes [32, 64]" in copies[2]


def test_gemm_flags(context):
    @T.prim_func
    def mm(A: T.Tensor((64, 64), "float16")):
        with T.Kernel(1):
            a = T.alloc_shared((32, 64), "float16")
            b = T.alloc_shared((128, 32), "float16")
            c = T.alloc_fragment((64, 128), "float32")
            T.gemm(a, b, c, transpose_A=True, transpose_B=True, clear_accum=True)
            T.gemm(a, b, c, True, True)

    module = build(mm)
    gemms = body_ops(module, "tile.gemm")
    assert "transpose_a transpose_b clear_accum" in str(gemms[0].op)
    assert "clear_accum" not in str(gemms[1].op)


def test_fill_clear_reduce_cumsum(context):
    @T.prim_func
    def tiles(A: T.Tensor((64,), "float32")):
        with T.Kernel(1):
            s = T.alloc_fragment((64, 128), "float32")
            m = T.alloc_fragment((64,), "float32")
            T.fill(s, -T.infinity("float32"))
            T.clear(m)
            T.reduce_max(s, m, dim=1, clear=False)
            T.reduce_sum(s, m)
            T.reduce_min(s, m, dim=-1)
            T.reduce_abssum(s, m, 1)
            T.reduce_absmax(s, m)
            T.cumsum(s, dim=1, reverse=True)
            T.cumsum(m, m)

    module = build(tiles)
    text = str(module)
    assert "arith.constant 0x7F800000 : f32" in text and "arith.negf" in text
    assert "tile.fill" in text and "tile.clear" in text
    reduces = [str(r.op).split(":")[0].strip() for r in body_ops(module, "tile.reduce")]
    shapes = [r.split(" ", 2)[2] for r in reduces]
    assert [r.split(" ")[1] for r in reduces] == ["max", "sum", "min", "abssum", "absmax"]
    assert all(re.fullmatch(r"%\d+, %\d+ dim = 1( clear = false)?", s) for s in shapes)
    assert [s.endswith("clear = false") for s in shapes] == [True] + [False] * 4
    cumsums = [str(c.op) for c in body_ops(module, "tile.cumsum")]
    assert re.match(r"tile.cumsum (%\d+), \1 dim = 1 reverse = true :", cumsums[0])
    assert re.match(r"tile.cumsum (%\d+), \1 dim = 0 :", cumsums[1])


def test_parallel_elements_and_indirect_indexing(context):
    @T.prim_func
    def gather(
        X: T.Tensor(("N", 64), "float32"),
        idx: T.Tensor((16,), "int32"),
        Y: T.Tensor((16, 64), "float32"),
    ):
        with T.Kernel(1):
            y = T.alloc_fragment((16, 64), "float32")
            for i, j in T.Parallel(16, 64):
                y[i, j] = X[idx[i], j]  # gather
            T.copy(y, Y[0, 0])

    module = build(gather)
    [parallel] = body_ops(module, "tile.parallel")
    text = str(parallel.op)
    i = re.match(r"tile.parallel \((%arg\d+), %arg\d+\) in \(16, 64\)", text).group(1)
    assert f"memref.load %arg1[{i}] : memref<16xi32>" in text
    assert "arith.index_cast %" in text and ": i32 to index" in text
    line = tagged_line(__file__, "gather")
    loads = body_ops(module, "memref.load")
    assert [(op.line, op.col) for op in loads] == [
        (line, tagged_col(__file__, "gather", "idx[i]")),
        (line, tagged_col(__file__, "gather", "X[idx")),
    ]
    [store] = body_ops(module, "memref.store")
    assert (store.line, store.col) == (line, tagged_col(__file__, "gather", "y[i, j] ="))


def test_pipelined_and_serial_loops(context):
    @T.prim_func
    def loops(A: T.Tensor(("M", 64), "float32"), steps: T.int32):
        with T.Kernel(1):
            a = T.alloc_fragment((64,), "float32")
            for k in T.Pipelined(steps, num_stages=3):
                T.copy(A[k, 0], a)
            for k in T.Pipelined(2, steps):
                T.copy(A[k, 0], a)
            for i in T.Parallel(64):
                for k in T.serial(0, steps, 4):
                    a[i] = a[i] + T.cast(k, "float32")

    module = build(loops)
    pipelined = body_ops(module, "tile.pipelined")
    assert "num_stages = 3" in str(pipelined[0].op)
    assert "num_stages = 1" in str(pipelined[1].op)
    [loop] = body_ops(module, "scf.for")
    assert isinstance(loop.op.parent.opview, tile.ParallelOp)


def test_atomic_add_of_tiles_and_scalars(context):
    @T.prim_func
    def atomics(Out: T.Tensor(("M", 64), "float32"), Sum: T.Tensor((64,), "float32")):
        with T.Kernel(4) as bx:
            t = T.alloc_fragment((16, 64), "float32")
            T.atomic_add(Out[bx * 16, 0], t)
            for i in T.Parallel(64):
                T.atomic_add(Sum[i], 1.0)

    module = build(atomics)
    [tile_add, scalar_add] = body_ops(module, "tile.atomic_add")
    assert "memref<16x64xf32, #tile.scope<fragment>>, memref<?x64xf32>" in str(tile_add.op)
    assert ": f32, memref<64xf32>" in str(scalar_add.op)
    assert "memref.load" not in str(module)


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        (lambda a, b, i: a + b, "arith.addf"),
        (lambda a, b, i: a - 1, "arith.subf"),
        (lambda a, b, i: 2 * a, "arith.mulf"),
        (lambda a, b, i: a / b, "arith.divf"),
        (lambda a, b, i: -a, "arith.negf"),
        (lambda a, b, i: T.exp(a), "math.exp"),
        (lambda a, b, i: T.exp2(a), "math.exp2"),
        (lambda a, b, i: T.log(a), "math.log"),
        (lambda a, b, i: T.log2(a), "math.log2"),
        (lambda a, b, i: T.sqrt(a), "math.sqrt"),
        (lambda a, b, i: T.rsqrt(a), "math.rsqrt"),
        (lambda a, b, i: T.tanh(a), "math.tanh"),
        (lambda a, b, i: T.floor(a), "math.floor"),
        (lambda a, b, i: T.ceil(a), "math.ceil"),
        (lambda a, b, i: T.abs(a), "math.absf"),
        (lambda a, b, i: abs(a), "math.absf"),
        (lambda a, b, i: T.max(a, b), "arith.maximumf"),
        (lambda a, b, i: T.min(a, 0), "arith.minimumf"),
        (lambda a, b, i: T.if_then_else(a < b, a, b), "arith.cmpf olt"),
        (lambda a, b, i: T.if_then_else(a != b, a, b), "arith.cmpf une"),
        (lambda a, b, i: T.if_then_else((i >= 2) & (i < 9), a, b), "arith.andi"),
        (lambda a, b, i: T.if_then_else((i == 2) | ~(i > 9), a, b), "arith.xori"),
        (lambda a, b, i: T.cast(i // 3, "float32"), "arith.floordivsi"),
        (lambda a, b, i: T.cast(T.ceildiv(i, 3), "float32"), "arith.ceildivsi"),
        (lambda a, b, i: T.cast(T.max(i, 3) - T.abs(i), "float32"), "math.absi"),
        (lambda a, b, i: T.cast(T.cast(a, "int32") * 2, "float32"), "arith.fptosi"),
        (lambda a, b, i: T.max(a, T.float32(0)), "arith.constant 0.000000e+00 : f32"),
        (lambda a, b, i: T.float32(T.int32(i) * 3), "arith.sitofp"),
    ],
)
def test_scalar_expressions(context, expression, expected):
    @T.prim_func
    def scalar(X: T.Tensor((8,), "float32"), y: T.float32):
        with T.Kernel(1):
            for i in T.Parallel(8):
                X[i] = expression(X[i], y, i)

    assert expected in str(build(scalar))


def test_promotion_widens_and_converts(context):
    @T.prim_func
    def promote(
        H: T.Tensor((8,), "float16"),
        F: T.Tensor((8,), "float32"),
        W: T.Tensor((8,), "int32"),
        B: T.Tensor((8,), "int8"),
    ):
        with T.Kernel(1):
            for i in T.Parallel(8):
                F[i] = H[i] + F[i]  # f16 + f32 -> f32
                H[i] = H[i] * 0.5  # f16 stays f16
                W[i] = W[i] + B[i]  # i32 + i8 -> i32
                H[W[i] + i] = H[i]  # i32 + index -> index

    text = str(build(promote))
    assert "arith.extf %" in text and ": f16 to f32" in text
    assert "arith.mulf" in text and "arith.constant 5.000000e-01 : f16" in text
    assert "arith.extsi %" in text and ": i8 to i32" in text
    assert "arith.index_cast %" in text and ": i32 to index" in text


def test_python_constants_stay_in_python(context):
    block = 64

    @T.prim_func
    def consts(A: T.Tensor((256,), "float32")):
        with T.Kernel(T.ceildiv(256, block)) as bx:
            a = T.alloc_fragment((block // 2 * 2,), "float32")
            T.copy(A[bx * block], a)
            assert T.max(3, 4) == 4 and T.exp(0.0) == 1.0 and T.if_then_else(True, 1, 2) == 1

    text = str(build(consts))
    assert "arith.ceildivsi" not in text
    assert "tile.kernel blocks(%arg1) in (%c4)" in text


def test_every_op_is_located_at_its_statement(context):
    @T.prim_func
    def located(A: T.Tensor((128, 128), "float16"), C: T.Tensor((128, 128), "float32")):
        with T.Kernel(2, 2) as (bx, by):  # kernel
            a = T.alloc_shared((64, 128), "float16")  # alloc-a
            b = T.alloc_shared((128, 64), "float16")  # alloc-b
            c = T.alloc_fragment((64, 64), "float32")  # alloc-c
            T.copy(A[by * 64, 0], a)  # copy-a
            T.copy(A[0, bx * 64], b)  # copy-b
            T.gemm(a, b, c, clear_accum=True)  # gemm
            for i, j in T.Parallel(64, 64):  # parallel
                c[i, j] = T.max(c[i, j], 0)  # relu
            T.copy(c, C[by * 64, bx * 64])  # copy-c

    module = build(located)
    infos = ops(module)
    assert {info.file for info in infos} == {__file__}
    tiles = [info for info in infos if info.name.startswith("tile.")]
    tagged = {
        "tile.kernel": ["kernel"],
        "tile.alloc": ["alloc-a", "alloc-b", "alloc-c"],
        "tile.copy": ["copy-a", "copy-b", "copy-c"],
        "tile.gemm": ["gemm"],
        "tile.parallel": ["parallel"],
    }
    for name, tags in tagged.items():
        assert [i.line for i in tiles if i.name == name] == [tagged_line(__file__, t) for t in tags]
    relu = tagged_line(__file__, "relu")
    assert {i.name for i in infos if i.line == relu} == {
        "memref.load",
        "arith.constant",
        "arith.maximumf",
        "memref.store",
    }
    [maximum] = [i for i in infos if i.name == "arith.maximumf"]
    assert maximum.col == tagged_col(__file__, "relu", "T.max")
    [kernel] = [i for i in tiles if i.name == "tile.kernel"]
    assert kernel.col == tagged_col(__file__, "kernel", "with")


def test_build_gives_a_fresh_module_each_time(context):
    @T.prim_func
    def twice(A: T.Tensor((8,), "float32")):
        with T.Kernel(1):
            T.fill(A, 1.0)

    first, second = build(twice), build(twice)
    assert first is not second
    assert str(first) == str(second)
    assert names(first)[0] == "func.func"
    assert twice.ir() == twice.ir()
    assert 'loc("' in twice.ir()


def test_tilec_kernel_is_prim_func():
    assert tilec.kernel is T.prim_func


def test_tile_opt_parses_the_printed_ir(tmp_path):
    @T.prim_func
    def parsed(A: T.Tensor(("M", 64), "float16"), B: T.Tensor((64, 64), "float16")):
        with T.Kernel(T.ceildiv(A.shape[0], 64)) as bx:
            a = T.alloc_shared((64, 64), "float16")
            c = T.alloc_fragment((64, 64), "float32")
            T.copy(A[bx * 64, 0], a)
            T.gemm(a, a, c, clear_accum=True)
            for i, j in T.Parallel(64, 64):
                a[i, j] = T.cast(c[i, j], "float16")
            T.copy(a, B)

    path = tmp_path / "kernel.mlir"
    path.write_text(parsed.ir())
    result = subprocess.run(
        [str(Path(sys.executable).parent / "tile-opt"), str(path), "--mlir-print-debuginfo"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "tile.entry" in result.stdout
    assert f'loc("{__file__}"' in result.stdout


def test_sync_threads_is_a_located_barrier(context):
    @T.prim_func
    def staged(A: T.Tensor((64,), "float32"), B: T.Tensor((64,), "float32")):
        with T.Kernel(1) as bx:
            s = T.alloc_shared((64,), "float32")
            T.copy(A[bx * 64], s)
            T.sync_threads()  # barrier
            T.copy(s, B[bx * 64])

    [barrier] = [info for info in ops(build(staged)) if info.name == "tile.barrier"]
    assert barrier.line == tagged_line(__file__, "barrier")
    a = np.arange(64, dtype=np.float32)
    b = np.zeros(64, np.float32)
    tilec.compile(staged)(a, b)
    np.testing.assert_array_equal(a, b)
