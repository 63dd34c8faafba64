"""Notebook pictures (issue 28, item 4): what ``_repr_html_`` shows for a
value, a poset, a routing, a delivery, a Matchmaker instance and a marking.

The unit tests parse every fragment as XML (well-formed, every name and
value escaped) and check what it draws against the object; the browser test
opens each in the suite's headless Chromium, checks it renders without a
console error, and saves a screenshot of each to ``build/screenshots/``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
import test_poset_browser as chromium
from hypothesis import given
from strategies import advertisements, constraints, filters, messages, predicates

import cbalgebra as cb
import cbalgebra.graphviz
from cbalgebra.matchmaker import Instance, mcm
from cbalgebra.network import build
from cbalgebra.notebook import NOTE_CLASS, value_html
from cbalgebra.poset import Poset
from cbalgebra.values import Constraint, Filter, Message, Predicate

SVG = "{http://www.w3.org/2000/svg}"
HOSTILE = '<b>&"q\'</b>'  # a tag, an ampersand and both quotes
SCREENSHOTS = Path(__file__).resolve().parent.parent / "build" / "screenshots"

browser = chromium.browser  # the suite's one headless Chromium (a module-scoped fixture)


def parse(fragment: str) -> ET.Element:
    """The fragment as XML: raises unless it is well-formed."""
    return ET.fromstring(fragment)


def text_of(fragment: str) -> str:
    return "".join(parse(fragment).itertext())


# ------------------------------------------------------------------ values
@given(st_value=constraints() | filters() | predicates() | advertisements() | messages())
def test_a_value_is_typeset_as_its_canonical_text(st_value):
    fragment = st_value._repr_html_()
    root = parse(fragment)
    # The visible text is the canonical form, token by token; so is the tooltip.
    assert "".join(root.itertext()) == str(st_value)
    assert root.get("title") == str(st_value)


def test_names_and_strings_are_escaped():
    f = Filter([Constraint("string", HOSTILE, "=", HOSTILE), Constraint("int", "x", "<", 3)])
    p = Predicate([f, Filter([Constraint("string", "s", ">*", "</div><script>alert(1)</script>")])])
    m = Message({HOSTILE: HOSTILE, "n": 1})
    for value in (f, p, m, f.constraints[0]):
        fragment = value._repr_html_()
        assert "<b>" not in fragment and "<script>" not in fragment
        assert text_of(fragment) == str(value)
        # Only the elements the typesetting writes, nothing from the value.
        assert {e.tag for e in parse(fragment).iter()} <= {"div", "span", "br"}
    assert text_of(Predicate([])._repr_html_()) == "false"
    assert [e.get("class") for e in parse(p._repr_html_()).iter("span") if e.get("class") == "or"] == ["or"]


def test_value_html_refuses_what_it_cannot_draw():
    with pytest.raises(TypeError, match="no notebook picture for int"):
        value_html(3)


# ------------------------------------------------------------------ poset
def small_poset() -> Poset:
    p = Poset()
    p.insert("[int price < 500]", "ann")
    p.insert("[int price < 300]", HOSTILE)
    p.insert('[int price < 300, string dest = "<ARN & co>"]', "bo")
    p.insert('[string dest any]', "cy")
    return p


def test_the_poset_is_its_interactive_page_in_an_iframe():
    from cbalgebra.poset.html import to_html

    poset = small_poset()
    frame = parse(poset._repr_html_())
    assert frame.tag == "iframe" and frame.get("sandbox") == "allow-scripts"
    # The attribute holds the whole page, escaped: unescaped it is the page.
    assert frame.get("srcdoc") == to_html(poset)
    assert frame.get("title") == repr(poset)


def test_the_core_loads_no_drawing_until_a_picture_is_asked_for():
    def loaded_after(code: str) -> set[str]:
        program = f"import json, sys\n{code}\nprint(json.dumps(sorted(sys.modules)))"
        done = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
        return set(json.loads(done.stdout.strip().splitlines()[-1]))

    drawing = {"cbalgebra.notebook", "cbalgebra.poset.html", "cbalgebra.poset.render", "cbalgebra.network.draw",
               "cbalgebra.matchmaker.picture", "cbalgebra.matchmaker.draw"}
    used = ("import cbalgebra as cb\nfrom cbalgebra.poset import Poset\nfrom cbalgebra.matchmaker import Instance\n"
            "f = cb.parse_filter('[int x > 1]'); str(f); repr(f)\np = Poset(); p.insert(f, 'a'); repr(p)\n")
    assert not loaded_after(used) & drawing
    shown = loaded_after(used + "f._repr_html_(); p._repr_html_()")
    assert {"cbalgebra.notebook", "cbalgebra.poset.html"} <= shown


# ------------------------------------------------------------------ network
def ring_routing(scheme: str = "pif"):
    g = nx.cycle_graph(8)
    nx.set_edge_attributes(g, 1, "weight")
    g.add_edge(0, 4, weight=3)
    hostile = Predicate([cb.parse_filter("[int x > 3]"), Filter([Constraint("string", "s", "=", HOSTILE)])])
    preds = {1: cb.parse_predicate("[int x > 1]"), 3: hostile,
             4: cb.parse_predicate("[int x < 0]"), 6: cb.parse_predicate("[int x > 4]")}
    return build(scheme, g, preds, senders=[0, 5])


def packets_drawn(fragment: str) -> Counter:
    arrows = [e for e in parse(fragment).iter(f"{SVG}path") if "packet" in (e.get("class") or "").split()]
    return Counter((int(e.get("data-from")), int(e.get("data-to"))) for e in arrows)


@pytest.mark.parametrize("scheme", ["psf", "ips", "pif", "drp", "siena"])
@pytest.mark.parametrize("source", [0, 5])
def test_a_delivery_draws_one_arrow_per_tree_link(scheme, source):
    routing = ring_routing(scheme)
    delivery = routing.deliver(cb.parse_message("[int x = 5]"), source)
    fragment = delivery._repr_html_()
    tree_links = Counter((p.parent, p.processor) for p in delivery.packets if p.parent is not None)
    assert packets_drawn(fragment) == tree_links
    assert sum(tree_links.values()) == delivery.transmissions > 0
    root = parse(fragment)
    assert len(root.findall(f".//{SVG}svg")) == 1
    assert "".join(root.find("figcaption").itertext()).startswith(f"{scheme.upper()} on ")
    circles = root.findall(f".//{SVG}g[@class='processor']")
    assert sorted(int(c.get("data-id")) for c in circles) == list(range(8))


def test_a_routing_draws_its_network_with_each_predicate():
    routing = ring_routing()
    root = parse(routing._repr_html_())
    links = root.findall(f".//{SVG}line[@class='link']")
    assert len(links) == routing.graph.number_of_edges()
    tips = {int(g.get("data-id")): g.find(f"{SVG}title").text for g in root.iter(f"{SVG}g")
            if g.get("class") == "processor"}
    assert tips[3] == f"3: {routing.predicates[3]}" and "<b>&" in tips[3]
    assert tips[2] == "2: no predicate"


# ------------------------------------------------------------------ Matchmaker
def tiny_instance() -> Instance:
    trees = {"A": [("A", "B"), ("B", "C"), ("B", HOSTILE)], "C": [("C", "B"), ("B", "A"), ("B", HOSTILE)]}
    return Instance.from_trees(trees, {"A": 5, "C": 1}, {"A": 1, HOSTILE: 9, "C": 2})


@pytest.mark.parametrize("instance", [tiny_instance(), Instance.generate(3, publishers=5, subscribers=5)],
                         ids=["tiny", "transit-stub"])
def test_a_marking_draws_p_and_s_links_apart(instance):
    marking = mcm(instance)
    root = parse(instance.picture(marking, title="MCM")._repr_html_())
    drawn = {cls: root.findall(f".//{SVG}path[@class='{cls}']") for cls in ("p-link", "s-link", "tree-link")}
    kinds = Counter(marking.values())
    assert len(drawn["p-link"]) == kinds["p"] and len(drawn["s-link"]) == kinds["s"] and not drawn["tree-link"]
    assert len(drawn["p-link"]) + len(drawn["s-link"]) == len(instance.links)
    p_look = {(e.get("stroke"), e.get("stroke-dasharray")) for e in drawn["p-link"]}
    s_look = {(e.get("stroke"), e.get("stroke-dasharray")) for e in drawn["s-link"]}
    assert len(p_look) <= 1 and len(s_look) <= 1 and not p_look & s_look
    # Each link's tooltip names its ends and its kind.
    titles = Counter(e.find(f"{SVG}title").text.rsplit(": ", 1)[1] for e in drawn["p-link"] + drawn["s-link"])
    assert titles == Counter({"p-link": kinds["p"], "s-link": kinds["s"]}) - Counter()


def test_an_instance_draws_its_trees_unmarked():
    instance = tiny_instance()
    root = parse(instance._repr_html_())
    assert len(root.findall(f".//{SVG}path[@class='tree-link']")) == len(instance.links)
    names = [g.find(f"{SVG}title").text for g in root.iter(f"{SVG}g") if "node" in g.get("class", "")]
    assert sorted(names) == sorted(["A", "B", "C", HOSTILE])


def test_without_graphviz_the_graphviz_picture_says_so_in_one_line(monkeypatch):
    instance = tiny_instance()
    monkeypatch.setattr(cbalgebra.graphviz, "find_dot", lambda: None)
    fragment = instance.picture(mcm(instance), graphviz=True)._repr_html_()
    notes = [e for e in parse(fragment).iter() if e.get("class") == NOTE_CLASS]
    assert len(notes) == 1 and "".join(notes[0].itertext()) == cbalgebra.graphviz.MISSING
    assert "<svg" not in fragment and "\n" not in "".join(notes[0].itertext())
    # The pictures laid out in Python need no Graphviz at all.
    assert "<svg" in instance.picture(mcm(instance))._repr_html_()
    assert "<svg" in ring_routing().deliver(cb.parse_message("[int x = 5]"), 0)._repr_html_()


def test_graphviz_draws_a_marking_where_it_is_installed():
    instance = tiny_instance()
    root = parse(instance.picture(mcm(instance), graphviz=True)._repr_html_())
    if cbalgebra.graphviz.available():
        assert root.find(f"{SVG}svg") is not None
        assert {t.text for t in root.iter(f"{SVG}text")} >= {"A", "B", "C", HOSTILE}  # labels, escaped by DOT
    else:  # this machine has no dot: the one line, as above
        assert root.find(f"p[@class='{NOTE_CLASS}']").text == cbalgebra.graphviz.MISSING


def test_a_graphviz_picture_needs_a_marking():
    with pytest.raises(cb.matchmaker.InstanceError, match="pass one"):
        tiny_instance().picture(graphviz=True)


# ------------------------------------------------------------------ in Chromium
def notebook_page(fragment: str) -> str:
    """The fragment as a notebook's output cell holds it: inside a page of its own."""
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>cell</title></head>'
            f'<body style="margin: 12px"><div class="output">{fragment}</div></body></html>')


