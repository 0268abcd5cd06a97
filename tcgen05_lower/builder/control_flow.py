"""Control flow: ``scf.for`` (:class:`Loop` when it carries values), ``scf.if``
(:class:`If`), ``scf.yield``, blocks with ``cf.br`` / ``cf.cond_br``, and warp roles in
``tcgen05.partitions``, each a ``with`` body built into its region."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Sequence

from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect import ops

if TYPE_CHECKING:
    from tcgen05_lower.builder.kernel import KernelBuilder


class ControlFlowMixin:
    """The builder's control flow and warp roles (a mixin of ``BuilderCore``)."""

    # -- control flow -----------------------------------------------------------------------

    @contextlib.contextmanager
    def _body(self, block: "ir.Block", terminator: str | None):
        """Builds the ``with`` body into `block`, then ends it with `terminator` (unless
        the body ended it with :meth:`yield_`)."""
        self._blocks.append(block)
        try:
            yield
        finally:
            self._blocks.pop()
        if terminator is not None and block not in self._ended:
            with self.context, self._location(), ir.InsertionPoint(block):
                ir.Operation.create(terminator)

    @contextlib.contextmanager
    def loop(self, lower, upper, step, *, iter_args: Sequence = ()):
        """``scf.for`` from lower to upper: the ops built inside the ``with`` form its body.
        Without `iter_args` it yields the induction variable; with them, a :class:`Loop`
        (``.index``, ``.args``; :meth:`yield_` the next values in the body; ``.results``
        after the ``with``)."""
        with self._at_end():
            index = ir.IndexType.get()
            inits = [self._index(v) for v in iter_args]
            op = ir.Operation.create(
                "scf.for", results=[v.type for v in inits], regions=1,
                operands=[self._index(lower), self._index(upper), self._index(step), *inits])
            body = op.regions[0].blocks.append(index, *[v.type for v in inits])
        if iter_args:
            loop = Loop(op, body)
            with self._body(body, None):
                yield loop
            if body not in self._ended:
                raise self._error(f"the loop carries {len(inits)} value(s): end its body "
                                  f"with yield_(...)")
        else:
            with self._body(body, "scf.yield"):
                yield body.arguments[0]

    @contextlib.contextmanager
    def if_(self, condition, *, result_types: Sequence = ()):
        """``scf.if condition``: the ``with`` body is the then-branch; yields an
        :class:`If` whose ``with .else_():`` builds the else-branch. With `result_types`,
        each branch ends with :meth:`yield_` and ``.results`` are the op's results."""
        if isinstance(condition, bool):
            condition = self.constant(condition, "i1")
        with self._at_end():
            types = [ir.Type.parse(t) if isinstance(t, str) else t for t in result_types]
            op = ir.Operation.create("scf.if", results=types, operands=[condition],
                                     regions=2)
            then = op.regions[0].blocks.append()
        branch = If(self, op)
        with self._body(then, None if types else "scf.yield"):
            yield branch
        if types and then not in self._ended:
            raise self._error("the if has results: end its branches with yield_(...)")
        if types and not branch.has_else:
            raise self._error("an if with results needs an else branch")

    def yield_(self, *values) -> None:
        """``scf.yield values``: ends the body of a loop with iter_args, or a branch of an
        if with results (or any ``with`` body: nothing is added after it)."""
        values = [self._index(v) for v in values]
        with self._at_end():
            ir.Operation.create("scf.yield", operands=values)
        self._ended.add(self.block)

    def new_block(self, *types: str) -> "ir.Block":
        """A new block at the end of the kernel's body, with arguments of `types`: for
        unstructured control flow (:meth:`br`, :meth:`cond_br`); build in it with
        ``with k.at(block):``. ``func.return`` ends the last block."""
        with self.context, self._location() as where:
            parsed = [ir.Type.parse(t) for t in types]
            return self.function.regions[0].blocks.append(*parsed,
                                                          arg_locs=[where] * len(parsed))

    def br(self, dest: "ir.Block", *args) -> None:
        """``cf.br`` to `dest` with its arguments; ends the current block."""
        args = [self._index(a) for a in args]
        with self._at_end():
            ir.Operation.create("cf.br", operands=args, successors=[dest])
        self._ended.add(self.block)

    def cond_br(self, condition, true_dest: "ir.Block", false_dest: "ir.Block", *,
                true_args: Sequence = (), false_args: Sequence = ()) -> None:
        """``cf.cond_br condition, true_dest(true_args), false_dest(false_args)``; ends
        the current block."""
        true_args = [self._index(a) for a in true_args]
        false_args = [self._index(a) for a in false_args]
        with self._at_end():
            segments = ir.DenseI32ArrayAttr.get([1, len(true_args), len(false_args)])
            ir.Operation.create("cf.cond_br", operands=[condition, *true_args, *false_args],
                                successors=[true_dest, false_dest],
                                attributes={"operandSegmentSizes": segments})
        self._ended.add(self.block)

    # -- warp roles -------------------------------------------------------------------------

    @contextlib.contextmanager
    def role(self, name: str, *, first_warp: int, warps: int):
        """A warp role (docs/partitions.md): the ops of the ``with`` body are the program
        of warps ``first_warp .. first_warp + warps - 1``. Consecutive roles share one
        ``tcgen05.partitions`` op; any other op between them starts a new one. A role
        outside the kernel's warps (``threads / 32``) is a BuilderError."""
        cta_warps = self.threads // 32
        if warps < 1:
            raise self._error(f"role {name!r} has warps = {warps}: a role runs on at least "
                              f"one warp")
        if first_warp < 0 or first_warp + warps > cta_warps:
            raise self._error(f"role {name!r} has warps {first_warp}..{first_warp + warps - 1}"
                              f", outside the CTA's warps 0..{cta_warps - 1} (threads = "
                              f"{self.threads})")
        body = self._partitions_body()
        with self.context, self._location(), ir.InsertionPoint(self._before[body]):
            op = ops.RoleOp.build(regions=1, name=name, first_warp=first_warp, warps=warps)
            program = op.regions[0].blocks.append()
        with self._body(program, "gpu.yield"):
            yield

    def _partitions_body(self) -> "ir.Block":
        """The body of the ``tcgen05.partitions`` op the next role joins: the current
        block's last op if it is one (nothing was built after it), else a new one."""
        block = self.block
        last = self._partitions.get(block)
        if last is not None and self._built.get(block) == last[0]:
            return last[1]
        with self._at_end():
            op = ops.PartitionsOp.build(regions=1)
            body = op.regions[0].blocks.append()
            with ir.InsertionPoint(body):
                self._before[body] = ir.Operation.create("gpu.yield")
        self._partitions[block] = (self._built[block], body)
        return body


class Loop:
    """An ``scf.for`` with iteration arguments being built."""

    def __init__(self, op: "ir.Operation", body: "ir.Block"):
        self.op = op
        self.index = body.arguments[0]
        self.args = list(body.arguments)[1:]

    @property
    def results(self) -> list:
        return list(self.op.results)


class If:
    """An ``scf.if`` being built: ``with branch.else_():`` builds its else-branch."""

    def __init__(self, builder: KernelBuilder, op: "ir.Operation"):
        self._builder = builder
        self.op = op
        self.has_else = False

    @contextlib.contextmanager
    def else_(self):
        if self.has_else:
            raise self._builder._error("this if has its else branch already")
        self.has_else = True
        with self._builder.context:
            block = self.op.regions[1].blocks.append()
        terminator = None if len(self.op.results) else "scf.yield"
        with self._builder._body(block, terminator):
            yield
        if terminator is None and block not in self._builder._ended:
            raise self._builder._error("the if has results: end its branches with "
                                       "yield_(...)")

    @property
    def results(self) -> list:
        return list(self.op.results)
