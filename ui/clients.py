"""Who a request comes from, as the per-client shares count it: its address, and its account when signed in.

An IPv4 address is one client. An IPv6 client usually holds a whole /64 (a home or a phone gets one, and picks
addresses in it at will), so its /64 is one client: counted per address, one machine could otherwise be 2⁶⁴ clients.
Behind a proxy, uvicorn must be run with `--proxy-headers` and `--forwarded-allow-ips` so the address is the
client's, not the proxy's (every client would otherwise share one address's share).
"""

from __future__ import annotations

import contextlib
import ipaddress
import threading


def address_key(host: str | None) -> str:
    """The key of a client's address: "address:203.0.113.7", "address:2001:db8:1:2::/64" (anything else as given)."""
    host = host or "unknown"
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return f"address:{host[:64]}"
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return f"address:{address.ipv4_mapped}"
        return f"address:{ipaddress.ip_network((address, 64), strict=False)}"
    return f"address:{address}"


def account_key(user: str | None) -> str | None:
    """The key of a signed-in account, or None (demo mode, or not signed in)."""
    return f"account:{user}" if user else None


def request_clients(request) -> tuple[str, ...]:
    """The keys a Gradio or Starlette request counts against: its address's, and its account's when signed in."""
    client = getattr(request, "client", None)
    keys = [address_key(getattr(client, "host", None))]
    account = account_key(getattr(request, "username", None))
    return (*keys, account) if account else tuple(keys)


def fairness_key(request) -> str:
    """The one key a request's work is queued under (`pipeline.FairLane`): its account when signed in, else its
    address."""
    return request_clients(request)[-1] if request is not None else "server"


class InProgress:
    """At most `limit()` requests of one client at once; one more is refused with one line (`InputError`)."""

    def __init__(self, limit, what: str) -> None:
        self.limit, self.what = limit, what
        self._counts: dict[str, int] = {}
        self._lock = threading.Lock()

    @contextlib.contextmanager
    def hold(self, client: str):
        from pipeline import InputError

        with self._lock:
            if self._counts.get(client, 0) >= self.limit():
                raise InputError(self.what, f"{self._counts[client]} of your {self.what}s are under way already; "
                                            "wait for them to finish, then try again")
            self._counts[client] = self._counts.get(client, 0) + 1
        try:
            yield
        finally:
            with self._lock:
                self._counts[client] -= 1
                if not self._counts[client]:
                    del self._counts[client]
