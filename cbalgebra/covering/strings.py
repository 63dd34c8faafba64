"""An exact decision procedure for conjunctions of string atoms on one attribute.

An *atom* is ``(op, value, positive)``: the operator symbol, its string constant
(``None`` for ``any``) and whether the atom must hold (``True``) or must not
hold (``False``). :func:`solve_string` finds a string satisfying every atom, or
proves that none exists.

Every atom denotes a regular language, so the conjunction is decided with
automata (docs/design.md, §5 "Deciding covering", layer 2):

* Each atom gets a small deterministic automaton over Unicode code points:
  ``=`` and prefix track how much of the constant has been matched; suffix and
  substring use a KMP failure automaton; ``>``/``>=`` track equal-so-far, less
  or greater. ``!=``, ``<`` and ``<=`` are negations of ``=``, ``>=`` and ``>``
  (the string is present, and the order is total).
* The alphabet is abstracted: from any one automaton state, the code points
  fall into a few runs that all lead to the same next state (for example "the
  next character of the constant", "anything below it", "anything above it").
  Searching the product automaton, the runs of all the live atoms are merged,
  and each merged run is explored once. This is the design's "constant
  characters plus one representative per gap" abstraction, computed per
  product state, which keeps the branching factor small.
* A breadth-first search over the reachable product states either reaches a
  state where every atom holds (the path spells a shortest witness) or runs
  out of states (no string satisfies the atoms). The state space is finite,
  and atoms that can no longer change their verdict are dropped (satisfied for
  good) or prune the state (violated for good).

Atoms over ``=, !=, <, <=, >, >=`` and prefix alone take a faster path
(:mod:`cbalgebra.covering.string_intervals`): each is a union of at most two
half-open intervals of the code-point order, so the conjunction is an
interval intersection. The ``!=`` atoms are sorted once and
subtracted in one merge, and in the product they share one trie automaton,
so thousands of them cost about a sort, not a pass each.

Every positive substring atom adds a "seen yet?" bit to the product, 2**k
states for k of them. Positive prefix, suffix and substring atoms implied by
another are dropped first (same strings); past ``EXACT_SUBSTRING_LIMIT``
remaining substrings, an insertion construction decides exactly in
polynomial time (see "Many positive substrings" below) and its witness is
valid but not always shortest.

Order is code-point order, exactly Python's ``<`` on ``str``. Strings contain
no surrogate code points (U+D800..U+DFFF); every other code point, U+0000 and
U+10FFFF included, may occur in constants and witnesses.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache, partial

from cbalgebra.covering.string_intervals import (
    MAX_CP,
    SURROGATE_FIRST,
    SURROGATE_LAST,
    interval_region,
    pick,
    solve_intervals,
)
from cbalgebra.values import ANY, EQ, GE, GT, LE, LT, NE, OPERATOR_OF, OPERATORS, PREFIX, SUFFIX, SUBSTRING

__all__ = [
    "EXACT_SUBSTRING_LIMIT",
    "INTERVAL_OPERATORS",
    "solve_string",
    "solve_string_automaton",
    "solve_string_intervals",
    "string_atom_holds",
]

Atom = tuple[str, "str | None", bool]


#: Operators whose atoms (either polarity) are unions of intervals of the order.
INTERVAL_OPERATORS = frozenset((EQ, NE, LT, LE, GT, GE, PREFIX))
_ALL_OPERATORS = frozenset(OPERATORS)


# --------------------------------------------------------------------------
# The reference semantics


def string_atom_holds(op: str, value: str | None, s: str) -> bool:
    """Whether the string ``s`` satisfies ``op value`` (the positive atom)."""
    spec = OPERATOR_OF.get(op)
    if spec is None:
        raise ValueError(f"unknown string operator {op!r}")
    if value is None and op != ANY:
        raise ValueError(f"operator {op!r} needs a string constant")
    return spec.holds(s, value)


# --------------------------------------------------------------------------
# Canonical atoms: fewer operators, so fewer automata
#
# A canonical atom is (op, value, positive) with op one of = > >= >* *< *.
# The other operators are negations of these on a present string.

def _complement(op: str) -> str:
    complement = OPERATOR_OF[op].complement
    if complement is None:
        raise ValueError(f"operator {op!r} has no complement")
    return complement.symbol


_NEGATED_FORM = {op: _complement(op) for op in (NE, LT, LE)}

# Whole-atom verdicts for atoms that need no automaton.
_ALWAYS, _NEVER = "always", "never"


@lru_cache(maxsize=65536)
def _canonical_atom(op: str, value: str | None, positive: bool) -> tuple[str, str, bool] | str:
    """The canonical form of one atom, or ``_ALWAYS`` / ``_NEVER``."""
    if op not in _ALL_OPERATORS:
        raise ValueError(f"unknown string operator {op!r}")
    if op == "any":
        return _ALWAYS if positive else _NEVER
    if not isinstance(value, str):
        raise ValueError(f"operator {op!r} needs a string constant, got {value!r}")
    if _has_surrogate(value):
        raise ValueError(f"string constant {value!r} contains a surrogate code point")
    if op in _NEGATED_FORM:
        op, positive = _NEGATED_FORM[op], not positive
    if value == "" and op in (GE, PREFIX, SUFFIX, SUBSTRING):
        # The empty string is below, a prefix, a suffix and a substring of all.
        return _ALWAYS if positive else _NEVER
    return (op, value, bool(positive))


def _has_surrogate(s: str) -> bool:
    return not s.isascii() and any(SURROGATE_FIRST <= ord(c) <= SURROGATE_LAST for c in s)


def _canonicalize(atoms: Sequence[Atom]) -> tuple[tuple[str, str, bool], ...] | None:
    """Sorted, deduplicated canonical atoms; ``None`` if one is never true."""
    canonical: set[tuple[str, str, bool]] = set()
    for op, value, positive in atoms:
        form = _canonical_atom(op, value, positive)
        if isinstance(form, tuple):
            canonical.add(form)
        elif form is _NEVER:
            return None
    return tuple(sorted(canonical))


def _directly_contradictory(atoms: tuple[tuple[str, str, bool], ...]) -> bool:
    """An atom required both to hold and not to hold (cheap, common in covering)."""
    present = set(atoms)
    return any((op, value, not positive) in present for op, value, positive in atoms)


# --------------------------------------------------------------------------
# Automata
#
# States are ints >= 0. Two sinks stand for "the verdict can no longer
# change". In a raw automaton they are TRUE and FALSE (the atom holds / fails
# on every extension); after applying the atom's polarity they become DONE
# (satisfied for good: the atom drops out of the search) and DEAD (violated
# for good: the product state is pruned).
#
# A transition from a state is a tuple of runs ((first_cp, target), ...),
# ascending, the first starting at 0: every code point from first_cp up to
# the next run's start goes to target.

_TRUE, _FALSE = -1, -2
DONE, DEAD = -1, -2

Runs = tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class _RawAutomaton:
    start: int
    accepting: frozenset[int]  # non-sink states where the atom holds
    runs: tuple[Runs, ...]  # indexed by state


def _merged_runs(runs: Sequence[tuple[int, int]]) -> Runs:
    """Drop empty runs and join neighbouring runs with the same target."""
    out: list[tuple[int, int]] = []
    for start, target in runs:
        if start > MAX_CP:
            continue
        if out and out[-1][0] == start:
            out[-1] = (start, target)
        elif not out or out[-1][1] != target:
            out.append((start, target))
    return tuple(out)


def _one_char_runs(cp: int, below: int, on: int, above: int) -> Runs:
    """Runs for: code points below cp, cp itself, and above cp."""
    return _merged_runs(((0, below), (cp, on), (cp + 1, above)))


def _match_automaton(value: str, *, whole: bool) -> _RawAutomaton:
    """``=`` (whole=True) or prefix (whole=False): states count matched characters."""
    n = len(value)
    runs = []
    for i, char in enumerate(value):
        matched = i + 1 if (whole or i + 1 < n) else _TRUE
        runs.append(_one_char_runs(ord(char), _FALSE, matched, _FALSE))
    if whole:
        runs.append(((0, _FALSE),))  # all of value read: any more breaks equality
        return _RawAutomaton(0, frozenset((n,)), tuple(runs))
    return _RawAutomaton(0 if n else _TRUE, frozenset(), tuple(runs))


def _order_automaton(value: str, *, or_equal: bool) -> _RawAutomaton:
    """``>`` or ``>=``: state i means equal to value[:i] so far (so far below)."""
    runs = [_one_char_runs(ord(char), _FALSE, i + 1, _TRUE) for i, char in enumerate(value)]
    runs.append(((0, _TRUE),))  # a proper extension of value is above it
    accepting = frozenset((len(value),)) if or_equal else frozenset()
    return _RawAutomaton(0, accepting, tuple(runs))


def _kmp_automaton(value: str, *, anywhere: bool) -> _RawAutomaton:
    """Substring (anywhere=True) or suffix: state i is the longest prefix of
    value that is a suffix of the input read so far (Knuth-Morris-Pratt)."""
    n = len(value)
    border = [0] * (n + 1)  # border[i]: longest proper border of value[:i]
    k = 0
    for i in range(1, n):
        while k and value[i] != value[k]:
            k = border[k]
        if value[i] == value[k]:
            k += 1
        border[i + 1] = k
    alphabet = sorted(set(value))
    delta: list[dict[str, int]] = []
    for state in range(n + 1):
        row = {}
        for char in alphabet:
            if state < n and value[state] == char:
                row[char] = state + 1
            else:
                row[char] = delta[border[state]][char] if state else 0
        delta.append(row)
    runs = []
    for state in range(n + 1 if not anywhere else n):
        pieces = [(0, 0)]
        for char in alphabet:  # characters absent from value restart at 0
            target = delta[state][char]
            if anywhere and target == n:
                target = _TRUE
            pieces += [(ord(char), target), (ord(char) + 1, 0)]
        runs.append(_merged_runs(pieces))
    accepting = frozenset() if anywhere else frozenset((n,))
    return _RawAutomaton(0, accepting, tuple(runs))


#: The automaton of each canonical operator (the others are their negations).
_RAW_AUTOMATA: dict[str, Callable[[str], _RawAutomaton]] = {
    "=": partial(_match_automaton, whole=True),
    ">*": partial(_match_automaton, whole=False),
    ">": partial(_order_automaton, or_equal=False),
    ">=": partial(_order_automaton, or_equal=True),
    "*<": partial(_kmp_automaton, anywhere=False),
    "*": partial(_kmp_automaton, anywhere=True),
}


def _raw_automaton(op: str, value: str) -> _RawAutomaton:
    build = _RAW_AUTOMATA.get(op)
    if build is None:
        raise ValueError(f"no automaton for operator {op!r}")
    return build(value)


@dataclass(frozen=True)
class _Automaton:
    """One atom's automaton with its polarity applied (sinks are DONE/DEAD)."""

    start: int
    accepting: frozenset[int]  # states where the atom (with polarity) holds; DONE included
    runs: tuple[Runs, ...]
    _events: dict[int, tuple[tuple[tuple[int, int, int], ...], ...]] = field(
        default_factory=dict, compare=False, repr=False
    )

    def events_at(self, position: int) -> tuple[tuple[tuple[int, int, int], ...], ...]:
        """Per state, the runs as (first_cp, position, target) sweep events."""
        events = self._events.get(position)
        if events is None:
            events = tuple(
                tuple((start, position, target) for start, target in state_runs)
                for state_runs in self.runs
            )
            self._events[position] = events
        return events


