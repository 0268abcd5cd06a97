"""The tensor core and TMEM: ``tcgen05.mma``, TMEM loads (with a reduction), stores,
copies and shifts, and fragments stored to or loaded from global memory."""

from __future__ import annotations

from typing import Sequence

from tcgen05_lower import dialect as d
from tcgen05_lower import segments
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect import ops


class TensorCoreMixin:
    """The builder's tensor-core and TMEM ops (a mixin of ``BuilderCore``)."""

    # -- the tensor core and TMEM ------------------------------------------------------------

    def mma(self, d_, a, b, enable_input_d, *, kind: str, scale_a=None, scale_b=None,
            metadata=None, aux=(), **attributes) -> None:
        """``tcgen05.mma``: D (+)= A x B; ``enable_input_d`` a bool or an i1 value; the
        scale-factor buffers (block scaling) and the metadata buffer (sparse) by keyword,
        or as ``aux`` in the order of the text (scale_a, scale_b, then metadata); other
        attributes (k_offset, sparse, scale_vec, collector_a, ...) by keyword. D must be
        a TMEM buffer and B a shared-memory tile (A either): a BuilderError otherwise."""
        if aux:
            if segments.mma_segments(segments.MMA_FIXED + len(aux)) is None \
                    or any(v is not None for v in (scale_a, scale_b, metadata)):
                raise TypeError("mma takes aux = (metadata,), (scale_a, scale_b) or "
                                "(scale_a, scale_b, metadata), and not with those keywords")
            scale_a, scale_b = (aux[0], aux[1]) if len(aux) >= 2 else (None, None)
            metadata = aux[-1] if len(aux) != 2 else None
        self._expect(d_, "D", d.TmemType)
        self._expect(a, "A", (d.SmemType, d.TmemType))
        self._expect(b, "B", d.SmemType)
        self._expect_i1(enable_input_d, "enable_input_d")
        with self._at_end():
            enable = self.constant(enable_input_d, "i1") if isinstance(enable_input_d, bool) \
                else enable_input_d
            ops.MmaOp.build(d=d_, a=a, b=b, enable_input_d=enable, scale_a=scale_a,
                            scale_b=scale_b, metadata=metadata, kind=kind, **attributes)

    def ld(self, buffer, column, columns: int, element: str | None = None,
           **attributes) -> "ir.Value":
        """``tcgen05.ld`` of `columns` columns from `column`: a ``!tcgen05.frag`` (other
        attributes, such as ``shape``, by keyword)."""
        self._expect(buffer, "source", d.TmemType)
        with self._at_end():
            t = d.type_info(buffer.type)
            frag = d.frag_type((t.rows, columns), element or t.element)
            return ops.LdOp.build(source=buffer, column=self._index(column),
                                  result_types=[frag], **attributes).results[0]

    def ld_red(self, buffer, column, columns: int, *, op: str,
               **attributes) -> tuple["ir.Value", "ir.Value"]:
        """``tcgen05.ld.red``: a load of `columns` columns that also reduces each row
        (`op` "min" or "max"; ``abs``, ``nan`` by keyword): the fragment and the per-row
        ``[rows, 1]`` value."""
        self._expect(buffer, "source", d.TmemType)
        with self._at_end():
            t = d.type_info(buffer.type)
            frag = d.frag_type((t.rows, columns), t.element)
            reduced = d.frag_type((t.rows, 1), t.element)
            result = ops.LdRedOp.build(source=buffer, column=self._index(column), op=op,
                                       result_types=[frag, reduced], **attributes)
            return result.results[0], result.results[1]

    def cp(self, dest, source, *, shape: str, **attributes) -> None:
        """``tcgen05.cp``: a shared-memory tile into TMEM buffer `dest` (`shape`
        "128x256b", "4x256b", "128x128b", "64x128b" or "32x128b"; ``multicast``,
        ``decompress``, ``column`` by keyword), issued by one thread."""
        self._expect(dest, "dest", d.TmemType)
        self._expect(source, "source", d.SmemType)
        with self._at_end():
            ops.CpOp.build(dest=dest, source=source, shape=shape, **attributes)

    def shift(self, buffer) -> None:
        """``tcgen05.shift``: the rows of each 32-lane quarter of a TMEM buffer down by one
        lane (``tcgen05.shift.down``)."""
        self._expect(buffer, "buffer", d.TmemType)
        with self._at_end():
            ops.ShiftOp.build(buffer=buffer)

    def st(self, buffer, column, fragment, **attributes) -> None:
        """``tcgen05.st``: a fragment into TMEM `buffer` from `column`."""
        self._expect(buffer, "dest", d.TmemType)
        self._expect(fragment, "fragment", d.FragType)
        with self._at_end():
            ops.StOp.build(dest=buffer, column=self._index(column), fragment=fragment,
                           **attributes)

    def store_fragment(self, fragment, dest, column, *, ld, row_offset=None,
                       column_offset=None, rows=None, columns=None) -> None:
        """``store_fragment``: a fragment into a row-major global matrix of row stride
        `ld` at `column`. `ld`, `row_offset`, `column_offset` and the extents `rows` and
        `columns` may be run-time values (index): they become the op's named trailing
        operands (``dims``); an int `ld` is the attribute."""
        self._expect(fragment, "fragment", d.FragType)
        constant_ld = ld if isinstance(ld, int) else None
        names, values = self._dims(ld=None if constant_ld is not None else ld,
                                   row_offset=row_offset, column_offset=column_offset,
                                   rows=rows, columns=columns)
        with self._at_end():
            ops.StoreFragmentOp.build(fragment=fragment, dest=self._resolve(dest),
                                      column=self._index(column), dim_values=values,
                                      ld=constant_ld, dims=names or None)

    def load_fragment(self, source, column, shape: Sequence[int], element: str, *, ld,
                      row_offset=None, column_offset=None, rows=None,
                      columns=None) -> "ir.Value":
        """``load_fragment``: a ``[rows, columns]`` fragment of a row-major global matrix
        (the inverse of :meth:`store_fragment`, with the same dimensions)."""
        constant_ld = ld if isinstance(ld, int) else None
        names, values = self._dims(ld=None if constant_ld is not None else ld,
                                   row_offset=row_offset, column_offset=column_offset,
                                   rows=rows, columns=columns)
        with self._at_end():
            return ops.LoadFragmentOp.build(
                source=self._resolve(source), column=self._index(column),
                dim_values=values, ld=constant_ld, dims=names or None,
                result_types=[d.frag_type(shape, element)]).results[0]
