"""Metric values against plain references, worked examples and the kernels' fast paths."""
