"""Poset benchmark: inserting the random DNF workload into one filters poset,
and the subscription traffic covering saves on a network of servers.

    .venv/bin/python benchmarks/poset.py [--n 10000] [--traffic-n 2000] [--seed 1]
        [--skip-insert] [--skip-traffic] [--out benchmarks/results]

Insert: ``n`` one-conjunction filters from ``dnf_predicates(n, 500, "zipf")``
(Carzaniga, Rembert & Wolf 2006, §4.2: Zipf over 500 names), each with its own subscriber, go into
one poset. Reported: wall time, covering checks per insert, the naive cost
(comparing each new filter with every element, both ways) and the share of
it avoided, and the poset's shape. Then every subscription is removed again.

Traffic: servers on 20-node trees (a random tree, a star, a path), three
clients per server, ``traffic-n`` generated filters subscribed by random
clients, then all unsubscribed. Server-to-server messages are counted with
covering (formula (1)), without covering (flat tables, only identical
filters merge) and by flooding every request over the whole tree. After the
subscriptions, every link is checked against formula (1) and random
notifications are routed to verify that exactly the interested clients get
them.

Not a test. Writes ``poset.json`` and ``poset.md`` under ``--out``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import sys
import time
from pathlib import Path

import networkx as nx
from _harness import RESULTS, each, load_average, timed

import cbalgebra as cb
from cbalgebra.poset import COVERED, INSERTED, MERGED, Poset
from cbalgebra.network.siena import Network
from cbalgebra.poset.stats import shape as shape_of
from cbalgebra.workloads import dnf_predicates


def filters(n: int, names: int, distribution: str, seed: int) -> list:
    return [p.filters[0] for p in dnf_predicates(n, names, distribution, seed)]


# ---------------------------------------------------------------- insert
def bench_insert(n: int, seed: int) -> dict:
    fs = filters(n, 500, "zipf", seed)
    poset = Poset()
    cases = {COVERED: 0, MERGED: 0, INSERTED: 0}
    checkpoints = []
    t0 = time.perf_counter()
    c0 = time.process_time()
    last = t0
    for i, f in enumerate(fs):
        cases[poset.insert(f, i).case] += 1
        if (i + 1) % (n // 10 or 1) == 0:
            now = time.perf_counter()
            checkpoints.append({
                "inserted": i + 1,
                "elements": len(poset),
                "seconds": round(now - t0, 3),
                "ms_per_insert_recent": round(1000 * (now - last) / (n // 10 or 1), 3),
                "checks_per_insert_so_far": round(poset.stats.insert_checks / (i + 1), 2),
            })
            last = now
    insert_seconds = time.perf_counter() - t0
    insert_cpu = time.process_time() - c0
    stats = poset.stats.as_dict()
    shape = shape_of(poset).as_dict()
    shape["level_sizes"] = shape["level_sizes"][:12] + (["…"] if len(shape["level_sizes"]) > 12 else [])

    order = list(range(n))
    random.Random(seed).shuffle(order)
    remove_seconds, _ = timed(lambda: each(lambda i: poset.remove(fs[i], i), order))
    assert len(poset) == 0
    return {
        "n": n,
        "workload": f"dnf_predicates({n}, 500, 'zipf', seed={seed}); one subscriber per filter",
        "insert_seconds": round(insert_seconds, 2),
        "insert_cpu_seconds": round(insert_cpu, 2),
        "load_average_1min": load_average(),
        "inserts_per_second": round(n / insert_seconds),
        "cases": cases,
        "stats": {k: (round(v, 4) if isinstance(v, float) else v) for k, v in stats.items()},
        "naive_pairs_avoided_percent": round(100 * stats["avoided"], 2),
        "shape": shape,
        "checkpoints": checkpoints,
        "remove_all_seconds": round(remove_seconds, 2),
        "remove_checks": poset.stats.remove_checks,
    }


# ---------------------------------------------------------------- traffic
def topologies(seed: int) -> dict[str, nx.Graph]:
    return {
        "random tree (20)": nx.random_labeled_tree(20, seed=seed),
        "star (20)": nx.star_graph(19),
        "path (20)": nx.path_graph(20),
    }


def run_network(graph: nx.Graph, fs: list, covering: bool, seed: int, probes: int) -> dict:
    rng = random.Random(seed)
    net = Network(graph, covering=covering)
    clients = []
    for s in sorted(graph.nodes):
        for k in range(3):
            c = f"c{s}.{k}"
            net.add_client(c, s)
            clients.append(c)
    plan = [(rng.choice(clients), f) for f in fs]
    sub_seconds, _ = timed(lambda: each(lambda cf: net.subscribe(*cf), plan))
    after_sub = (net.traffic.subscribe, net.traffic.unsubscribe, net.traffic.flooding)
    tables = net.table_sizes()
    net.check()
    # Notifications: messages some subscription matches, published anywhere.
    wrong = 0
    for _ in range(probes):
        f = fs[rng.randrange(len(fs))]
        m = cb.witness(f, f)
        if m is None:
            continue
        where = rng.choice(sorted(graph.nodes))
        if net.publish(m, at=where) != net.interested(m):
            wrong += 1
    rng.shuffle(plan)
    unsub_seconds, _ = timed(lambda: each(lambda cf: net.unsubscribe(*cf), plan))
    net.check()
    assert all(v == 0 for v in net.table_sizes().values())
    return {
        "subscribe_phase": {"subscribe": after_sub[0], "unsubscribe": after_sub[1], "flooding": after_sub[2]},
        "unsubscribe_phase": {
            "subscribe": net.traffic.subscribe - after_sub[0],
            "unsubscribe": net.traffic.unsubscribe - after_sub[1],
            "flooding": net.traffic.flooding - after_sub[2],
        },
        "table_elements_mean": round(sum(tables.values()) / len(tables), 1),
        "table_elements_max": max(tables.values()),
        "wrong_deliveries": wrong,
        "probes": probes,
        "seconds": round(sub_seconds + unsub_seconds, 2),
    }


def bench_traffic(n: int, seed: int, probes: int = 200) -> list[dict]:
    rows = []
    for workload, (names, dist) in {"zipf-500": (500, "zipf"), "uniform-50": (50, "uniform")}.items():
        fs = filters(n, names, dist, seed + 1)
        for topo, graph in topologies(seed).items():
            with_c = run_network(graph, fs, True, seed, probes)
            without = run_network(graph, fs, False, seed, probes)
            sub_c = with_c["subscribe_phase"]["subscribe"] + with_c["subscribe_phase"]["unsubscribe"]
            sub_n = without["subscribe_phase"]["subscribe"] + without["subscribe_phase"]["unsubscribe"]
            all_c = sub_c + with_c["unsubscribe_phase"]["subscribe"] + with_c["unsubscribe_phase"]["unsubscribe"]
            all_n = sub_n + without["unsubscribe_phase"]["subscribe"] + without["unsubscribe_phase"]["unsubscribe"]
            flood = with_c["subscribe_phase"]["flooding"]
            row = {
                "workload": workload,
                "topology": topo,
                "subscriptions": n,
                "covering": with_c,
                "no_covering": without,
                "subscribe_phase_messages": {"covering": sub_c, "no_covering": sub_n, "flooding": flood},
                "saved_vs_no_covering_percent": round(100 * (1 - sub_c / sub_n), 1) if sub_n else 0.0,
                "saved_vs_flooding_percent": round(100 * (1 - sub_c / flood), 1) if flood else 0.0,
                "total_messages": {"covering": all_c, "no_covering": all_n, "flooding": 2 * flood},
            }
            rows.append(row)
            print(f"  {workload:10} {topo:17} subscribe phase: covering {sub_c:6}  no covering {sub_n:6}  "
                  f"flooding {flood:6}  saved {row['saved_vs_no_covering_percent']:5.1f} %  "
                  f"(all: {all_c} vs {all_n})  wrong deliveries {with_c['wrong_deliveries']}"
                  f"+{without['wrong_deliveries']}", flush=True)
    return rows


# ---------------------------------------------------------------- report
def markdown(result: dict) -> str:
    out = ["# Poset benchmark", "", f"Command: `{result['command']}`  ", f"Machine: {result['machine']}", ""]
    ins = result.get("insert")
    if ins:
        s, st = ins["shape"], ins["stats"]
        out += [
            "## Inserting the random DNF workload into one poset", "",
            f"Workload: {ins['workload']}.", "",
            "| measure | value |", "|---|---|",
            f"| filters inserted | {ins['n']:,} |",
            (f"| wall time | {ins['insert_seconds']} s ({ins['inserts_per_second']:,} inserts/s; "
            f"load average {ins['load_average_1min']} on {os.cpu_count()} CPUs) |"),
            f"| CPU time of the process | {ins['insert_cpu_seconds']} s |",
            (f"| cases (inserted / merged / covered) | {ins['cases']['inserted']:,} / {ins['cases']['merged']:,} / "
            f"{ins['cases']['covered']:,} |"),
            f"| covering checks | {st['insert_checks']:,} ({st['checks_per_insert']:.1f} per insert) |",
            f"| naive checks (new filter vs every element, both ways) | {st['naive_checks']:,} |",
            f"| naive comparisons avoided | {ins['naive_pairs_avoided_percent']} % |",
            f"| elements / roots / edges | {s['elements']:,} / {s['roots']:,} / {s['edges']:,} |",
            f"| depth / widest level | {s['depth']} / level {s['widest_level']} ({s['width']:,} elements) |",
            f"| leaves / ⊥ present | {s['leaves']:,} / {'yes' if s['unsatisfiable'] else 'no'} |",
            f"| removing all again | {ins['remove_all_seconds']} s, {ins['remove_checks']:,} checks |",
            "",
            "Growth (time so far; recent cost per insert):", "",
            "| inserted | elements | seconds | ms/insert (recent) | checks/insert so far |", "|---|---|---|---|---|",
        ]
        out += [f"| {c['inserted']:,} | {c['elements']:,} | {c['seconds']} | {c['ms_per_insert_recent']} | "
                f"{c['checks_per_insert_so_far']} |" for c in ins["checkpoints"]]
        out.append("")
    rows = result.get("traffic")
    if rows:
        out += [
            "## Subscription traffic with and without covering", "",
            (f"{rows[0]['subscriptions']:,} subscriptions from 60 clients (3 per server), then all unsubscribed. "
            "Messages are server-to-server subscribe + unsubscribe. *No covering*: flat tables, only identical "
            "filters merge. *Flooding*: every request crosses every link."), "",
            ("| workload | topology | covering | no covering | flooding | saved vs no covering | saved vs flooding "
            "| with unsubscriptions: covering / no covering | mean table (cov / no cov) | wrong deliveries |"),
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            m = r["subscribe_phase_messages"]
            t = r["total_messages"]
            out.append(
                f"| {r['workload']} | {r['topology']} | {m['covering']:,} | {m['no_covering']:,} | {m['flooding']:,} "
                f"| {r['saved_vs_no_covering_percent']} % | {r['saved_vs_flooding_percent']} % "
                f"| {t['covering']:,} / {t['no_covering']:,} "
                f"| {r['covering']['table_elements_mean']} / {r['no_covering']['table_elements_mean']} "
                f"| {r['covering']['wrong_deliveries'] + r['no_covering']['wrong_deliveries']} of "
                f"{2 * r['covering']['probes']} |"
            )
        out.append("")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="filters to insert (default 10000)")
    ap.add_argument("--traffic-n", type=int, default=2000, help="subscriptions in the traffic study (default 2000)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--skip-insert", action="store_true")
    ap.add_argument("--skip-traffic", action="store_true")
    ap.add_argument("--out", default=str(RESULTS))
    args = ap.parse_args(argv)

    result: dict = {
        "command": "python benchmarks/poset.py " + " ".join(sys.argv[1:] if argv is None else argv),
        "machine": f"{platform.python_implementation()} {platform.python_version()}, {platform.machine()}",
    }
    if not args.skip_insert:
        print(f"inserting {args.n} filters ...", flush=True)
        ins = bench_insert(args.n, args.seed)
        result["insert"] = ins
        st = ins["stats"]
        print(f"  {ins['insert_seconds']} s wall, {ins['insert_cpu_seconds']} s CPU, "
              f"{st['checks_per_insert']:.1f} checks/insert, "
              f"{ins['naive_pairs_avoided_percent']} % of {st['naive_checks']:,} naive checks avoided; "
              f"shape: {ins['shape']}")
        print(f"  removing all: {ins['remove_all_seconds']} s")
    if not args.skip_traffic:
        print(f"traffic with {args.traffic_n} subscriptions ...", flush=True)
        result["traffic"] = bench_traffic(args.traffic_n, args.seed)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "poset.json").write_text(json.dumps(result, indent=2) + "\n")
    (out / "poset.md").write_text(markdown(result))
    print(f"wrote {out / 'poset.json'} and {out / 'poset.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
