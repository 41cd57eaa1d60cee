"""Where a Hopper (sm_90a) gemm runs on `wgmma.mma_async`, and how its operands are stored.

wgmma reads A and B from shared memory through 64-bit matrix descriptors
(PTX ISA 9.7.15.5.1.2): rows of an operand tile are stored in *panels*
`swizzle` bytes wide (128, 64 or 32, the widest that divides a stored row),
panel after panel, 8-row groups `8 * swizzle` bytes apart (the stride
byte offset), with the 16-byte chunks of each row XOR-swizzled by the row's
address bits 7.. (`Swizzle<B, 4, 3>`). The same layout is what TMA writes
with the matching swizzle mode, so the writers (copies) and wgmma agree.
A K-major operand (A stored M x K, B stored N x K) advances along K inside
a panel by moving the start address; an MN-major one (A stored K x M, B
stored K x N; 16-bit types only) steps from panel to panel along M/N by the
leading byte offset.

The warpgroups (128 threads each) form a grid over C, M first: each
issues m64nNk16 (f16, bf16) or m64nNk32 (fp8) instructions on its
`M / wg_m` x `N / wg_n` part with N at most 256 per instruction. Blocks
whose thread count is not a multiple of 128, or gemms that do not fit
these rules, keep the sm_80 lowering (mma.sync): see `wgmma_grid`.
"""

from __future__ import annotations

from dataclasses import dataclass

from mlir import ir
from mlir.dialects import arith

from tilec.passes.conversion import ir_builders as irb
from tilec.passes.conversion.tile_to_cuda.analysis.gemm_shape import GemmShape

WARPGROUP = 128
# wgmma per operand element type: (K of one instruction, PTX type).
WGMMA_KINDS = {
    "f16": (16, "f16"),
    "bf16": (16, "bf16"),
    "f8E4M3FN": (32, "e4m3"),
    "f8E5M2": (32, "e5m2"),
}
# Descriptor swizzle mode per panel width in bytes.
SWIZZLE_MODES = {128: 1, 64: 2, 32: 3}
MAX_N = 256
ROW_GROUP = 8


def panel_bytes(stored: tuple[int, ...], element_bits: int) -> int | None:
    """The swizzle (panel width in bytes) of a stored 2-D operand tile, None
    when its rows cannot be stored the way wgmma reads them."""
    if len(stored) != 2 or element_bits % 8 or stored[0] % ROW_GROUP:
        return None
    row = stored[1] * element_bits // 8
    return next((width for width in SWIZZLE_MODES if row % width == 0), None)


@dataclass(frozen=True)
class PanelSwizzle:
    """Element (r, c) of a stored R x C tile lives in panel c // W (W elements
    = `panel` bytes per row), row r of it, its 16-byte chunk XOR-ed with
    the row's address bits 7.. (the hardware's Swizzle<B, 4, 3>); `apply`
    gives that place as coordinates of the row-major R x C memref."""

    panel: int
    rows: int
    cols: int
    element_bytes: int

    @property
    def width(self) -> int:
        return self.panel // self.element_bytes

    def chunk_xor(self, row: int) -> int:
        """The value row `row`'s 16-byte chunk numbers are XOR-ed with."""
        return (row * self.panel >> 7) % (self.panel // 16)

    def apply(self, coords: list[ir.Value]) -> list[ir.Value]:
        row, col = coords
        lanes = 16 // self.element_bytes
        rows_per_shift = 128 // self.panel
        shift = row if rows_per_shift == 1 else arith.divui(row, irb.index(rows_per_shift))
        term = arith.muli(arith.remui(shift, irb.index(self.panel // 16)), irb.index(lanes))
        if self.width == self.cols:
            return [row, arith.xori(col, term)]
        panel = arith.divui(col, irb.index(self.width))
        inside = arith.xori(arith.remui(col, irb.index(self.width)), term)
        linear = arith.addi(
            arith.muli(panel, irb.index(self.rows * self.width)),
            arith.addi(arith.muli(row, irb.index(self.width)), inside),
        )
        cols = irb.index(self.cols)
        return [arith.divui(linear, cols), arith.remui(linear, cols)]


@dataclass(frozen=True)
class WgmmaGrid:
    """The warpgroup grid of one gemm and the N of each instruction."""

    wg_m: int
    wg_n: int
    n_step: int
    k_step: int

    @property
    def text(self) -> str:
        return f"wgmma:{self.wg_m}x{self.wg_n}"


def _k_major(shape: GemmShape, operand: str) -> bool:
    return not shape.transpose_a if operand == "a" else shape.transpose_b


def wgmma_grid(shape: GemmShape, threads: int, a_stored: tuple[int, ...],
               b_stored: tuple[int, ...], element_bits: int) -> WgmmaGrid | None:
    """How `shape` runs on wgmma with `threads` threads, None when it cannot."""
    kind = WGMMA_KINDS.get(shape.ab_element)
    if kind is None or shape.c_element != "f32" or threads % WARPGROUP:
        return None
    k_step = kind[0]
    if k_step == 32 and not (_k_major(shape, "a") and _k_major(shape, "b")):
        return None  # 8-bit operands must be K-major
    if shape.k % k_step:
        return None
    a_panel = panel_bytes(a_stored, element_bits)
    b_panel = panel_bytes(b_stored, element_bits)
    if a_panel is None or b_panel is None:
        return None
    # An MN-major operand's instructions start at panel boundaries.
    a_width = 0 if _k_major(shape, "a") else a_panel * 8 // element_bits
    b_width = 0 if _k_major(shape, "b") else b_panel * 8 // element_bits
    if a_width and 64 % a_width:
        return None
    groups = threads // WARPGROUP
    for wg_m in range(groups, 0, -1):
        wg_n = groups // wg_m
        if groups % wg_m or shape.m % (64 * wg_m) or shape.n % wg_n:
            continue
        n_part = shape.n // wg_n
        steps = [
            n for n in range(min(MAX_N, n_part), 7, -8)
            if n_part % n == 0 and n % 8 == 0 and (not b_width or n % b_width == 0)
        ]
        if steps:
            return WgmmaGrid(wg_m, wg_n, steps[0], k_step)
    return None