@lru_cache(maxsize=65536)
def _automaton(op: str, value: str, positive: bool) -> _Automaton:
    raw = _raw_automaton(op, value)
    sink = {_TRUE: DONE, _FALSE: DEAD} if positive else {_TRUE: DEAD, _FALSE: DONE}

    def polar(state: int) -> int:
        return sink.get(state, state)

    runs = tuple(
        tuple((start, polar(target)) for start, target in state_runs) for state_runs in raw.runs
    )
    states = range(len(raw.runs))
    accepting = {s for s in states if (s in raw.accepting) == positive}
    accepting.add(DONE)
    return _Automaton(polar(raw.start), frozenset(accepting), runs)


@lru_cache(maxsize=1024)
def _exclusion_automaton(points: tuple[str, ...]) -> _Automaton:
    """One automaton for "none of ``points``" (many ``!=`` atoms at once).

    A trie of the excluded strings: a state is a trie node, leaving the trie
    is DONE (no extension is excluded), and a node where an excluded string
    ends is the only rejecting state. It has as many states as the points
    have characters, where one automaton per ``!=`` would make every product
    state carry one component per exclusion.
    """
    children: list[dict[int, int]] = [{}]
    ends = set()
    for p in points:
        node = 0
        for char in p:
            nxt = children[node].get(ord(char))
            if nxt is None:
                nxt = len(children)
                children[node][ord(char)] = nxt
                children.append({})
            node = nxt
        ends.add(node)
    runs = []
    for node_children in children:
        pieces = [(0, DONE)]
        for cp in sorted(node_children):
            pieces += [(cp, node_children[cp]), (cp + 1, DONE)]
        runs.append(_merged_runs(pieces))
    accepting = {node for node in range(len(children)) if node not in ends}
    accepting.add(DONE)
    return _Automaton(0, frozenset(accepting), tuple(runs))


