"""What every tcgen05 pass shares: options, diagnostics, and the adapter that runs a pass
inside an upstream ``PassManager``.

A pass is a subclass of :class:`ModulePass` with a kebab-case ``name`` (the pass argument,
the registry key, the module name with ``_`` and the lit test folder), a ``description``,
declared ``options`` and an ``apply(module)`` method. ``apply`` reports bad input with
:meth:`ModulePass.error`, which emits a located MLIR diagnostic; any diagnostic makes the
pass fail, so the tool exits with status 1 and never reaches later stages.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Callable, ClassVar

from tcgen05_lower.bindings import ir
from tcgen05_lower.isa.errors import IsaRuleError


class CompileError(Exception):
    """Bad input found by a pass: carries the location to report it at."""

    def __init__(self, location: "ir.Location", message: str):
        super().__init__(message)
        self.location = location
        self.message = message


@dataclass(frozen=True)
class Option:
    """A pass option: ``name=value`` inside the pass's braces in a textual pipeline."""

    name: str
    type: type
    default: Any
    help: str
    choices: tuple | None = None

    def parse(self, text: str) -> Any:
        if self.type is bool:
            if text in ("true", "1", ""):
                return True
            if text in ("false", "0"):
                return False
            raise ValueError(f"option '{self.name}' expects true or false, got '{text}'")
        value = self.type(text)
        if self.choices is not None and value not in self.choices:
            raise ValueError(f"option '{self.name}' must be one of "
                             f"{', '.join(map(str, self.choices))}, got '{text}'")
        return value


class ModulePass:
    """Base class of the tcgen05 passes (they run on the whole module)."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    options: ClassVar[tuple[Option, ...]] = ()

    def __init__(self, **values: Any):
        known = {opt.name: opt for opt in self.options}
        for key in values:
            if key not in known:
                raise ValueError(f"pass '{self.name}' has no option '{key}'")
        self.option_values = {opt.name: values.get(opt.name, opt.default)
                              for opt in self.options}
        self.failed = False
        #: Where reports go (the CLI may redirect it).
        self.report_stream = sys.stderr

    def option(self, name: str) -> Any:
        return self.option_values[name]

    @classmethod
    def from_text(cls, text: str) -> "ModulePass":
        """Builds the pass from the inside of its braces: ``strategy=first-fit report``."""
        known = {opt.name: opt for opt in cls.options}
        values = {}
        for item in text.split():
            key, _, raw = item.partition("=")
            if key not in known:
                raise ValueError(f"pass '{cls.name}' has no option '{key}'"
                                 + (f" (options: {', '.join(known)})" if known else ""))
            values[key] = known[key].parse(raw)
        return cls(**values)

    def apply(self, module: "ir.Operation") -> None:  # pragma: no cover - interface
        raise NotImplementedError

    # ------------------------------------------------------------ diagnostics

    def error(self, where, message: str) -> None:
        """Emits an error at `where` (an op or a location) and marks the pass failed."""
        location = where if isinstance(where, ir.Location) else where.location
        location.emit_error(message)
        self.failed = True

    def fail(self, where, message: str) -> None:
        """Emits an error and stops the pass."""
        location = where if isinstance(where, ir.Location) else where.location
        raise CompileError(location, message)

    # ------------------------------------------------------------ running

    def run_on(self, module: "ir.Operation") -> bool:
        """Runs the pass; returns False if it reported an error."""
        self.failed = False
        try:
            self.apply(module)
        except CompileError as exc:
            exc.location.emit_error(exc.message)
            self.failed = True
        except IsaRuleError as exc:
            # A rule checked deep inside an encoder without an op at hand.
            module.location.emit_error(str(exc))
            self.failed = True
        return not self.failed

    def as_callable(self) -> Callable:
        """The ``(op, pass_)`` callable that ``PassManager.add`` expects."""

        def run(op, pass_) -> None:
            try:
                ok = self.run_on(op)
            except Exception as exc:  # an internal error: report it, do not crash
                op.location.emit_error(
                    f"internal error in {self.name}: {type(exc).__name__}: {exc}")
                ok = False
            if not ok:
                pass_.signal_pass_failure()

        run.__name__ = self.name.replace("-", "_")
        return run
