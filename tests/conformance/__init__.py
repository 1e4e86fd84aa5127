"""Conformance with the real peer libraries, each in a virtual environment of its own."""
