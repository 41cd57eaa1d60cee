"""Python control flow on traced values: what the rewritten code of a kernel calls.

`rewrite` turns the `if` statements, `and`/`or`/`not`, conditional
expressions, chained comparisons and plain assignments of a kernel's source
into calls of this module (see there for the shapes). On Python values each
call does exactly what Python does, so code that branches on constants
(`if dtype == "float16":`) runs only the branch taken; on a symbolic value
an `if` becomes an `scf.if` whose branches are both traced, and the
operators build boolean ops.

Only the IR-building steps are DSL entry points: the operands are thunks
of the user's code, evaluated outside them, so every op of an operand is
located at the operand.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from contextvars import ContextVar

from mlir.dialects import scf

from . import builder, loops, semantic
from .builder import OpenRegion
from .dtypes import boolean
from .source import at, dsl_api, site
from .statements import Statement
from .values import Expr, Scalar, Var

Thunk = Callable[[], object]

# What `A: ann` in an eager kernel's body does (set by `eager` while it runs the body).
ANNOTATE: ContextVar[Callable[[str, Thunk, object], object] | None] = ContextVar(
    "tilec_annotate", default=None
)


def annotate(name: str, current: Thunk, annotation: object) -> object:
    """`A: T.Tensor((M, K), dtype)` in an eager kernel's body, which gives its
    parameter A a type (see `eager`): A's value afterwards."""
    hook = ANNOTATE.get()
    return current() if hook is None else hook(name, current, annotation)


class If(Statement):
    """`if c: A else: B` becomes

        with __tilec__.If(c, has_else, escapes) as branch:
            if branch.then():
                A
            if branch.orelse():
                B

    `escapes` says whether A or B leaves the statement (`break`, `continue`,
    `return`), which cannot be traced on a symbolic condition: both branches
    are traced once, one after the other.
    """

    @dsl_api
    def __init__(self, condition: object, has_else: bool, escapes: bool):
        self.loc = site()
        self.has_else = has_else
        cond = semantic.truth(condition, "the condition of `if`")
        self.static = cond if isinstance(cond, bool) else None
        self.op: scf.IfOp | None = None
        if isinstance(cond, Scalar):
            semantic.require_kernel("an `if` on a symbolic value")
            if escapes:
                raise semantic.error(
                    "leaving an `if` on a symbolic value with 'break', 'continue' or 'return' "
                    "cannot be traced: both of its branches are traced, once; compute a mask "
                    "and test it where the work is done instead"
                )
            self.region, self.op = builder.open_then(cond.value, has_else)

    def __enter__(self) -> If:
        return self

    def then(self) -> bool:
        return self.static is not False

    def orelse(self) -> bool:
        if self.static is not None:
            return not self.static
        assert self.op is not None and self.region is not None, "a symbolic if opened its then"
        with at(self.loc):
            semantic.close_region(self.region)
            self.region = builder.open_else(self.op)
        return True



class While(Statement):
    """`while c: A` becomes

        with __tilec__.While(escapes) as loop:
            while loop.test(lambda: c):
                A

    On Python values it is Python's loop. On a symbolic condition it is an
    `scf.while`: the condition is traced in its condition region, `A` once in
    its body. What changes from one iteration to the next must live in tiles or
    `T.alloc_var`s (as in TileLang, whose `while` carries no values); `break`,
    `continue` or `return` in `A` cannot be traced.
    """

    @dsl_api
    def __init__(self, escapes: bool):
        self.loc = site()
        self.escapes = escapes
        self.op: scf.WhileOp | None = None
        self.symbolic: bool | None = None

    def __enter__(self) -> While:
        return self

    def test(self, condition: Thunk) -> bool:
        if self.symbolic is False:
            return self._python(condition())
        if self.symbolic:  # the body has been traced once: end the loop
            assert self.region is not None, "a symbolic while opened its body"
            with at(self.loc):
                semantic.close_region(self.region)
            self.region = None
            return False
        with at(self.loc):
            first = semantic.truth(condition(), "the condition of `while`")
            if isinstance(first, bool):
                self.symbolic = False
                return first
            semantic.require_kernel("a `while` on a symbolic value")
            if self.escapes:
                raise semantic.error(
                    "leaving a `while` on a symbolic value with 'break', 'continue' or "
                    "'return' cannot be traced: its body is traced once; keep the state that "
                    "ends the loop in a T.alloc_var and test it in the condition"
                )
            self.symbolic = True
            # the condition again, in the loop's condition region (the evaluation above,
            # outside the loop, has no effect and is left for dead)
            region, self.op = builder.open_while()
            cond = semantic.truth(condition(), "the condition of `while`")
            if not isinstance(cond, Scalar):
                raise semantic.error("the condition of `while` became a Python value inside "
                                     "the loop")
            semantic.close_region(region, [cond.value])
            self.region = builder.open_while_body(self.op)
        return True

    def _python(self, value: object) -> bool:
        with at(self.loc):
            result = semantic.truth(value, "the condition of `while`")
        if not isinstance(result, bool):
            raise semantic.error("the condition of a Python `while` became symbolic")
        return result



