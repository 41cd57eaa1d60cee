"""Compiles a kernel function once into a flat list of closures that every core runs.

Why closures: a 1024^3 GEMM runs the same loop body thousands of times on
dozens of cores; walking MLIR objects each time would cost more than the
simulated work. Compilation maps every SSA value to a slot of a per-core
environment list and every op to a Python closure `step(core) -> next_pc`;
structured control flow (`scf.for`, `scf.if`, `scf.while`, `ascend.core`)
becomes jumps, so the scalar unit of a core is the loop
`while pc >= 0: pc = code[pc](core)`. A step that must wait (a flag on the
S pipe, a barrier, a scalar load that advances time) saves its resume point
in `core.pc` and returns -1; the scheduler calls the loop again later.

Op semantics live in `scalar_ops` (arith/math), `affine_ops`, `memref_ops`
and `ascend_ops`, each registering compile functions in `COMPILERS`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from mlir import ir

from tilec.sim.diagnostics import fail, format_location
from tilec.sim.dtypes import element_type
from tilec.sim.races import Site
from tilec.targets.ascend import attributes as ascend_attr

Step = Callable[[object], int]
OpCompiler = Callable[["Compiler", ir.Operation], None]

COMPILERS: dict[str, OpCompiler] = {}
"""Compile function of every op the simulator executes, by op name."""

_KEYWORD = re.compile(r"<\s*([\w.]+)\s*>")


def compiles(*names: str) -> Callable[[OpCompiler], OpCompiler]:
    def register(fn: OpCompiler) -> OpCompiler:
        for name in names:
            COMPILERS[name] = fn
        return fn

    return register


def keyword(attr: ir.Attribute) -> str:
    """The case name of an enum attribute (`#ascend.pipe<mte2>` -> `mte2`)."""
    match = _KEYWORD.search(str(attr))
    if match is None:
        raise ValueError(f"not an enum attribute: {attr}")
    return match.group(1)


def memory_space(memref_type: ir.Type) -> str:
    """`gm`, `ub`, ... of a memref type (a memref without a memory space is in GM)."""
    space = memref_type.memory_space
    return "gm" if space is None else keyword(space)


def location(op: ir.Operation) -> str:
    return format_location(op.location)


class Compiler:
    """State of compiling one function: value slots, constants and the code list."""

    def __init__(self, profile, func: ir.Operation):
        self.profile = profile
        self.func = func
        self.slots: dict[ir.Value, int] = {}
        self.template: list = []
        self.code: list[Step | None] = []
        self.locations: list[str] = []
        """`file:line:col` of the op each step of `code` comes from (for messages
        about where a core was)."""
        self.op_location = location(func)
        """The location of the op being compiled."""
        self.flags_set: set[tuple[int, int, int]] = set()
        """(src, dst, event) of every set_flag in the kernel."""
        self.cross_sets: set[tuple[str | None, int, int]] = set()
        """(core kind that runs it or None for both, mode, flag) of every
        cross_core_set_flag in the kernel: the deadlock report asks which
        cores could still set a flag."""
        kind = kernel_kind(func)
        self.core_scope: str | None = None if kind == "mix" else kind
        """The kind of core that runs the ops being compiled (None: both)."""

    @property
    def pc(self) -> int:
        """The pc of the next step to be emitted."""
        return len(self.code)

    def slot(self, value: ir.Value) -> int:
        index = self.slots.get(value)
        if index is None:
            index = self.slots[value] = len(self.template)
            self.template.append(None)
        return index

    def slots_of(self, values: Sequence[ir.Value]) -> list[int]:
        return [self.slot(v) for v in values]

    def set_constant(self, value: ir.Value, constant: object) -> None:
        self.template[self.slot(value)] = constant

    def site(self, op: ir.Operation, text: str | None = None) -> Site:
        name = op.operation.name
        return Site(name, location(op), text or name)

    def emit(self, step: Step) -> int:
        self.code.append(step)
        self.locations.append(self.op_location)
        return len(self.code) - 1

    def reserve(self) -> int:
        return self.emit(None)

    def patch(self, pc: int, step: Step) -> None:
        self.code[pc] = step

    def compile_block(self, block: ir.Block,
                      terminator: Callable[[ir.Operation], None] | None) -> None:
        """Compiles the ops of `block`; its last op goes to `terminator` when given."""
        ops = list(block.operations)
        if terminator is not None:
            *ops, last = ops
        for op in ops:
            self.compile_op(op)
        if terminator is not None:
            terminator(last)

    def compile_op(self, op: ir.Operation) -> None:
        name = op.operation.name
        compile_fn = COMPILERS.get(name)
        if compile_fn is None:
            raise fail(location(op), f"the simulator does not support '{name}'")
        outer, self.op_location = self.op_location, location(op)
        compile_fn(self, op)
        self.op_location = outer

    def emit_compute(self, fn: Callable, out: int, ins: Sequence[int]) -> None:
        """A straight-line step `env[out] = fn(*env[ins])`."""
        nxt = self.pc + 1
        if len(ins) == 1:
            (a,) = ins

            def step(core) -> int:
                env = core.env
                env[out] = fn(env[a])
                return nxt
        elif len(ins) == 2:
            a, b = ins

            def step(core) -> int:
                env = core.env
                env[out] = fn(env[a], env[b])
                return nxt
        else:
            def step(core) -> int:
                env = core.env
                env[out] = fn(*[env[i] for i in ins])
                return nxt
        self.emit(step)

    def assign_step(self, targets: list[int], sources: list[int], jump: int) -> Step:
        """A step that copies `sources` to `targets` (all at once) and jumps."""
        if not targets:
            return lambda core: jump

        def step(core) -> int:
            env = core.env
            values = [env[s] for s in sources]
            for t, v in zip(targets, values, strict=True):
                env[t] = v
            return jump

        return step


# -- structured control flow -----------------------------------------------------


@compiles("scf.for")
def _scf_for(c: Compiler, op: ir.Operation) -> None:
    lower, upper, step_value, *inits = c.slots_of(op.operands)
    body = op.regions[0].blocks[0]
    iv, *iters = c.slots_of(list(body.arguments))
    results = c.slots_of(list(op.results))
    head = c.reserve()
    body_start = c.pc

    def latch(yield_op: ir.Operation) -> None:
        yielded = c.slots_of(yield_op.operands)
        exit_pc = c.pc + 1
        if not iters:
            def step(core) -> int:
                env = core.env
                i = env[iv] + env[step_value]
                env[iv] = i
                return body_start if i < env[upper] else exit_pc
        else:
            def step(core) -> int:
                env = core.env
                values = [env[s] for s in yielded]
                i = env[iv] + env[step_value]
                env[iv] = i
                again = i < env[upper]
                for t, v in zip(iters if again else results, values, strict=True):
                    env[t] = v
                return body_start if again else exit_pc
        c.emit(step)

    c.compile_block(body, latch)
    exit_pc = c.pc

    def enter(core) -> int:
        env = core.env
        i = env[lower]
        env[iv] = i
        values = [env[s] for s in inits]
        if i < env[upper]:
            for t, v in zip(iters, values, strict=True):
                env[t] = v
            return body_start
        for t, v in zip(results, values, strict=True):
            env[t] = v
        return exit_pc

    c.patch(head, enter)


@compiles("scf.if")
def _scf_if(c: Compiler, op: ir.Operation) -> None:
    condition = c.slot(op.operands[0])
    results = c.slots_of(list(op.results))
    head = c.reserve()
    yields: list[tuple[int, list[int]]] = []

    def on_yield(yield_op: ir.Operation) -> None:
        yields.append((c.reserve(), c.slots_of(yield_op.operands)))

    then_start = c.pc
    c.compile_block(op.regions[0].blocks[0], on_yield)
    else_start = c.pc
    has_else = len(op.regions[1].blocks) > 0
    if has_else:
        c.compile_block(op.regions[1].blocks[0], on_yield)
    exit_pc = c.pc
    for pc, sources in yields:
        c.patch(pc, c.assign_step(results, sources, exit_pc))
    otherwise = else_start if has_else else exit_pc
    c.patch(head, lambda core: then_start if core.env[condition] else otherwise)


@compiles("scf.while")
def _scf_while(c: Compiler, op: ir.Operation) -> None:
    inits = c.slots_of(op.operands)
    before = op.regions[0].blocks[0]
    after = op.regions[1].blocks[0]
    before_args = c.slots_of(list(before.arguments))
    after_args = c.slots_of(list(after.arguments))
    results = c.slots_of(list(op.results))
    before_start = c.pc + 1
    c.emit(c.assign_step(before_args, inits, before_start))
    condition_pc: list[tuple[int, int, list[int]]] = []

    def on_condition(condition_op: ir.Operation) -> None:
        flag, *forwarded = c.slots_of(condition_op.operands)
        condition_pc.append((c.reserve(), flag, forwarded))

    c.compile_block(before, on_condition)
    after_start = c.pc

    def on_yield(yield_op: ir.Operation) -> None:
        c.emit(c.assign_step(before_args, c.slots_of(yield_op.operands), before_start))

    c.compile_block(after, on_yield)
    exit_pc = c.pc
    pc, flag, forwarded = condition_pc[0]
    to_after = c.assign_step(after_args, forwarded, after_start)
    to_exit = c.assign_step(results, forwarded, exit_pc)
    c.patch(pc, lambda core: to_after(core) if core.env[flag] else to_exit(core))


@compiles("func.return")
def _func_return(c: Compiler, op: ir.Operation) -> None:
    def step(core) -> int:
        core.done = True
        return -1

    c.emit(step)


@compiles("ascend.core")
def _ascend_core(c: Compiler, op: ir.Operation) -> None:
    kind = keyword(op.attributes["core"])
    head = c.reserve()
    body_start = c.pc
    c.core_scope = kind
    c.compile_block(op.regions[0].blocks[0], None)
    c.core_scope = None
    exit_pc = c.pc
    c.patch(head, lambda core: body_start if core.kind == kind else exit_pc)


# -- the compiled kernel ------------------------------------------------------------


class Argument:
    """A parameter of the kernel: its name (from the source when known) and type."""

    def __init__(self, index: int, name: str, mlir_type: ir.Type):
        self.index = index
        self.name = name
        self.type = mlir_type
        self.is_memref = isinstance(mlir_type, ir.MemRefType)
        self.element = element_type(mlir_type.element_type if self.is_memref else mlir_type)

    def describe(self) -> str:
        return f"%{self.name}: {self.type}"


class Program:
    """A kernel compiled for the simulator, shared by all cores of a launch."""

    def __init__(self, func: ir.Operation, profile, arg_names: Sequence[str] | None = None):
        self.func = func
        self.profile = profile
        self.name = ir.StringAttr(func.attributes["sym_name"]).value
        self.site = Site("func.func", location(func), f"@{self.name}")
        self.core_kind = kernel_kind(func)
        body = func.regions[0].blocks[0]
        names = _dsl_names(func) or list(arg_names or [])
        self.arguments = [
            Argument(i, names[i] if i < len(names) else f"arg{i}", arg.type)
            for i, arg in enumerate(body.arguments)
        ]
        compiler = Compiler(profile, func)
        self.arg_slots = compiler.slots_of(list(body.arguments))
        compiler.compile_block(body, None)
        self.code: list[Step] = compiler.code  # type: ignore[assignment]
        self.locations = compiler.locations
        self.template = compiler.template
        self.flags_set = compiler.flags_set
        self.cross_sets = compiler.cross_sets
        self.module: ir.Module | None = None
        """The module the kernel came from, kept alive as long as the program."""

    def new_env(self, arg_values: Sequence) -> list:
        """A core's registers at the start of a block. The argument values are
        the launch's own: one program runs many launches at once (threads)."""
        env = list(self.template)
        for slot, value in zip(self.arg_slots, arg_values, strict=True):
            env[slot] = value
        return env


