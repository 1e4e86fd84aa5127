"""Presets and drop-ins against the libraries whose numbers they reproduce (in-process or restated)."""