class LoopExits:
    """`break` and `continue` of a `for` loop whose body holds them. The loop

        for x in ITER:                  exits = __tilec__.LoopExits(breaks, continues)
            A                           for x in exits.over(ITER):
            if c:                           exits.iteration()
                break           ->          if exits.running():
            B                                   A
                                                if c:
                                                    if exits.leave("break"): break
                                                if exits.running():
                                                    B

    On a Python loop each call does what Python does: `leave` is true, so the
    real `break` runs. A traced loop (T.serial, T.Pipelined, T.Persistent) is
    one `scf.for`, which cannot stop early: as TileLang's `break` does, the
    iterations after it do nothing. `leave` sets a flag (a boolean T.alloc_var
    made before the loop; the one of `continue` cleared at each iteration's
    top) and the statements after it run under `if` on the flags.
    """

    @dsl_api
    def __init__(self, breaks: bool, continues: bool):
        self.loc = site()
        self.kinds = [kind for kind, used in (("break", breaks), ("continue", continues)) if used]
        self.flags: dict[str, Var] = {}
        self.home: OpenRegion | None = None

    def over(self, iterable: object) -> object:
        """The loop's iterable, unchanged; the flags are made here, before the loop opens."""
        if isinstance(iterable, loops.serial | loops.Pipelined | loops.Persistent):
            with at(self.loc):
                semantic.require_kernel("`break` or `continue` in a traced loop")
                self.flags = {
                    kind: semantic.alloc_var(boolean, (), "local.var", False)
                    for kind in self.kinds
                }
        elif not isinstance(iterable, loops.Parallel):  # (T.Parallel reports a `break`)
            trace = builder.active()
            self.home = None if trace is None else trace.current
        return iterable

    @dsl_api
    def iteration(self) -> None:
        if "continue" in self.flags:
            semantic.store_var(self.flags["continue"], False)

    @dsl_api
    def running(self) -> object:
        """Whether the iteration goes on: Python's True, or the negated flags."""
        if not self.flags:
            return True
        left = None
        for flag in self.flags.values():
            left = flag if left is None else semantic.binary("|", left, flag)
        return semantic.invert(left)

    @dsl_api
    def leave(self, kind: str) -> bool:
        """True where Python leaves the loop; on a traced loop, sets the flag instead."""
        if self.flags:
            semantic.store_var(self.flags[kind], True)
            return False
        trace = builder.active()
        if trace is not None and self.home is not None and trace.current is not self.home:
            raise semantic.error(
                f"'{kind}' under an `if` on a symbolic value leaves a Python loop, which is "
                "unrolled while tracing: loop with T.serial to leave it at run time"
            )
        return True


def and_(first: object, *rest: Thunk) -> object:
    """`a and b and ...`: Python's on Python values; on a symbolic one, the next operand
    is evaluated only where it is true, as C's `&&` (`i < n and A[i] > 0` reads A in
    bounds)."""
    value = first
    for thunk in rest:
        if isinstance(value, Expr):
            value = _short_circuit("&", value, thunk)
        elif not value:
            return value
        else:
            value = thunk()
    return value


