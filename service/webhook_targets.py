"""Where a webhook may be sent: no server-side request forgery.

A URL is checked when it is registered (``service.webhooks``) and again at every attempt
(``service.webhook_delivery.PinnedSender``); the check resolves the host once, refuses any address
on the deny-list (:data:`DENIED_NETWORKS`: cloud metadata and broadcast addresses, whatever the
operator allows), and any that is unspecified, multicast or link-local, and, unless the operator
allows private targets, loopback, private, reserved or not global, and the connection goes to the
address that was checked (urllib3 pool on the IP, with the Host header and TLS server name of the
URL), so a DNS answer that changes between the check and the connection cannot redirect it.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from service.errors import ServiceError

NAT64 = ipaddress.IPv6Network("64:ff9b::/96")

# The deny-list: refused whatever the operator allows, checked before the ``ipaddress`` properties
# (which call some of these global: 192.0.0.192 is public to ``ipaddress``, and a private
# target allowance would let fd20:ce::254 or the broadcast address through). Each entry says why,
# so the refusal names it. Add to it rather than to the checks below.
DENIED_NETWORKS: tuple[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, str], ...] = tuple(
    (ipaddress.ip_network(network), why)
    for network, why in (
        ("169.254.169.254/32", "a cloud metadata address"),  # AWS, GCP, Azure, OpenStack, ...
        ("169.254.170.2/32", "a cloud metadata address"),  # AWS ECS task metadata
        ("fd00:ec2::254/128", "a cloud metadata address"),  # AWS IPv6 instance metadata
        ("fd20:ce::254/128", "a cloud metadata address"),  # GCP IPv6 metadata
        ("100.100.100.200/32", "a cloud metadata address"),  # Alibaba Cloud
        ("192.0.0.192/32", "a cloud metadata address"),  # Oracle Cloud (OCI) metadata
        ("168.63.129.16/32", "a cloud metadata address"),  # Azure wire server (a public address)
        ("255.255.255.255/32", "the broadcast address"),
        ("0.0.0.0/8", "an unspecified address"),  # "this network": 0.x.y.z reaches the host itself
    )
)


def denied(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> str | None:
    """Why ``address`` is on the deny-list, or None."""
    for network, why in DENIED_NETWORKS:
        if address.version == network.version and address in network:
            return why
    return None


class WebhookUrlRefused(ServiceError):
    status, code, title = 422, "WEBHOOK_URL_REFUSED", "This URL may not receive webhooks"


def address_refusal(
    address: ipaddress.IPv4Address | ipaddress.IPv6Address, allow_private: bool
) -> str | None:
    """Why ``address`` may not be connected to, or None."""
    if isinstance(address, ipaddress.IPv6Address):
        # An IPv4 address carried inside IPv6 (mapped, 6to4, NAT64) is judged as that address.
        if address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        elif address.sixtofour is not None:
            address = address.sixtofour
        elif address in NAT64:
            address = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    why = denied(address)
    if why is not None:
        return why
    if address.is_unspecified:
        return "an unspecified address"
    if address.is_multicast:
        return "a multicast address"
    if address.is_link_local:
        return "a link-local address"
    if allow_private:
        return None
    if address.is_loopback:
        return "a loopback address"
    if address.is_private or address.is_reserved or not address.is_global:
        return "a private or reserved address"
    return None


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str  # as the URL names it (Host header, TLS server name)
    port: int
    path: str
    address: str  # the checked address the connection goes to


def resolve_target(url: str, allow_private: bool) -> Target:
    """Parse and resolve ``url``; raises :class:`WebhookUrlRefused` unless every address it
    resolves to may be connected to (one bad answer refuses all: DNS may rotate them)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise WebhookUrlRefused(f"Not a URL: {exc}.") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise WebhookUrlRefused("The URL must be http:// or https:// with a host.")
    if parts.username or parts.password:
        raise WebhookUrlRefused("The URL may not carry credentials.")
    host = parts.hostname
    port = port or (443 if parts.scheme == "https" else 80)
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError):
        raise WebhookUrlRefused(f"The host {host!r} does not resolve.") from None
    addresses = []
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).split("%")[0])
        why = address_refusal(address, allow_private)
        if why is not None:
            raise WebhookUrlRefused(f"The host {host!r} resolves to {why}.")
        addresses.append(address)
    if not addresses:
        raise WebhookUrlRefused(f"The host {host!r} does not resolve.")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(parts.scheme, host, port, path, str(addresses[0]))
