"""A small thread-safe LRU map: a bound on derived values (a corpus's views, a document's abbreviations, the
vectors and profiles parts derive from a corpus's text)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any


class BoundedCache:
    """At most `size` items; the least recently used goes first."""

    def __init__(self, size: int):
        self.size = size
        self._items: OrderedDict[Hashable, Any] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: Hashable, make: Callable[[], Any]) -> Any:
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
        value = make()  # outside the lock: building a view can take a while
        self.put(key, value)
        return value

    def peek(self, key: Hashable) -> Any:
        """The value, or None when absent."""
        with self._lock:
            if key not in self._items:
                return None
            self._items.move_to_end(key)
            return self._items[key]

    def put(self, key: Hashable, value: Any) -> None:
        with self._lock:
            self._items[key] = value
            self._items.move_to_end(key)
            while len(self._items) > self.size:
                self._items.popitem(last=False)

    def __contains__(self, key: Hashable) -> bool:
        with self._lock:
            return key in self._items

    def items(self) -> list[tuple[Hashable, Any]]:
        """A copy of the (key, value) pairs, least recently used first."""
        with self._lock:
            return list(self._items.items())

    def __len__(self) -> int:
        return len(self._items)


class Caches:
    """Named bounded caches that belong to one owner (a corpus) and go with it."""

    def __init__(self) -> None:
        self._caches: dict[str, BoundedCache] = {}
        self._lock = threading.Lock()

    def named(self, name: str, size: int) -> BoundedCache:
        with self._lock:
            if name not in self._caches:
                self._caches[name] = BoundedCache(size)
            return self._caches[name]

    def __len__(self) -> int:
        return sum(len(cache) for cache in self._caches.values())
