"""Moved: Siena's subscription forwarding now lives in
:mod:`cbalgebra.network.siena`, beside the other routing schemes of the
network package. This module re-exports it so that existing imports keep
working."""

from cbalgebra.network.siena import Network, Sent, Server, Traffic

__all__ = ["Network", "Sent", "Server", "Traffic"]
