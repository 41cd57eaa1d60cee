"""C++ text helpers of the AscendC emitter: tensor views, index expressions, names."""

from __future__ import annotations

import re
from dataclasses import dataclass

from mlir import ir


@dataclass
class Tensor:
    """A memref value as C++: a tensor expression plus its logical layout."""

    base: str
    offset: str
    """Element offset of the view into `base` ("0" for the base itself)."""
    shape: list[str]
    strides: list[str]
    element: str
    space: str
    static_shape: list[int]

    def at(self, extra: str = "0") -> str:
        off = add_index(self.offset, extra)
        return self.base if off == "0" else f"{self.base}[{off}]"


def one_run(tensor: Tensor, sizes: list[int] | None = None) -> bool:
    """Whether a region of `sizes` of `tensor` (default: the whole view) is consecutive
    elements: each dim of extent above one strides over the region's dims inside it (a
    column of a tile, one dim of stride N, is not)."""
    expected = 1
    extents = tensor.static_shape if sizes is None else sizes
    for extent, stride in zip(reversed(extents), reversed(tensor.strides), strict=True):
        if extent == 1:
            continue
        if stride != str(expected):
            return False
        expected *= extent
    return True


def row_stride(tensor: Tensor) -> str | None:
    """The static distance of the rows of a view whose rows are each one run of elements
    and equally spaced but not consecutive (a tile with padded rows), else None."""
    shape, strides = tensor.static_shape, tensor.strides
    if len(shape) < 2 or strides[-1] != "1" or not strides[-2].isdigit() \
            or int(strides[-2]) <= shape[-1]:
        return None
    for d in range(len(shape) - 2):  # the leading dims only count rows
        if shape[d] != 1 and strides[d] != str(int(strides[d + 1]) * shape[d + 1]):
            return None
    return strides[-2]


def keyword(attr: ir.Attribute) -> str:
    """`add` of `#ascend.vbin_kind<add>`."""
    text = str(attr)
    match = re.search(r"<([^<>]+)>", text)
    return match.group(1) if match else text


def add_index(a: str, b: str) -> str:
    if a == "0":
        return b
    if b == "0":
        return a
    return f"{a} + {b}"


def mul_index(a: str, b: str) -> str:
    if a == "0" or b == "0":
        return "0"
    if a == "1":
        return b
    if b == "1":
        return a
    return f"({a}) * ({b})"


def element_name(t: ir.Type) -> str:
    return str(t)


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


_RESERVED = frozenset({
    "main", "auto", "bool", "break", "case", "char", "class", "const", "continue", "default",
    "delete", "do", "double", "else", "enum", "explicit", "extern", "false", "float", "for",
    "friend", "goto", "half", "if", "inline", "int", "long", "namespace", "new", "operator",
    "private", "protected", "public", "register", "return", "short", "signed", "sizeof",
    "static", "struct", "switch", "template", "this", "throw", "true", "try", "typedef",
    "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "while", "pipe",
    "ub", "l1", "l0a", "l0b", "l0c", "ub_buf", "l1_buf", "l0a_buf", "l0b_buf", "l0c_buf",
    "AscendC",
})
_GENERATED = re.compile(r"(v|t|i|n|p|r|l|w|pad|row|work|blocks|entry)\d+$")


def ident(text: str) -> str:
    """A C++ name for a DSL name: never a keyword, `main`, or a name the emitter makes."""
    name = re.sub(r"\W", "_", text)
    if not name or name[0].isdigit():
        name = f"v_{name}"
    return f"{name}_" if name in _RESERVED or _GENERATED.match(name) else name



def element_at(tensor: Tensor, index: str) -> str:
    return tensor.base if index == "0" else f"{tensor.base}[{index}]"


def index_view(tensor: Tensor, row: str, cols: int, extra: int = 0) -> str:
    index = add_index(tensor.offset, f"{row} * {cols}" if cols != 1 else row)
    if extra:
        index = f"{index} + {extra}"
    return f"{tensor.base}[{index}]"


def align(value: int, alignment: int) -> int:
    return ceil_div(value, alignment) * alignment


def row_major_strides(shape: list[str]) -> list[str]:
    strides: list[str] = []
    running = "1"
    for d in reversed(shape):
        strides.append(running)
        running = mul_index(running, d) if not (running.isdigit() and d.isdigit()) \
            else str(int(running) * int(d))
    return list(reversed(strides))


