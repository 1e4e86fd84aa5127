"""The engines around the core: evaluate_stream, Spark, Dask, their shared task, and the CLI."""
