"""How the tests start a peer library's python (its own venv under ~/.cache/rankmeter-peers)."""

from __future__ import annotations

import os

SANITIZER_ENV = ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")


def peer_env(**extra: str) -> dict[str, str]:
    """The environment for a peer's python: ours without the sanitizer preload.

    ``.ci/sanitize`` preloads AddressSanitizer into the test process; a peer's
    own C extension (pytrec_eval's) then aborts on its own allocation mismatch,
    which is the peer's fault, not rankmeter's. The peer runs unsanitized.
    """
    env = {k: v for k, v in os.environ.items() if k not in SANITIZER_ENV}
    env.update(extra)
    return env
