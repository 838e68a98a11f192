"""Bulk work without the garbage collector's pauses.

Reading and replaying a whole journal or script creates tens of thousands
of small objects that all stay alive (the parsed lines, every state), so
each of the collector's full passes walks all of them again and again: on
a 10 000-line resume that was a third of the time. The engine's states are
immutable and make no reference cycles, so nothing waits for the collector
meanwhile; it runs again as soon as the bulk work ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def without_gc_pauses() -> Iterator[None]:
    """Switch the cyclic collector off for the block (nested blocks and a
    collector already off are left as they were)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
