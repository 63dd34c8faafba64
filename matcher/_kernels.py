"""The compiled half of the forwarding engine: ``@njit`` kernels over flat arrays.

Nothing here knows about Python values. ``_build.py`` turns a forwarding table
into the arrays described below, ``table.py`` encodes messages, and these
kernels run the counting algorithm of seed 000 §4 (Figures 4 and 7) on them.

Codes
-----
Operators: 0 ``=``, 1 ``!=``, 2 ``<``, 3 ``>``, 4 ``<=``, 5 ``>=``,
6 prefix, 7 suffix, 8 substring, 9 ``any``.
Types: 0 string, 1 int, 2 float, 3 bool, 4 any (only with the operator any).

The table tuple ``T`` (see ``_build.TABLE_FIELDS``)
----------------------------------------------------
- ``ntk[name * 5 + type]``: the key (name, type) or -1.
- Distinct constraints are numbered in (operator, key, value) order, so the
  constraints of one key and operator form the block
  ``kstart[op * nkeys + key] .. kstart[op * nkeys + key + 1]``, sorted by
  ``cval``.
- ``cval[c]``: the constraint's value as an ordered int64: ints as they are,
  bools 0/1, floats through an order-preserving bit transform, strings under an
  order operator as ``2 * rank + 1`` (rank of the constant among all interned
  strings), strings under a pattern operator as their rank.
- ``loff[c] .. loff[c + 1]`` in ``links``: the filters that contain ``c``.
- ``finfo[f] = interface << shift | size``; filters are numbered in
  interface order, those of interface i being ``fstart[i] .. fstart[i + 1]``.
- ``always``: interfaces holding an empty filter; ``dead``: bitmap of
  interfaces without filters (and the padding bits past the last interface).
- Selectivity table: ``sel_name``, ``sel_type`` (4 = any type) and one bitmap
  of interfaces per entry in ``sel_bits`` (word-major: ``sel_bits[w, e]``),
  most selective first.
- Strings: ``tchars`` / ``toff`` (interned constants in code-point order),
  ``thash`` their polynomial hashes, ``hslots`` an open-addressing table from
  (operator, key, string) to the prefix, suffix and substring constraints,
  ``kmaxlen`` / ``klenmask`` the longest pattern and the set of pattern
  lengths per (pattern operator, key).

Messages are encoded as attribute arrays (name id, type code, value) with a
string pool of code points; a string attribute's value is its index in the
pool. Under ``numbers="sff"`` a number may have a second row, of the other
numeric type plus ``T_CONVERTED``: it meets that type's constraints but not
the name's type-any constraints again (its original row does that). A string value is placed among the interned constants by binary search
(``2 * lo + eq``), which turns every order operator on strings into an integer
comparison.
"""

from __future__ import annotations

import logging
import threading
import time

import numpy as np
from numba import njit, prange, types
from llvmlite import ir
from numba.extending import intrinsic

log = logging.getLogger("cbalgebra.matcher")

OP_EQ, OP_NE, OP_LT, OP_GT, OP_LE, OP_GE, OP_PREFIX, OP_SUFFIX, OP_SUBSTRING, OP_ANY = range(10)
NOPS = 10
T_STRING, T_INT, T_FLOAT, T_BOOL, T_ANY = range(5)
NTYPES = 5
#: Added to the type code of a message row that is a number seen as the other
#: numeric type (``numbers="sff"``, see ``table._encode_attributes_sff``).
T_CONVERTED = 8

# Scalar parameters, packed in one int64 array ``P``.
(P_NKEYS, P_NNAMES, P_NIFACES, P_WORDS, P_SHIFT, P_ROUNDS, P_HMASK, P_SUBBASE, P_NSUB, P_NFILTERS,
 P_NLIVE) = range(11)
NPARAMS = 11

BLOCK = 64  # links gathered per block in _visit_links
SKIP_FACTOR = 8  # galloping search per candidate interface above this many links each