def _dsl_names(func: ir.Operation) -> list[str]:
    """The parameter names a DSL kernel gave its arguments (`tile.name`,
    kept through the lowering), when every argument has one."""
    if "arg_attrs" not in func.attributes:
        return []
    names = []
    for attrs in ir.ArrayAttr(func.attributes["arg_attrs"]):
        attrs = ir.DictAttr(attrs)
        if "tile.name" not in attrs:
            return []
        names.append(ascend_attr.text(func, "tile.name", attrs))
    return names if len(set(names)) == len(names) else []


def kernel_kind(func: ir.Operation) -> str:
    attrs = func.attributes
    if ascend_attr.KERNEL not in attrs:
        raise fail(location(func), "the function has no 'ascend.kernel' attribute")
    return keyword(attrs[ascend_attr.KERNEL])


def kernel_functions(module: ir.Module) -> list[ir.Operation]:
    return [op for op in module.body.operations
            if op.operation.name == "func.func" and ascend_attr.KERNEL in op.attributes]


_ARG_NAMES = re.compile(r"%([\w$.-]+)\s*:")


def source_argument_names(source: str, kernel: str) -> list[str]:
    """Argument names of `@kernel` as written in `source` (the parser does not keep them)."""
    match = re.search(r"func\.func\s+(?:\w+\s+)?@" + re.escape(kernel) + r"\s*\(", source)
    if match is None:
        return []
    depth, end = 1, match.end()
    while end < len(source) and depth:
        depth += {"(": 1, ")": -1}.get(source[end], 0)
        end += 1
    signature = source[match.end():end - 1]
    # Keep the top-level `%name:` of each parameter, not names inside types.
    return _ARG_NAMES.findall(signature)
