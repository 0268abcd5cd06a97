"""What every tcgen05 pass shares: options, diagnostics, results, and the adapter that runs
a pass inside an upstream ``PassManager``.

A pass is a subclass of :class:`ModulePass` with a kebab-case ``name`` (the pass argument,
the registry key, the module name with ``_`` and the lit test folder), a ``description``,
declared ``options`` and an ``apply(module)`` method. ``apply`` reports bad input with
:meth:`ModulePass.error`, which emits a located MLIR diagnostic; any diagnostic makes the
pass fail, so the tool exits with status 1 and never reaches later stages.

A pass object is a value: it holds its options, fixed when it is made, and nothing else,
so one object can run on any number of modules (and a pipeline can be built once and run
many times). Each run makes a fresh *run* of the pass (an instance of ``cls.Run``, the
pass class with :class:`PassRun` mixed in) that holds the run's working state, the
stream reports go to, and the :class:`PassResult` the run returns: whether it succeeded and
what it decided per kernel (``result_class`` says which fields a pass fills in). Results
hold plain data only, never IR, so they outlive the module and its context.
"""

from __future__ import annotations

import os
import re
import sys
import traceback
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Callable, ClassVar

#: Set (to anything) in the environment, an internal error of a pass also prints its
#: Python traceback to stderr, for reports of compiler bugs (the tools' own internal
#: errors honour the same variable, cli.common.DEBUG_ENV).
TRACEBACK_VARIABLE = "TCGEN05_DEBUG"

from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect import InvalidAttribute, type_memo
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.text import did_you_mean


class CompileError(Exception):
    """Bad input found by a pass: carries the location to report it at."""

    def __init__(self, location: "ir.Location", message: str):
        super().__init__(message)
        self.location = location
        self.message = message


@dataclass(frozen=True)
class Option:
    """A pass option: ``name=value`` inside the pass's braces in a textual pipeline.

    `name` is kebab-case, as MLIR's pass options are (``ring-stages``); `aliases` are
    older spellings still accepted (``ring_stages``). `type` is bool, int, str or a parser
    (a callable from the text to the value that raises ValueError saying what is wrong);
    `choices` limits the values, `minimum` and `maximum` an int's range, `kind` says in
    words what a parser accepts and `keywords` are the words among them (for the
    did-you-mean of a misspelled value). Every option of every tcgen05 pass is parsed by
    :func:`parse_option`."""

    name: str
    type: type
    default: Any
    help: str
    choices: tuple | None = None
    minimum: int | None = None
    maximum: int | None = None
    kind: str | None = None
    keywords: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()

    def words(self) -> tuple[str, ...]:
        """The fixed words the option takes (its choices, true/false, a parser's
        keywords): the candidates a misspelled value is compared with."""
        if self.type is bool:
            return ("true", "false")
        if self.choices is not None:
            return tuple(map(str, self.choices))
        return self.keywords

    def expected(self) -> str:
        """What the option accepts, in words: "an integer from 1 to 10", "one of a, b"."""
        if self.type is bool:
            return "true or false"
        if self.choices is not None:
            return "one of " + ", ".join(map(str, self.choices))
        if self.type is int:
            if self.minimum is not None and self.maximum is not None:
                return f"an integer from {self.minimum} to {self.maximum}"
            if self.minimum is not None:
                return f"an integer >= {self.minimum}"
            if self.maximum is not None:
                return f"an integer <= {self.maximum}"
            return "an integer"
        if self.kind is not None:
            return self.kind
        return "a string"

    def convert(self, text: str) -> Any:
        """The value of `text`; ValueError (with the reason, if a parser gave one) if the
        option does not accept it."""
        if self.type is bool:
            if text in ("true", "1", ""):
                return True
            if text in ("false", "0"):
                return False
            raise ValueError("")
        if self.type is int:
            # Decimal digits with an optional sign only: int() would also take " 1", "1_0".
            if not re.fullmatch(r"[+-]?[0-9]+", text):
                raise ValueError("")
            value = int(text)
            if (self.minimum is not None and value < self.minimum) or \
                    (self.maximum is not None and value > self.maximum):
                raise ValueError("")
        else:
            value = self.type(text)
        if self.choices is not None and value not in self.choices:
            raise ValueError("")
        return value


def parse_option(pass_name: str, option: Option, text: str) -> Any:
    """The value of `option` of pass `pass_name` written as `text`; a ValueError that
    names the pass, the option, the value and what the option accepts otherwise
    (``pass 'tcgen05-plan-tmem' option 'node-limit' expects an integer >= 1, got 'abc'``).
    The one parser of every option of every tcgen05 pass (ModulePass.from_text)."""
    try:
        return option.convert(text)
    except ValueError as exc:
        reason = str(exc)
        raise ValueError(f"pass '{pass_name}' option '{option.name}' expects "
                         f"{option.expected()}, got '{text}'"
                         + (f": {reason}" if reason else did_you_mean(text, option.words()))
                         ) from None


@dataclass
class PassResult:
    """What one run of a pass found and decided. It is truthy when the pass succeeded, so
    ``assert pass_.run_on(module)`` reads as before."""

    #: The pass argument (``tcgen05-plan-tmem``).
    name: str
    ok: bool = True

    def __bool__(self) -> bool:
        return self.ok


