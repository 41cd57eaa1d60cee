"""`tilec.layout`: the layout constructors of TileLang's `tilelang.layout`.

They build layout annotations (`T.annotate_layout`), recorded on the tile IR
as `tile.layout` for the targets that lay out shared memory (cuda); the cpu
and ascend targets keep their own layouts and ignore them.
"""

from tilec.language.hints import Fragment, Layout
from tilec.language.layouts import (
    SwizzledLayout,
    make_full_bank_swizzled_layout,
    make_half_bank_swizzled_layout,
    make_linear_layout,
    make_quarter_bank_swizzled_layout,
    make_swizzled_layout,
    make_wgmma_swizzled_layout,
)

__all__ = [
    "Fragment",
    "Layout",
    "SwizzledLayout",
    "make_full_bank_swizzled_layout",
    "make_half_bank_swizzled_layout",
    "make_linear_layout",
    "make_quarter_bank_swizzled_layout",
    "make_swizzled_layout",
    "make_wgmma_swizzled_layout",
]
