"""tcgen05-verify-sync: checks that every dependence between tcgen05 operations of a
planned kernel is ordered, and names what is missing where it is not.

The models live in the library package ``tcgen05_lower.sync_check`` (its docstring says
what each orders and how): a kernel with one program order runs through the one-CTA
model (``sync_check.cta.Run``), a kernel with warp roles or hand-written arrivals through
the concurrent one (``sync_check.concurrent.check_roles``, per CTA of a pair with
cta_group::2). This pass picks the model per kernel, honours ``partitions=`` and
``report=``, and turns the models' problems into diagnostics. Like the package, it uses
no code of tcgen05-insert-sync.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.kernel_ir import unplanned_buffer, user_synchronized
from tcgen05_lower.pass_infra import ModulePass, Option
from tcgen05_lower.sync_check import Run, Unsupported, check_roles


class Tcgen05VerifySync(ModulePass):
    """Runs the models of ``tcgen05_lower.sync_check`` on every kernel and reports what
    is unordered."""

    name = "tcgen05-verify-sync"
    description = "Check that every dependence between tcgen05 operations is ordered"
    options = (
        Option("report", bool, False, "print per kernel how many ops ran, how many pairs "
               "were checked, and the verdict"),
        Option("partitions", str, "check", "kernels with tcgen05.partitions or "
               "tcgen05.mbarrier_arrive, whose roles run concurrently: check them "
               "(check, tcgen05_lower.sync_check.roles), refuse them with a diagnostic "
               "(refuse), or pass them on unchecked (skip), saying so with report=true",
               ("check", "refuse", "skip")),
    )

    def apply(self, module) -> None:
        """Runs every kernel of `module` and reports what is unordered."""
        for kernel in d.kernels(module):
            unplanned = unplanned_buffer(kernel, self.name)
            if unplanned:
                self.error(*unplanned)
                continue
            concurrent = user_synchronized(kernel)
            if concurrent is not None:
                mode = self.option("partitions")
                if mode == "refuse":
                    self.error(concurrent, "tcgen05-verify-sync was told not to check "
                                           "kernels with concurrently running roles or "
                                           "hand-written mbarrier arrivals "
                                           "(partitions=refuse): run it with "
                                           "partitions=check to check the kernel, or "
                                           "partitions=skip to pass it on unchecked "
                                           "(docs/partitions.md)")
                elif mode == "skip":
                    if self.option("report"):
                        print(f"tcgen05-verify-sync: kernel @{d.kernel_info(kernel).name}: "
                              f"not checked (tcgen05.partitions, partitions=skip)",
                              file=self.report_stream)
                else:
                    self.check_concurrent(kernel)
                continue
            run = Run(self, kernel)
            try:
                run.run()
            except Unsupported as exc:
                self.error(exc.op, exc.message)
                continue
            for op, message in run.problems.values():
                self.error(op, message)
            if self.option("report"):
                info = d.kernel_info(kernel)
                verdict = "ordered" if not run.problems else \
                    f"{len(run.problems)} unordered"
                note = " (long loops shortened)" if run.truncated else ""
                print(f"tcgen05-verify-sync: kernel @{info.name}: {run.steps} ops run, "
                      f"{run.checked} pairs checked{note}: {verdict}",
                      file=self.report_stream)

    def check_concurrent(self, kernel) -> None:
        """A kernel with roles or hand-written arrivals (tcgen05_lower.sync_check.roles)."""
        try:
            problems, steps, checked, truncated = check_roles(self, kernel)
        except Unsupported as exc:
            self.error(exc.op, exc.message)
            return
        for op, message in problems:
            self.error(op, message)
        if self.option("report"):
            verdict = "ordered" if not problems else f"{len(problems)} unordered"
            note = " (long loops shortened)" if truncated else ""
            print(f"tcgen05-verify-sync: kernel @{d.kernel_info(kernel).name}: roles run "
                  f"concurrently, {steps} events run, {checked} pairs checked{note}: "
                  f"{verdict}", file=self.report_stream)
