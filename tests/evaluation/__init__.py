"""evaluate/partial, Result, State, presets, evaluation options and input errors."""
