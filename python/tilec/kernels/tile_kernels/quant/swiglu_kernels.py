"""SwiGLU fused with TileKernels' per-token e4m3 cast, as tilec kernels, in the arithmetic
of `tile_kernels.torch.swiglu` followed by `tile_kernels.torch.cast`.

SwiGLU of a row [left | right] is left / (1 + e^-left) * right in float32. e^x is
rounded once from float64 (`exp_f32`): tilec's float32 exp is a faster approximation
that is 1 ulp off in about a fifth of the cases, and a correctly rounded e^x is the
one both a reference and a kernel can agree on, whatever libm either side uses. The
kernels take `exact`: false on a target without float64 (the NPUs), where e^x and the
backward's fused multiply-add are float32 ones, within an ulp of the exact values.
"""

from __future__ import annotations

import tilec.language as T

from ..moe.fused_kernels import fma_f32
from .kernels import AMAX_FLOOR, quantize, scale_and_factor


def exp_f32(x, exact: bool = True):
    """e^x for a float32 x, correctly rounded to float32 where `exact`."""
    return T.cast(T.exp(T.cast(x, "float64")), "float32") if exact else T.exp(x)


def swiglu_forward_and_per_token_cast(in_dtype: str, width: int, with_weight: bool,
                                      with_pos_to_expert: bool, clamp: bool, count: bool,
                                      round_sf: bool, floor: float,
                                      block_M: int, exact: bool = True) -> T.PrimFunc:
    """X (M, 2H) contiguous -> Y (M, H) e4m3 and SF (through its storage and strides,
    one scale per row and `width` columns) of v = swiglu(X) (times the row's routing
    weight W[PosToTokenTopk[row]], 0 where that is < 0). Rows with PosToExpert < 0 are
    zeros. With `count`, Count[0..2] += how many kept lefts were > C, rights > C and
    rights < -C."""
    M, H, P = T.symbolic("M"), T.symbolic("H"), T.symbolic("W")
    R, E, S, X2 = T.symbolic("R"), T.symbolic("E"), T.symbolic("S"), T.symbolic("X2")

    @T.prim_func
    def swiglu_forward_and_per_token_cast(
        X: T.Tensor((M, X2), in_dtype),
        Y: T.Tensor((M, H), "float8_e4m3"),
        SF: T.Tensor((S,), "float32"),
        PosToTokenTopk: T.Tensor((R,), "int32"),
        W: T.Tensor((P,), "float32"),
        PosToExpert: T.Tensor((E,), "int32"),
        Count: T.Tensor((3,), "int64"),
        C: T.float32,
        sf_row_stride: T.int64,
        sf_column_stride: T.int64,
    ):
        with T.Kernel(T.ceildiv(H, width), T.ceildiv(M, block_M), threads=128) as (bx, by):
            weight = T.alloc_fragment((block_M,), "float32")
            kept = T.alloc_fragment((block_M,), "int32")
            v = T.alloc_fragment((block_M, width), "float32")
            amax = T.alloc_fragment((block_M,), "float32")
            factor = T.alloc_fragment((block_M,), "float32")
            y = T.alloc_fragment((block_M, width), "float8_e4m3")
            for i in T.Parallel(block_M):
                row = T.min(by * block_M + i, M - 1)
                keep = by * block_M + i < M
                if with_pos_to_expert:
                    keep = keep & (PosToExpert[row] >= 0)
                kept[i] = T.if_then_else(keep, 1, 0)
                if with_weight:
                    pos = PosToTokenTopk[row]
                    weight[i] = T.if_then_else(pos >= 0, W[T.max(pos, 0)], 0.0)
            for i, j in T.Parallel(block_M, width):
                row = T.min(by * block_M + i, M - 1)
                column = T.min(bx * width + j, H - 1)
                left = T.cast(X[row, column], "float32")
                right = T.cast(X[row, column + H], "float32")
                if clamp:
                    left = T.min(left, C)
                    right = T.min(T.max(right, -C), C)
                value = left / (1.0 + exp_f32(-left, exact)) * right
                if with_weight:
                    value = value * weight[i]
                inside = (bx * width + j < H) & (kept[i] == 1)
                v[i, j] = T.if_then_else(inside, value, 0.0)
            if count:
                counted = T.alloc_fragment((3, block_M, width), "int32")
                row_counts = T.alloc_fragment((3, block_M), "int32")
                totals = T.alloc_fragment((3,), "int32")
                for i, j in T.Parallel(block_M, width):
                    row = T.min(by * block_M + i, M - 1)
                    column = T.min(bx * width + j, H - 1)
                    inside = (bx * width + j < H) & (kept[i] == 1)
                    left = T.cast(X[row, column], "float32")
                    right = T.cast(X[row, column + H], "float32")
                    counted[0, i, j] = T.if_then_else(inside & (left > C), 1, 0)
                    counted[1, i, j] = T.if_then_else(inside & (right > C), 1, 0)
                    counted[2, i, j] = T.if_then_else(inside & (right < -C), 1, 0)
                T.reduce_sum(counted, row_counts, dim=2)
                T.reduce_sum(row_counts, totals, dim=1)
                for k in T.serial(3):
                    T.atomic_add(Count[k], T.cast(totals[k], "int64"))
            T.reduce_absmax(v, amax, dim=1)
            for i in T.Parallel(block_M):
                sf, inverse = scale_and_factor(amax[i], round_sf, floor)
                factor[i] = inverse
                if by * block_M + i < M:
                    SF[(by * block_M + i) * sf_row_stride + bx * sf_column_stride] = sf
            for i, j in T.Parallel(block_M, width):
                y[i, j] = quantize(v[i, j], factor[i])
            T.copy(y, Y[by * block_M, bx * width])

    return swiglu_forward_and_per_token_cast


