#!/usr/bin/env bash
# multihost_test.sh WEFT WEFTD MAKE_CERTS WORK: the runtime across hosts
# (issue 20; docs/runtime.md, "Security"), played by network namespaces.
#
# The scheduler and two nodes each in a namespace of their own, joined by a
# veth pair per node from the scheduler's namespace (10.77.0.1 <-> n0 at
# 10.77.0.2, 10.77.0.5 <-> n1 at 10.77.0.6); the scheduler listens on
# 0.0.0.0 with mutual TLS and a token, nodes and the client use both. A
# net phase on n0 first reads its bytes from n1's data port (routed by the
# scheduler's namespace); then a two-stage job runs; while its first stage
# runs one task on each node, n0's link is cut (`ip link set down`): after the lost-node timeout (1 s) its
# task reruns on n1 and the job still succeeds.
#
# Needs root and `ip netns` (iproute2): exits 77 (ctest's SKIP_RETURN_CODE)
# with the reason where either is missing or a namespace cannot be made
# (a container without CAP_NET_ADMIN). Whatever happens, the trap stops the
# daemons and deletes the namespaces, and the test fails if any process of
# it (daemon, keeper or task) survives that (issue 34, finding 8): every
# daemon is started with `ip netns exec` directly, which execs it, so `$!`
# is the daemon itself and not a subshell around it.
set -uo pipefail

weft=$1 weftd=$2 make_certs=$3 work=$4
source "$(dirname "$0")/survivors.sh"
skip() { echo "SKIP: $*"; exit 77; }
fail() { echo "FAIL: $*" >&2; dump; exit 1; }

[ "$(id -u)" -eq 0 ] || skip "not root: network namespaces need it"
command -v ip >/dev/null || skip "no ip command (iproute2: scripts/install-deps.sh --test)"
ip netns list >/dev/null 2>&1 || skip "ip netns is not available"

tag="weft$$"
ns_s="$tag-s" ns_0="$tag-n0" ns_1="$tag-n1"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  for _ in $(seq 50); do
    alive=0
    for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
    [ $alive -eq 0 ] && break
    sleep 0.1
  done
  for pid in "${pids[@]}"; do kill -KILL "$pid" 2>/dev/null; done
  for ns in "$ns_s" "$ns_0" "$ns_1"; do ip netns del "$ns" 2>/dev/null; done
  assert_no_survivors "$work" || exit 1
}
trap cleanup EXIT
trap 'exit 1' INT TERM
dump() {
  for f in "$work"/s/scheduler.log "$work"/n0/node.log "$work"/n1/node.log; do
    [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; } >&2
  done
}

ip netns add "$ns_s" 2>/dev/null || skip "cannot create a network namespace (no CAP_NET_ADMIN?)"
ip netns add "$ns_0" && ip netns add "$ns_1" || fail "cannot create the nodes' namespaces"
in_s() { ip netns exec "$ns_s" "$@"; }
# link NS INDEX: a veth pair from the scheduler's namespace (10.77.0.4i+1)
# to NS (10.77.0.4i+2), both ends up.
link() {
  local ns=$1 i=$2
  ip link add "s$i-$tag" netns "$ns_s" type veth peer name eth0 netns "$ns" || return 1
  ip -n "$ns_s" addr add "10.77.0.$((4 * i + 1))/30" dev "s$i-$tag" &&
    ip -n "$ns" addr add "10.77.0.$((4 * i + 2))/30" dev eth0 &&
    ip -n "$ns_s" link set "s$i-$tag" up && ip -n "$ns" link set eth0 up && ip -n "$ns" link set lo up
}
link "$ns_0" 0 || skip "cannot make veth pairs here"
link "$ns_1" 1 || fail "cannot make the second veth pair"
ip -n "$ns_s" link set lo up
# The scheduler's namespace routes between the nodes' pairs, as a switch
# would: a node's data port is reached by the other node through it.
ip netns exec "$ns_s" sysctl -qw net.ipv4.ip_forward=1 || fail "cannot turn on forwarding in the scheduler's namespace"
ip -n "$ns_0" route add default via 10.77.0.1 && ip -n "$ns_1" route add default via 10.77.0.5 ||
  fail "cannot route between the nodes"

