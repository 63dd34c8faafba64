// A driver for the C++ matchers of the REIN/TAMA/OpIndex/H-Tree benchmark
// framework (github.com/xizeroplus/matching-algorithm): it feeds one engine
// the workload cbalgebra.workloads.intervals(...) wrote with
// IntervalWorkload.write_engine_input, instead of the engine's own unseeded
// generator, so that every engine and cbalgebra match identical subscriptions.
//
// Built against one engine's folder (the engine chosen with -DENGINE_REIN,
// -DENGINE_TAMA, -DENGINE_SIENA, -DENGINE_OPINDEX or -DENGINE_HTREE): see the
// docstring of benchmarks/state_of_the_art.py for the commands.
//
//     driver WORKLOAD.bin ROUNDS
//
// Prints one JSON object: the build (construction and every insert) in
// seconds (wall and this thread's CPU), resident memory before and after the build and its peak (MB, from
// /proc/self/status), each round's mean and median per event (ms, every event
// matched once per round; the mean also in CPU time), and the number of subscriptions each event matched
// (the engines' match() reports a count, not the set).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#if defined(ENGINE_REIN)
#include "rein.h"
static const char *ENGINE_NAME = "rein";
static const int ATTS_LIMIT = MAX_ATTS;
#elif defined(ENGINE_TAMA)
#include "tama.h"
static const char *ENGINE_NAME = "tama";
static const int ATTS_LIMIT = MAX_ATTS;
static const int TAMA_LEVEL = 13;  // Tama/main.cpp: "The depth of Tama."
#elif defined(ENGINE_SIENA)
#include "siena.h"
static const char *ENGINE_NAME = "siena";
static const int ATTS_LIMIT = MAX_ATTS;
#elif defined(ENGINE_OPINDEX)
#include "opIndex.h"
static const char *ENGINE_NAME = "opindex";
static const int ATTS_LIMIT = MAX_ATTS;
#elif defined(ENGINE_HTREE)
#include "htree.h"
static const char *ENGINE_NAME = "htree";
static const int ATTS_LIMIT = 1 << 30;  // no limit of its own
static const int HTREE_LEVEL = 8, HTREE_CELLS = 8;  // Htree/paras.txt
#else
#error "define one of ENGINE_REIN, ENGINE_TAMA, ENGINE_SIENA, ENGINE_OPINDEX, ENGINE_HTREE"
#endif

static const int32_t MAGIC = 0x31494243;  // "CBI1" little-endian, cbalgebra.workloads.ENGINE_INPUT_MAGIC

static double status_mb(const char *field) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return -1;
    char line[256];
    double kb = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, field, n) == 0 && line[n] == ':') kb = atof(line + n + 1);
    fclose(f);
    return kb / 1024.0;
}

// CPU seconds of this thread: a shared machine inflates wall time, not this
static double thread_seconds() {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void fail(const std::string &why) {
    fprintf(stderr, "%s\n", why.c_str());
    exit(2);
}

static void read_ints(FILE *f, int32_t *into, size_t n, const char *what) {
    if (fread(into, sizeof(int32_t), n, f) != n) fail(std::string("the workload file ends inside ") + what);
}

int main(int argc, char **argv) {
    if (argc != 3) fail("usage: driver WORKLOAD.bin ROUNDS");
    int rounds = atoi(argv[2]);
    FILE *f = fopen(argv[1], "rb");
    if (!f) fail(std::string("cannot open ") + argv[1]);
    int32_t header[6];
    read_ints(f, header, 6, "the header");
    if (header[0] != MAGIC) fail("not a workload written by IntervalWorkload.write_engine_input");
    int subs = header[1], atts = header[2], cons = header[3], valDom = header[4], pubs = header[5];
    if (subs > MAX_SUBS || atts > ATTS_LIMIT) fail("the engine was built for fewer subscriptions or attributes");

    std::vector<IntervalSub> subList(subs);
    std::vector<int32_t> row(3 * (size_t) cons);
    for (int s = 0; s < subs; s++) {
        read_ints(f, row.data(), row.size(), "the subscriptions");
        IntervalSub &sub = subList[s];
        sub.id = s;
        sub.size = cons;
        sub.constraints.resize(cons);
        for (int j = 0; j < cons; j++) {
            sub.constraints[j].att = row[3 * j];
            sub.constraints[j].lowValue = row[3 * j + 1];
            sub.constraints[j].highValue = row[3 * j + 2];
        }
    }
    std::vector<Pub> pubList(pubs);
    std::vector<int32_t> values(atts);
    for (int e = 0; e < pubs; e++) {
        read_ints(f, values.data(), atts, "the events");
        pubList[e].size = atts;
        pubList[e].pairs.resize(atts);
        for (int a = 0; a < atts; a++) {
            pubList[e].pairs[a].att = a;
            pubList[e].pairs[a].value = values[a];
        }
    }
    fclose(f);

    double rss_before = status_mb("VmRSS");
    auto t0 = std::chrono::steady_clock::now();
    double c0 = thread_seconds();
#if defined(ENGINE_REIN)
    Rein *engine = new Rein(valDom);
#elif defined(ENGINE_TAMA)
    Tama *engine = new Tama(atts, valDom, TAMA_LEVEL);
#elif defined(ENGINE_SIENA)
    Siena *engine = new Siena();
#elif defined(ENGINE_OPINDEX)
    opIndex *engine = new opIndex();
    engine->calcFrequency(subList);
#elif defined(ENGINE_HTREE)
    Htree *engine = new Htree(atts, HTREE_LEVEL, HTREE_CELLS, 0, valDom);
#endif
    for (int s = 0; s < subs; s++) engine->insert(subList[s]);
    double build = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double build_cpu = thread_seconds() - c0;
    double rss_after = status_mb("VmRSS");

    std::vector<int> counts(pubs, 0);
    std::string round_json;
    for (int r = 0; r < rounds; r++) {
        std::vector<double> ms(pubs);
        double cpu = 0;
        for (int e = 0; e < pubs; e++) {
            int matched = 0;
            auto m0 = std::chrono::steady_clock::now();
            double mc = thread_seconds();
            engine->match(pubList[e], matched, subList);
            cpu += thread_seconds() - mc;
            ms[e] = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - m0).count();
            if (r == 0) counts[e] = matched;
            else if (counts[e] != matched) fail("an engine answered differently in two rounds");
        }
        double total = 0;
        for (double x : ms) total += x;
        std::sort(ms.begin(), ms.end());
        char buf[160];
        snprintf(buf, sizeof buf, "%s{\"mean_ms\": %.6f, \"median_ms\": %.6f, \"cpu_mean_ms\": %.6f}", r ? ", " : "",
                 pubs ? total / pubs : 0.0, pubs ? ms[pubs / 2] : 0.0, pubs ? 1e3 * cpu / pubs : 0.0);
        round_json += buf;
    }
    printf("{\"engine\": \"%s\", \"subscriptions\": %d, \"events\": %d, \"build_s\": %.6f, \"build_cpu_s\": %.6f, "
           "\"rss_before_build_mb\": %.1f, \"rss_after_build_mb\": %.1f, \"peak_rss_mb\": %.1f, \"rounds\": [%s], "
           "\"counts\": [", ENGINE_NAME, subs, pubs, build, build_cpu, rss_before, rss_after, status_mb("VmHWM"),
           round_json.c_str());
    for (int e = 0; e < pubs; e++) printf(e ? ", %d" : "%d", counts[e]);
    printf("]}\n");
    return 0;
}
