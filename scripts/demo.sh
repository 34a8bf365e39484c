#!/usr/bin/env bash
# The main job (scripts/dev demo): the shipped model picks a kernel for every
# ResNet-50 layer (problems/resnet50_n32.jsonl, 3 directions, bf16, N=32).
# Without a GPU: the selection and the model's predicted times. With a GPU:
# each pick is also run with --check (gconv run) and timed, cuDNN is timed on
# the same problems (gconv bench --provider cudnn), and both are printed side
# by side with the sums.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
gconv=${GCONV:-$root/build/gconv}
problems=$root/problems/resnet50_n32.jsonl
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

echo "== gconv select (policy heuristic: the learned model in models/) on $(basename "$problems")"
"$gconv" select --problems "$problems" --json > "$tmp/select.jsonl"
python3 - "$tmp/select.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
total = {}
for r in rows:
    d = r["spec"].split("_bf16")[0]
    total[d] = total.get(d, 0) + r["predicted_ms"]
    print(f"{r['spec']:<58} {r['kernel']:<58} {r['predicted_ms']:8.4f} ms")
print("predicted sums: " + ", ".join(f"{d} {t:.3f} ms" for d, t in total.items()))
print("selection reason (first layer): " + rows[0]["reason"])
PY

if ! "$gconv" device | grep -q '"has_gpu": true'; then
  echo "no GPU here: the selection above is what gconv would run (predicted times are the model's)."
  exit 0
fi

echo "== on $("$gconv" device | python3 -c 'import json,sys; print(json.load(sys.stdin)["name"])'): run each pick with --check, and time cuDNN"
: > "$tmp/run.jsonl"
python3 -c "import json,sys; [print(json.loads(l)['spec']) for l in open(sys.argv[1])]" "$tmp/select.jsonl" |
  while read -r spec; do "$gconv" run "$spec" --check --json >> "$tmp/run.jsonl"; done
"$gconv" bench --problems "$problems" --provider cudnn --out "$tmp/cudnn.csv" --timeout-s 60 2> "$tmp/cudnn.log" || true
python3 - "$tmp/run.jsonl" "$tmp/cudnn.csv" <<'PY'
import csv, json, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
best = {}
for r in csv.DictReader(l for l in open(sys.argv[2]) if not l.startswith("#")):
    if r["status"] == "ok" and r["kernel"].split(":")[0] in ("cudnn_best", "cudnn_graph_best"):
        best[r["spec"]] = min(best.get(r["spec"], 1e30), float(r["latency_ms"]))
sums = {}
for r in runs:
    spec, ms = r["spec"], r["median_ms"]
    c = best.get(spec)
    d = spec.split("_bf16")[0]
    s = sums.setdefault(d, [0.0, 0.0])
    s[0] += ms; s[1] += c or 0
    print(f"{spec:<58} check {'ok' if r.get('check_ok') else 'FAILED':<6} gconv {ms:8.4f} ms  cuDNN best {c if c else float('nan'):8.4f} ms")
for d, (g, c) in sums.items():
    print(f"{d}: gconv {g:.3f} ms, cuDNN best {c:.3f} ms, cuDNN/gconv {c / g if g else float('nan'):.3f}")
PY
