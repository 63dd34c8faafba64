"""``cbalgebra route``: deliveries, summary, pictures and bad input (issue 11
§5 and §7)."""

from __future__ import annotations

import json
import shutil

import pytest
from cli_helpers import one_line_usage_error, run, usage_error_on_file

FIGURE_3 = "# Carzaniga, Rembert & Wolf 2006, Figure 3, processors 1-4 numbered 0-3\n0 1 2.5\n0 3 1\n3 2 1\n2 1 1\n"
FIGURE_3_PREDICATES = "".join(f"{x}: [int p{x + 1} = 1]\n" for x in range(4))


def figure_3_files(folder):
    """The network of Figure 3 and a predicate per processor, written into ``folder``: (network, predicates)."""
    net = folder / "figure3.edges"
    net.write_text(FIGURE_3)
    preds = folder / "preds.txt"
    preds.write_text(FIGURE_3_PREDICATES)
    return net, preds


@pytest.fixture
def figure_3(tmp_path):
    net, preds = figure_3_files(tmp_path)
    msgs = tmp_path / "messages.txt"
    msgs.write_text("0: [int p2 = 1, int p4 = 1]\n# a comment\n3: [int p1 = 1]\n")
    return net, preds, msgs


def test_figure_3_pif_delivers_to_3_needlessly(capsys, figure_3):
    net, preds, msgs = figure_3
    code, out, err = run(capsys, "route", str(net), "--scheme", "pif", "--predicates", str(preds),
                         "--messages", str(msgs))
    assert code == 0, err
    assert "delivery 0: from 0" in out
    assert "interested {1, 3}; reached {0, 1, 2, 3}" in out
    assert "packets |D| = 4 (smallest latency-minimal 3)" in out
    assert "correct yes, latency-minimal yes, ideal NO" in out
    assert "delivery 1: from 3" in out
    assert "summary: pif" in out and "2 deliveries: 2 correct" in out
    assert "by component: init" in out and "child" in out and "F*" in out


def test_json_output_matches_the_library(capsys, figure_3):
    net, preds, msgs = figure_3
    code, out, _ = run(capsys, "route", str(net), "--scheme", "psf", "--predicates", str(preds),
                       "--messages", str(msgs), "--json")
    assert code == 0
    doc = json.loads(out)
    first = doc["deliveries"][0]
    assert first["receivers"] == [0, 1, 3] and first["ideal"] is True and first["packets"] == 3
    assert sorted(map(tuple, first["tree"])) == [(0, 1), (0, 3)]
    assert doc["summary"]["memory"]["id_bits"] == 4 * 2      # 4 senders, ⌈log2 4⌉ bits each


