"""Readers shared by the bench/ scripts: a sweep or JSON-lines file as text
(plain, .gz or .zst), and the gconv spec of a cuDNN record of
bench/cudnn_torch.py (so its times join a sweep's rows by spec)."""
import gzip
import io
import subprocess


def open_text(path):
    """A text stream of `path`; .zst goes through the zstd tool, .gz through gzip."""
    if path.endswith(".zst"):
        return io.StringIO(subprocess.run(["zstd", "-dc", path], check=True, capture_output=True, text=True).stdout)
    if path.endswith(".gz"):
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")


def read_rows(path):
    """The dict rows of a CSV (plain, .gz or .zst), comment lines ('#') skipped."""
    import csv
    with open_text(path) as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def _lst(v):
    """One value when all are equal, else the comma list (the spec grammar)."""
    return str(v[0]) if all(x == v[0] for x in v) else ",".join(map(str, v))


def cudnn_spec(r, dtype="bf16"):
    """The spec of a cuDNN JSON-lines record (its own dtype if it names one)."""
    nd = r["nd"]
    sizes = "".join(f"{a}{b}" for a, b in zip("dhw"[3 - nd:], r["spatial"]))
    filt = "".join(f"{a}{b}" for a, b in zip("zyx"[3 - nd:], r["kernel"]))
    pads = []
    for p in r["pad"]:
        if isinstance(p, list):
            pads.append(f"{p[0]}:{p[1]}" if p[0] != p[1] else str(p[0]))
        else:
            pads.append(str(p))
    return (f"{r['direction']}_{r.get('dtype', dtype)}_n{r['N']}c{r['C']}k{r['K']}g{r['G']}_{sizes}_{filt}"
            f"_s{_lst(r['stride'])}_p{_lst(pads)}_dil{_lst(r['dil'])}")