def or_(first: object, *rest: Thunk) -> object:
    """`a or b or ...`: Python's on Python values; on a symbolic one, the next operand
    is evaluated only where it is false, as C's `||`."""
    value = first
    for thunk in rest:
        if isinstance(value, Expr):
            value = _short_circuit("|", value, thunk)
        elif value:
            return value
        else:
            value = thunk()
    return value


class _ShortCircuit:
    """`lhs & rhs` or `lhs | rhs` as an `scf.if` on lhs whose result is the condition:
    the branch that needs rhs evaluates it, the other yields lhs's known value."""

    @dsl_api
    def __init__(self, op: str, lhs: Expr):
        self.op = op
        self.what = "'and'" if op == "&" else "'or'"
        cond = _condition(lhs, self.what)
        self.region, self.if_op = builder.open_then(cond.value, True, [boolean])
        if op == "|":
            self._yield_constant(True)
            self.region = builder.open_else(self.if_op)

    def _yield_constant(self, value: bool) -> None:
        semantic.close_region(self.region, [semantic.literal(int(value), boolean, self.what).value])

    @dsl_api
    def finish(self, rhs: object) -> Scalar:
        cond = semantic.truth(rhs, self.what)
        if isinstance(cond, bool):
            cond = semantic.literal(int(cond), boolean, self.what)
        semantic.close_region(self.region, [cond.value])
        if self.op == "&":
            self.region = builder.open_else(self.if_op)
            self._yield_constant(False)
        return semantic.scalar(self.if_op.results[0], boolean)


def _short_circuit(op: str, lhs: Expr, rhs: Thunk) -> Scalar:
    combined = _ShortCircuit(op, lhs)
    # The user's operand runs outside any DSL call, so its ops are located at it.
    return combined.finish(rhs())


@dsl_api
def _condition(value: Expr, what: str) -> Scalar:
    cond = semantic.truth(value, what)
    assert isinstance(cond, Scalar), "a symbolic value is a symbolic condition"
    return cond


@dsl_api
def not_(value: object) -> object:
    """`not x`: a boolean value for a symbolic x."""
    if not isinstance(value, Expr):
        return not value
    return semantic.invert(_condition(value, "'not'"))


def select(condition: object, then: Thunk, otherwise: Thunk) -> object:
    """`a if c else b`: only the chosen side runs on a Python c; on a symbolic c, both run
    and the result is T.if_then_else's."""
    if not isinstance(condition, Expr):
        return then() if condition else otherwise()
    return _select(condition, then(), otherwise())


@dsl_api
def _select(condition: Expr, then_value: object, else_value: object) -> object:
    cond = _condition(condition, "the condition of `a if c else b`")
    return semantic.select(cond, then_value, else_value)


_COMPARE: dict[str, Callable[[object, object], object]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
    "==": operator.eq, "!=": operator.ne, "is": operator.is_, "is not": operator.is_not,
    "in": lambda a, b: operator.contains(b, a),  # type: ignore[arg-type]
    "not in": lambda a, b: not operator.contains(b, a),  # type: ignore[arg-type]
}  # fmt: skip


def compare(left: object, op: str, right: Thunk, *rest: str | Thunk) -> object:
    """`a < b <= c`: `a < b and b <= c` with b evaluated once; `rest` alternates the
    further operators and thunks of their operands."""
    value = right()
    step = _COMPARE[op](left, value)
    if not rest:
        return step
    following, thunk, *others = rest
    assert isinstance(following, str) and callable(thunk)
    # Nested, so that b stays in scope in the branch that compares it with c.
    return and_(step, lambda: compare(value, following, thunk, *others))


def assign(value: object, current: Thunk) -> object:
    """`x = value`: stores into x when x holds a T.alloc_var (TileLang's rule), else binds."""
    try:
        old = current()
    except NameError:
        return value
    if isinstance(old, Var) and semantic.stores_into(old, value):
        return _store(old, value)
    return value


@dsl_api
def _store(var: Var, value: object) -> Var:
    return semantic.store_var(var, value)
