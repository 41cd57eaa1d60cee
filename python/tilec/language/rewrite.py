"""Rewriting a kernel's source so that Python control flow on traced values can be traced.

A traced kernel runs once, with symbolic values, so Python cannot decide an
`if` on them. As TileLang does, the DSL reads the function's source and
changes it before tracing; the rewritten code calls the helpers of
`control` under the name `__tilec__`:

    if c: A                 with __tilec__.If(c, has_else, escapes) as b:
    else: B                     if b.then(): A
                                if b.orelse(): B
    a and b, a or b         __tilec__.and_(a, lambda: b), __tilec__.or_(a, lambda: b)
    not a                   __tilec__.not_(a)
    x if c else y           __tilec__.select(c, lambda: x, lambda: y)
    a < b <= c              __tilec__.compare(a, "<", lambda: b, "<=", lambda: c)
    x = v                   x = __tilec__.assign(v, lambda: x)
    while c: A              with __tilec__.While(escapes) as w:
                                while w.test(lambda: c): A
    for x in it: ...break   exits = __tilec__.LoopExits(...); for x in exits.over(it): ...
                            (`break`/`continue` as flags a traced loop can test; see there)
    A: ann  (eager kernels) A = __tilec__.annotate("A", lambda: A, ann)

The right-hand operands stay lazy, so on Python values the helpers do what
Python does. Every node keeps the position of the code it replaces and the
function is compiled under the user's file name, so ops and errors point at
the user's lines. The rewritten function shares the original's globals,
closure cells and defaults; only its code differs.
"""

from __future__ import annotations
import __future__

import ast
import inspect
import types
from collections.abc import Iterable
from typing import TypeVar

HELPERS = "__tilec__"
_OUTER = "__tilec_outer__"
_EXITS = "__tilec_exits_"
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_COMPARE_OPS = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in",
}  # fmt: skip


Node = TypeVar("Node", ast.expr, ast.stmt)


def _place(new: Node, old: ast.expr | ast.stmt) -> Node:
    """Puts `new` at the start of `old`, on one line.

    A call's position is where DSL calls and errors point. Python places a
    method call that spans lines at the end of its attribute instead of at
    its start, so the new nodes never span lines.
    """
    new.lineno, new.col_offset = old.lineno, old.col_offset
    new.end_lineno = old.lineno
    one_line = old.end_lineno == old.lineno
    new.end_col_offset = old.end_col_offset if one_line else old.col_offset + 1
    return new


def _helper(name: str, *args: ast.expr) -> ast.Call:
    function = ast.Attribute(ast.Name(HELPERS, ast.Load()), name, ast.Load())
    return ast.Call(function, list(args), [])


def _thunk(expr: ast.expr) -> ast.Lambda:
    arguments = ast.arguments(posonlyargs=[], args=[], kwonlyargs=[], kw_defaults=[], defaults=[])
    return ast.copy_location(ast.Lambda(arguments, expr), expr)


def _binds_names(expr: ast.expr) -> bool:
    """Whether `expr` binds a name (`:=`), which would bind in a lambda instead."""
    return any(isinstance(node, ast.NamedExpr) for node in ast.walk(expr))


def _is_exit(node: ast.AST) -> bool:
    """Whether `node` is a rewritten loop exit, `if exits.leave(kind): break`: not an
    escape, since on a traced loop `leave` is false and sets the loop's flag."""
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Call):
        return False
    function = node.test.func
    return (
        isinstance(function, ast.Attribute)
        and function.attr == "leave"
        and isinstance(function.value, ast.Name)
        and function.value.id.startswith(_EXITS)
    )


def _escapes(nodes: Iterable[ast.AST], in_loop: bool = False) -> bool:
    """Whether the statements leave the statement around them: return, or a break or
    continue of an enclosing loop."""
    for node in nodes:
        if isinstance(node, ast.Return):
            return True
        if _is_exit(node):
            continue
        if isinstance(node, ast.Break | ast.Continue) and not in_loop:
            return True
        if isinstance(node, _SCOPES):
            continue
        if isinstance(node, _LOOPS):
            if _escapes(node.body, True) or _escapes(node.orelse, in_loop):
                return True
            continue
        if _escapes(ast.iter_child_nodes(node), in_loop):
            return True
    return False


def _loop_exits(nodes: Iterable[ast.AST]) -> set[str]:
    """The kinds of exit (`break`, `continue`) of the loop whose body holds `nodes`."""
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Break):
            found.add("break")
        elif isinstance(node, ast.Continue):
            found.add("continue")
        elif not isinstance(node, _SCOPES + _LOOPS):
            found |= _loop_exits(ast.iter_child_nodes(node))
    return found


def _exit_call(exits: str, method: str, *args: ast.expr) -> ast.Call:
    function = ast.Attribute(ast.Name(exits, ast.Load()), method, ast.Load())
    return ast.Call(function, list(args), [])