HASH_BASE = np.uint64(0x100000001B3)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_KEYMUL = np.uint64(0x9E3779B97F4A7C15)
_OPMUL = np.uint64(0xC2B2AE3D27D4EB4F)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


# ------------------------------------------------------- compile accounting
_compile_lock = threading.Lock()
_compile_times: dict[str, float] = {}


def compile_times() -> dict[str, float]:
    """Seconds the first call of each kernel variant took in this process:
    numba compiling it, or loading it from numba's on-disk cache."""
    return dict(_compile_times)


def first_call(variant: str, kernel, args):
    """Call ``kernel(*args)``; the first call of each variant is timed and
    logged, so that compilation is reported apart from matching."""
    if variant in _compile_times:
        return kernel(*args)
    with _compile_lock:
        t0 = time.perf_counter()
        result = kernel(*args)
        dt = time.perf_counter() - t0
        if variant not in _compile_times:
            _compile_times[variant] = dt
            log.info("numba kernel %s ready in %.2f s (compiled, or loaded from numba's cache)", variant, dt)
        return result


# ------------------------------------------------------------------ helpers
@intrinsic
def _ctpop(typingctx, x):
    """LLVM's population count (one instruction where the CPU has it)."""
    if not isinstance(x, types.Integer):
        return None
    sig = x(x)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.ctpop", [args[0].type])
        return builder.call(fn, args)

    return sig, codegen


@intrinsic
def _cttz(typingctx, x):
    """LLVM's count of trailing zero bits (x != 0)."""
    if not isinstance(x, types.Integer):
        return None
    sig = x(x)

    def codegen(context, builder, signature, args):
        fn = builder.module.declare_intrinsic("llvm.cttz", [args[0].type, ir.IntType(1)])
        return builder.call(fn, [args[0], ir.Constant(ir.IntType(1), 1)])

    return sig, codegen


@njit(cache=True)
def popcount64(x):
    return np.int64(_ctpop(np.uint64(x)))


@njit(cache=True)
def slot_of(h, key, op, hmask):
    """Home slot of (string hash, key, operator) in the pattern hash table."""
    x = np.uint64(h) ^ (np.uint64(key) * _KEYMUL) ^ (np.uint64(op) * _OPMUL)
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    x = x ^ (x >> np.uint64(31))
    return np.int64(x & np.uint64(hmask))


@njit(cache=True)
def string_hashes(chars, off):
    """Polynomial hash (digits are code point + 1, mod 2**64) of each string."""
    n = off.shape[0] - 1
    out = np.empty(n, dtype=np.uint64)
    for s in range(n):
        h = np.uint64(0)
        for j in range(off[s], off[s + 1]):
            h = h * HASH_BASE + (np.uint64(chars[j]) + np.uint64(1))
        out[s] = h
    return out


@njit(cache=True)
def set_bits(bits, cols, ids):
    """``bits[ids[k] >> 6, cols[k]] |= 1 << (ids[k] & 63)`` for every k."""
    for k in range(ids.shape[0]):
        i = ids[k]
        bits[i >> 6, cols[k]] |= np.uint64(1) << np.uint64(i & 63)


@njit(cache=True)
def fill_pattern_slots(slots, hmask, first, ops, keys, ranks, thash):
    """Insert constraints ``first + j`` (pattern operators) with linear probing."""
    for j in range(ops.shape[0]):
        s = slot_of(thash[ranks[j]], keys[j], ops[j], hmask)
        while slots[s] >= 0:
            s = (s + 1) & hmask
        slots[s] = first[j]


@njit(cache=True)
def _compare(tchars, ts, te, chars, ms, me):
    """Code-point order of interned string [ts, te) against message string [ms, me)."""
    n1 = te - ts
    n2 = me - ms
    n = n1 if n1 < n2 else n2
    for k in range(n):
        a = tchars[ts + k]
        b = chars[ms + k]
        if a != b:
            return -1 if a < b else 1
    if n1 == n2:
        return 0
    return -1 if n1 < n2 else 1