def swiglu_backward_and_per_token_cast(num_per_channels: int, clamp: bool, round_sf: bool,
                                       block_M: int, exact: bool = True) -> T.PrimFunc:
    """X (M, 2H) e4m3 with SF (M, 2H / num_per_channels), G (M, H) bfloat16 -> the
    reference's swiglu_backward: Out = bfloat16(act * w), XGrad = bfloat16([dgate | dup]),
    its per-token cast (XGradQ, XGradSF) from float32, and WGrad[PosToTokenTopk[row]] =
    sum over the row of G * act. w = Weight[PosToTokenTopk[row]], 0 where that is < 0."""
    M, H, P, S = T.symbolic("M"), T.symbolic("H"), T.symbolic("P"), T.symbolic("S")
    X2 = T.symbolic("X2")
    width = num_per_channels

    @T.prim_func
    def swiglu_backward_and_per_token_cast(
        X: T.Tensor((M, X2), "float8_e4m3"),
        XSF: T.Tensor((M, S), "float32"),
        G: T.Tensor((M, H), "bfloat16"),
        Weight: T.Tensor((P,), "float32"),
        PosToTokenTopk: T.Tensor((M,), "int32"),
        Out: T.Tensor((M, H), "bfloat16"),
        XGradQ: T.Tensor((M, X2), "float8_e4m3"),
        XGradSF: T.Tensor((M, S), "float32"),
        XGrad: T.Tensor((M, X2), "bfloat16"),
        WGrad: T.Tensor((P,), "float32"),
        C: T.float32,
    ):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            w = T.alloc_fragment((block_M,), "float32")
            dot = T.alloc_fragment((block_M,), "float32")
            partial = T.alloc_fragment((block_M,), "float32")
            product = T.alloc_fragment((block_M, width), "float32")
            grads = T.alloc_fragment((2, block_M, width), "float32")
            amax = T.alloc_fragment((2, block_M), "float32")
            factor = T.alloc_fragment((2, block_M), "float32")
            quantized = T.alloc_fragment((2, block_M, width), "float8_e4m3")
            halves = H // width
            for i in T.Parallel(block_M):
                pos = PosToTokenTopk[T.min(bx * block_M + i, M - 1)]
                w[i] = T.if_then_else(pos >= 0, Weight[T.max(pos, 0)], 0.0)
            T.clear(dot)
            for k in T.serial(halves):
                for i, j in T.Parallel(block_M, width):
                    row = T.min(bx * block_M + i, M - 1)
                    column = k * width + j
                    x = T.cast(X[row, column], "float32") * XSF[row, k]
                    y = T.cast(X[row, column + H], "float32") * XSF[row, k + halves]
                    x_clamped = x > C
                    y_clamped = (y > C) | (y < -C)
                    if clamp:
                        x = T.if_then_else(x_clamped, C, x)
                        y = T.if_then_else(y > C, C, T.if_then_else(y < -C, -C, y))
                    g = T.cast(G[row, column], "float32")
                    tmp = 1.0 + exp_f32(-x, exact)
                    s = 1.0 / tmp
                    act = x / tmp * y
                    product[i, j] = g * act
                    gws = g * w[i] * s
                    dx = gws * y * fma_f32(x, 1.0 - s, 1.0, exact)
                    dy = gws * x
                    if clamp:
                        dx = T.if_then_else(x_clamped, 0.0, dx)
                        dy = T.if_then_else(y_clamped, 0.0, dy)
                    grads[0, i, j] = dx
                    grads[1, i, j] = dy
                    if bx * block_M + i < M:
                        Out[row, column] = T.cast(act * w[i], "bfloat16")
                        XGrad[row, column] = T.cast(dx, "bfloat16")
                        XGrad[row, column + H] = T.cast(dy, "bfloat16")
                T.reduce_sum(product, partial, dim=1)
                for i in T.Parallel(block_M):
                    dot[i] = dot[i] + partial[i]
                T.reduce_absmax(grads, amax, dim=2)
                for h, i in T.Parallel(2, block_M):
                    sf, inverse = scale_and_factor(amax[h, i], round_sf, AMAX_FLOOR)
                    factor[h, i] = inverse
                    if bx * block_M + i < M:
                        XGradSF[bx * block_M + i, k + h * halves] = sf
                for h, i, j in T.Parallel(2, block_M, width):
                    quantized[h, i, j] = quantize(grads[h, i, j], factor[h, i])
                for h, i, j in T.Parallel(2, block_M, width):
                    if bx * block_M + i < M:
                        XGradQ[bx * block_M + i, h * H + k * width + j] = quantized[h, i, j]
            for i in T.Parallel(block_M):
                pos = PosToTokenTopk[T.min(bx * block_M + i, M - 1)]
                if (bx * block_M + i < M) & (pos >= 0):
                    WGrad[pos] = dot[i]

    return swiglu_backward_and_per_token_cast


def zero_unplaced(block: int = 256) -> T.PrimFunc:
    """WGrad[k] = 0 where TokenTopkToPos[k] < 0: the (token, top-k) slots no expanded
    row feeds (the others get their row's dot product)."""
    P = T.symbolic("P")

    @T.prim_func
    def zero_unplaced(TokenTopkToPos: T.Tensor((P,), "int32"), WGrad: T.Tensor((P,), "float32")):
        with T.Kernel(T.ceildiv(P, block), threads=128) as bx:
            for i in T.Parallel(block):
                unplaced = TokenTopkToPos[T.min(bx * block + i, P - 1)] < 0
                if (bx * block + i < P) & unplaced:
                    WGrad[bx * block + i] = 0.0

    return zero_unplaced