def _guard_exits(statements: list[ast.stmt], exits: str) -> list[ast.stmt]:
    """`statements` with each exit of the loop as `if exits.leave(kind): break` and the
    statements after one that may leave under `if exits.running():`."""
    guarded: list[ast.stmt] = []
    for position, statement in enumerate(statements):
        if isinstance(statement, ast.Break | ast.Continue):
            kind = "break" if isinstance(statement, ast.Break) else "continue"
            leave = _place(_exit_call(exits, "leave", ast.Constant(kind)), statement)
            guarded.append(_place(ast.If(leave, [statement], []), statement))
            return guarded  # what follows is unreachable
        if not _loop_exits([statement]):
            guarded.append(statement)
            continue
        _guard_blocks(statement, exits)
        guarded.append(statement)
        rest = statements[position + 1 :]
        if rest:
            running = _place(_exit_call(exits, "running"), rest[0])
            guarded.append(_place(ast.If(running, _guard_exits(rest, exits), []), rest[0]))
        return guarded
    return guarded


def _guard_blocks(node: ast.AST, exits: str) -> None:
    """`_guard_exits` on each block of `node` (if, with, try, match), in place."""
    for field, value in ast.iter_fields(node):
        if not isinstance(value, list):
            continue
        if value and all(isinstance(item, ast.stmt) for item in value):
            setattr(node, field, _guard_exits(value, exits))
            continue
        for item in value:  # except handlers, match cases
            if isinstance(item, ast.excepthandler | ast.match_case):
                _guard_blocks(item, exits)


class _Rewriter(ast.NodeTransformer):
    def __init__(self, annotated: frozenset[str]) -> None:
        self.changed = False
        self.ifs = 0
        self.annotated = annotated

    def _replace(self, new: Node, old: ast.expr | ast.stmt) -> Node:
        self.changed = True
        return _place(new, old)

    def visit_If(self, node: ast.If) -> ast.AST:
        escapes = _escapes(node.body) or _escapes(node.orelse)
        self.generic_visit(node)
        branch = f"__tilec_if_{self.ifs}"
        self.ifs += 1

        def test(method: str) -> ast.Call:
            function = ast.Attribute(ast.Name(branch, ast.Load()), method, ast.Load())
            return _place(ast.Call(function, [], []), node)

        body: list[ast.stmt] = [ast.If(test("then"), node.body, [])]
        if node.orelse:
            body.append(ast.If(test("orelse"), node.orelse, []))
        opened = _helper(
            "If", node.test, ast.Constant(bool(node.orelse)), ast.Constant(escapes)
        )
        item = ast.withitem(_place(opened, node), ast.Name(branch, ast.Store()))
        return self._replace(ast.With([item], body), node)

    def visit_For(self, node: ast.For) -> ast.AST | list[ast.stmt]:
        kinds = _loop_exits(node.body)
        if not kinds or node.orelse:  # `for ... else` keeps Python's meaning only
            self.generic_visit(node)
            return node
        exits = f"{_EXITS}{self.ifs}"
        self.ifs += 1
        body = _guard_exits(node.body, exits)
        if "break" in kinds:
            body = [_place(ast.If(_place(_exit_call(exits, "running"), node), body, []), node)]
        start = _place(ast.Expr(_place(_exit_call(exits, "iteration"), node)), node)
        node.body = [start, *body]
        node.iter = _place(_exit_call(exits, "over", node.iter), node.iter)
        self.generic_visit(node)
        flags = (ast.Constant(kind in kinds) for kind in ("break", "continue"))
        made = _helper("LoopExits", *flags)
        create = ast.Assign([ast.Name(exits, ast.Store())], _place(made, node))
        return [self._replace(create, node), node]

    def visit_While(self, node: ast.While) -> ast.AST:
        # `break`/`continue` in the body (not in a loop inside it) leave this loop
        escapes = _escapes(node.body)
        self.generic_visit(node)
        loop = f"__tilec_while_{self.ifs}"
        self.ifs += 1
        if _binds_names(node.test):
            return node
        function = ast.Attribute(ast.Name(loop, ast.Load()), "test", ast.Load())
        node.test = _place(ast.Call(function, [_thunk(node.test)], []), node)
        opened = _helper("While", ast.Constant(escapes))
        item = ast.withitem(_place(opened, node), ast.Name(loop, ast.Store()))
        return self._replace(ast.With([item], [node]), node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        self.generic_visit(node)
        target = node.target
        if node.value is not None or not isinstance(target, ast.Name):
            return node
        if target.id not in self.annotated:
            return node
        current = _thunk(_place(ast.Name(target.id, ast.Load()), node))
        call = _helper("annotate", ast.Constant(target.id), current, node.annotation)
        assign = ast.Assign([ast.Name(target.id, ast.Store())], _place(call, node))
        return self._replace(assign, node)

    def visit_BoolOp(self, node: ast.BoolOp) -> ast.AST:
        self.generic_visit(node)
        first, *rest = node.values
        if any(map(_binds_names, rest)):
            return node
        name = "and_" if isinstance(node.op, ast.And) else "or_"
        return self._replace(_helper(name, first, *map(_thunk, rest)), node)

    def visit_UnaryOp(self, node: ast.UnaryOp) -> ast.AST:
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        return self._replace(_helper("not_", node.operand), node)

    def visit_IfExp(self, node: ast.IfExp) -> ast.AST:
        self.generic_visit(node)
        if _binds_names(node.body) or _binds_names(node.orelse):
            return node
        return self._replace(
            _helper("select", node.test, _thunk(node.body), _thunk(node.orelse)), node
        )

    def visit_Compare(self, node: ast.Compare) -> ast.AST:
        self.generic_visit(node)
        if len(node.ops) < 2 or any(map(_binds_names, node.comparators)):
            return node
        chain: list[ast.expr] = []
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            chain += [ast.Constant(_COMPARE_OPS[type(op)]), _thunk(comparator)]
        return self._replace(_helper("compare", node.left, *chain), node)

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        self.generic_visit(node)
        if len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            return node
        current = _thunk(_place(ast.Name(node.targets[0].id, ast.Load()), node))
        node.value = self._replace(_helper("assign", node.value, current), node)
        return node


def _future_flags(code: types.CodeType) -> int:
    """The `from __future__` flags `code` was compiled with, to compile its rewrite alike."""
    flags = 0
    for name in __future__.all_feature_names:
        flag = getattr(__future__, name).compiler_flag
        if code.co_flags & flag:
            flags |= flag
    return flags


def parse_definition(fn: types.FunctionType) -> tuple[ast.FunctionDef, int] | None:
    """The definition of `fn` in its source, and the line offset of the parsed text."""
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return None
    source = "".join(lines)
    # An indented definition (a kernel inside a function) parses inside an
    # `if`, which keeps its columns: the carets of errors depend on them.
    indented = source[:1].isspace()
    try:
        tree = ast.parse("if 1:\n" + source if indented else source)
    except SyntaxError:
        return None
    node = next(
        (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == fn.__name__),
        None,
    )
    if node is None:
        return None
    return node, first - 1 - indented


def _strip_signature(node: ast.FunctionDef) -> None:
    """Annotations and defaults would be evaluated again; the original's are kept instead."""
    node.decorator_list = []
    node.returns = None
    arguments = node.args
    for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]:
        arg.annotation = None
    for arg in (arguments.vararg, arguments.kwarg):
        if arg is not None:
            arg.annotation = None
    arguments.defaults = []
    arguments.kw_defaults = [None] * len(arguments.kwonlyargs)