def representations() -> dict[str, Any]:
    routing = ring_routing()
    instance = Instance.generate(3, publishers=5, subscribers=5)
    return {
        "constraint": Constraint("string", HOSTILE, "=", HOSTILE),
        "filter": cb.parse_filter('[int price < 300, string dest = "ARN", string airline >* "U"]'),
        "predicate": cb.parse_predicate('[int price < 300] || [string dest = "<ARN>" , bool direct = true]'),
        "message": cb.parse_message('[int price = 250, string dest = "ARN", float tax = 0.25]'),
        "poset": small_poset(),
        "routing": routing,
        "delivery": routing.deliver(cb.parse_message("[int x = 5]"), 0),
        "instance": instance,
        "marking": instance.picture(mcm(instance), title="MCM marking"),
    }


@pytest.mark.browser
def test_each_representation_renders_in_chromium(browser, tmp_path):
    from selenium.webdriver.common.by import By

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    saved = []
    for name, obj in representations().items():
        browser.get_log("browser")  # drop what an earlier page said
        page = tmp_path / f"{name}.html"
        page.write_text(notebook_page(obj._repr_html_()), encoding="utf-8")
        browser.get(page.as_uri())
        if name == "poset":
            frame = browser.find_element(By.CSS_SELECTOR, "iframe.cbalgebra-page")
            browser.switch_to.frame(frame)
            assert len(browser.find_elements(By.CSS_SELECTOR, "svg g.node")) == len(obj)
            assert browser.execute_script("return typeof window.posetView") == "object"  # its script ran
            assert browser.find_element(By.ID, "summary").text.startswith(f"{len(obj)} elements")
            browser.switch_to.default_content()
        elif name in ("constraint", "filter", "predicate", "message"):
            shown = browser.find_element(By.CSS_SELECTOR, f"div.cbalgebra-{name}")
            assert shown.get_attribute("textContent") == str(obj) and shown.size["width"] > 0
        else:
            svg = browser.find_element(By.CSS_SELECTOR, "figure svg")
            assert svg.size["width"] > 300 and svg.size["height"] > 300
            expected = {"routing": "g.processor", "delivery": "path.packet", "instance": "path.tree-link",
                        "marking": "path.s-link"}[name]
            assert browser.find_elements(By.CSS_SELECTOR, f"figure svg {expected}")
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert errors == [], (name, errors)
        shot = SCREENSHOTS / f"notebook-{name}.png"
        assert browser.save_screenshot(str(shot))
        saved.append(shot)
    print("notebook screenshots:", *map(str, saved), sep="\n  ")
    assert all(p.stat().st_size > 1000 for p in saved)
