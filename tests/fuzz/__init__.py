"""A structure-aware mutation fuzzer for the tcgen05 compiler (issues 12 and 25).

Test tooling, not part of the ``tcgen05_lower`` package, and without dependencies of its
own:

- ``corpus``: the seeds, every ``.mlir`` the project ships (examples, the TMEM corpus, the
  lit tests split at ``// -----``);
- ``mutate``: seeded, deterministic mutations of a seed's text (numbers at boundary values,
  tile shapes and element types, string enums, targets, op lines deleted / duplicated /
  reordered, the ``tcgen05.kernel`` dictionary, loop bounds, attribute names and kinds,
  raw characters); only this module and ``corpus`` are free of MLIR;
- ``worker``: the child process that compiles mutants to PTX and runs ptxas;
- ``run``: the parent side: workers with a time limit, the outcome classes, failure
  signatures, the campaign, a line-deletion minimiser and the Markdown report.

``tests/test_fuzz.py`` runs a bounded campaign; ``benchmarks/fuzz/run.py`` the long one.
"""
