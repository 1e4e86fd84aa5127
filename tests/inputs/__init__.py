"""Inputs: containers, tables, ids, dtypes, TREC and parquet reading, and mistakes in the input."""
