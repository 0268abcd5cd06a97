"""Fragments in registers: ``frag_map`` (a Python function as its element-wise body),
``frag_reduce`` and ``frag_broadcast``."""

from __future__ import annotations

from typing import Sequence

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect import ops


class FragmentMixin:
    """The builder's fragment ops (a mixin of ``BuilderCore``)."""

    # -- fragments (registers) --------------------------------------------------------------

    def frag_map(self, body, *inputs, element: str | None = None,
                 shape: Sequence[int] | None = None) -> "ir.Value":
        """``frag_map``: a fragment computed element by element. `body` is a Python
        function called once, while the op's body is built, with one element value per
        input, then the row and the column (index values); it builds its result with the
        builder's arithmetic (:meth:`add`, :meth:`exp`, :meth:`convert`, :meth:`load`
        ...) and returns it. The result has the inputs' shape (`shape` for a map of no
        input) and the element type `element` (by default the first input's); the value
        returned must have that type."""
        for i, value in enumerate(inputs):
            self._expect(value, f"input {i}", d.FragType)
        with self.context:
            infos = [d.type_info(v.type) for v in inputs]
        if not infos and (shape is None or element is None):
            raise self._error("a frag_map of no input needs shape= and element=")
        shape = tuple(shape) if shape is not None else infos[0].shape
        element = element or infos[0].element
        with self._at_end():
            op = ops.FragMapOp.build(inputs=list(inputs),
                                     result_types=[d.frag_type(shape, element)], regions=1)
            index = ir.IndexType.get()
            block = op.regions[0].blocks.append(
                *[ir.Type.parse(i.element) for i in infos], index, index)
        self._blocks.append(block)
        try:
            value = body(*block.arguments)
            if isinstance(value, (int, float)):  # a constant result (an initial value)
                with self.context:
                    value = self._number(value, ir.Type.parse(element))
        finally:
            self._blocks.pop()
        if not isinstance(value, ir.Value) or str(value.type) != element:
            raise self._error(f"the frag_map body returned {value!r}: it must return a "
                              f"{element} value (the element type of the result)")
        with self.context, self._location(), ir.InsertionPoint(block):
            ir.Operation.create("gpu.yield", operands=[value])
        return op.results[0]

    def frag_reduce(self, fragment, kind: str) -> "ir.Value":
        """``frag_reduce``: each row of a fragment reduced (`kind` "max", "sum", ...) to
        a per-row value ``[rows, 1]``."""
        self._expect(fragment, "fragment", d.FragType)
        with self._at_end():
            info = d.type_info(fragment.type)
            t = d.frag_type((info.shape[0], 1), info.element)
            return ops.FragReduceOp.build(fragment=fragment, kind=kind,
                                          result_types=[t]).results[0]

    def frag_broadcast(self, rows, like) -> "ir.Value":
        """``frag_broadcast``: a per-row value ``[rows, 1]`` repeated across the columns
        of the fragment `like` (a fragment of its type)."""
        self._expect(rows, "rows", d.FragType)
        self._expect(like, "like", d.FragType)
        with self._at_end():
            return ops.FragBroadcastOp.build(rows=rows, like=like,
                                             result_types=[like.type]).results[0]
