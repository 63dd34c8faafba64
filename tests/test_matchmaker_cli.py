"""``cbalgebra matchmaker INSTANCE.json``: costs, markings, drawings, the
instance file format and its errors (issue 13 §8)."""

from __future__ import annotations

import json
import shutil

import pytest
from hypothesis import given, settings
from matchmaker_oracles import per_source_instances, shared_instances

from cbalgebra.cli import main
from cbalgebra.matchmaker import Instance, InstanceError, closure, cost, mcm
from cbalgebra.matchmaker.jsonio import instance_from_json, instance_to_json, loads

FIGURE_4 = {"network": {"edges": [["A", "B"], ["B", "C"], ["B", "D"]]},
            "publishers": [["A", 2]], "subscribers": [["C", 1], ["D", 3]], "trees": "per-source"}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def write(tmp_path, doc, name="instance.json"):
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(path)


def test_figure_4_costs_and_markings(capsys, tmp_path):
    code, out, err = run(capsys, "matchmaker", write(tmp_path, FIGURE_4))
    assert code == 0, err
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.split()}
    assert rows["All-P"][1] == "6" and rows["All-S"][1] == "8"
    assert rows["MCM"][1] == "5" and rows["TDM"][1] == "5"
    assert rows["B->C"][1:] == ["2", "1", "p", "s", "s", "s"]  # sigma, tau, then each marking


def test_json_output(capsys, tmp_path):
    code, out, _ = run(capsys, "matchmaker", write(tmp_path, FIGURE_4), "--json", "--algorithms", "mcm,all-s")
    assert code == 0
    doc = json.loads(out)
    assert set(doc["algorithms"]) == {"mcm", "all-s"}
    assert doc["algorithms"]["mcm"] == {"cost": 5, "valid": True,
                                        "marking": [["A", "B", "p"], ["B", "C", "s"], ["B", "D", "p"]]}


def test_generate_and_write_instance_round_trip(capsys, tmp_path):
    saved = tmp_path / "saved.json"
    code, out, _ = run(capsys, "matchmaker", write(tmp_path, {"generate": {"seed": 5, "trees": "shared"}}),
                       "--quiet", "--write-instance", str(saved))
    assert code == 0
    again_code, again, _ = run(capsys, "matchmaker", str(saved), "--quiet")
    assert again_code == 0
    costs = [line.split()[:2] for line in out.splitlines()[2:6]]
    assert costs == [line.split()[:2] for line in again.splitlines()[2:6]]
    inst = Instance.generate(5, trees="shared")
    assert costs[2] == ["MCM", str(cost(inst, mcm(inst)))]


@settings(max_examples=60)
@given(shared_instances())
def test_json_round_trip_shared(inst):
    back = instance_from_json(json.loads(json.dumps(instance_to_json(inst))))
    assert back.trees == inst.trees and dict(back.f) == dict(inst.f) and dict(back.g) == dict(inst.g)


@settings(max_examples=60)
@given(per_source_instances())
def test_json_round_trip_per_source(inst):
    back = instance_from_json(json.loads(json.dumps(instance_to_json(inst))))
    assert back.trees == inst.trees and cost(back, mcm(back)) == cost(inst, mcm(inst))


def test_explicit_trees_and_routed_trees_agree():
    routed = instance_from_json(FIGURE_4)
    explicit = instance_from_json({**FIGURE_4, "trees": [{"publisher": "A", "edges": [["A", "B"], ["B", "C"],
                                                                                     ["B", "D"]]}]})
    assert routed.trees == explicit.trees
    shared = instance_from_json({**FIGURE_4, "trees": "shared", "core": "B"})
    assert shared.core == "B" and cost(shared, mcm(shared)) == 5


