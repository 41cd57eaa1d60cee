"""Which line of the user's code a DSL call comes from.

The DSL stamps every op with the position of the user's statement that
created it, and points every error there. Public DSL entry points are
wrapped with `dsl_api`: the outermost one records the caller's position (the
innermost frame outside tilec and the MLIR bindings) as the current *site*;
calls nested inside it keep that site, so an operator used inside `T.exp`
reports the user's line, not ours.
"""

from __future__ import annotations

import ast
import functools
import linecache
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import CodeType, FrameType, TracebackType
from typing import ParamSpec, TypeVar

from mlir import ir

from .errors import SourceLoc

# tilec and the MLIR bindings it builds with: their frames are never the
# user's, so neither a DSL call's site nor an unexpected error points there.
_LIBRARY_DIRS = (
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep,  # tilec/
    os.path.dirname(os.path.abspath(ir.__file__)) + os.sep,  # mlir/
)
# The kernel library's kernels are DSL code like a user's: their ops are located at
# their own lines (which also keeps a library kernel's IR, and its cache key, the same
# whoever calls it).
_KERNEL_LIBRARY = os.path.join(_LIBRARY_DIRS[0], "kernels") + os.sep
_site: ContextVar[SourceLoc | None] = ContextVar("tilec_language_site", default=None)

P = ParamSpec("P")
R = TypeVar("R")


@functools.lru_cache(maxsize=256)
def is_internal(filename: str) -> bool:
    """True for the files of tilec (but its kernel library) and of the MLIR bindings, whose
    frames are never the user's."""
    path = os.path.abspath(filename)
    return path.startswith(_LIBRARY_DIRS) and not path.startswith(_KERNEL_LIBRARY)


@functools.lru_cache(maxsize=256)
def _positions(code: CodeType) -> tuple[tuple[int | None, ...], ...]:
    """The source position of every instruction of `code` (one lookup per op otherwise)."""
    return tuple(code.co_positions())


def _position(code: CodeType, lasti: int, line: int | None) -> SourceLoc:
    """The start of the expression that instruction `lasti` of `code` belongs to."""
    positions = _positions(code)
    index = max(lasti, 0) // 2
    position = positions[index] if index < len(positions) else None
    start_line, col = (position[0], position[2]) if position else (None, None)
    return SourceLoc(
        code.co_filename, start_line or line or code.co_firstlineno, 1 if col is None else col + 1
    )


def frame_loc(frame: FrameType) -> SourceLoc:
    return _position(frame.f_code, frame.f_lasti, frame.f_lineno)


def caller_loc() -> SourceLoc:
    """The innermost frame on the stack that is not in tilec or the MLIR bindings."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None and is_internal(frame.f_code.co_filename):
        frame = frame.f_back
    if frame is None:
        return SourceLoc("<unknown>", 0, 0)
    return frame_loc(frame)


def traceback_loc(tb: TracebackType | None) -> SourceLoc | None:
    """The innermost user frame of a traceback: where the user's code was when it failed."""
    found = None
    while tb is not None:
        if not is_internal(tb.tb_frame.f_code.co_filename):
            found = _position(tb.tb_frame.f_code, tb.tb_lasti, tb.tb_lineno)
        tb = tb.tb_next
    return found


def recursion_loc(tb: TracebackType | None) -> tuple[SourceLoc, CodeType] | None:
    """Where a runaway recursion in the user's code began, and the function that recursed.

    That is the outermost user frame whose function is called again deeper
    in the traceback: it is at the line that makes the recursive call.
    """
    frames: list[TracebackType] = []
    while tb is not None:
        if not is_internal(tb.tb_frame.f_code.co_filename):
            frames.append(tb)
        tb = tb.tb_next
    calls = Counter(frame.tb_frame.f_code for frame in frames)
    for frame in frames:
        code = frame.tb_frame.f_code
        if calls[code] > 1:
            return _position(code, frame.tb_lasti, frame.tb_lineno), code
    return None


def site() -> SourceLoc:
    """The user position the current DSL call is working for."""
    current = _site.get()
    return current if current is not None else caller_loc()


@contextmanager
def at(loc: SourceLoc) -> Iterator[None]:
    """Makes `loc` the current site, e.g. while a loop closes the region it opened."""
    token = _site.set(loc)
    try:
        yield
    finally:
        _site.reset(token)


def dsl_api(fn: Callable[P, R]) -> Callable[P, R]:
    """Runs `fn` with the caller's position as the site, unless a site is already set."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        if _site.get() is not None:
            return fn(*args, **kwargs)
        with at(caller_loc()):
            return fn(*args, **kwargs)

    return wrapper


def assigned_name(loc: SourceLoc) -> str | None:
    """`x` when the statement at `loc` is `x = ...`, to name buffers in messages."""
    text = linecache.getline(loc.file, loc.line).strip()
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    if tree.body and isinstance(tree.body[0], ast.Assign | ast.AnnAssign):
        statement = tree.body[0]
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        if len(targets) == 1 and isinstance(targets[0], ast.Name):
            return targets[0].id
    return None
