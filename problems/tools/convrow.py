"""Shared helpers for the problem-set generators: one convolution as a row of
the gconv problem CSV (schema: include/gconv/problem_file.hpp).

Mirrors the C++ side closely enough that every row written here loads with
read_problem_file: the canonical spec is Problem::to_spec() (src/problem/spec.cpp)
and the validity rules are those of Problem::validate() (src/problem/problem.cpp).
tests/problem/problem_sets_test.cpp loads every committed file, so a drift
between this file and the C++ code shows up there.
"""

import csv
import gzip
import io
import os

# Kernels index each tensor with 32-bit offsets (gconv::kMaxTensorElements).
MAX_TENSOR_ELEMENTS = (1 << 31) - 1

COLUMNS = [
    "direction", "dtype", "ndim", "n", "c", "k", "g", "d", "h", "w", "z", "y", "x",
    "stride_d", "stride_h", "stride_w", "pad_d_lo", "pad_d_hi", "pad_h_lo", "pad_h_hi",
    "pad_w_lo", "pad_w_hi", "dil_d", "dil_h", "dil_w", "spec", "source",
]


def _right_align(values, ndim, neutral):
    values = list(values)
    assert len(values) == ndim, (values, ndim)
    return tuple([neutral] * (3 - ndim) + values)


