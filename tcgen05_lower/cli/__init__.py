"""Command-line tools: tcgen05-opt and tcgen05-lower."""
