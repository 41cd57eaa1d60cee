"""tilec's kernel DSL, TileLang style: `import tilec.language as T`.

    import tilec.language as T

    @T.prim_func
    def scale(X: T.Tensor(("N",), "float32"), Y: T.Tensor(("N",), "float32")):
        with T.Kernel(T.ceildiv(X.shape[0], 256), threads=128) as bx:
            x = T.alloc_fragment((256,), "float32")
            T.copy(X[bx * 256], x)
            for i in T.Parallel(256):
                x[i] = x[i] * 2.0
            T.copy(x, Y[bx * 256])

    print(scale.ir())                  # tile IR, every op located at its line here

A kernel is traced: its body runs once with symbolic values, and each DSL
call adds the matching `tile`/`arith`/`math`/`memref`/`scf` op at the user's
file:line:col. Python control flow on symbolic values cannot be traced; use
`T.if_then_else`, `T.serial` and Python-level constants. Mistakes raise
`DSLError` pointing at the offending line.

Surface:
- kernels: `prim_func` (also `tilec.kernel`), `Tensor(shape, dtype)`, `symbolic(name)`,
  scalar parameters annotated with a dtype (`int32` becomes `index`)
- launch and loops: `Kernel`, `Parallel`, `Pipelined`, `serial`
- tiles: `alloc_shared`, `alloc_fragment`, `alloc_local`, `alloc_var`, `alloc`,
  `copy`, `gemm`, `fill`, `clear`, `reduce_max/min/sum/abssum/absmax`, `cumsum`,
  `atomic_add`, `sync_threads`
- scalars: Python operators, `exp`, `exp2`, `log`, `log2`, `sqrt`, `rsqrt`, `tanh`,
  `floor`, `ceil`, `abs`, `max`, `min`, `if_then_else`, `cast`, `ceildiv`, `infinity`
- dtypes: `float16`, `bfloat16`, `float32`, `float64`, `float8_e4m3`, `float8_e5m2`,
  `int8`, `int16`, `int32`, `int64`, `bool` (or their names as strings); calling one
  converts a value (`T.float32(0)`)
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
)
from .dtypes import (
    boolean as bool,
)
from .errors import DSLError
from .kernel import PrimFunc, Tensor, TensorType, prim_func, symbolic
from .launch import Kernel
from .loops import Parallel, Pipelined, serial
from .math_ops import (
    abs,
    cast,
    ceil,
    ceildiv,
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
    alloc_local,
    alloc_shared,
    alloc_var,
    atomic_add,
    clear,
    copy,
    cumsum,
    fill,
    gemm,
    reduce_absmax,
    reduce_abssum,
    reduce_max,
    reduce_min,
    reduce_sum,
    sync_threads,
)
from .values import Buffer, Scalar

__all__ = [
    "Buffer",
    "DSLError",
    "DType",
    "Kernel",
    "Parallel",
    "Pipelined",
    "PrimFunc",
    "Scalar",
    "Tensor",
    "TensorType",
    "abs",
    "alloc",
    "alloc_fragment",
    "alloc_local",
    "alloc_shared",
    "alloc_var",
    "atomic_add",
    "bfloat16",
    "bool",
    "cast",
    "ceil",
    "ceildiv",
    "clear",
    "copy",
    "cumsum",
    "exp",
    "exp2",
    "fill",
    "float8_e4m3",
    "float8_e5m2",
    "float16",
    "float32",
    "float64",
    "floor",
    "gemm",
    "if_then_else",
    "infinity",
    "int8",
    "int16",
    "int32",
    "int64",
    "log",
    "log2",
    "max",
    "min",
    "prim_func",
    "reduce_absmax",
    "reduce_abssum",
    "reduce_max",
    "reduce_min",
    "reduce_sum",
    "rsqrt",
    "serial",
    "sqrt",
    "symbolic",
    "sync_threads",
    "tanh",
]
