"""tilec's kernel DSL, TileLang style: `import tilec.language as T`.

    import tilec.language as T

    @T.prim_func
    def scale(X: T.Tensor(("N",), "float32"), Y: T.Tensor(("N",), "float32")):
        with T.Kernel(T.ceildiv(X.shape[0], 256), threads=128) as bx:
            x = T.alloc_fragment((256,), "float32")
            T.copy(X[bx * 256], x)
            for i in T.Parallel(256):
                if bx * 256 + i < X.shape[0]:
                    x[i] = x[i] * 2.0
            T.copy(x, Y[bx * 256])

    print(scale.ir())                  # tile IR, every op located at its line here

A kernel is traced: its body runs once with symbolic values, and each DSL
call adds the matching `tile`/`arith`/`math`/`memref`/`scf` op at the user's
file:line:col. As in TileLang, the kernel's source is rewritten first, so
`if`/`elif`/`else`, `and`/`or`/`not` and `a if c else b` on symbolic values
become `scf.if` and boolean ops (on Python values they are Python's), and
`x = v` stores into a `T.alloc_var`. Mistakes raise `DSLError` pointing at the
offending line; a TileLang name tilec lacks says so, with the alternative.

Surface:
- kernels: `prim_func` (also `tilec.kernel`), `macro`, `Tensor(shape, dtype)` (with
  `data`, a view), `symbolic`/`dynamic`/`const` dims and tensor dims computed from them
  (`T.ceildiv(K, 128)`, `2 * N`), `empty` outputs returned by the kernel, scalar
  parameters annotated with a dtype (`int32` becomes `index`, a narrower or unsigned
  integer keeps its dtype)
- launch and loops: `Kernel`, `Parallel`, `Pipelined` (with `order`/`stage`/...),
  `Persistent`, `serial`, `unroll`, `vectorized`; `get_thread_binding` /
  `thread_binding` (per-thread code, run once per thread), `get_block_binding`; in
  per-thread code, warp shuffles `shfl_xor`, `shfl_down`, `shfl_up`, `shfl_sync`,
  `warp_reduce_sum/max/min`, `get_lane_idx`, `get_warp_idx`
- tiles: `alloc_shared`, `alloc_fragment`, `alloc_local`, `alloc_var`, `alloc_global`,
  `alloc`, `alloc_buffer`, `copy`, `gemm` (with `policy=GemmWarpPolicy...`), `im2col`,
  `fill`, `clear`,
  `reduce_max/min/sum/abssum/absmax`, `alloc_reducer` with `reducer_init`,
  `reducer_update` and `finalize_reducer`, `cumsum`, `atomic_add`, `sync_threads`,
  `reshape`, `view`
- hints recorded for targets: `use_swizzle`, `annotate_layout` with `Layout`/`Fragment`,
  `set_max_nreg`, `no_set_max_nreg`/`disable_warp_group_reg_alloc` (cuda honours them)
- scalars: Python operators, `exp`, `exp2`, `log`, `log2`, `sqrt`, `rsqrt`, `tanh`,
  `sigmoid`, `floor`, `ceil`, `abs`, `max`, `min`, `clamp`, `if_then_else`, `cast`, `Cast`,
  `reinterpret`, `ceildiv`, `floordiv`, `floormod`, `shift_left`, `shift_right`,
  `index_to_coordinates`, `infinity`, `assume`
- dtypes: `float16`, `bfloat16`, `float32`, `float64`, `float8_e4m3`, `float8_e5m2`,
  `int8` ... `int64`, `uint8` ... `uint64`, `bool` (or their names as strings), and
  TileLang's aliases (`float`, `half`, `float8_e4m3fn`, ...); calling one converts a
  value (`T.float32(0)`), `T.dtype(x)` is the dtype a name, numpy or torch dtype names
- eager kernels: `@tilec.jit` over a function of the tensors whose body annotates them
  (`A: T.Tensor((M, K), dtype)`), see `eager`
- tilelang-ascend's developer mode, on every target: `T.Kernel(n, is_npu=True)` as
  `(cid, vid)` or, with `threads=1|2`, `cid` (see `launch`), the vector family `T.tile.*`
  (`T.tile.add(c, a, b)`, `T.tile.exp`, `T.tile.cast(dst, src, mode, count)`, ...; see
  `ascend_tile`), `gemm_v0` and `mma` with a traced `init`, `reduce_*`'s `real_shape`
  and `[M, 1]` outputs
"""

from . import ascend_tile as tile
from .ascend_scope import (
    Scope,
    alloc_L0A,
    alloc_L0B,
    alloc_L0C,
    alloc_L1,
    alloc_ub,
    annotate_address,
)
from .ascend_sync import (
    barrier_all,
    func_attr,
    pipe_barrier,
    set_cross_flag,
    set_flag,
    sync_all,
    wait_cross_flag,
    wait_flag,
)
from .dtypes import (
    DType,
    bfloat16,
    float8_e4m3,
    float8_e5m2,
    float16,
    float32,
    float64,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)