BAD = [
    ("{", "line 1, column 2"),
    ("[]", "JSON object"),
    ({**FIGURE_4, "colour": 1}, "unknown key 'colour'"),
    ({**FIGURE_4, "publishers": [["A", -2]]}, ">= 0"),
    ({**FIGURE_4, "subscribers": [["C", "many"]]}, ">= 0"),
    ({**FIGURE_4, "subscribers": [["Z", 1]]}, "subscriber 'Z' is not a node"),
    ({**FIGURE_4, "publishers": [["A", 1], ["A", 2]]}, "twice"),
    ({**FIGURE_4, "network": {"edges": [["A", "B", 0]]}}, "weight > 0"),
    ({**FIGURE_4, "network": {"edges": [["A", "B"], ["C", "D"]]}}, "not a node|not connected"),
    ({**FIGURE_4, "network": {"edges": [["A", "B"], ["B", "C"], ["B", "D"], ["C", "D"]]},
      "trees": [{"publisher": "A", "edges": [["A", "B"], ["B", "C"], ["B", "D"], ["D", "C"]]}]}, "two parents"),
    ({**FIGURE_4, "network": {"edges": [["A", "B"], ["B", "C"], ["B", "D"], ["C", "D"]]},
      "trees": [{"publisher": "A", "edges": [["A", "B"], ["C", "D"], ["D", "C"]]}]}, "cycle"),
    ({**FIGURE_4, "trees": [{"publisher": "A", "edges": [["A", "B"], ["B", "Q"]]}]}, "'Q' is not a node"),
    ({**FIGURE_4, "trees": [{"publisher": "A", "edges": [["A", "C"]]}]}, "not a link of the network"),
    ({**FIGURE_4, "trees": []}, "has no tree"),
    ({**FIGURE_4, "trees": "steiner"}, "shared"),
    ({**FIGURE_4, "core": "B"}, "shared trees only"),
    ({**FIGURE_4, "trees": "shared", "core": "Q"}, "core 'Q'"),
    ({"generate": {"seed": 1, "publishers": 500}}, "publishers must be"),
    ({"generate": {"seed": 1, "wings": 2}}, "unknown parameter"),
    ({"publishers": [], "subscribers": []}, "missing key 'trees'"),
    ({**FIGURE_4, "shared_tree": "whole"}, "'whole' applies to shared trees, not to per-source"),
    ({**FIGURE_4, "trees": "shared", "shared_tree": "all"}, "'pruned' or 'whole'"),
    ({**FIGURE_4, "trees": [{"publisher": "A", "edges": [["A", "B"]]}], "shared_tree": "pruned"},
     "not to trees the instance lists"),
    ({"generate": {"seed": 1, "shared_tree": "all"}}, "'pruned' or 'whole'"),
    # issue 23 §4: numbers and nesting the JSON reader or a float cannot take
    ({**FIGURE_4, "publishers": [["A", 10**400]]}, "at most 1.8e308, not an integer of 1329 bits"),
    ({**FIGURE_4, "network": {"edges": [["A", "B", 10**400], ["B", "C"], ["B", "D"]]}}, "at most 1.8e308"),
    (json.dumps(FIGURE_4).replace('[["A", 2]]', '[["A", ' + "9" * 5000 + "]]"), "5000 digits is too long"),
    ("[" * 100_000, "nest more than 100 deep"),
    ({**FIGURE_4, "publishers": [["A", json.loads("[" * 150 + "]" * 150)]]}, "nest more than 100 deep"),
    ({**FIGURE_4, "network": {"generator": "ring", "n": 10**30}},
     "ring: n is a 100-bit integer, more than the 10,000,000 processors"),
]


@pytest.mark.parametrize(("doc", "reason"), BAD)
def test_malformed_instances_exit_2_with_one_line(capsys, tmp_path, doc, reason):
    code, out, err = run(capsys, "matchmaker", write(tmp_path, doc))
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("error: ")
    import re
    assert re.search(reason, err), err
    assert "Traceback" not in err and out == ""


@pytest.mark.parametrize("scale", [2**30, 2**40, 10**300], ids=["2^30", "2^40", "10^300"])
def test_counts_beyond_scipys_capacities_get_the_exact_optimum(capsys, tmp_path, scale):
    """Issue 23 §4: per-source CD counts >= 2^30 were "use solver='networkx'",
    exit 70; MCM now falls back by itself and gives networkx's exact optimum."""
    doc = {**FIGURE_4, "publishers": [["A", 2 * scale]], "subscribers": [["C", scale], ["D", 3 * scale + 1]]}
    code, out, err = run(capsys, "matchmaker", write(tmp_path, doc), "--json", "--quiet")
    assert code == 0, err
    inst = instance_from_json(doc)
    assert json.loads(out)["algorithms"]["mcm"]["cost"] == cost(inst, closure(inst, "networkx"))


def test_deep_nesting_is_refused_by_the_library_too():
    deep: list = []
    for _ in range(5_000):
        deep = [deep]
    with pytest.raises(InstanceError, match="nest more than 100 deep"):
        instance_from_json({**FIGURE_4, "subscribers": deep})


def test_loads_names_the_source():
    with pytest.raises(InstanceError, match=r"^x\.json: line 1, column 1"):
        loads("nope", "x.json")


def test_missing_file_exit_2(capsys, tmp_path):
    code, _, err = run(capsys, "matchmaker", str(tmp_path / "absent.json"))
    assert code == 2 and "no such file" in err


