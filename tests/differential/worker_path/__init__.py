"""The modules every differential worker imports in its peer venv (the harness puts this folder on PYTHONPATH)."""