@pytest.mark.parametrize("scheme", ["psf", "ips", "pif", "drp", "siena"])
def test_every_scheme_runs_on_a_generated_network(capsys, scheme):
    code, out, err = run(capsys, "route", "power_law", "-n", "25", "--scheme", scheme, "-k", "3",
                         "--count", "4", "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["summary"]["deliveries"] == 4 and doc["summary"]["correct"] == 4
    assert all(d["interested"] for d in doc["deliveries"])     # aimed messages interest someone
    if scheme == "siena":
        assert doc["summary"]["siena_tree"].startswith("shortest-path tree of the centre")


def test_drp_ecmp_on_a_grid_shows_duplicates(capsys, monkeypatch, tmp_path):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{x}: [int t > 0]\n" for x in range(16))))
    msgs = [str(v) + ": [int t = 1]" for v in range(16)]
    path = tmp_path / "msgs.txt"
    path.write_text("\n".join(msgs))
    code, out, err = run(capsys, "route", "grid", "-n", "16", "--scheme", "drp", "--unicast", "ecmp",
                         "--predicates", "-", "--messages", str(path), "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["summary"]["correct"] == 16 and doc["summary"]["latency_minimal"] == 16
    assert doc["summary"]["with_duplicates"] > 0
    dup = next(d for d in doc["deliveries"] if d["duplicates"])
    assert dup["ideal"] is False and dup["packets"] > dup["smallest"]


def test_standard_input_is_read_once(capsys, monkeypatch):
    import io
    monkeypatch.setattr("sys.stdin", io.StringIO("0: [int t > 0]\n"))
    code, _out, err = run(capsys, "route", "grid", "-n", "4", "--predicates", "-", "--messages", "-")
    assert code == 2 and "standard input can be read only once" in err


def test_draw_html_needs_nothing(capsys, tmp_path, monkeypatch, figure_3):
    net, preds, msgs = figure_3
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    monkeypatch.setenv("PATH", "")
    out_file = tmp_path / "d.html"
    code, _out, err = run(capsys, "route", str(net), "--scheme", "pif", "--predicates", str(preds),
                         "--messages", str(msgs), "--draw", str(out_file))
    assert code == 0, err
    page = out_file.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page and "<script" not in page
    assert "PIF on" in page and "#ffb74d" in page                 # interested processors filled
    assert page.count('marker-end="url(#') == 3                    # three packets sent


def test_draw_svg_without_graphviz_is_a_one_line_error(capsys, tmp_path, monkeypatch, figure_3):
    net, preds, msgs = figure_3
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    code, _out, err = run(capsys, "route", str(net), "--predicates", str(preds), "--messages", str(msgs),
                         "--draw", str(tmp_path / "d.svg"))
    assert code == 69                                              # the policy for a missing program
    assert "apt-get install graphviz" in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "d.svg").exists()


def test_draw_svg_with_graphviz_or_the_install_hint(capsys, tmp_path, figure_3):
    net, preds, msgs = figure_3
    target = tmp_path / "d.svg"
    code, _out, err = run(capsys, "route", str(net), "--scheme", "drp", "--predicates", str(preds),
                         "--messages", str(msgs), "--draw", str(target), "--draw-index", "1")
    if shutil.which("dot"):
        assert code == 0, err
        svg = target.read_text()
        assert "<svg" in svg and "DRP on" in svg
    else:
        assert code == 69 and "apt-get install graphviz" in err



def test_dot_output_marks_duplicates(tmp_path):
    import networkx as nx

    from cbalgebra.network.draw import DUPLICATE, to_dot
    from cbalgebra.network.schemes import build
    from cbalgebra.values import Filter, Message, Predicate

    g = nx.Graph([(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (3, 5)])
    nx.set_edge_attributes(g, 1, "weight")
    every = Predicate([Filter()])
    d = build("drp", g, {3: every, 4: every, 5: every}, unicast={0: {4: 1, 5: 2}}).deliver(Message(), 0)
    text = to_dot(d)
    assert text.count(f'color="{DUPLICATE}"') == 2                 # the two packets into 3
    assert "duplicates at 3" in text


@pytest.mark.parametrize("argv, expected", [
    (["route", "nosuch"], "unknown topology 'nosuch'"),
    (["route", "power_law", "-n", "10", "--scheme", "ospf"], "choose one of psf, ips, pif, drp, siena"),
    (["route", "topohub:topozoo/NoSuchNet"], "no network topohub:topozoo/NoSuchNet"),
    (["route", "power_law"], "give the number of processors n"),
    (["route", "power_law", "-n", "10", "--reducer", "magic"], "unknown reducer 'magic'"),
    (["route", "power_law", "-n", "10", "--param", "oops"], "--param expects KEY=VALUE"),
    (["route", "power_law", "-n", "10", "--senders", "1,x"], "'x' is not a processor id"),
    (["route", "power_law", "-n", "10", "--senders", "1,99"], "sender 99 is not a processor"),
    (["route", "power_law", "-n", "10", "--source", "42", "--count", "1"], "source 42 is not a processor"),
    (["route", "power_law", "-n", "10", "--draw", "x.pdf"], "use .svg, .png (Graphviz), .html or .dot"),
    (["route", "power_law", "-n", "10", "-k", "0"], "-k must be >= 1"),
    (["route", "gnp", "-n", "10", "--param", "avg_degree=-1"], "gnp: avg_degree must be a number >= 0, not -1"),
])
def test_bad_arguments_get_one_line_and_exit_2(capsys, tmp_path, monkeypatch, argv, expected):
    monkeypatch.chdir(tmp_path)
    assert expected in one_line_usage_error(capsys, *argv)


@pytest.mark.parametrize("network, expected", [
    ("0 1 1\n2 3 1\n", "disconnected"),
    ("0 1 1\n1 2 0\n", "not a positive finite number"),
    ("0 1 1\n1 2 -3\n", "not a positive finite number"),
    ("0 1 1\n1 2\n", "some links have a weight and some do not"),
    ("0 1 1\n1 2 true\n", "weight 'true' is not a number"),
    ("0 1 1\nx 2 1\n", "disconnected"),
])
def test_bad_networks_get_one_line_and_exit_2(capsys, tmp_path, network, expected):
    assert expected in usage_error_on_file(capsys, tmp_path / "net.edges", network, "route", "--count", "1")


def test_predicate_for_a_processor_not_in_the_graph(capsys, tmp_path, figure_3):
    net, _, _ = figure_3
    preds = tmp_path / "p.txt"
    preds.write_text("0: [int x = 1]\n7: [int x = 2]\n")
    err = one_line_usage_error(capsys, "route", str(net), "--predicates", str(preds))
    assert "a predicate for 7, which is not a processor of the network (0..3)" in err


def test_malformed_predicate_file_reports_line_column_and_caret(capsys, tmp_path, figure_3):
    net, _, _ = figure_3
    preds = tmp_path / "p.txt"
    preds.write_text("0: [int x = 1]\n\n2: [int x = ]\n")
    code, _out, err = run(capsys, "route", str(net), "--predicates", str(preds))
    assert code == 2
    first = err.splitlines()[0]
    assert first.startswith(f"error: {preds}: line 3, column ")
    assert "^" in err and "Traceback" not in err
    preds.write_text("[int x = 1]\n")
    code, _out, err = run(capsys, "route", str(net), "--predicates", str(preds))
    assert code == 2 and "line 1: expected 'processor: predicate'" in err
