"""What tcgen05-select-layouts decides, as plain data: how an MMA uses a TMEM buffer,
a buffer after selection, the plan of an access, and the per-kernel decisions the pass
returns and reports (``report=true``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tcgen05_lower.isa import layouts
from tcgen05_lower.pass_infra import PassResult
from tcgen05_lower.strategies import ldst as strategies


@dataclass(frozen=True)
class Use:
    """How an MMA uses a TMEM buffer."""

    role: str
    layout: str
    footprint: layouts.Footprint
    mma: object


@dataclass(frozen=True)
class BufferInfo:
    """A TMEM buffer after layout selection."""

    op: object
    role: str
    layout: str
    layout_c: str
    rows: int
    cols: int
    element: str


@dataclass
class Planned:
    """The plan of one warpgroup access op."""

    op: object
    buffer: BufferInfo | None
    access: object  # addressing.WarpgroupAccess
    request: strategies.AccessRequest
    note: str = ""


@dataclass(frozen=True)
class BufferLayout:
    """The decision for one TMEM buffer: its layout (and how Layout C was read), role and
    footprint."""

    label: str
    rows: int
    cols: int
    element: str
    layout: str
    layout_c: str
    role: str
    columns: int | None
    half_lanes: bool
    stages: int

    def text(self) -> str:
        reading = f" (read as {self.layout_c})" if self.layout == "C" else ""
        if self.stages > 1:
            reading += f", {self.stages} stages"
        return (f"%{self.label} {self.rows}x{self.cols}x{self.element}: Layout "
                f"{self.layout}{reading}, role {self.role}, {self.columns} columns"
                f"{', half lanes' if self.half_lanes else ''}")


@dataclass(frozen=True)
class AccessMessages:
    """The messages chosen for one tcgen05.ld / ld_red / st or load_fragment."""

    op: str
    where: str
    width: int
    messages: str
    note: str = ""

    def text(self) -> str:
        return (f"tcgen05.{self.op} at {self.where}: {self.width} columns, {self.messages}"
                + (f"; {self.note}" if self.note else ""))


@dataclass(frozen=True)
class KernelLayouts:
    """Everything select-layouts decided in one kernel."""

    kernel: str
    strategy: str
    layout_c: str
    buffers: tuple[BufferLayout, ...]
    accesses: tuple[AccessMessages, ...]
    #: The load -> store pairs split to meet the register budget.
    splits: tuple[str, ...]

    def lines(self) -> list[str]:
        """The report (``report=true``)."""
        return ([f"tcgen05-select-layouts: kernel @{self.kernel} strategy={self.strategy} "
                 f"layout-c={self.layout_c}"]
                + [f"  {b.text()}" for b in self.buffers]
                + [f"  {a.text()}" for a in self.accesses]
                + [f"  split {note}" for note in self.splits])


@dataclass
class SelectLayoutsResult(PassResult):
    """Per kernel name, the layouts and messages the run chose."""

    layouts: dict[str, KernelLayouts] = field(default_factory=dict)