class Conv:
    """One forward convolution. Spatial tuples are given outermost first with
    one entry per used dim and stored right-aligned in 3 slots (D, H, W), as
    gconv::Problem does. pad entries are ints (symmetric) or (lo, hi) pairs."""

    __slots__ = ("ndim", "n", "c", "k", "g", "inp", "filt", "stride", "pad_lo", "pad_hi", "dil",
                 "direction", "dtype")

    def __init__(self, ndim, n, c, k, g, inp, filt, stride=None, pad=None, dil=None,
                 direction="fwd", dtype="bf16"):
        self.ndim, self.n, self.c, self.k, self.g = int(ndim), int(n), int(c), int(k), int(g)
        self.inp = _right_align(inp, ndim, 1)
        self.filt = _right_align(filt, ndim, 1)
        self.stride = _right_align(stride or [1] * ndim, ndim, 1)
        self.dil = _right_align(dil or [1] * ndim, ndim, 1)
        pad = pad if pad is not None else [0] * ndim
        pairs = [(p, p) if isinstance(p, int) else (int(p[0]), int(p[1])) for p in pad]
        self.pad_lo = _right_align([p[0] for p in pairs], ndim, 0)
        self.pad_hi = _right_align([p[1] for p in pairs], ndim, 0)
        self.direction, self.dtype = direction, dtype

    def with_n(self, n):
        c = Conv.__new__(Conv)
        for s in Conv.__slots__:
            setattr(c, s, getattr(self, s))
        c.n = int(n)
        return c

    # --- arithmetic, as gconv::Problem ---
    def out(self, i):
        eff = self.dil[i] * (self.filt[i] - 1) + 1
        padded = self.inp[i] + self.pad_lo[i] + self.pad_hi[i]
        if padded < eff:
            return 0
        return (padded - eff) // self.stride[i] + 1

    def out_volume(self):
        return self.out(0) * self.out(1) * self.out(2)

    def filter_volume(self):
        return self.filt[0] * self.filt[1] * self.filt[2]

    def in_volume(self):
        return self.inp[0] * self.inp[1] * self.inp[2]

    def flops(self):
        return 2.0 * self.n * self.k * self.out_volume() * (self.c // self.g) * self.filter_volume()

    def elements(self):
        """(x, w, y) element counts."""
        return (self.n * self.in_volume() * self.c,
                self.k * self.filter_volume() * (self.c // self.g),
                self.n * self.out_volume() * self.k)

    def is_depthwise(self):
        return self.g == self.c and self.g > 1

    def problem_error(self):
        """None when valid, else why not (the rules of Problem::validate)."""
        if min(self.n, self.c, self.k, self.g) < 1:
            return "non-positive n/c/k/g"
        if self.c % self.g or self.k % self.g:
            return "C or K not divisible by G"
        for i in range(3):
            if i < 3 - self.ndim:
                if (self.inp[i], self.filt[i], self.stride[i], self.dil[i], self.pad_lo[i],
                        self.pad_hi[i]) != (1, 1, 1, 1, 0, 0):
                    return "unused slot not neutral"
                continue
            if min(self.inp[i], self.filt[i], self.stride[i], self.dil[i]) < 1:
                return "non-positive spatial field"
            if self.pad_lo[i] < 0 or self.pad_hi[i] < 0:
                return "negative padding"
            if self.out(i) < 1:
                return "dilated filter larger than padded input"
        for e in self.elements():
            if e > MAX_TENSOR_ELEMENTS:
                return "tensor over 2^31-1 elements"
        return None

    # --- text forms ---
    def spec(self):
        """Problem::to_spec(): canonical, so equal problems have equal specs."""
        f = 3 - self.ndim

        def join(v):
            v = v[f:]
            return str(v[0]) if all(x == v[0] for x in v) else ",".join(map(str, v))

        def pad_entry(lo, hi):
            return str(lo) if lo == hi else "%d:%d" % (lo, hi)

        s = "%s_%s_n%dc%dk%dg%d_" % (self.direction, self.dtype, self.n, self.c, self.k, self.g)
        s += "".join("%s%d" % (key, self.inp[i]) for i, key in zip(range(f, 3), "dhw"[f:])) + "_"
        s += "".join("%s%d" % (key, self.filt[i]) for i, key in zip(range(f, 3), "zyx"[f:]))
        s += "_s" + join(self.stride)
        uniform = all(self.pad_lo[i] == self.pad_lo[f] and self.pad_hi[i] == self.pad_hi[f]
                      for i in range(f, 3))
        if uniform:
            s += "_p" + pad_entry(self.pad_lo[f], self.pad_hi[f])
        else:
            s += "_p" + ",".join(pad_entry(self.pad_lo[i], self.pad_hi[i]) for i in range(f, 3))
        s += "_dil" + join(self.dil)
        return s

    def shape_key(self):
        """Identity of the layer shape, batch excluded."""
        return (self.ndim, self.c, self.k, self.g, self.inp, self.filt, self.stride, self.pad_lo,
                self.pad_hi, self.dil, self.direction, self.dtype)

    def key(self):
        return self.shape_key() + (self.n,)

    def row(self, source):
        d, h, w = self.inp
        z, y, x = self.filt
        return [self.direction, self.dtype, self.ndim, self.n, self.c, self.k, self.g, d, h, w, z, y, x,
                *self.stride, self.pad_lo[0], self.pad_hi[0], self.pad_lo[1], self.pad_hi[1],
                self.pad_lo[2], self.pad_hi[2], *self.dil, self.spec(), source]

    @staticmethod
    def from_row(r):
        """Inverse of row() for a dict from csv.DictReader."""
        nd = int(r["ndim"])
        f = 3 - nd
        get = lambda keys: [int(r[k]) for k in keys][f:]
        lo = get(["pad_d_lo", "pad_h_lo", "pad_w_lo"])
        hi = get(["pad_d_hi", "pad_h_hi", "pad_w_hi"])
        return Conv(nd, r["n"], r["c"], r["k"], r["g"], get("dhw"), get("zyx"),
                    get(["stride_d", "stride_h", "stride_w"]), list(zip(lo, hi)),
                    get(["dil_d", "dil_h", "dil_w"]), r["direction"], r["dtype"])


def _open_text(path, mode):
    if path.endswith(".gz"):
        if "w" in mode:
            # mtime 0 and no file name inside: reruns give byte-identical files.
            raw = gzip.GzipFile(filename="", mode="wb", fileobj=open(path, "wb"), mtime=0)
            return io.TextIOWrapper(raw, encoding="utf-8", newline="")
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8", newline="")
    return open(path, mode, encoding="utf-8", newline="")


def write_csv(path, rows, comments=(), gzip_over_bytes=1 << 20):
    """Writes [(Conv, source)] as CSV with '#' comment lines first. When the
    text exceeds gzip_over_bytes the file is written as <path>.gz instead (and a
    stale file of the other name is removed). Returns the path written."""
    buf = io.StringIO(newline="")
    for line in comments:
        buf.write(("# " + line).rstrip() + "\n")
    wr = csv.writer(buf, lineterminator="\n")
    wr.writerow(COLUMNS)
    for conv, source in rows:
        err = conv.problem_error()
        assert err is None, (conv.spec(), err)
        wr.writerow(conv.row(source))
    text = buf.getvalue()
    plain, packed = path, path + ".gz"
    out = packed if len(text.encode()) > gzip_over_bytes else plain
    for stale in (plain, packed):
        if stale != out and os.path.exists(stale):
            os.remove(stale)
    with _open_text(out, "w") as f:
        f.write(text)
    return out


def read_csv(path):
    """[(Conv, source)] from a file written by write_csv (path or path.gz)."""
    if not os.path.exists(path) and os.path.exists(path + ".gz"):
        path += ".gz"
    with _open_text(path, "r") as f:
        lines = [l for l in f if l.strip() and not l.startswith("#")]
    return [(Conv.from_row(r), r["source"]) for r in csv.DictReader(lines)]


def find_set(problems_dir, name):
    """Path of problems/<name>.csv or .csv.gz."""
    for ext in (".csv", ".csv.gz"):
        p = os.path.join(problems_dir, name + ext)
        if os.path.exists(p):
            return p
    raise FileNotFoundError(os.path.join(problems_dir, name + ".csv[.gz]"))
