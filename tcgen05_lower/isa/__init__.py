"""Pure-Python model of PTX ISA section 9.7.16: tables, encoders and decoders.

Nothing in this package imports MLIR, so every rule and encoder can be tested on its own.
"""
