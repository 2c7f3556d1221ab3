#!/usr/bin/env bash
# Proves the test suite holds on a busy machine: runs `.ci/run` RUNS times in a
# row (default 3), each in a fresh clone of this repository's HEAD, with BURNERS
# CPU-burning processes (default 2, i.e. twice the cores of a 2-core machine
# in load average terms once the suite itself runs) beside it. Stops at the
# first red run. The burners are ended by PID whatever happens.
#
#   bash scripts/ci-under-load.sh [RUNS] [BURNERS]
#
# Logs: $WORK/run-N.log (WORK is printed at the start; removed only when all runs pass).
set -euo pipefail
RUNS="${1:-3}"
BURNERS="${2:-2}"
REPO="$(cd "$(dirname "$0")/.." && pwd)"
# Every run tests the same commit: the one checked out when the script started.
COMMIT="$(git -C "$REPO" rev-parse HEAD)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/issuepool-ci-load-XXXXXX")"
burners=()
stop_burners() {
  for pid in "${burners[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${burners[@]}"; do wait "$pid" 2>/dev/null || true; done
}
trap stop_burners EXIT
echo "ci-under-load: $RUNS runs of .ci/run on ${COMMIT:0:12} with $BURNERS CPU burners; logs in $WORK"
for _ in $(seq "$BURNERS"); do
  yes > /dev/null &
  burners+=("$!")
done
for run in $(seq "$RUNS"); do
  clone="$WORK/clone-$run"
  git clone -q "$REPO" "$clone"
  git -C "$clone" checkout -q "$COMMIT"
  # shared/ (the spec and architecture) sits beside the repository in CI.
  [ -d "$REPO/../shared" ] && ln -s "$(cd "$REPO/../shared" && pwd)" "$WORK/shared" 2>/dev/null || true
  start=$(date +%s)
  if (cd "$clone" && CI=true bash .ci/run) > "$WORK/run-$run.log" 2>&1; then
    load=$(cut -d' ' -f1-3 /proc/loadavg)
    echo "run $run: green in $(( $(date +%s) - start )) s (load average at the end: $load)"
    rm -rf "$clone"
  else
    echo "run $run: RED after $(( $(date +%s) - start )) s; see $WORK/run-$run.log"
    tail -40 "$WORK/run-$run.log"
    exit 1
  fi
done
echo "ci-under-load: $RUNS of $RUNS runs green"
rm -rf "$WORK"