from .dtypes import (
    boolean as bool,
)
from .errors import DSLError
from .hints import Fragment, GemmWarpPolicy, Layout
from .kernel import PrimFunc, Tensor, TensorType, const, dynamic, macro, prim_func, symbolic
from .launch import (
    Kernel,
    get_block_binding,
    get_block_bindings,
    get_thread_binding,
    get_thread_bindings,
    get_thread_extent,
    thread_binding,
)
from .loops import Parallel, Persistent, Pipelined, serial, unroll, vectorized
from .math_ops import (
    Cast,
    abs,
    cast,
    ceil,
    ceildiv,
    clamp,
    exp,
    exp2,
    floor,
    floordiv,
    floormod,
    if_then_else,
    index_to_coordinates,
    infinity,
    log,
    log2,
    max,
    min,
    reinterpret,
    rsqrt,
    shift_left,
    shift_right,
    sigmoid,
    sqrt,
    tanh,
)
from .swizzle import use_swizzle
from .tile_ops import (
    alloc,
    alloc_buffer,
    alloc_fragment,
    alloc_global,
    alloc_local,
    alloc_reducer,
    alloc_shared,
    alloc_var,
    annotate_layout,
    assume,
    atomic_add,
    c2d_im2col,
    clear,
    copy,
    cumsum,
    disable_warp_group_reg_alloc,
    empty,
    fill,
    finalize_reducer,
    gemm,
    gemm_v0,
    im2col,
    mma,
    no_set_max_nreg,
    reduce_absmax,
    reduce_abssum,
    reduce_max,
    reduce_min,
    reduce_sum,
    reducer_init,
    reducer_update,
    reshape,
    set_max_nreg,
    sync_threads,
    view,
)
from .unsupported import missing
from .values import Buffer, Scalar
from .warps import (
    get_lane_idx,
    get_warp_idx,
    get_warp_idx_sync,
    shfl_down,
    shfl_sync,
    shfl_up,
    shfl_xor,
    warp_reduce_max,
    warp_reduce_min,
    warp_reduce_sum,
)

# TileLang's other names: dtypes ("float" is float32, ...) and loops.
float8_e4m3fn = float8_e4m3
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
uint, ulong = uint32, uint64
Serial, Unroll, Vectorized = serial, unroll, vectorized
parallel = Parallel
dtype = DType

__all__ = [
    "Buffer",
    "Cast",
    "DSLError",
    "DType",
    "Fragment",
    "GemmWarpPolicy",
    "Kernel",
    "Layout",
    "Parallel",
    "Persistent",
    "Pipelined",
    "PrimFunc",
    "Scalar",
    "Scope",
    "Serial",
    "Tensor",
    "TensorType",
    "Unroll",
    "Vectorized",
    "abs",
    "alloc",
    "alloc_L0A",
    "alloc_L0B",
    "alloc_L0C",
    "alloc_L1",
    "alloc_buffer",
    "alloc_fragment",
    "alloc_global",
    "alloc_local",
    "alloc_reducer",
    "alloc_shared",
    "alloc_ub",
    "alloc_var",
    "annotate_address",
    "annotate_layout",
    "assume",
    "atomic_add",
    "barrier_all",
    "bfloat16",
    "bool",
    "c2d_im2col",
    "cast",
    "ceil",
    "ceildiv",
    "clamp",
    "clear",
    "const",
    "copy",
    "cumsum",
    "disable_warp_group_reg_alloc",
    "double",
    "dtype",
    "dynamic",
    "empty",
    "exp",
    "exp2",
    "fill",
    "finalize_reducer",
    "float",
    "float8_e4m3",
    "float8_e4m3fn",
    "float8_e5m2",
    "float16",
    "float32",
    "float64",
    "floor",
    "floordiv",
    "floormod",
    "func_attr",
    "gemm",
    "gemm_v0",
    "get_block_binding",
    "get_block_bindings",
    "get_lane_idx",
    "get_thread_binding",
    "get_thread_bindings",
    "get_thread_extent",
    "get_warp_idx",
    "get_warp_idx_sync",
    "half",
    "if_then_else",
    "im2col",
    "index_to_coordinates",
    "infinity",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "log",
    "log2",
    "long",
    "macro",
    "max",
    "min",
    "mma",
    "no_set_max_nreg",
    "parallel",
    "pipe_barrier",
    "prim_func",
    "reduce_absmax",
    "reduce_abssum",
    "reduce_max",
    "reduce_min",
    "reduce_sum",
    "reducer_init",
    "reducer_update",
    "reinterpret",
    "reshape",
    "rsqrt",
    "serial",
    "set_cross_flag",
    "set_flag",
    "set_max_nreg",
    "shfl_down",
    "shfl_sync",
    "shfl_up",
    "shfl_xor",
    "shift_left",
    "shift_right",
    "short",
    "sigmoid",
    "sqrt",
    "symbolic",
    "sync_all",
    "sync_threads",
    "tanh",
    "thread_binding",
    "tile",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "ulong",
    "unroll",
    "use_swizzle",
    "vectorized",
    "view",
    "wait_cross_flag",
    "wait_flag",
    "warp_reduce_max",
    "warp_reduce_min",
    "warp_reduce_sum",
]


def __getattr__(name: str) -> object:
    """`T.<name>` for a name the DSL lacks: a DSLError at the user's line (also an
    AttributeError) naming the TileLang feature and the alternative."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    raise missing(name, __all__)
