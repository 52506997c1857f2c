"""A dict that keeps only its most recently used entries.

The corpus caches values per requester-visible set (BM25 index, copied vectors, records). Keyed by
what callers send, such a cache grew without bound (40 random group strings: +265 MB, never freed).
"""

from __future__ import annotations

import threading
from collections import OrderedDict


class LruDict(OrderedDict):
    """At most `maxsize` entries; reading or writing an entry makes it the newest."""

    def __init__(self, maxsize: int = 8) -> None:
        super().__init__()
        self.maxsize = maxsize
        self._lock = threading.Lock()  # asks run in parallel on one shared corpus

    def __getitem__(self, key):
        with self._lock:
            value = super().__getitem__(key)
            self.move_to_end(key)
            return value

    def __setitem__(self, key, value) -> None:
        with self._lock:
            super().__setitem__(key, value)
            self.move_to_end(key)
            while len(self) > self.maxsize:
                self.popitem(last=False)
