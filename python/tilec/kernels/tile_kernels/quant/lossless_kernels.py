"""FP4 -> FP8 re-quantization without loss (upstream's `per_block_cast_lossless`) and the
e2m1 decoder, as tilec kernels.

Every e2m1 value times a power-of-two scale is exact in e4m3 when the e4m3 block's
scale is 2^-6 of the largest e2m1 scale inside it: each e2m1 block's ratio to it,
2^(e_in - e_out) with e_in - e_out <= 6, folds into the e4m3 exponent (6 * 2^6 = 384 <=
448), and ratios down to 2^-5 keep e2m1's 0.5 a normal e4m3. Blocks of the output
past the tensor's edges take no part in the maximum.
"""

from __future__ import annotations

import tilec.language as T

from .kernels import e2m1_value


def _exponent(SF, m, k, row_stride, column_stride, packed: bool):
    """The biased exponent of the input scale of block (m, k): a float32 scale's exponent
    field (its bits >> 23), or the UE8M0 byte k % 4 of int32 word k // 4."""
    if packed:
        word = SF[m * row_stride + (k // 4) * column_stride]
        return (word >> T.cast((k % 4) * 8, "int32")) & 255
    return (T.reinterpret(SF[m * row_stride + k * column_stride], "int32") >> 23) & 511


def per_block_cast_lossless(in_block: tuple[int, int], out_block: tuple[int, int],
                            in_packed: bool, out_packed: bool) -> T.PrimFunc:
    """X (M, N / 2) int8 (two e2m1 a byte) with scales XSF of in_block blocks (through
    storage and strides) -> Y (M, N) e4m3 and scales SF of out_block blocks: e_out =
    max(e_in over the block) - 6 (at least 0), Y = e4m3(value * 2^(e_in - e_out)), SF =
    2^(e_out - 127) (float32, or its byte)."""
    M, N, NX = T.symbolic("M"), T.symbolic("N"), T.symbolic("NX")
    S, Q = T.symbolic("S"), T.symbolic("Q")
    in_rows, in_columns = in_block
    out_rows, out_columns = out_block
    tile_rows = max(out_rows, 32)
    groups = tile_rows // out_rows
    per_row, per_column = out_rows // in_rows, out_columns // in_columns

    @T.prim_func
    def per_block_cast_lossless(
        X: T.Tensor((M, NX), "int8"),
        XSF: T.Tensor((S,), "int32" if in_packed else "float32"),
        Y: T.Tensor((M, N), "float8_e4m3"),
        SF: T.Tensor((Q,), "uint8" if out_packed else "float32"),
        in_row_stride: T.int64,
        in_column_stride: T.int64,
        sf_row_stride: T.int64,
        sf_column_stride: T.int64,
    ):
        with T.Kernel(T.ceildiv(N, out_columns), T.ceildiv(M, tile_rows),
                      threads=128) as (bx, by):
            exponents = T.alloc_fragment((groups, per_row * per_column), "int32")
            largest = T.alloc_fragment((groups,), "int32")
            y = T.alloc_fragment((tile_rows, out_columns), "float8_e4m3")
            for g, p in T.Parallel(groups, per_row * per_column):
                first_row = by * tile_rows + g * out_rows + (p // per_column) * in_rows
                column_block = bx * per_column + p % per_column
                inside = (first_row < M) & (column_block * in_columns < N)
                e = _exponent(XSF, T.min(first_row, M - 1) // in_rows,
                              T.min(column_block, (N - 1) // in_columns), in_row_stride,
                              in_column_stride, in_packed)
                exponents[g, p] = T.if_then_else(inside, e, 0)
            T.reduce_max(exponents, largest, dim=1)
            for g in T.Parallel(groups):
                e_out = T.if_then_else(largest[g] >= 6, largest[g] - 6, 0)
                largest[g] = e_out
                row_block = by * groups + g
                if row_block * out_rows < M:
                    if out_packed:
                        SF[row_block * sf_row_stride + (bx // 4) * sf_column_stride + bx % 4] = \
                            T.cast(e_out, "uint8")
                        for t in (1, 2, 3):
                            if (bx == T.ceildiv(N, out_columns) - 1) & (bx % 4 + t < 4):
                                SF[row_block * sf_row_stride + (bx // 4) * sf_column_stride
                                   + bx % 4 + t] = T.cast(0, "uint8")
                    else:
                        SF[row_block * sf_row_stride + bx * sf_column_stride] = \
                            T.reinterpret(e_out << 23, "float32")
            for i, j in T.Parallel(tile_rows, out_columns):
                row = T.min(by * tile_rows + i, M - 1)
                column = T.min(bx * out_columns + j, N - 1)
                e_in = _exponent(XSF, row // in_rows, column // in_columns, in_row_stride,
                                 in_column_stride, in_packed)
                factor = T.reinterpret((e_in - largest[i // out_rows] + 127) << 23, "float32")
                value = e2m1_value(X[row, column // 2], column % 2 == 1)
                y[i, j] = T.cast(value * factor, "float8_e4m3")
            T.copy(y, Y[by * tile_rows, bx * out_columns])

    return per_block_cast_lossless


def unpack_e2m1(in_dtype: str, out_dtype: str, block_M: int = 32,
                block_N: int = 64) -> T.PrimFunc:
    """X (M, L) bytes of two e2m1 each -> Y (M, 2L): Y[r, 2c] the low nibble's value,
    Y[r, 2c + 1] the high one's, in out_dtype (exact in every float type)."""
    M, L = T.symbolic("M"), T.symbolic("L")

    @T.prim_func
    def unpack_e2m1(X: T.Tensor((M, L), in_dtype), Y: T.Tensor((M, L * 2), out_dtype)):
        with T.Kernel(T.ceildiv(L * 2, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            y = T.alloc_fragment((block_M, block_N), out_dtype)
            for i, j in T.Parallel(block_M, block_N):
                row = T.min(by * block_M + i, M - 1)
                column = T.min(bx * block_N + j, L * 2 - 1)
                y[i, j] = T.cast(e2m1_value(X[row, column // 2], column % 2 == 1), out_dtype)
            T.copy(y, Y[by * block_M, bx * block_N])

    return unpack_e2m1
