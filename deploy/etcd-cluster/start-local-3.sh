#!/usr/bin/env bash
# A 3-member etcd cluster on loopback, for trying orch-apiserver against a real quorum.
#
#   deploy/etcd-cluster/start-local-3.sh start  DIR   start the members not running (data, logs under DIR); wait until healthy
#   deploy/etcd-cluster/start-local-3.sh status DIR   each member's health, leader and revision
#   deploy/etcd-cluster/start-local-3.sh stop   DIR   stop the members started from DIR (data is kept)
#
# Members: m1 client 127.0.0.1:2379  peer :2380
#          m2 client 127.0.0.1:22379 peer :22380
#          m3 client 127.0.0.1:32379 peer :32380
# Environment: ETCD (default: etcd), START_TIMEOUT seconds (default 30).
# Health comes from each member's own HTTP endpoints (GET /health, POST /v3/maintenance/status)
# through curl: etcdctl is not needed.
set -euo pipefail

ETCD=${ETCD:-etcd}
START_TIMEOUT=${START_TIMEOUT:-30}
NAMES=(m1 m2 m3)
CLIENT_PORTS=(2379 22379 32379)
PEER_PORTS=(2380 22380 32380)
TOKEN=orch-local-3

usage() { sed -n '4,6s/^# \{0,1\}//p' "$0" >&2; exit 2; }
[ $# -eq 2 ] || usage
cmd=$1
dir=$2

endpoints() {
  local eps=() i
  for i in 0 1 2; do eps+=("http://127.0.0.1:${CLIENT_PORTS[$i]}"); done
  (IFS=,; echo "${eps[*]}")
}

initial_cluster() {
  local members=() i
  for i in 0 1 2; do members+=("${NAMES[$i]}=http://127.0.0.1:${PEER_PORTS[$i]}"); done
  (IFS=,; echo "${members[*]}")
}

port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# The pid in DIR/NAME.pid, if that process is still the etcd serving DIR/NAME.
member_pid() {
  local pidfile="$dir/$1.pid" pid
  [ -f "$pidfile" ] || return 1
  pid=$(<"$pidfile")
  [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "--data-dir=$dir/$1 " || return 1
  echo "$pid"
}

# GET /health of one client URL: etcd answers {"health":"true"} once the member has a leader.
member_healthy() { curl -fsS --max-time 2 "$1/health" 2>/dev/null | grep -q '"health":"true"'; }

healthy() {
  local i
  for i in 0 1 2; do member_healthy "http://127.0.0.1:${CLIENT_PORTS[$i]}" || return 1; done
}

# One line per member: health, whether it is the leader, its revision and raft term (from etcd's
# JSON gateway, which prints ids and numbers as strings).
report() {
  local i url status health member leader revision term role
  command -v curl >/dev/null || { echo "curl not found: it is needed for health checks" >&2; return 1; }
  for i in 0 1 2; do
    url="http://127.0.0.1:${CLIENT_PORTS[$i]}"
    if member_healthy "$url"; then health=healthy; else health=unhealthy; fi
    status=$(curl -fsS --max-time 2 -X POST -d '{}' "$url/v3/maintenance/status" 2>/dev/null) || status=''
    if [ -z "$status" ]; then
      echo "${NAMES[$i]}  $url  $health  (no status answer)"
      continue
    fi
    member=$(sed -n 's/.*"member_id":"\([0-9]*\)".*/\1/p' <<<"$status")
    leader=$(sed -n 's/.*"leader":"\([0-9]*\)".*/\1/p' <<<"$status")
    revision=$(sed -n 's/.*"revision":"\([0-9]*\)".*/\1/p' <<<"$status")
    term=$(sed -n 's/.*"raft_term":"\([0-9]*\)".*/\1/p' <<<"$status")
    if [ -n "$member" ] && [ "$member" = "$leader" ]; then role=leader; elif [ -z "$leader" ] || [ "$leader" = 0 ]; then role='no leader'; else role=follower; fi
    echo "${NAMES[$i]}  $url  $health  $role  revision=${revision:-?}  term=${term:-?}"
  done
}

stop_members() {
  local name pid waited
  for name in "${NAMES[@]}"; do
    if pid=$(member_pid "$name"); then
      kill -TERM "$pid"
      for ((waited = 0; waited < 100; waited++)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$pid" 2>/dev/null && kill -KILL "$pid"
      echo "stopped $name (pid $pid)"
    fi
    rm -f "$dir/$name.pid"
  done
}

start_members() {
  local i name port pid
  command -v "$ETCD" >/dev/null || { echo "etcd binary not found: $ETCD (set ETCD=/path/to/etcd)" >&2; exit 1; }
  command -v curl >/dev/null || { echo "curl not found: it is needed for health checks" >&2; exit 1; }
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  local todo=()
  for i in 0 1 2; do
    if pid=$(member_pid "${NAMES[$i]}"); then echo "${NAMES[$i]} is already running (pid $pid)"; continue; fi
    for port in "${CLIENT_PORTS[$i]}" "${PEER_PORTS[$i]}"; do
      if port_in_use "$port"; then echo "port $port is already in use; stop whatever listens there first" >&2; exit 1; fi
    done
    todo+=("$i")
  done
  for i in "${todo[@]}"; do
    name=${NAMES[$i]}
    # --initial-* flags only matter on a member's first start; later starts reuse its data dir.
    nohup "$ETCD" --name="$name" --data-dir="$dir/$name" --logger=zap \
      --listen-client-urls="http://127.0.0.1:${CLIENT_PORTS[$i]}" \
      --advertise-client-urls="http://127.0.0.1:${CLIENT_PORTS[$i]}" \
      --listen-peer-urls="http://127.0.0.1:${PEER_PORTS[$i]}" \
      --initial-advertise-peer-urls="http://127.0.0.1:${PEER_PORTS[$i]}" \
      --initial-cluster="$(initial_cluster)" --initial-cluster-token="$TOKEN" --initial-cluster-state=new \
      >>"$dir/$name.log" 2>&1 </dev/null &
    echo $! >"$dir/$name.pid"
    echo "started $name (pid $!, log $dir/$name.log)"
  done
  local deadline=$((SECONDS + START_TIMEOUT))
  until healthy; do
    if ((SECONDS >= deadline)); then
      echo "cluster not healthy after ${START_TIMEOUT}s; last log lines:" >&2
      for name in "${NAMES[@]}"; do tail -n 5 "$dir/$name.log" | sed "s/^/  $name: /" >&2; done
      stop_members
      exit 1
    fi
    sleep 0.5
  done
  report
  echo
  echo "Run the server against it with:"
  echo "  npm start -- --etcd-servers=$(endpoints)"
}

case "$cmd" in
  start) start_members ;;
  stop) dir=$(cd "$dir" 2>/dev/null && pwd) || { echo "no such directory: $2" >&2; exit 1; }; stop_members ;;
  status)
    report
    healthy
    ;;
  *) usage ;;
esac