rm -rf "$work" && mkdir -p "$work/out"
bash "$make_certs" "$work/certs" 10.77.0.1 10.77.0.5 || fail "cannot make certificates (openssl)"
c="$work/certs"
(umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$work/token")
tls_client=(--tls-ca "$c/ca.pem" --tls-cert "$c/client.pem" --tls-key "$c/client.key" --token-file "$work/token")

ip netns exec "$ns_s" "$weftd" scheduler --listen 0.0.0.0:7070 --state "$work/s" --nodes 2 --heartbeat 0.1 --node-timeout 1 \
  --token-file "$work/token" --tls-cert "$c/server.pem" --tls-key "$c/server.key" --tls-ca "$c/ca.pem" \
  >"$work/s.out" 2>&1 &
pids+=($!)
for i in 0 1; do
  ip netns exec "$tag-n$i" "$weftd" node --scheduler "10.77.0.$((4 * i + 1)):7070" --name "n$i" --cpu 1 --mem $((2 - i)) --disk $((100 + 900 * i)) \
    --work-dir "$work/n$i" "${tls_client[@]}" >"$work/n$i.out" 2>&1 &
  pids+=($!)
done

status() { in_s "$weft" status --scheduler 10.77.0.1:7070 "${tls_client[@]}" "$@"; }
for _ in $(seq 100); do
  status 2>/dev/null | grep -q "nodes 2/2 up" && break
  sleep 0.1
done
status | grep -q "nodes 2/2 up" || fail "the nodes did not register across the namespaces"

# Real bytes between the namespaces (docs/runtime.md, "Bytes between
# nodes"): a task needing 1.5 GB (so it runs on n0, the node with 2 GB) has
# a net phase of 8 MB and its input held on n1, so it reads the 8 MB from
# n1's data port across the veth pairs; then its child behind a shuffle
# edge, needing 500 MB/s of disk (so on n1, the node with 1000), copies its
# 5 MB of shuffle output from n0's data port. Each node's log counts what
# it served, and to which address.
cat >"$work/net.json" <<EOF
{"weft": 1, "jobs": [{"name": "net", "stages": [
  {"name": "pull", "tasks": 1, "demand": {"cpu": 1, "mem": 1.5, "net": 10}, "input_mb": 1,
   "locality": [["n1"]], "phases": [{"resource": "net", "work": 8}]},
  {"name": "merge", "tasks": 1, "duration": 0.1, "demand": {"cpu": 1, "mem": 0.5, "disk": 500, "net": 10},
   "after": [{"stage": "pull", "kind": "shuffle", "shuffle_mb": 5}]}]}]}
EOF
in_s "$weft" submit --scheduler 10.77.0.1:7070 "${tls_client[@]}" "$work/net.json" | grep -qx 0 || fail "submit net"
in_s "$weft" wait --scheduler 10.77.0.1:7070 "${tls_client[@]}" 0 --timeout 30 || fail "the net job did not succeed"
grep -q "data port: transfer [0-9]* to 10.77.0.2:[0-9]*: served 8000000 of 8000000 bytes" "$work/n1/node.log" ||
  fail "n1 did not serve the net phase's 8 MB to n0 (10.77.0.2): $(grep 'data port' "$work"/n*/node.log)"
grep -q "data port: transfer [0-9]* to 10.77.0.6:[0-9]*: served 5000000 of 5000000 bytes" "$work/n0/node.log" ||
  fail "n0 did not serve the shuffle's 5 MB to n1 (10.77.0.6): $(grep 'data port' "$work"/n*/node.log)"
echo "a net phase on n0 read its 8 MB from n1, and a shuffle on n1 copied its 5 MB from n0, across the veth pairs"

# Each map task marks its start with its node's name (the node's work dir
# is its cwd: n0 or n1), then sleeps long enough for the cut.
cat >"$work/dag.json" <<EOF
{"weft": 1, "jobs": [{"name": "dag", "stages": [
  {"name": "map", "tasks": 2, "duration": 2, "demand": {"cpu": 1, "mem": 0.1},
   "command": "touch $work/out/started-{task}-\$(basename \$PWD); sleep 2"},
  {"name": "reduce", "tasks": 1, "duration": 0.1, "demand": {"cpu": 1, "mem": 0.1}, "after": ["map"],
   "command": "touch $work/out/reduced"}]}]}
EOF
in_s "$weft" submit --scheduler 10.77.0.1:7070 "${tls_client[@]}" "$work/dag.json" | grep -qx 1 || fail "submit"
for _ in $(seq 100); do
  [ "$(ls "$work/out" | grep -c '^started-')" -eq 2 ] && break
  sleep 0.05
done
ls "$work/out" | grep -q -- '-n0$' || fail "no map task started on n0: $(ls "$work/out")"
ls "$work/out" | grep -q -- '-n1$' || fail "no map task started on n1: $(ls "$work/out")"
ip -n "$ns_s" link set s0-"$tag" down || fail "cannot cut n0's link"
echo "cut n0's link while it ran a map task"

in_s "$weft" wait --scheduler 10.77.0.1:7070 "${tls_client[@]}" 1 --timeout 15 || fail "the job did not succeed"
[ -f "$work/out/reduced" ] || fail "the reduce stage did not run"
status --out "$work/results" >/dev/null || fail "export"
# n0's map attempt was given up (killed) and every task has an ok attempt, none on n0.
grep '^dag,' "$work/results/tasks.csv" > "$work/results/dag-tasks.csv"  # the export holds the net job too
grep -q ',n0,.*,killed,' "$work/results/dag-tasks.csv" || fail "no killed attempt on n0: $(cat "$work/results/tasks.csv")"
[ "$(grep -c ',ok,' "$work/results/dag-tasks.csv")" -eq 3 ] || fail "not 3 ok attempts: $(cat "$work/results/tasks.csv")"
grep ',ok,' "$work/results/dag-tasks.csv" | grep -q ',n0,' && fail "an ok attempt on the cut node n0"
echo "PASS: the job finished on n1 after n0's link was cut"
