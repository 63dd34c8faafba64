"""The names of the routing schemes (Carzaniga, Rembert & Wolf,
"Understanding Content-Based Routing Schemes", 2006, §3, and Siena's
subscription forwarding) and of PIF's choices, apart from :mod:`cbalgebra.network.schemes` so
that the ``route`` command line and the routing study can list them without
loading networkx and numpy."""

from __future__ import annotations

SCHEMES: tuple[str, ...] = ("psf", "ips", "pif", "drp", "siena")

#: what PIF's F*_u(w) unites the descendants via (u, w) over: every processor
#: (§3.3's F*_u(w) = ∨_{v∈V} F_u(v, w), the default) or the senders only
PIF_UNIONS: tuple[str, ...] = ("processors", "senders")
