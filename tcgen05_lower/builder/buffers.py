"""Buffers and the copies that fill them: TMEM buffers, shared-memory tiles, mbarriers
(each possibly a ring of stages), a ring's stage, and copies from global into shared
memory (``fill``, ``tma_load``)."""

from __future__ import annotations

from typing import Iterable, Sequence

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.builder.core import MBARRIER
from tcgen05_lower.dialect import ops


class BufferMixin:
    """The builder's buffer and copy ops (a mixin of ``BuilderCore``)."""

    # -- buffers ----------------------------------------------------------------------------

    def tmem(self, shape: Iterable[int], element: str, *, name: str | None = None,
             stages: int | None = None, **attributes) -> "ir.Value":
        """A logical TMEM buffer ``!tcgen05.tmem<shape, element>``; with `stages`, a ring
        of that many ``[rows, columns]`` stages (``[stages, rows, columns]``, used through
        :meth:`stage`). Other attributes, such as a ``role``, by keyword; ``alias="S"``
        (and ``alias_column``) puts the buffer on the cells of the buffer named S
        (tcgen05_lower/planning/aliases.py)."""
        shape = tuple(shape) if stages is None else (stages, *shape)
        with self._at_end():
            t = ir.Type.parse(d.TmemType(shape, element).text())
            return ops.TmemBufferOp.build(result_types=[t], name=name, **attributes).results[0]

    def smem(self, shape: Iterable[int], element: str, *, major: str = "K",
             swizzle: str = "128B", stages: int | None = None) -> "ir.Value":
        """A shared-memory operand tile ``!tcgen05.smem<[rows, K], element, major,
        swizzle>``; with `stages`, a ring ``[stages, rows, K]`` (used through :meth:`stage`)."""
        rows, k = shape
        shape = (rows, k) if stages is None else (stages, rows, k)
        with self._at_end():
            t = ir.Type.parse(d.SmemType(shape, element, major, swizzle).text())
            return ops.SmemBufferOp.build(result_types=[t]).results[0]

    def mbarrier(self, *, count: int | None = None, stages: int | None = None,
                 **attributes) -> "ir.Value":
        """``alloc_mbarrier``: an mbarrier expecting `count` arrivals per phase (the
        dialect's default 1 when not given); with `stages`, a ring of them."""
        with self._at_end():
            return ops.AllocMbarrierOp.build(result_types=[d.mbarrier_type()], count=count,
                                             stages=stages, **attributes).results[0]

    def stage(self, ring, index) -> "ir.Value":
        """Stage `index` of a ring: ``smem_stage`` of a ``[stages, rows, K]`` tile,
        ``tmem_stage`` of a ``[stages, rows, columns]`` TMEM buffer, ``mbarrier_stage``
        of an mbarrier ring."""
        self._expect(ring, "ring", (d.SmemType, d.TmemType, MBARRIER))
        with self.context:
            info = d.type_info(ring.type)
        if isinstance(info, d.SmemType):
            if not info.staged:
                raise self._error(f"smem_stage of {ring.type}: not a [stages, rows, K] tile")
            build, view = ops.SmemStageOp.build, info.stage().text()
            operands = {"tile": ring}
        elif isinstance(info, d.TmemType):
            if len(info.shape) != 3:
                raise self._error(f"tmem_stage of {ring.type}: not a [stages, rows, "
                                  f"columns] buffer")
            build = ops.TmemStageOp.build
            view = d.TmemType(info.shape[1:], info.element).text()
            operands = {"buffer": ring}
        else:
            build, view, operands = ops.MbarrierStageOp.build, str(ring.type), {"ring": ring}
        with self._at_end():
            return build(result_types=[ir.Type.parse(view)], stage=self._index(index),
                         **operands).results[0]

    # -- copies into shared memory ----------------------------------------------------------

    def fill(self, source, tile, *, k_offset=0, src_layout: str, src_ld=None,
             row_offset=None, rows=None, k_size=None) -> None:
        """``smem_fill``: global -> shared tile (``src_layout`` "mn_k" or "k_mn") from
        `k_offset`. `src_ld` (the leading dimension), `row_offset` and the extents `rows`
        and `k_size` may be run-time values (index): they become the op's named trailing
        operands (its ``dims``); an int `src_ld` is the attribute."""
        self._expect(tile, "tile", d.SmemType)
        if src_ld is None:
            raise self._error("smem_fill needs src_ld (an int or an index value)")
        constant_ld = src_ld if isinstance(src_ld, int) else None
        names, values = self._dims(src_ld=None if constant_ld is not None else src_ld,
                                   row_offset=row_offset, rows=rows, k_size=k_size)
        with self._at_end():
            ops.SmemFillOp.build(source=self._resolve(source), tile=tile,
                                 k_offset=self._index(k_offset), dim_values=values,
                                 src_layout=src_layout, src_ld=constant_ld,
                                 dims=names or None)

    def tma_load(self, tensor_map, tile, coordinates: Sequence, *, barrier=None,
                 **attributes) -> None:
        """``tma_load``: the box of the tensor map (a parameter made with
        :func:`tensor_map`, by name) at `coordinates` (innermost first: K, then the row)
        into `tile`, completing on `barrier` (an mbarrier; without one tcgen05-insert-sync
        gives it one); other attributes of the op by keyword."""
        self._expect(tile, "tile", d.SmemType)
        coordinates = [self._index(c) for c in coordinates]
        if barrier is None:
            # Without an mbarrier the generic op's operands are the coordinates right
            # after the tile, as the parser makes them from text.
            barrier, coordinates = coordinates[0], coordinates[1:]
        else:
            self._expect(barrier, "barrier", MBARRIER)
        with self._at_end():
            ops.TmaLoadOp.build(tensor_map=self._resolve(tensor_map), tile=tile,
                                barrier=barrier, coordinates=coordinates, **attributes)