# --------------------------------------------------------------------------
# Product search


#: Breadth-first search's back pointers: each state reached to the state it was
#: reached from and the run of code points read (None for the start state).
_Parents = dict[tuple[int, ...], tuple[tuple[int, ...], int, int] | None]


def _successors(
    state: tuple[int, ...], events: Sequence[tuple[tuple[tuple[int, int, int], ...], ...]]
) -> Iterator[tuple[int, int, tuple[int, ...]]]:
    """(first_cp, last_cp, next_state) for each run of code points, ascending.

    Merges the runs of the atoms still live in ``state``; runs that kill an
    atom, or contain only surrogates, are skipped.
    """
    sweep: list[tuple[int, int, int]] = []
    for position, atom_state in enumerate(state):
        if atom_state >= 0:
            sweep.extend(events[position][atom_state])
    sweep.sort()
    current = list(state)
    k, count = 0, len(sweep)
    while k < count:
        first = sweep[k][0]
        while k < count and sweep[k][0] == first:
            current[sweep[k][1]] = sweep[k][2]
            k += 1
        last = sweep[k][0] - 1 if k < count else MAX_CP
        if DEAD in current:
            continue
        if first >= SURROGATE_FIRST and last <= SURROGATE_LAST:  # no valid character
            continue
        yield first, last, tuple(current)


