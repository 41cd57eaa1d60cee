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
  `data`, a view), `symbolic`/`dynamic`/`const` dims, `empty` outputs returned by the
  kernel, scalar parameters annotated with a dtype (`int32` becomes `index`)
- launch and loops: `Kernel`, `Parallel`, `Pipelined` (with `order`/`stage`/...),
  `serial`, `unroll`; `get_thread_binding` (blocks of one thread only), `get_block_binding`
- tiles: `alloc_shared`, `alloc_fragment`, `alloc_local`, `alloc_var`, `alloc_global`,
  `alloc`, `copy`, `gemm` (with `policy=GemmWarpPolicy...`), `fill`, `clear`,
  `reduce_max/min/sum/abssum/absmax`, `cumsum`, `atomic_add`, `sync_threads`,
  `reshape`, `view`
- hints recorded for targets: `use_swizzle`, `annotate_layout` with `Layout`/`Fragment`
- scalars: Python operators, `exp`, `exp2`, `log`, `log2`, `sqrt`, `rsqrt`, `tanh`,
  `floor`, `ceil`, `abs`, `max`, `min`, `clamp`, `if_then_else`, `cast`, `Cast`,
  `ceildiv`, `infinity`
- dtypes: `float16`, `bfloat16`, `float32`, `float64`, `float8_e4m3`, `float8_e5m2`,
  `int8` ... `int64`, `uint8` ... `uint64`, `bool` (or their names as strings), and
  TileLang's aliases (`float`, `half`, `float8_e4m3fn`, ...); calling one converts a
  value (`T.float32(0)`)
"""

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
)
from .loops import Parallel, Pipelined, serial, unroll
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
    if_then_else,
    infinity,
    log,
    log2,
    max,
    min,
    rsqrt,
    sqrt,
    tanh,
)
from .tile_ops import (
    alloc,
    alloc_fragment,
    alloc_global,
    alloc_local,
    alloc_shared,
    alloc_var,
    annotate_layout,
    atomic_add,
    clear,
    copy,
    cumsum,
    empty,
    fill,
    gemm,
    reduce_absmax,
    reduce_abssum,
    reduce_max,
    reduce_min,
    reduce_sum,
    reshape,
    sync_threads,
    use_swizzle,
    view,
)
from .unsupported import missing
from .values import Buffer, Scalar

# TileLang's other names: dtypes ("float" is float32, ...) and loops.
float8_e4m3fn = float8_e4m3
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64
uint, ulong = uint32, uint64
Serial, Unroll = serial, unroll

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
    "Pipelined",
    "PrimFunc",
    "Scalar",
    "Serial",
    "Tensor",
    "TensorType",
    "Unroll",
    "abs",
    "alloc",
    "alloc_fragment",
    "alloc_global",
    "alloc_local",
    "alloc_shared",
    "alloc_var",
    "annotate_layout",
    "atomic_add",
    "bfloat16",
    "bool",
    "cast",
    "ceil",
    "ceildiv",
    "clamp",
    "clear",
    "const",
    "copy",
    "cumsum",
    "double",
    "dynamic",
    "empty",
    "exp",
    "exp2",
    "fill",
    "float",
    "float8_e4m3",
    "float8_e4m3fn",
    "float8_e5m2",
    "float16",
    "float32",
    "float64",
    "floor",
    "gemm",
    "get_block_binding",
    "get_block_bindings",
    "get_thread_binding",
    "get_thread_bindings",
    "get_thread_extent",
    "half",
    "if_then_else",
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
    "prim_func",
    "reduce_absmax",
    "reduce_abssum",
    "reduce_max",
    "reduce_min",
    "reduce_sum",
    "reshape",
    "rsqrt",
    "serial",
    "short",
    "sqrt",
    "symbolic",
    "sync_threads",
    "tanh",
    "uint",
    "uint8",
    "uint16",
    "uint32",
    "uint64",
    "ulong",
    "unroll",
    "use_swizzle",
    "view",
]


def __getattr__(name: str) -> object:
    """`T.<name>` for a name the DSL lacks: a DSLError at the user's line (also an
    AttributeError) naming the TileLang feature and the alternative."""
    if name.startswith("__"):
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    raise missing(name, __all__)
