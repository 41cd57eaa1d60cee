"""The MLIR IR API with tilec's dialects available.

Re-exports `mlir.ir` (so generated builders that do `from ..ir import ...`
work) and adds `Context`-making helpers that register the `tile` and `ascend`
dialects next to the upstream ones.
"""

from __future__ import annotations

import re

from mlir._mlir_libs import _mlir as _cext
from mlir.ir import *  # noqa: F403
from mlir.ir import Context, _GlobalDebug  # noqa: F401

from tilec import _native

# Parsed `tile.*`/`ascend.*` ops come back as their generated classes: the
# bindings look for a dialect's op classes under these module prefixes.
_cext.globals.append_dialect_search_prefix("tilec.dialects")


def make_context(*, allow_unregistered: bool = False) -> Context:
    """A new context with every upstream dialect and tilec's dialects loaded."""
    ctx = Context()
    ctx.allow_unregistered_dialects = allow_unregistered
    _native.register_dialects(ctx)
    return ctx


def parse_module(
    source: str | bytes, source_name: str = "<string>", context: Context | None = None
):
    """Parses and verifies a module, naming its buffer `source_name` in locations.

    Raises `tilec.diagnostics.CompileError` with the parser's or verifier's
    diagnostics instead of the bindings' generic MLIRError.
    """
    from tilec.diagnostics import CompileError, collect, error

    ctx = context or Context.current
    data = source.encode() if isinstance(source, str) else source
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{source_name}: input is not UTF-8 text (byte {exc.start})") from None
    text = data.decode("utf-8")
    crashing = nesting_error(text, source_name) or dense_array_error(text, source_name)
    if crashing is not None:
        raise CompileError(crashing)
    with collect(ctx) as diagnostics:
        module = _native.parse_module(ctx, data, source_name)
    if module is None:
        raise CompileError(diagnostics or [error(f"failed to parse {source_name}").diagnostics[0]])
    return module


MAX_NESTING = 256
"""Brackets (regions, types, attributes, operand lists) open at once that a module may
have. MLIR's parser recurses on each and overflows the C stack near 10,000
(a crash, not an error), and Python walks of the nested regions overflow far
sooner; tilec's own IR stays under 10 deep."""

_BRACKETS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|->|>=|<=|[{}\[\]()<>]')
"""String literals and comments (skipped), arrows and comparisons (not brackets),
and brackets."""


def nesting_error(text: str, source_name: str = "<string>"):
    """A Diagnostic at the first bracket nested past MAX_NESTING in `text`, or None.

    A cheap scan before parsing: the parser would crash on deep enough text."""
    from tilec.diagnostics import Diagnostic

    depth = 0
    for token in _BRACKETS.finditer(text):
        char = token.group()
        if char in "{[(<":
            depth += 1
            if depth > MAX_NESTING:
                line = text.count("\n", 0, token.start()) + 1
                column = token.start() - (text.rfind("\n", 0, token.start()) + 1) + 1
                return Diagnostic("error", f"nesting deeper than {MAX_NESTING} brackets: "
                                           "tilec does not parse IR this deep", source_name,
                                  line, column)
        elif char in "}])>":
            depth = max(0, depth - 1)
    return None


_DENSE_ARRAYS = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\n]*|(?<![\w.!])array<\s*([^\s:>]+)')
"""String literals and comments (skipped), and the element type of a dense array
(`array<T: ...>`, not a type such as `!llvm.array<N x T>`)."""
_ARRAY_ELEMENTS = re.compile(r"[su]?i\d+|f16|bf16|f32|f64|f80|f128|tf32|f8E\w+|f6E\w+|f4E\w+")


def dense_array_error(text: str, source_name: str = "<string>"):
    """A Diagnostic at the first `array<T: ...>` whose T is neither an integer nor a
    float type, or None. MLIR's parser asks such a type for its bit width and aborts
    the process (an assertion in Type::getIntOrFloatBitWidth) instead of reporting it."""
    from tilec.diagnostics import Diagnostic

    for token in _DENSE_ARRAYS.finditer(text):
        element = token.group(1)
        if element is None or _ARRAY_ELEMENTS.fullmatch(element):
            continue
        at = token.start(1)
        line = text.count("\n", 0, at) + 1
        column = at - (text.rfind("\n", 0, at) + 1) + 1
        return Diagnostic("error", f"a dense array's elements must be integers or floats, "
                                   f"not '{element}'", source_name, line, column)
    return None
