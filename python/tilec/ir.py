"""The MLIR IR API with tilec's dialects available.

Re-exports `mlir.ir` (so generated builders that do `from ..ir import ...`
work) and adds `Context`-making helpers that register the `tile` and `ascend`
dialects next to the upstream ones.
"""

from __future__ import annotations

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
    with collect(ctx) as diagnostics:
        module = _native.parse_module(ctx, data, source_name)
    if module is None:
        raise CompileError(diagnostics or [error(f"failed to parse {source_name}").diagnostics[0]])
    return module