def _code_named(code: types.CodeType, name: str) -> types.CodeType:
    return next(c for c in code.co_consts if isinstance(c, types.CodeType) and c.co_name == name)


def rewrite(
    fn: types.FunctionType, helpers: object, annotated: Iterable[str] = ()
) -> types.FunctionType | None:
    """`fn` recompiled with its control flow rewritten to call `helpers`, or None when
    its source is not available or it has nothing to rewrite. The bare annotations of
    the `annotated` names (`A: T.Tensor((M, K), dtype)` in an eager kernel's body, which
    Python would not evaluate) become `A = __tilec__.annotate("A", lambda: A, <annotation>)`."""
    parsed = parse_definition(fn)
    if parsed is None:
        return None
    node, line_offset = parsed
    rewriter = _Rewriter(frozenset(annotated))
    rewriter.visit(node)
    if not rewriter.changed:
        return None
    _strip_signature(node)
    # Under its own name the def would bind that name in the outer function, and
    # a recursive call would then reach the rewrite itself, through a cell the
    # original has not got, instead of what the name means where the original
    # is defined (a recursive T.macro calls the macro).
    node.name = f"{_OUTER}_{fn.__name__}"
    # Compiled inside a function whose parameters are the original's free
    # variables, the rewrite has them as free variables too, and so can share
    # the original's cells.
    code = fn.__code__
    names = [*code.co_freevars, HELPERS]
    outer = ast.FunctionDef(
        _OUTER,
        ast.arguments(
            posonlyargs=[],
            args=[ast.arg(name) for name in names],
            kwonlyargs=[],
            kw_defaults=[],
            defaults=[],
        ),
        [node, ast.Return(ast.Name(node.name, ast.Load()))],
        [],
    )
    module = ast.Module([_place(outer, node)], [])
    # New nodes take the position of the node they hang from; then all move to
    # the lines of the file (increment_lineno would give unplaced nodes line 0).
    ast.fix_missing_locations(module)
    ast.increment_lineno(module, line_offset)
    compiled = compile(module, code.co_filename, "exec", _future_flags(code), dont_inherit=True)
    inner = _code_named(_code_named(compiled, _OUTER), node.name).replace(
        co_name=fn.__name__, co_qualname=code.co_qualname)
    cells = dict(zip(code.co_freevars, fn.__closure__ or (), strict=True))
    cells[HELPERS] = types.CellType(helpers)
    closure = tuple(cells[name] for name in inner.co_freevars)
    rewritten = types.FunctionType(inner, fn.__globals__, fn.__name__, fn.__defaults__, closure)
    rewritten.__kwdefaults__ = fn.__kwdefaults__
    rewritten.__qualname__ = fn.__qualname__
    return rewritten
