#!/usr/bin/env bash
# Builds bench/gpu/loop_copy.cu, checks and times every variant, then reads the
# memory counters of one launch of each with Nsight Compute (where ncu works).
# Results go to $OUT (default ./loop_copy_out): env.txt, timing.txt, ncu.csv,
# counters.txt. docs/loop-gpu.md records a run; data/loop_gpu.json its figures.
#
#   bash bench/gpu/run_loop_copy.sh
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-$PWD/loop_copy_out}
mkdir -p "$out"
build=$(mktemp -d)

{
  date -u +"date %Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader
  nvcc --version | tail -n 1
  ncu --version 2>/dev/null | tail -n 1
} | tee "$out/env.txt"

nvcc -O3 -std=c++17 -arch=sm_90a -o "$build/loop_copy" "$here/loop_copy.cu" || exit 1
"$build/loop_copy" --selftest >/dev/null || { echo "selftest failed"; exit 1; }
"$build/loop_copy" | tee "$out/timing.txt"
status=${PIPESTATUS[0]}

metrics=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
metrics+=,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
metrics+=,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_global_ld.sum
metrics+=,dram__bytes_read.sum,gpu__time_duration.sum
if command -v ncu >/dev/null; then
  if ! timeout 150 ncu --clock-control none --kernel-name regex:plan_copy --metrics "$metrics" --csv \
      "$build/loop_copy" --once >"$out/ncu.csv" 2>"$out/ncu.err"; then
    echo "ncu with the full metric list failed; retrying with the global and shared counters only"
    timeout 120 ncu --clock-control none --kernel-name regex:plan_copy --csv \
      --metrics l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum \
      "$build/loop_copy" --once >"$out/ncu.csv" 2>>"$out/ncu.err" || tail -n 5 "$out/ncu.err"
  fi
  # One row per launch (the variants' order), one column per counter.
  python3 - "$out/ncu.csv" "$build/loop_copy" <<'EOF' | tee "$out/counters.txt"
import csv, subprocess, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if l.startswith('"'))]
if not rows:
    sys.exit("no ncu rows")
head, body = rows[0], rows[1:]
col = {name: i for i, name in enumerate(head)}
names = [l.split()[0] for l in subprocess.run([sys.argv[2], "--selftest"], capture_output=True, text=True).stdout.splitlines()]
table = {}
for r in body:
    table.setdefault(int(r[col["ID"]]), {})[r[col["Metric Name"]]] = r[col["Metric Value"]].replace(",", "")
short = {
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": "ld_sectors",
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": "ld_requests",
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": "st_sectors",
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": "st_requests",
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": "lds_wavefronts",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": "lds_conflicts",
    "smsp__inst_executed_op_shared_ld.sum": "lds_inst",
    "smsp__inst_executed_op_global_ld.sum": "ldg_inst",
    "dram__bytes_read.sum": "dram_read",
    "gpu__time_duration.sum": "time",
}
keys = [k for k in short if any(k in m for m in table.values())]
print("variant".ljust(24), " ".join(short[k].rjust(14) for k in keys))
for i, (ident, m) in enumerate(sorted(table.items())):
    print((names[i] if i < len(names) else str(ident)).ljust(24), " ".join(m.get(k, "-").rjust(14) for k in keys))
EOF
else
  echo "ncu not found: no counters"
fi
rm -rf "$build"
exit "$status"