def test_draw_dot_needs_nothing(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))  # no dot on PATH
    out_file = tmp_path / "m.dot"
    code, _, err = run(capsys, "matchmaker", write(tmp_path, FIGURE_4), "--draw", str(out_file))
    assert code == 0, err
    text = out_file.read_text()
    from cbalgebra.matchmaker.draw import P_COLOUR, S_COLOUR
    arrows = [line for line in text.splitlines() if " -> " in line]
    assert text.startswith("digraph") and len(arrows) == 3  # the three links, no other network link
    assert sum(P_COLOUR in a for a in arrows) == 2 and sum(S_COLOUR in a for a in arrows) == 1
    assert "doubleoctagon" in text  # B is a matchmaking node


def test_draw_svg_without_graphviz_exits_69(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    code, out, err = run(capsys, "matchmaker", write(tmp_path, FIGURE_4), "--draw", str(tmp_path / "m.svg"))
    assert code == 69
    assert err.count("\n") == 1 and "apt-get install graphviz" in err and out == ""
    assert not (tmp_path / "m.svg").exists()


def test_draw_svg(capsys, tmp_path):
    target = tmp_path / "m.svg"
    code, _, err = run(capsys, "matchmaker", write(tmp_path, {"generate": {"seed": 3, "trees": "per-source"}}),
                       "--quiet", "--draw", str(target), "--draw-algorithm", "tdm")
    if shutil.which("dot") is None:  # this machine lacks Graphviz: the one-line message instead
        assert code == 69 and "graphviz" in err
    else:
        assert code == 0, err
        assert "<svg" in target.read_text()


def test_bad_usage(capsys, tmp_path):
    code, _, err = run(capsys, "matchmaker", write(tmp_path, FIGURE_4), "--algorithms", "best")
    assert code == 2 and "unknown algorithm 'best'" in err
    code, _, err = run(capsys, "matchmaker", write(tmp_path, FIGURE_4), "--draw", str(tmp_path / "m.pdf"))
    assert code == 2 and ".svg, .png or .dot" in err


STAR = {"network": {"edges": [["a", "c"], ["b", "c"], ["c", "s"]]}, "publishers": [["a", 5], ["b", 7]],
        "subscribers": [["s", 2]], "trees": "shared", "core": "c"}


def _written_trees(path) -> dict:
    return {t["publisher"]: sorted(map(tuple, t["edges"])) for t in json.loads(path.read_text())["trees"]}


@pytest.mark.parametrize(("doc_extra", "argv", "whole"), [
    ({}, [], False), ({}, ["--shared-tree", "pruned"], False), ({"shared_tree": "pruned"}, [], False),
    ({}, ["--shared-tree", "whole"], True), ({"shared_tree": "whole"}, [], True),
    ({"shared_tree": "whole"}, ["--shared-tree", "whole"], True),
])
def test_shared_tree_option(capsys, tmp_path, doc_extra, argv, whole):
    """T_x on a shared tree: the paper's (the paths from x to the subscribers) unless
    the instance or --shared-tree says "whole"; the star a, b - c - s shows it."""
    saved = tmp_path / "saved.json"
    code, out, err = run(capsys, "matchmaker", write(tmp_path, {**STAR, **doc_extra}), "--json", "--quiet",
                         "--write-instance", str(saved), *argv)
    assert code == 0, err
    pruned = {"a": [("a", "c"), ("c", "s")], "b": [("b", "c"), ("c", "s")]}
    everything = {"a": [("a", "c"), ("c", "b"), ("c", "s")], "b": [("b", "c"), ("c", "a"), ("c", "s")]}
    assert _written_trees(saved) == (everything if whole else pruned)
    assert json.loads(out)["algorithms"]["all-p"]["cost"] == (36 if whole else 24)


@pytest.mark.parametrize(("doc", "argv", "reason"), [
    ({**STAR, "shared_tree": "whole"}, ["--shared-tree", "pruned"], '"whole" in the instance but "pruned"'),
    (FIGURE_4, ["--shared-tree", "whole"], "applies to shared trees"),
    ({**FIGURE_4, "trees": [{"publisher": "A", "edges": [["A", "B"]]}]}, ["--shared-tree", "whole"],
     "not to trees the instance lists"),
    (STAR, ["--shared-tree", "some"], "invalid choice"),
])
def test_shared_tree_option_errors_exit_2(capsys, tmp_path, doc, argv, reason):
    code, out, err = run(capsys, "matchmaker", write(tmp_path, doc), *argv)
    assert code == 2 and out == "" and reason in err and "Traceback" not in err
