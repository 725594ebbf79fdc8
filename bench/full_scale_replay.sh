#!/usr/bin/env bash
# Full-scale Google 2011 replay (issue 17): a synthetic trace of the cell's
# size (25M tasks over 29 days, 12,583 machines) in the native google-2011
# format, replayed with `weft sim --trace` per policy, results written.
# Prints, per policy, wall and cpu seconds and peak resident memory as
# /usr/bin/time -v reports them for the whole command.
#
# Usage: bench/full_scale_replay.sh WEFT TRACE_DIR OUT_DIR [POLICY...]
#   WEFT       the weft binary (e.g. build/src/weft)
#   TRACE_DIR  where the trace is (made by bench/google2011_synth.py when missing:
#              about 4 minutes and 0.5 GB)
#   OUT_DIR    one results folder per policy, and time-POLICY.txt
#   POLICY     default: fifo fair tetris sparrow
# TASKS=N and DAYS=D make a smaller trace (the same rate at DAYS = 29 * N / 25M).
set -euo pipefail

weft=$1 trace=$2 out=$3
shift 3
policies=("$@")
[ ${#policies[@]} -gt 0 ] || policies=(fifo fair tetris sparrow)
here=$(cd "$(dirname "$0")" && pwd)
sample=${SAMPLE:-$here/../../shared/data/google-2011-borg-sample/tasks_parts_00001-00003.csv.gz}

if [ ! -d "$trace/task_events" ]; then
  [ -f "$sample" ] || { echo "the Google 2011 sample is missing: $sample (see ../shared/data)" >&2; exit 2; }
  python3 "$here/google2011_synth.py" "$sample" "$trace" --tasks "${TASKS:-25000000}" --days "${DAYS:-29}"
fi

mkdir -p "$out"
printf '%-8s %10s %10s %12s\n' policy wall_s cpu_s peak_MiB
for p in "${policies[@]}"; do
  /usr/bin/time -v -o "$out/time-$p.txt" \
    "$weft" sim --trace "google-2011:$trace" -p "$p" --out "$out/$p" --no-progress >"$out/stdout-$p.txt" 2>&1 || {
    echo "$p: failed, see $out/stdout-$p.txt" >&2
    continue
  }
  awk -v p="$p" -F': ' '
    /Elapsed \(wall clock\)/ { n = split($2, t, ":"); wall = (n == 3) ? t[1] * 3600 + t[2] * 60 + t[3] : t[1] * 60 + t[2] }
    /User time/ { user = $2 } /System time/ { sys = $2 } /Maximum resident/ { rss = $2 / 1024 }
    END { printf "%-8s %10.1f %10.1f %12.0f\n", p, wall, user + sys, rss }' "$out/time-$p.txt"
done
