"""The names of the Matchmaker's tree options (Ge, Ji, Kurose & Towsley,
"Matchmaker: Signaling for Dynamic Publish/Subscribe Applications", §3.1 and
§4.4.1), apart from :mod:`cbalgebra.matchmaker.instance` so that the command
lines and the study can list them without loading networkx."""

from __future__ import annotations

#: The multicast trees: one shared (CBT) tree, or one tree per source (DVMRP).
TREE_KINDS: tuple[str, ...] = ("shared", "per-source")
#: What T_x is on a shared tree: "pruned", the paper's (§3.1: the links of the
#: tree on the paths from x to the subscribers), or "whole" (every branch of the
#: shared tree, oriented away from x).
SHARED_TREES: tuple[str, ...] = ("pruned", "whole")