def _search(
    automata: Sequence[_Automaton], goal: Callable[[tuple[int, ...]], bool] | None = None
) -> tuple[bool, str | None]:
    """Breadth-first search of the product; the first accepting path is a witness.

    Runs are expanded in ascending code-point order and each layer in the order
    it was discovered, so the witness is shortest and, run by run, smallest.
    With ``goal``, the search stops at the first state where ``goal`` holds
    instead of an accepting one.
    """
    start = tuple(a.start for a in automata)
    if DEAD in start:
        return False, None
    accepting = [a.accepting for a in automata]

    def all_hold(state: tuple[int, ...]) -> bool:
        return all(s in acc for s, acc in zip(state, accepting, strict=True))

    holds = all_hold if goal is None else goal

    if holds(start):
        return True, ""
    events = [a.events_at(position) for position, a in enumerate(automata)]
    parent: _Parents = {start: None}
    layer = [start]
    while layer:
        next_layer = []
        for state in layer:
            for first, last, successor in _successors(state, events):
                if successor in parent:
                    continue
                parent[successor] = (state, first, last)
                if holds(successor):
                    return True, _spell(parent, successor)
                next_layer.append(successor)
        layer = next_layer
    return False, None


def _spell(parent: _Parents, state: tuple[int, ...]) -> str:
    """The witness leading to ``state``: one readable character per run."""
    chars = []
    step = parent[state]
    while step is not None:
        previous, first, last = step
        chars.append(pick(first, last))
        step = parent[previous]
    return "".join(reversed(chars))


def _solve_automaton(atoms: tuple[tuple[str, str, bool], ...]) -> tuple[bool, str | None]:
    """The product of one automaton per atom (the reference procedure)."""
    automata = [_automaton(*atom) for atom in atoms]
    # Atoms satisfied from the start by a sink never constrain anything.
    return _search([a for a in automata if a.start != DONE])


def _product_automata(atoms: Sequence[tuple[str, str, bool]]) -> list[tuple[_Automaton, bool]]:
    """(automaton, bounded) per atom, with all ``!=`` atoms in one trie.

    *Bounded* atoms (order, prefix, ``=``, exclusions) are live only while the
    string read so far is a prefix of their constant; the others (suffix,
    negated substring) restart on a character that occurs in no constant.
    """
    points = tuple(sorted(value for op, value, positive in atoms if op == "=" and not positive))
    out = []
    if points:
        out.append((_exclusion_automaton(points), True))
    for op, value, positive in atoms:
        if op == "=" and not positive:
            continue
        out.append((_automaton(op, value, positive), op in _INTERVAL_CANONICAL))
    return [(a, bounded) for a, bounded in out if a.start != DONE]