@njit(cache=True)
def _string_position(tchars, toff, chars, ms, me):
    """``2 * lo + eq``: lo interned strings are smaller, eq if one is equal."""
    lo = 0
    hi = toff.shape[0] - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if _compare(tchars, toff[mid], toff[mid + 1], chars, ms, me) < 0:
            lo = mid + 1
        else:
            hi = mid
    eq = 0
    if lo < toff.shape[0] - 1 and _compare(tchars, toff[lo], toff[lo + 1], chars, ms, me) == 0:
        eq = 1
    return 2 * lo + eq


@njit(cache=True)
def _lower(cval, s, e, v):
    while s < e:
        mid = (s + e) >> 1
        if cval[mid] < v:
            s = mid + 1
        else:
            e = mid
    return s


@njit(cache=True)
def _upper(cval, s, e, v):
    while s < e:
        mid = (s + e) >> 1
        if cval[mid] <= v:
            s = mid + 1
        else:
            e = mid
    return s


# ----------------------------------------------------------- right-hand side
@njit(cache=True)
def _visit_links(l_lo, l_hi, links, finfo, shift, smask, counters, touched, done, out, st, buf):
    """Count the filters linked from a run of matched constraints.

    ``st`` holds (number output, number touched, remaining candidates, output
    base). Returns the remaining number of candidate interfaces.

    Links are taken in blocks of ``BLOCK``: first the filters whose interface
    is still a candidate are gathered without a branch, then only those are
    counted. Once the selectivity table has excluded some interfaces, "is this
    interface done?" is close to random per link; as a branch it would be
    mispredicted half of the time and stall the loads behind it.
    """
    remaining = st[2]
    l = l_lo
    while l < l_hi:
        hi = l + BLOCK if l + BLOCK < l_hi else l_hi
        k = 0
        for j in range(l, hi):
            f = links[j]
            i = np.int64(finfo[f] >> shift)
            buf[k] = f
            k += np.int64(((done[i >> 6] >> np.uint64(i & 63)) & np.uint64(1)) ^ np.uint64(1))
        for j in range(k):
            f = buf[j]
            info = finfo[f]
            cnt = np.int64(counters[f]) + 1
            if cnt == 1:
                touched[st[1]] = f
                st[1] += 1
            counters[f] = cnt
            if cnt == np.int64(info & smask):
                i = np.int64(info >> shift)
                bit = np.uint64(1) << np.uint64(i & 63)
                if not (done[i >> 6] & bit):  # matched earlier in this block?
                    done[i >> 6] |= bit
                    out[st[3] + st[0]] = i
                    st[0] += 1
                    remaining -= 1
                    if remaining == 0:
                        st[2] = 0
                        return 0
        l = hi
    st[2] = remaining
    return remaining


@njit(cache=True)
def _links_from(links, a, b, f):
    """First position in links[a:b] (sorted) holding a filter >= f, by
    galloping from a: the candidates come in increasing order, so each search
    starts where the previous one ended and costs the log of the distance."""
    if a >= b or links[a] >= f:
        return a
    lo = a  # links[lo] < f
    step = 1
    while True:
        nxt = lo + step
        if nxt >= b:
            hi = b
            break
        if links[nxt] >= f:
            hi = nxt
            break
        lo = nxt
        step <<= 1
    lo += 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if links[mid] < f:
            lo = mid + 1
        else:
            hi = mid
    return lo


