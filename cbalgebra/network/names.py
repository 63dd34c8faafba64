"""The names of the routing schemes (Carzaniga, Rembert & Wolf,
"Understanding Content-Based Routing Schemes", 2006, §3, and Siena's
subscription forwarding), apart from :mod:`cbalgebra.network.schemes` so
that the ``route`` command line and the routing study can list them without
loading networkx and numpy."""

from __future__ import annotations

SCHEMES: tuple[str, ...] = ("psf", "ips", "pif", "drp", "siena")