def _solve_product(atoms: tuple[tuple[str, str, bool], ...]) -> str | None:
    """Shortest witness by the product search, exclusions merged into a trie."""
    return _search([a for a, _ in _product_automata(atoms)])[1]


# --------------------------------------------------------------------------
# Many positive substrings
#
# Each positive substring atom is a "seen yet?" bit in the product, so the
# search above visits up to 2**k states for k of them: 20 distinct letters
# took 18 s. A shortest witness is then a shortest common superstring, which
# is NP-hard (Gallant, Maier & Storer, On Finding Minimal Length
# Superstrings, JCSS 1980), so past a few patterns we give up "shortest" and
# keep "exact" with a construction that is linear in the patterns.
#
# Let the *core* be the atoms other than the positive substrings. Call a
# core state *free* when every bounded atom (see _product_automata) is DONE:
# what remains live are suffix and negated-substring atoms, all of which
# restart on a separator character s that occurs in no constant.
#
# * If a non-dead free state is reachable by some u, then
#   w = u s X1 s X2 ... s Xk s B, with Xi the patterns and B the longest
#   required suffix, satisfies every atom unless the atoms are
#   contradictory anyway: no constant spans an s, so a forbidden substring
#   in w lies inside u (impossible, u's state is not dead), inside some Xi or
#   inside B (then every witness contains it), and a forbidden suffix of w is
#   a suffix of B (every witness ends with B). So w is checked, and its
#   failure proves there is no witness.
# * If no free state is reachable, every witness keeps some bounded atom
#   live to its end, hence is a prefix of that atom's constant: finitely many
#   candidates, each checked.
#
# The core product is small: before the free states, the string read is a
# prefix of a bounded constant; after them, the state is fixed by the
# longest suffix of the input that is a prefix of some constant.

#: Positive substring atoms (after dropping implied ones) up to which the
#: product search, with its shortest witness, is still used.
EXACT_SUBSTRING_LIMIT = 4

_READABLE_SEPARATORS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:;"


def _separator(atoms: Sequence[tuple[str, str, bool]]) -> str:
    """A character in no constant (readable when possible)."""
    used: set[str] = set()
    for _, value, _ in atoms:
        used.update(value)
    for char in _READABLE_SEPARATORS:
        if char not in used:
            return char
    cp = 0xA1
    while chr(cp) in used or SURROGATE_FIRST <= cp <= SURROGATE_LAST:
        cp += 1
    return chr(cp)


def _drop_implied_occurrences(
    atoms: tuple[tuple[str, str, bool], ...],
) -> tuple[tuple[str, str, bool], ...] | None:
    """Drop positive prefix, suffix and substring atoms implied by another.

    The conjunction keeps exactly the same strings. ``None`` when two
    required prefixes (or suffixes) contradict each other.
    """
    prefixes = sorted((v for op, v, pos in atoms if op == ">*" and pos), key=len)
    suffixes = sorted((v for op, v, pos in atoms if op == "*<" and pos), key=len)
    if prefixes and not all(prefixes[-1].startswith(p) for p in prefixes):
        return None
    if suffixes and not all(suffixes[-1].endswith(p) for p in suffixes):
        return None
    anchors = prefixes[-1:] + suffixes[-1:]
    substrings = sorted((v for op, v, pos in atoms if op == "*" and pos), key=len, reverse=True)
    kept: list[str] = []
    for pattern in substrings:  # longest first: a pattern can only be inside a longer one
        if not any(pattern in other for other in kept) and not any(pattern in a for a in anchors):
            kept.append(pattern)
    positive_occurrence = {">*": prefixes[-1:], "*<": suffixes[-1:], "*": kept}
    out = [a for a in atoms if not (a[2] and a[0] in positive_occurrence)]
    for op, values in positive_occurrence.items():
        out += [(op, v, True) for v in values]
    return tuple(sorted(out))


def _holds_all(atoms: Sequence[tuple[str, str, bool]], holes: frozenset[str], s: str) -> bool:
    """Whether ``s`` satisfies every canonical atom (``holes``: the ``!=`` ones)."""
    if s in holes:
        return False
    return all(
        string_atom_holds(op, value, s) == positive
        for op, value, positive in atoms
        if positive or op != "="
    )


