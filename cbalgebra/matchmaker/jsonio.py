"""The instance file of ``cbalgebra matchmaker`` (JSON).

One object. Nodes are integers or strings; a count is a number >= 0.

.. code-block:: json

    {
      "network": {"edges": [[0, 1, 10], [1, 2, 5], [2, 3]]},
      "publishers": [[3, 2]],
      "subscribers": [[0, 1], [2, 3]],
      "trees": "per-source",
      "core": 1
    }

- ``network``: the links as ``[u, v]`` or ``[u, v, weight]`` (weight > 0,
  default 1), or ``{"generator": "transit_stub", "seed": 7, "params": {...}}``
  for a generated network (:func:`cbalgebra.network.topology`). Optional
  when ``trees`` lists the trees.
- ``publishers`` / ``subscribers``: ``[node, count]`` pairs: f(x), the PCDs
  x publishes, and g(y), the SCDs y subscribes to.
- ``trees``: ``"shared"`` (CBT around ``core``; default core: the node with
  the least total distance to the members), ``"per-source"`` (DVMRP), or the
  trees themselves: ``[{"publisher": 3, "edges": [[3, 2], [2, 0]]}, ...]``,
  each edge pointing away from its publisher (and, with a network, a link of
  it).
- ``core``: the CBT core (shared trees only).
- ``shared_tree``: T_x on a shared tree routed here, ``"pruned"`` (the
  default and the paper's, §3.1: the links on the paths from x to the
  subscribers) or ``"whole"`` (the whole tree oriented away from x).

Or ``{"generate": {"seed": 7, "publishers": 20, "subscribers": 20,
"trees": "shared", "shared_tree": "pruned"}}``: the paper's random instance
(:meth:`Instance.generate`).

Counts and weights are at most 1.8e308 (the largest float: the instance
checks them as floats, and the trees are routed in floating point); an
integer count below that is kept exact, and the optimum is computed on it
exactly. Arrays and objects nest at most :data:`MAX_DEPTH` deep (an instance
needs 4).

Every problem is an :class:`InstanceError` with a one-line message.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Hashable
from typing import Any

import networkx as nx

from cbalgebra.network.topology import TopologyError, topology

from .instance import Instance, InstanceError, build_trees, check_shared_tree, node_key

__all__ = ["MAX_DEPTH", "instance_from_json", "instance_to_json", "loads", "marking_to_json"]

_KEYS = {"network", "publishers", "subscribers", "trees", "core", "shared_tree", "generate"}

#: How deep arrays and objects may nest in an instance file. An instance needs
#: 4 levels; the bound keeps a hostile file from exhausting the recursion of
#: the JSON reader or of the messages that quote a value.
MAX_DEPTH = 100

#: Longest quotation of a value in a message.
_SHOWN = 60


def _shown(value: Any) -> str:
    """A value as JSON for a one-line message, cut short when long."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > sys.float_info.max:
        # not str(): Python refuses to write an int of more than 4,300 digits
        return f"an integer of {value.bit_length()} bits"
    text = json.dumps(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


def _reason(e: BaseException) -> str:
    return f"{type(e).__name__}: {e}" if str(e) else type(e).__name__


def _finite_number(value: Any) -> bool:
    """Can ``value`` be a count or a weight: a number (not a bool), at most the largest float?"""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    if isinstance(value, int):  # math.isfinite(int) converts to float, which overflows above 1.8e308
        return abs(value) <= sys.float_info.max
    return math.isfinite(value)


def _node(value: Any, where: str) -> Hashable:
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise InstanceError(f"{where}: a node is an integer or a string, not {_shown(value)}")
    return value


def _pairs(data: Any, where: str) -> dict[Hashable, int | float]:
    if not isinstance(data, list):
        raise InstanceError(f"{where}: expected a list of [node, count] pairs")
    out: dict[Hashable, int | float] = {}
    for item in data:
        if not isinstance(item, list) or len(item) != 2:
            raise InstanceError(f"{where}: expected [node, count], not {_shown(item)}")
        node = _node(item[0], where)
        count = item[1]
        if not _finite_number(count) or count < 0:
            raise InstanceError(f"{where}: the count of {node!r} must be a number >= 0 and at most 1.8e308, "
                                f"not {_shown(count)}")
        if node in out:
            raise InstanceError(f"{where}: {node!r} is listed twice")
        out[node] = count
    return out


def _network(data: Any) -> nx.Graph:
    if not isinstance(data, dict):
        raise InstanceError('network: expected {"edges": [...]} or {"generator": ..., "seed": ...}')
    if "generator" in data:
        extra = set(data) - {"generator", "seed", "params", "n"}
        if extra:
            raise InstanceError(f"network: unknown key {sorted(extra)[0]!r}")
        params = data.get("params", {})
        if not isinstance(params, dict):
            raise InstanceError("network: params must be an object")
        try:
            return topology(data["generator"], data.get("n"), seed=data.get("seed", 0), **params)
        except (TopologyError, TypeError) as e:
            raise InstanceError(f"network: {e}") from None
        except (OverflowError, MemoryError) as e:  # a size the generator takes but cannot build
            raise InstanceError(f"network: too large to generate ({_reason(e)})") from None
    extra = set(data) - {"edges"}
    if extra or "edges" not in data:
        raise InstanceError('network: expected {"edges": [[u, v, weight], ...]}')
    if not isinstance(data["edges"], list):
        raise InstanceError("network: edges must be a list")
    g = nx.Graph()
    for item in data["edges"]:
        if not isinstance(item, list) or len(item) not in (2, 3):
            raise InstanceError(f"network: an edge is [u, v] or [u, v, weight], not {_shown(item)}")
        u, v = _node(item[0], "network"), _node(item[1], "network")
        w = item[2] if len(item) == 3 else 1
        if not _finite_number(w) or w <= 0:
            raise InstanceError(f"network: edge [{u!r}, {v!r}] needs a weight > 0 and at most 1.8e308, "
                                f"not {_shown(w)}")
        if u == v:
            raise InstanceError(f"network: self-loop at {u!r}")
        if g.has_edge(u, v):
            raise InstanceError(f"network: edge [{u!r}, {v!r}] is listed twice")
        g.add_edge(u, v, weight=w)
    return g


def _shared_tree(given: Any, asked: str | None) -> str | None:
    """The shared-tree variant: the document's ``shared_tree``, or the caller's; they must agree."""
    if given is not None and asked is not None and given != asked:
        raise InstanceError(f'"shared_tree" is {json.dumps(given)} in the instance but '
                            f"{json.dumps(asked)} was asked for")
    return asked if given is None else given


def instance_from_json(data: Any, shared_tree: str | None = None) -> Instance:
    """An :class:`Instance` from the parsed JSON document (see the module docstring).
    ``shared_tree`` ("pruned" or "whole"), when given, is T_x on a shared tree
    routed here, as if the document said it; it does not apply to trees the
    document lists."""
    if not isinstance(data, dict):
        raise InstanceError("an instance is a JSON object")
    if _deeper_than(data, MAX_DEPTH):
        raise InstanceError(f"arrays and objects nest more than {MAX_DEPTH} deep (an instance needs 4)")
    extra = set(data) - _KEYS
    if extra:
        raise InstanceError(f"unknown key {sorted(extra)[0]!r} (valid: {', '.join(sorted(_KEYS))})")
    if "generate" in data:
        if set(data) != {"generate"}:
            raise InstanceError('"generate" stands alone')
        spec = data["generate"]
        if not isinstance(spec, dict) or "seed" not in spec:
            raise InstanceError('generate: expected {"seed": N, ...}')
        variant = _shared_tree(spec.get("shared_tree"), shared_tree)
        if variant is not None:
            spec = {**spec, "shared_tree": variant}
        try:
            return Instance.generate(**spec)
        except TypeError as e:
            raise InstanceError(f"generate: {e}") from None
        except (OverflowError, MemoryError) as e:  # a size the generator takes but cannot build
            raise InstanceError(f"generate: too large to generate ({_reason(e)})") from None
    for key in ("publishers", "subscribers", "trees"):
        if key not in data:
            raise InstanceError(f"missing key {key!r}")
    f = _pairs(data["publishers"], "publishers")
    g = _pairs(data["subscribers"], "subscribers")
    graph = _network(data["network"]) if "network" in data else None
    if graph is not None:
        for who, counts in (("publisher", f), ("subscriber", g)):
            for v in counts:
                if v not in graph:
                    raise InstanceError(f"{who} {v!r} is not a node of the network")
    trees = data["trees"]
    core = data.get("core")
    variant = _shared_tree(data.get("shared_tree"), shared_tree)
    if isinstance(trees, str):
        if graph is None:
            raise InstanceError(f'trees "{trees}" are routed over a network: give "network"')
        if graph.number_of_nodes() and not nx.is_connected(graph):
            raise InstanceError("network: not connected")
        if core is not None:
            core = _node(core, "core")
            if trees != "shared":
                raise InstanceError('"core" applies to shared trees only')
        variant = "pruned" if variant is None else variant
        check_shared_tree(variant, trees)
        built, chosen = build_trees(graph, trees, sorted(f, key=node_key), sorted(g, key=node_key),
                                    core="central" if core is None else core, shared_tree=variant)
        return Instance.from_trees(built, f, g, graph=graph, kind=trees, core=chosen)
    if core is not None:
        raise InstanceError('"core" applies to shared trees routed here ("trees": "shared")')
    if variant is not None:
        raise InstanceError('"shared_tree" applies to shared trees routed here ("trees": "shared"), '
                            "not to trees the instance lists")
    if not isinstance(trees, list):
        raise InstanceError('trees: "shared", "per-source" or a list of {"publisher": x, "edges": [...]}')
    given: dict[Hashable, list] = {}
    for item in trees:
        if not isinstance(item, dict) or set(item) != {"publisher", "edges"}:
            raise InstanceError('trees: each tree is {"publisher": x, "edges": [[u, v], ...]}')
        x = _node(item["publisher"], "trees")
        if x in given:
            raise InstanceError(f"trees: two trees for publisher {x!r}")
        if not isinstance(item["edges"], list):
            raise InstanceError(f"trees: the edges of {x!r} must be a list")
        edges = []
        for pair in item["edges"]:
            if not isinstance(pair, list) or len(pair) != 2:
                raise InstanceError(f"trees: an edge is [u, v], not {_shown(pair)}")
            u, v = _node(pair[0], f"tree of {x!r}"), _node(pair[1], f"tree of {x!r}")
            if graph is not None and not graph.has_edge(u, v):
                missing = next((n for n in (u, v) if n not in graph), None)
                raise InstanceError(f"tree of publisher {x!r}: {missing!r} is not a node of the network"
                                    if missing is not None else
                                    f"tree of publisher {x!r}: [{u!r}, {v!r}] is not a link of the network")
            edges.append((u, v))
        given[x] = edges
    missing_tree = [x for x in f if x not in given]
    if missing_tree:
        raise InstanceError(f"publisher {missing_tree[0]!r} has no tree")
    unknown = [x for x in given if x not in f]
    if unknown:
        raise InstanceError(f"trees: {unknown[0]!r} is not a publisher")
    return Instance.from_trees(given, f, g, graph=graph)


class _LongInteger(Exception):
    def __init__(self, digits: int) -> None:
        super().__init__(digits)
        self.digits = digits


def _integer(text: str) -> int:
    """The JSON reader's integers; Python refuses to convert very long ones
    (sys.get_int_max_str_digits(), 4,300 digits by default) with a ValueError."""
    try:
        return int(text)
    except ValueError:
        raise _LongInteger(len(text.lstrip("-"))) from None


def _deeper_than(data: Any, limit: int) -> bool:
    """Do arrays and objects nest more than ``limit`` deep? (Iterative: no recursion to exhaust.)"""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (list, dict)):
            if depth > limit:
                return True
            stack.extend((item, depth + 1) for item in (value.values() if isinstance(value, dict) else value))
    return False