class ModulePass:
    """Base class of the tcgen05 passes (they run on the whole module)."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    options: ClassVar[tuple[Option, ...]] = ()
    #: What a run returns; passes that decide something per kernel subclass PassResult.
    result_class: ClassVar[type[PassResult]] = PassResult
    #: The run class of this pass (made for every subclass, see __init_subclass__).
    Run: ClassVar[type]

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if issubclass(cls, PassRun):
            return  # a run class itself
        # The pass's own methods run on a PassRun instance, which may hold state.
        cls.Run = type(f"{cls.__name__}Run", (PassRun, cls), {"__module__": cls.__module__})

    def __init__(self, **values: Any):
        named = {}
        for key, value in values.items():
            option = self.option_named(key)
            if option.type is int and not isinstance(value, bool):
                # The same range as in a pipeline's text (node-limit=-1 is no limit).
                parse_option(self.name, option, str(value))
            named[option.name] = value
        object.__setattr__(self, "option_values", MappingProxyType(
            {opt.name: named.get(opt.name, opt.default) for opt in self.options}))

    @classmethod
    def option_named(cls, key: str) -> Option:
        """The option called `key` (its name or an older spelling, ``ring_stages`` for
        ``ring-stages``); a ValueError listing the options, with the closest one, if the
        pass has none by that name."""
        for option in cls.options:
            if key == option.name or key in option.aliases:
                return option
        names = [option.name for option in cls.options]
        raise ValueError(f"pass '{cls.name}' has no option '{key}'"
                         + (f" (options: {', '.join(names)})" if names else "")
                         + did_you_mean(key, names))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"pass '{self.name}' holds only its options, fixed when it is "
                             f"made (cannot set '{name}'); a run's state lives on its run")

    def option(self, name: str) -> Any:
        """The value of the option called `name` (or an older spelling of it)."""
        if name in self.option_values:
            return self.option_values[name]
        return self.option_values[self.option_named(name).name]

    @classmethod
    def from_text(cls, text: str) -> "ModulePass":
        """Builds the pass from the inside of its braces: ``strategy=first-fit report``."""
        values = {}
        for item in text.split():
            key, _, raw = item.partition("=")
            option = cls.option_named(key)
            values[option.name] = parse_option(cls.name, option, raw)
        return cls(**values)

    def apply(self, module: "ir.Operation") -> None:  # pragma: no cover - interface
        raise NotImplementedError

    # ------------------------------------------------------------ diagnostics

    def error(self, where, message: str) -> None:
        """Emits an error at `where` (an op or a location) and marks the run failed."""
        location = where if isinstance(where, ir.Location) else where.location
        location.emit_error(message)
        self.failed = True

    def fail(self, where, message: str) -> None:
        """Emits an error and stops the pass."""
        location = where if isinstance(where, ir.Location) else where.location
        raise CompileError(location, message)

    # ------------------------------------------------------------ running

    def run_on(self, module: "ir.Operation", report_stream=None) -> PassResult:
        """Runs the pass on `module` (reports go to `report_stream`, by default stderr);
        returns the run's result, which is falsy if the pass reported an error."""
        return self.Run(self, report_stream).execute(module)

    def as_callable(self, report_stream=None,
                    results: list[PassResult] | None = None, *,
                    verify_after: bool = False) -> Callable:
        """The ``(op, pass_)`` callable that ``PassManager.add`` expects. Every run's
        result is appended to `results`, if given. With `verify_after`, a run that
        succeeded verifies the module itself (for a PassManager whose own verifier is
        off, pipeline.build_pass_manager): invalid IR fails the pass with the
        verifier's located errors."""

        def run(op, pass_) -> None:
            result = self.result_class(self.name, ok=False)
            try:
                result = self.run_on(op, report_stream)
            except Exception as exc:  # an internal error: report it, do not crash
                if os.environ.get(TRACEBACK_VARIABLE):
                    traceback.print_exc()
                op.location.emit_error(
                    f"internal error in {self.name}: {type(exc).__name__}: {exc}")
            if result.ok and verify_after:
                try:
                    op.verify()
                except ir.MLIRError as error:
                    for diagnostic in error.error_diagnostics:
                        diagnostic.location.emit_error(diagnostic.message)
                    result.ok = False
            if results is not None:
                results.append(result)
            if not result.ok:
                pass_.signal_pass_failure()

        run.__name__ = self.name.replace("-", "_")
        return run


class PassRun:
    """One run of a pass on one module, mixed into the pass class as ``cls.Run``: it has
    the pass's options and methods, and holds what the run works on (``failed``, the
    ``report_stream``, the ``result`` and whatever the pass's methods keep on ``self``)."""

    def __init__(self, pass_: ModulePass, report_stream=None):
        self.option_values = pass_.option_values
        self.failed = False
        #: Where reports go (the CLI may redirect it).
        self.report_stream = report_stream if report_stream is not None else sys.stderr
        self.result = self.result_class(self.name)

    # Runs hold state (the pass object itself does not).
    __setattr__ = object.__setattr__

    def execute(self, module: "ir.Operation") -> PassResult:
        """Applies the pass; a located CompileError or an ISA rule broken deep inside an
        encoder becomes a diagnostic and a failed result."""
        try:
            with type_memo(module.context):
                self.apply(module)
        except CompileError as exc:
            exc.location.emit_error(exc.message)
            self.failed = True
        except InvalidAttribute as exc:
            # An attribute of the wrong kind in a pipeline without tcgen05-verify.
            exc.op.location.emit_error(exc.message)
            self.failed = True
        except IsaRuleError as exc:
            # A rule checked deep inside an encoder without an op at hand.
            module.location.emit_error(str(exc))
            self.failed = True
        self.result.ok = not self.failed
        return self.result
