"""The set-up of a ``Machine`` (sim/executor.py) for one launch: the layout of its
shared memory, its arguments bound to fake global addresses and to the bytes ld.param
reads (tensor maps to the arrays they describe), and the special registers of PTX ISA
chapter 10.
"""

from __future__ import annotations

import struct

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.global_buffers import GLOBAL_BASE, GLOBAL_STRIDE, Buffer
from tcgen05_lower.sim.state import SimError
from tcgen05_lower.sim.words import SMEM_BASE, parse_type


#: Shared memory per CTA the simulator provides at most (sm_100: 228 KB per SM, 227 KB
#: usable by one block).
SMEM_LIMIT = 227 * 1024


class MachineSetup:
    """The launch's memory, arguments and special registers (a mixin of
    ``executor.Machine``, whose ``__init__`` calls these in order)."""

    # -- set-up ------------------------------------------------------------------------------
    def _layout_shared(self, entry: P.Entry) -> None:
        """Static shared variables in declaration order, then the dynamic segment, each at
        its declared alignment, from SMEM_BASE."""
        self.shared_addr: dict[str, int] = {}
        addr = SMEM_BASE
        dynamic = []
        for var in self.module.shared + entry.shared:
            if var.size is None:
                dynamic.append(var)
                continue
            addr = -(-addr // var.align) * var.align
            self.shared_addr[var.name] = addr
            addr += var.size
        for var in dynamic:
            addr = -(-addr // var.align) * var.align
            self.shared_addr[var.name] = addr
        end = addr + self.launch.dynamic_smem
        if end - SMEM_BASE > SMEM_LIMIT:
            raise SimError(f"the kernel needs {end - SMEM_BASE} bytes of shared memory per "
                           f"CTA; at most {SMEM_LIMIT} exist")
        self.smem_end = end
        self.smem = np.zeros((self.launch.cluster, end), dtype=np.uint8)

    def _bind_args(self, args: dict) -> None:
        """Each array argument gets a fake global address; every parameter's bytes are
        what ld.param reads."""
        from tcgen05_lower.sim import param_space
        from tcgen05_lower.sim.tma import TENSOR_MAP_BASE, TENSOR_MAP_BYTES, TensorMap

        self.buffers: list[Buffer] = []
        self.param_bytes: dict[str, bytes] = {}
        #: made-up tensor-map address -> (TensorMap, the Buffer it describes): sim/tma.py
        self.tensor_maps: dict[int, tuple] = {}
        maps, structs = [], []
        for i, param in enumerate(self.entry.params):
            if param.name not in args:
                raise SimError(f"no value for kernel parameter {param.name}")
            value = args[param.name]
            if param.size is not None:  # by value: sim/param_space.py
                param_space.check_value(param, value)
                if isinstance(value, param_space.ParamStruct):
                    structs.append((param, value))
                    continue
            if isinstance(value, TensorMap):
                address = TENSOR_MAP_BASE + len(maps) * TENSOR_MAP_BYTES
                maps.append((param.name, address, value))
                self.param_bytes[param.name] = struct.pack("<Q", address)
                if param.size is not None:
                    param_space.bind_by_value(self, param, address)
                continue
            if isinstance(value, np.ndarray):
                if not value.flags.c_contiguous:
                    raise SimError(f"the array for {param.name} must be C-contiguous")
                base = GLOBAL_BASE + len(self.buffers) * GLOBAL_STRIDE
                raw = value.reshape(-1).view(np.uint8)
                self.buffers.append(Buffer(param.name, base, value, raw))
                self.param_bytes[param.name] = struct.pack("<Q", base)
                continue
            kind, bits = parse_type(param.ptx_type[1:]) or ("b", 64)
            nbytes = max(bits // 8, 1)
            if isinstance(value, float) or kind == "f":
                fmt = {4: "<f", 8: "<d"}[nbytes]
                self.param_bytes[param.name] = struct.pack(fmt, value)
            else:
                self.param_bytes[param.name] = (int(value) & ((1 << (8 * nbytes)) - 1)) \
                    .to_bytes(nbytes, "little")
        param_space.bind_extra_arrays(self, args.get(param_space.EXTRA_ARRAYS, {}))
        param_space.bind_structs(self, structs)
        self._bind_tensor_maps(maps)

    def _bind_tensor_maps(self, maps) -> None:
        """Each tensor map to the array parameter it names (bound above)."""
        by_name = {b.name: b for b in self.buffers}
        for param, address, tmap in maps:
            buffer = by_name.get(tmap.tensor)
            if buffer is None:
                raise SimError(f"the tensor map for {param} describes {tmap.tensor}, which "
                               f"is not an array argument of the launch")
            tmap.check(buffer.data.itemsize)
            self.tensor_maps[address] = (tmap, buffer)

    def describe_tensor_maps(self) -> str:
        return ", ".join(f"{a:#x} ({t.tensor})" for a, (t, _) in self.tensor_maps.items()) \
            or "none"

    def _special_registers(self) -> None:
        """PTX ISA 10 (Special Registers): %ctaid is the CTA's index in the grid and
        %nctaid the grid's size in CTAs per dimension; %clusterid / %nclusterid the same
        for clusters, %cluster_ctaid the CTA's index in its cluster, whose rank
        %cluster_ctarank counts x fastest: rank = x + nx (y + ny z), and %ctaid =
        %clusterid * %cluster_nctaid + %cluster_ctaid per dimension."""
        L = self.launch
        gx, gy, gz = L.grid_ctas
        cx, cy, cz = L.cluster_id
        nx, ny, nz = L.cluster_dims
        px, py, pz = self.rank % nx, self.rank // nx % ny, self.rank // (nx * ny)
        specials = {
            "%tid.x": self.tid, "%tid.y": 0, "%tid.z": 0,
            "%ntid.x": L.threads, "%ntid.y": 1, "%ntid.z": 1,
            "%laneid": self.tid % 32, "%warpid": self.tid // 32,
            "%nwarpid": self.warps_per_cta,
            "%ctaid.x": cx * nx + px, "%ctaid.y": cy * ny + py, "%ctaid.z": cz * nz + pz,
            "%nctaid.x": gx, "%nctaid.y": gy, "%nctaid.z": gz,
            "%cluster_ctarank": self.rank, "%cluster_nctarank": L.cluster,
            "%cluster_ctaid.x": px, "%cluster_ctaid.y": py, "%cluster_ctaid.z": pz,
            "%cluster_nctaid.x": nx, "%cluster_nctaid.y": ny, "%cluster_nctaid.z": nz,
            "%clusterid.x": cx, "%clusterid.y": cy, "%clusterid.z": cz,
            "%nclusterid.x": gx // nx, "%nclusterid.y": gy // ny, "%nclusterid.z": gz // nz,
            "%is_explicit_cluster": int("explicitcluster" in self.entry.directives),
            "%smid": 0, "%gridid": 0,
        }
        # each a uint64 value per thread: the rows of one block, filled row by row (a
        # scalar broadcast, an array converted as np.asarray(value, np.uint64) does)
        block = np.empty((len(specials), self.nthreads), np.uint64)
        for row, (name, value) in zip(block, specials.items()):
            row[...] = value
            self.regs[name] = row