@njit(cache=True)
def _visit(c_lo, c_hi, loff, links, finfo, shift, smask, counters, touched, done, out, st, buf, fstart, nlive):
    """Count the filters of the matched constraints c_lo .. c_hi.

    A constraint's links are sorted by filter, and filters are numbered in
    interface order. Once most interfaces are matched or excluded (at most a
    quarter left), a constraint with many links per remaining candidate is
    not read link by link: the links of each candidate interface are found by
    galloping search, and those of the other interfaces are skipped without
    being read (the first shortcut of §4.1, applied to whole runs of links).
    """
    if c_lo >= c_hi:
        return st[2]
    nwords = done.shape[0]
    rem = st[2]
    if 4 * rem > nlive or loff[c_hi] - loff[c_lo] <= SKIP_FACTOR * rem + 4 * nwords:
        return _visit_links(loff[c_lo], loff[c_hi], links, finfo, shift, smask, counters, touched, done, out,
                            st, buf)
    run = loff[c_lo]  # consecutive small constraints are read as one run of links
    for c in range(c_lo, c_hi):
        a = loff[c]
        b = loff[c + 1]
        if b - a <= SKIP_FACTOR * st[2] + 4 * nwords:
            continue
        if run < a and _visit_links(run, a, links, finfo, shift, smask, counters, touched, done, out, st, buf) == 0:
            return 0
        run = b
        for w in range(nwords):
            x = ~done[w]  # candidates (padding and dead interfaces are set in done)
            while x:
                i = w * 64 + np.int64(_cttz(x))
                x &= x - np.uint64(1)
                s = _links_from(links, a, b, fstart[i])
                e = _links_from(links, s, b, fstart[i + 1])
                if s < e and _visit_links(s, e, links, finfo, shift, smask, counters, touched, done, out,
                                          st, buf) == 0:
                    return 0
                a = e
    if run < loff[c_hi]:
        return _visit_links(run, loff[c_hi], links, finfo, shift, smask, counters, touched, done, out, st, buf)
    return st[2]


@njit(cache=True)
def _equal_chars(tchars, ts, te, chars, ms, me):
    if te - ts != me - ms:
        return False
    for k in range(te - ts):
        if tchars[ts + k] != chars[ms + k]:
            return False
    return True


@njit(cache=True)
def _probe(h, key, op, b_lo, b_hi, hslots, hmask, cval, thash, tchars, toff, chars, ms, me):
    """The constraint of block [b_lo, b_hi) whose pattern is chars[ms:me], or -1."""
    s = slot_of(h, key, op, hmask)
    while True:
        c = hslots[s]
        if c < 0:
            return -1
        if b_lo <= c and c < b_hi:
            r = cval[c]
            if thash[r] == h and _equal_chars(tchars, toff[r], toff[r + 1], chars, ms, me):
                return c
        s = (s + 1) & hmask