def _solve_by_insertion(atoms: tuple[tuple[str, str, bool], ...]) -> str | None:
    """Exact decision for many positive substrings (see the section comment)."""
    holes = frozenset(v for op, v, pos in atoms if op == "=" and not pos)
    patterns = [v for op, v, pos in atoms if op == "*" and pos]
    core = [a for a in atoms if not (a[0] == "*" and a[2])]
    product = _product_automata(core)
    automata = [a for a, _ in product]
    bounded = [i for i, (_, is_bounded) in enumerate(product) if is_bounded]

    def free(state: tuple[int, ...]) -> bool:
        return all(state[i] == DONE for i in bounded)

    reachable, lead = _search(automata, goal=free)
    if not reachable:
        # Every witness is a prefix of a bounded constant: try them all.
        constants = {v for op, v, _ in atoms if op in _INTERVAL_CANONICAL}
        prefixes = {c[:i] for c in constants for i in range(len(c) + 1)}
        for candidate in sorted(prefixes, key=lambda p: (len(p), p)):
            if _holds_all(atoms, holes, candidate):
                return candidate
        return None
    lead = lead or ""
    tail = next((v for op, v, pos in atoms if op == "*<" and pos), "")
    separator = _separator(atoms)
    # Plain concatenation first, as it reads better; the separated form is
    # the one the argument above is about.
    for candidate in (
        lead + "".join(patterns) + tail,
        lead + separator + separator.join(patterns) + separator + tail,
    ):
        if _holds_all(atoms, holes, candidate):
            return candidate
    return None


# --------------------------------------------------------------------------
# Entry points


@lru_cache(maxsize=65536)
def _solve_canonical(atoms: tuple[tuple[str, str, bool], ...]) -> str | None:
    if not atoms:
        return ""
    if _directly_contradictory(atoms):
        return None
    required = {value for op, value, positive in atoms if positive and op == "="}
    if required:
        # Only one string can be a witness: check it against every atom.
        if len(required) > 1:
            return None
        (value,) = required
        holes = frozenset(v for op, v, pos in atoms if op == "=" and not pos)
        return value if _holds_all(atoms, holes, value) else None
    interval_atoms = tuple(a for a in atoms if a[0] in _INTERVAL_CANONICAL)
    if len(interval_atoms) == len(atoms):
        return solve_intervals(atoms)[1]
    # Mixed: the interval atoms alone are a cheap necessary condition.
    if interval_atoms and not interval_region(interval_atoms):
        return None
    occurrences = sum(1 for op, _, positive in atoms if positive and op in _OCCURRENCE)
    if occurrences < 2:
        return _solve_product(atoms)  # nothing can imply anything, at most one "seen" bit
    reduced = _drop_implied_occurrences(atoms)
    if reduced is None:
        return None
    substrings = sum(1 for op, _, positive in reduced if op == "*" and positive)
    if substrings <= EXACT_SUBSTRING_LIMIT:
        return _solve_product(reduced)
    return _solve_by_insertion(reduced)


_OCCURRENCE = frozenset((">*", "*<", "*"))


_INTERVAL_CANONICAL = frozenset(("=", ">", ">=", ">*"))


def solve_string(atoms: Sequence[Atom]) -> str | None:
    """Return a string that satisfies every atom, or None if no string does.

    Each atom is ``(op, value, positive)``; ``positive=False`` means the atom
    must not hold. The witness has readable characters where the atoms leave
    a choice, and is a shortest one unless more than EXACT_SUBSTRING_LIMIT
    positive substring atoms remain after dropping implied ones (then a
    shortest witness is a shortest common superstring, NP-hard). Results are
    cached per set of atoms.
    """
    canonical = _canonicalize(atoms)
    if canonical is None:
        return None
    return _solve_canonical(canonical)


def solve_string_automaton(atoms: Sequence[Atom]) -> str | None:
    """:func:`solve_string` by the product automaton alone (no fast path, no cache)."""
    canonical = _canonicalize(atoms)
    if canonical is None:
        return None
    return _solve_automaton(canonical)[1]


def solve_string_intervals(atoms: Sequence[Atom]) -> str | None:
    """:func:`solve_string` by interval arithmetic alone (no cache).

    Only for atoms over ``=, !=, <, <=, >, >=, >*`` and ``any``; raises
    ``ValueError`` for others.
    """
    canonical = _canonicalize(atoms)
    if canonical is None:
        return None
    if any(op not in _INTERVAL_CANONICAL for op, _, _ in canonical):
        raise ValueError("the interval path takes only = != < <= > >= >* and any")
    return solve_intervals(canonical)[1]