def loads(text: str, where: str = "instance", shared_tree: str | None = None) -> Instance:
    """Parse an instance file's text; a JSON syntax error names its line and column.
    ``shared_tree`` as in :func:`instance_from_json`."""
    try:
        data = json.loads(text, parse_int=_integer)
    except json.JSONDecodeError as e:
        raise InstanceError(f"{where}: line {e.lineno}, column {e.colno}: {e.msg}") from None
    except RecursionError:  # the reader recurses once per level: far deeper than MAX_DEPTH
        raise InstanceError(f"{where}: arrays and objects nest more than {MAX_DEPTH} deep "
                            f"(an instance needs 4)") from None
    except _LongInteger as e:
        raise InstanceError(f"{where}: a number of {e.digits} digits is too long (counts and weights are "
                            f"at most 1.8e308)") from None
    return instance_from_json(data, shared_tree)


def _jsonable(node: Hashable) -> int | str:
    if isinstance(node, bool) or not isinstance(node, (int, str)):
        return str(node)
    return node


def instance_to_json(instance: Instance) -> dict:
    """The instance as a JSON object that :func:`instance_from_json` reads back
    (the network's links, and the trees listed explicitly)."""
    out: dict[str, Any] = {}
    if instance.graph is not None:
        edges = sorted(((u, v, w) for u, v, w in instance.graph.edges(data="weight", default=1)),
                       key=lambda e: (node_key(e[0]), node_key(e[1])))
        out["network"] = {"edges": [[_jsonable(u), _jsonable(v), w] for u, v, w in edges]}
    out["publishers"] = [[_jsonable(x), instance.f[x]] for x in instance.publishers]
    out["subscribers"] = [[_jsonable(y), instance.g[y]] for y in instance.subscribers]
    out["trees"] = [{"publisher": _jsonable(x), "edges": [[_jsonable(u), _jsonable(v)] for u, v in
                                                           instance.trees[x]]} for x in instance.publishers]
    return out


def marking_to_json(marking: dict) -> list:
    """A marking as ``[[u, v, "p"|"s"], ...]`` in link order."""
    return [[_jsonable(u), _jsonable(v), label] for (u, v), label in marking.items()]