# ------------------------------------------------------------- one message
@njit(cache=True)
def _match_message(T, P, attrs, a_lo, a_hi, s_chars, s_off,
                   b_ifaces, b_lo, b_hi, S, stamp, out, out_pos):
    """Forward one message: returns the number of interfaces written at
    ``out[out_pos:]`` (dense indices, sorted). ``b_lo < 0`` means B = all."""
    (ntk, kstart, cval, loff, links, finfo, fstart, always, dead, sel_name, sel_type, sel_bits,
     tchars, toff, thash, hslots, kmaxlen, klenmask) = T
    counters, touched, done, name_mark, name_type, sub_mark, hp, hpow, st, absent, buf = S
    nkeys = P[P_NKEYS]
    nwords = P[P_WORDS]
    shift = np.uint64(P[P_SHIFT])
    smask = (np.uint64(1) << shift) - np.uint64(1)
    hmask = P[P_HMASK]
    sub_base = P[P_SUBBASE]
    nlive = P[P_NLIVE]

    # -- the candidate set: interfaces in B that have at least one filter
    if b_lo < 0:
        for w in range(nwords):
            done[w] = dead[w]
        remaining = P[P_NLIVE]
    else:
        for w in range(nwords):
            done[w] = _ALL
        for k in range(b_lo, b_hi):
            i = b_ifaces[k]
            done[i >> 6] &= ~(np.uint64(1) << np.uint64(i & 63))
        remaining = nwords * 64
        for w in range(nwords):
            x = done[w] | dead[w]
            done[w] = x
            remaining -= popcount64(x)
    st[0] = 0
    st[1] = 0
    st[2] = remaining
    st[3] = out_pos
    if remaining == 0:
        return 0

    # -- interfaces with an empty filter match every message
    for k in range(always.shape[0]):
        i = always[k]
        bit = np.uint64(1) << np.uint64(i & 63)
        if not (done[i >> 6] & bit):
            done[i >> 6] |= bit
            out[out_pos + st[0]] = i
            st[0] += 1
            remaining -= 1
    st[2] = remaining

    if remaining > 0:
        # -- which names the message carries, with which types (a bit per
        # type: a converted number is present with two)
        for a in range(a_lo, a_hi):
            n = attrs[a, 0]
            bit = np.int8(1 << (attrs[a, 1] & 7))
            if name_mark[n] == stamp:
                name_type[n] |= bit
            else:
                name_mark[n] = stamp
                name_type[n] = bit

        # -- pre-processing rounds over the selectivity table (Figure 7):
        # exclude the interfaces of every determinant the message lacks,
        # ORing all their bitmaps in one pass
        n_absent = 0
        for e in range(P[P_ROUNDS]):
            n = sel_name[e]
            t = sel_type[e]
            if not (name_mark[n] == stamp and (t == T_ANY or (name_type[n] >> t) & 1)):
                absent[n_absent] = e
                n_absent += 1
        if n_absent > 0:
            remaining = nwords * 64
            for w in range(nwords):
                x = done[w]
                for k in range(n_absent):
                    x |= sel_bits[w, absent[k]]
                done[w] = x
                remaining -= popcount64(x)
            st[2] = remaining

    # -- the counting algorithm over the attributes (Figure 4)
    if remaining > 0:
        for a in range(a_lo, a_hi):
            n = attrs[a, 0]
            t = attrs[a, 1]
            v = attrs[a, 2]
            if t >= T_CONVERTED:
                t -= T_CONVERTED
            else:
                # constraints of type any on this name: present is enough
                kany = ntk[n * 5 + T_ANY]
                if kany >= 0:
                    j = OP_ANY * nkeys + kany
                    if _visit(kstart[j], kstart[j + 1], loff, links, finfo, shift, smask,
                              counters, touched, done, out, st, buf, fstart, nlive) == 0:
                        break
            key = ntk[n * 5 + t]
            if key < 0:
                continue
            ms = 0
            me = 0
            if t == T_STRING:
                ms = s_off[v]
                me = s_off[v + 1]
                vv = np.int64(-1)
            else:
                vv = v
            stop = False
            for op in range(OP_EQ, OP_GE + 1):
                j = op * nkeys + key
                b_s = kstart[j]
                b_e = kstart[j + 1]
                if b_s == b_e:
                    continue
                if t == T_STRING and vv < 0:
                    vv = _string_position(tchars, toff, s_chars, ms, me)
                if op == OP_EQ:
                    lo = _lower(cval, b_s, b_e, vv)
                    hi = lo + 1 if (lo < b_e and cval[lo] == vv) else lo
                    rem = _visit(lo, hi, loff, links, finfo, shift, smask, counters, touched, done, out, st, buf, fstart, nlive)
                elif op == OP_NE:
                    lo = _lower(cval, b_s, b_e, vv)
                    if lo < b_e and cval[lo] == vv:
                        rem = _visit(b_s, lo, loff, links, finfo, shift, smask, counters, touched, done, out, st, buf, fstart, nlive)
                        if rem > 0:
                            rem = _visit(lo + 1, b_e, loff, links, finfo, shift, smask, counters, touched,
                                         done, out, st, buf, fstart, nlive)
                    else:
                        rem = _visit(b_s, b_e, loff, links, finfo, shift, smask, counters, touched, done, out, st, buf, fstart, nlive)
                elif op == OP_LT:  # x < k holds for k > v
                    rem = _visit(_upper(cval, b_s, b_e, vv), b_e, loff, links, finfo, shift, smask,
                                 counters, touched, done, out, st, buf, fstart, nlive)
                elif op == OP_GT:  # x > k holds for k < v
                    rem = _visit(b_s, _lower(cval, b_s, b_e, vv), loff, links, finfo, shift, smask,
                                 counters, touched, done, out, st, buf, fstart, nlive)
                elif op == OP_LE:  # k >= v
                    rem = _visit(_lower(cval, b_s, b_e, vv), b_e, loff, links, finfo, shift, smask,
                                 counters, touched, done, out, st, buf, fstart, nlive)
                else:  # OP_GE: k <= v
                    rem = _visit(b_s, _upper(cval, b_s, b_e, vv), loff, links, finfo, shift, smask,
                                 counters, touched, done, out, st, buf, fstart, nlive)
                if rem == 0:
                    stop = True
                    break
            if stop:
                break
            # typed any: present with this type
            j = OP_ANY * nkeys + key
            if _visit(kstart[j], kstart[j + 1], loff, links, finfo, shift, smask,
                      counters, touched, done, out, st, buf, fstart, nlive) == 0:
                break
            if t != T_STRING:
                continue
            # -- prefix, suffix and substring: probe the value's pieces
            jp = OP_PREFIX * nkeys + key
            js = OP_SUFFIX * nkeys + key
            jb = OP_SUBSTRING * nkeys + key
            if kstart[jp] == kstart[jp + 1] and kstart[js] == kstart[js + 1] and kstart[jb] == kstart[jb + 1]:
                continue
            L = me - ms
            hp[0] = np.uint64(0)
            hpow[0] = np.uint64(1)
            for k in range(L):
                hp[k + 1] = hp[k] * HASH_BASE + (np.uint64(s_chars[ms + k]) + np.uint64(1))
                hpow[k + 1] = hpow[k] * HASH_BASE
            for pop in range(3):
                op = OP_PREFIX + pop
                j = op * nkeys + key
                b_s = kstart[j]
                b_e = kstart[j + 1]
                if b_s == b_e:
                    continue
                mj = pop * nkeys + key
                maxlen = kmaxlen[mj]
                mask = klenmask[mj]
                top = L if L < maxlen else maxlen
                if op == OP_PREFIX:
                    for l in range(top + 1):
                        if mask & (np.uint64(1) << np.uint64(l if l < 63 else 63)):
                            c = _probe(hp[l], key, op, b_s, b_e, hslots, hmask, cval, thash, tchars, toff,
                                       s_chars, ms, ms + l)
                            if c >= 0:
                                if _visit(c, c + 1, loff, links, finfo, shift, smask,
                                          counters, touched, done, out, st, buf, fstart, nlive) == 0:
                                    stop = True
                                    break
                elif op == OP_SUFFIX:
                    for l in range(top + 1):
                        if mask & (np.uint64(1) << np.uint64(l if l < 63 else 63)):
                            h = hp[L] - hp[L - l] * hpow[l]
                            c = _probe(h, key, op, b_s, b_e, hslots, hmask, cval, thash, tchars, toff,
                                       s_chars, me - l, me)
                            if c >= 0:
                                if _visit(c, c + 1, loff, links, finfo, shift, smask,
                                          counters, touched, done, out, st, buf, fstart, nlive) == 0:
                                    stop = True
                                    break
                else:
                    # the empty pattern is a substring of every string, once
                    if mask & np.uint64(1):
                        c = _probe(np.uint64(0), key, op, b_s, b_e, hslots, hmask, cval, thash, tchars, toff,
                                   s_chars, ms, ms)
                        if c >= 0:
                            if _visit(c, c + 1, loff, links, finfo, shift, smask,
                                      counters, touched, done, out, st, buf, fstart, nlive) == 0:
                                stop = True
                    if not stop:
                        for i0 in range(L):
                            lim = L - i0
                            if lim > top:
                                lim = top
                            for l in range(1, lim + 1):
                                if mask & (np.uint64(1) << np.uint64(l if l < 63 else 63)):
                                    h = hp[i0 + l] - hp[i0] * hpow[l]
                                    c = _probe(h, key, op, b_s, b_e, hslots, hmask, cval, thash, tchars,
                                               toff, s_chars, ms + i0, ms + i0 + l)
                                    if c >= 0 and sub_mark[c - sub_base] != stamp:
                                        sub_mark[c - sub_base] = stamp  # once per message
                                        if _visit(c, c + 1, loff, links, finfo, shift, smask,
                                                  counters, touched, done, out, st, buf, fstart, nlive) == 0:
                                            stop = True
                                            break
                            if stop:
                                break
                if stop:
                    break
            if stop:
                break

    # -- reset the counters this message touched, sort the output
    for k in range(st[1]):
        counters[touched[k]] = 0
    nout = st[0]
    out[out_pos:out_pos + nout].sort()
    return nout


