#!/usr/bin/env bash
# `make test` after the builds: the static checks (lint, types, CRD drift) run beside the
# end-to-end files at low priority (nice 10). The files spend much of a run waiting on timers and
# the API server, and the checks fill those gaps instead of running first on their own (on 2
# cores they held the first end-to-end file back by about a minute). Only work that cannot be
# late belongs here: starved for seconds, a test with a real timeout fails. Their output goes to
# a log: one line when they end, the whole log at the end if they failed.
#
#   test/beside-e2e.sh MAKE LOG CHECK... -- E2E_TARGET
set -uo pipefail
make_cmd=$1 log=$2
shift 2
checks=()
while [ "$1" != "--" ]; do checks+=("$1"); shift; done
e2e_target=$2
rc_file="$log.rc"
rm -f "$rc_file"
mkdir -p "$(dirname "$log")"

(
  started=$SECONDS
  # Two at a time: each is mostly one core's work, and idle time comes on either core.
  nice -n 10 "$make_cmd" --no-print-directory -k -j2 --output-sync=target "${checks[@]}" >"$log" 2>&1
  rc=$?
  echo "$rc" >"$rc_file"
  if [ "$rc" = 0 ]; then
    counts=$(grep -E '^ℹ (tests|fail) ' "$log" | sed 's/^ℹ //' | paste -sd, - | sed 's/,/, /g')
    echo "[checks] ${checks[*]}: passed in $((SECONDS - started)) s (${counts:+unit $counts; }log $log)"
  else
    echo "[checks] ${checks[*]}: FAILED after $((SECONDS - started)) s; the log follows the end-to-end run ($log)"
  fi
) &
checks_pid=$!

"$make_cmd" --no-print-directory "$e2e_target"
e2e_rc=$?
wait "$checks_pid"
checks_rc=$(cat "$rc_file" 2>/dev/null || echo 1)
if [ "$checks_rc" != 0 ]; then
  echo "==== checks log ($log) ===="
  cat "$log"
  echo "[checks] ${checks[*]}: FAILED"
fi
[ "$e2e_rc" = 0 ] && [ "$checks_rc" = 0 ]
