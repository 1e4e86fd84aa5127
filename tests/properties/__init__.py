"""Properties over many inputs: determinism, concurrency, fuzzing."""