# ----------------------------------------------------------------- scratch
@njit(cache=True)
def new_scratch(P, counter_proto, maxlen):
    """Per-thread working memory: counters, touched list, interface bitmap,
    name marks, substring marks, hash buffers and the small state vector."""
    nf = P[P_NFILTERS]
    counters = np.zeros(nf, dtype=counter_proto.dtype)
    touched = np.empty(nf + 1, dtype=np.int32)
    done = np.empty(P[P_WORDS], dtype=np.uint64)
    name_mark = np.zeros(P[P_NNAMES], dtype=np.int64)
    name_type = np.zeros(P[P_NNAMES], dtype=np.int8)
    sub_mark = np.zeros(P[P_NSUB], dtype=np.int64)
    hp = np.empty(maxlen + 1, dtype=np.uint64)
    hpow = np.empty(maxlen + 1, dtype=np.uint64)
    st = np.zeros(4, dtype=np.int64)
    absent = np.empty(max(P[P_ROUNDS], 1), dtype=np.int64)
    buf = np.empty(BLOCK, dtype=np.int32)
    return (counters, touched, done, name_mark, name_type, sub_mark, hp, hpow, st, absent, buf)


# ---------------------------------------------------------------- entries
@njit(cache=True, nogil=True)
def forward_serial(T, P, attrs, m_off, s_chars, s_off,
                   b_sel, b_off, b_ifaces, S, stamp0, out, out_cnt):
    """Forward messages one after the other with the scratch ``S`` (one
    thread). ``out`` must hold ``M * nlive`` entries at worst; returns the
    stamp of the last message."""
    pos = 0
    stamp = stamp0
    for m in range(m_off.shape[0] - 1):
        stamp += 1
        k = b_sel[m]
        if k < 0:
            b_lo, b_hi = -1, -1
        else:
            b_lo, b_hi = b_off[k], b_off[k + 1]
        n = _match_message(T, P, attrs, m_off[m], m_off[m + 1], s_chars, s_off,
                           b_ifaces, b_lo, b_hi, S, stamp, out, pos)
        out_cnt[m] = n
        pos += n
    return stamp


