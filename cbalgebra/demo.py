"""``make demo``: a short tour of the library on the embedded defaults.

It needs no system package, so that ``make demo`` runs to the end on a fresh
machine: without Graphviz it skips the SVG picture, without Java the Spark
study, each with one line that says how to get it. The HTML page of the
poset needs nothing.
"""

from __future__ import annotations

import time
from pathlib import Path

import cbalgebra as cb
from cbalgebra import clibase, graphviz, java, studies
from cbalgebra.poset import Poset, html, render, stats

SIGCOMM_PREDICATE = (
    '[alert-type="intrusion" ∧ severity>2 ∨ class="alert" ∧ device-type="web-server"]'
)
SIGCOMM_MESSAGE = '[class="alert", severity=6, device-type="web-server", alert-type="hardware failure"]'


def _title(text: str) -> None:
    print(f"\n== {text}")


def run(out: Path, study: bool = True) -> int:
    _title("Parse the example of Carzaniga & Wolf, Forwarding in a Content-Based Network (SIGCOMM 2003, §1)")
    predicate = cb.parse_predicate(SIGCOMM_PREDICATE)
    message = cb.parse_message(SIGCOMM_MESSAGE)
    print(f"predicate: {predicate}")
    print(f"message:   {message}")

    _title("Match")
    print(f"matches(predicate, message) = {cb.matches(predicate, message)}")

    _title("Covering, decided exactly")
    wide = cb.parse_predicate('[int severity > 2] || [string class = "alert"]')
    print(f"x = {wide}\ny = {predicate}")
    print(f"x covers y: {cb.covers(wide, predicate)}")
    narrow = cb.parse_predicate('[string alert-type >* "intr", int severity > 3]')
    print(f"x = {narrow}\ny = {predicate}")
    m = cb.counterexample(narrow, predicate)
    print(f"x covers y: {m is None}; counterexample (matched by y, not by x): {m}")
    x, y = cb.parse_filter('string s <= "bz"'), cb.parse_filter('string s >* "b"')
    print(f'{x} covers {y}: {cb.covers(x, y)}; counterexample: {cb.counterexample(x, y)}')

    _title("Reduce a small disjunction")
    # The examples of Carzaniga, Rembert & Wolf 2006, plus pairs that only merging or covering by a
    # disjunction can reduce.
    disjunction = cb.parse_predicate(
        "[int x > 10, int y = 100] || [int y > 0] || [int severity > 2] || [int severity > 3]"
        ' || [int x < 5, int z = 1] || [int x >= 5, int z = 1] || [string s >* "ab"] || [string s = "ab"]'
        " || [int w > 0, int v > 0] || [int w < 3, int v > 0] || [int v > 0, int w any]"
        # [a > 0, b > 0] is covered only by the three others together.
        " || [int a > 0, int b > 0] || [int a > 5] || [int b > 5] || [int a < 10, int b < 10]"
    )
    print(f"input:   {disjunction}  (size {disjunction.size})")
    for reducer in ("siena", "exact", "merge", "cover", "minimal"):
        reduced = cb.reduce(disjunction, reducer=reducer)
        print(f"{reducer:>8}: {reduced}  (size {reduced.size})")

    _title("Forward with the compiled table (numba)")
    from cbalgebra.matcher import ForwardingTable  # loads numba: only when the demo gets here

    table = ForwardingTable.compile({
        1: predicate,
        2: cb.parse_predicate('[string class = "alert", int severity > 7]'),
        3: cb.parse_predicate('[string device-type >* "web"]'),
    })
    print(f"forward(message) -> interfaces {table.forward(message).tolist()}")

    _title("The filters poset (Carzaniga, Rosenblum & Wolf 2000, §3.4): Hasse diagram of covering")

    poset = Poset()
    for subscriber, text in [
        ("a", "[string airline any]"), ("b", '[string airline = "UA"]'), ("c", '[string airline >* "U"]'),
        ("d", "[int price < 500]"), ("e", "[int price < 300]"),
        ("f", '[string airline = "UA", int price < 300]'),
        ("g", '[string airline = "UA", string dest = "ARN", int price < 300]'),
    ]:
        poset.insert(cb.parse_filter(text), subscriber)
    shape = stats.shape(poset)
    print(f"{len(poset)} elements; roots: {', '.join(str(r) for r in poset.roots())}")
    print(f"shape: {shape}")
    out.mkdir(parents=True, exist_ok=True)
    (out / "poset.html").write_text(html.to_html(poset), encoding="utf-8")
    print(f"wrote {out / 'poset.html'} (pan, zoom, search, click to highlight)")
    if clibase.graphviz_available():
        (out / "poset.svg").write_text(render.to_svg(poset), encoding="utf-8")
        print(f"wrote {out / 'poset.svg'}")
    else:
        print(f"skipped poset.svg: {graphviz.MISSING}")

    if study:
        _title("A small alpha study on the embedded Spark (local[*])")
        if not clibase.java_available():
            print(f"skipped the Spark study: {java.problem()}")
            return 0
        started = time.perf_counter()
        plot = studies.demo_study(out)
        print(f"wrote {plot} in {time.perf_counter() - started:.0f} s")
    return 0