@njit(cache=True, parallel=True, nogil=True)
def forward_parallel(T, P, attrs, m_off, s_chars, s_off, maxlen,
                     b_sel, b_off, b_ifaces, counter_proto, chunk_lo, chunk_hi, cap, need,
                     out, out_cnt, chunk_stop):
    """Forward the messages of each chunk on its own thread.

    Chunk ``ch`` writes its results contiguously into ``out[ch * cap:]`` and
    stops early, recording where in ``chunk_stop``, when fewer than ``need``
    slots are left; the caller resumes it with a fresh buffer.
    """
    nch = chunk_lo.shape[0]
    for ch in prange(nch):
        S = new_scratch(P, counter_proto, maxlen)
        pos = ch * cap
        end = pos + cap
        stop = chunk_hi[ch]
        stamp = 0
        for m in range(chunk_lo[ch], chunk_hi[ch]):
            if end - pos < need:
                stop = m
                break
            stamp += 1
            k = b_sel[m]
            if k < 0:
                b_lo, b_hi = -1, -1
            else:
                b_lo, b_hi = b_off[k], b_off[k + 1]
            n = _match_message(T, P, attrs, m_off[m], m_off[m + 1], s_chars, s_off,
                               b_ifaces, b_lo, b_hi, S, stamp, out, pos)
            out_cnt[m] = n
            pos += n
        chunk_stop[ch] = stop
