#!/usr/bin/env bash
# LocalStack (community core, EC2 + STS) on 127.0.0.1:4566, run on the host without Docker.
#   scripts/localstack.sh up|down|status
# The venv, logs and state live in .localstack/ (git-ignored). Pins: scripts/localstack-requirements.txt,
# a frozen set known to start here (localstack-core 4.14.0 needs Python >= 3.12; newer cbor2, pyOpenSSL
# and cryptography releases break its start-up).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${LOCALSTACK_WORKDIR:-$ROOT/.localstack}"
PORT="${LOCALSTACK_PORT:-4566}"
URL="http://127.0.0.1:${PORT}"
PIDFILE="$WORK/localstack.pid"
LOG="$WORK/localstack.log"
REQS="$ROOT/scripts/localstack-requirements.txt"

say() { printf '==> %s\n' "$*" >&2; }

healthy() {
  curl -fsS --max-time 2 "$URL/_localstack/health" 2>/dev/null |
    grep -Eq '"ec2": *"(running|available)"'
}

find_python() {
  local c
  for c in "${LOCALSTACK_PYTHON:-}" \
    "$HOME"/.pyenv/versions/3.13*/bin/python3 "$HOME"/.pyenv/versions/3.12*/bin/python3 \
    python3.13 python3.12 python3; do
    [ -n "$c" ] || continue
    if command -v "$c" >/dev/null 2>&1 &&
      "$c" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; then
      command -v "$c"
      return 0
    fi
  done
  return 1
}

install() {
  local stamp="$WORK/venv/.installed"
  if [ -f "$stamp" ] && cmp -s "$stamp" "$REQS"; then return 0; fi
  local py
  py="$(find_python)" || {
    say "no Python >= 3.12 found (localstack-core 4.14 needs it); set LOCALSTACK_PYTHON"
    exit 1
  }
  say "installing LocalStack 4.14.0 into $WORK/venv with $py (about a minute, once)"
  rm -rf "$WORK/venv"
  "$py" -m venv "$WORK/venv"
  "$WORK/venv/bin/python" -m pip install -q --disable-pip-version-check -r "$REQS"
  cp "$REQS" "$stamp"
}

up() {
  mkdir -p "$WORK"
  if healthy; then
    say "LocalStack already up at $URL, listening on $(listen_line)"
    if exposed; then
      local h
      h="$(holders)"
      say "WARNING: it listens on all interfaces${h:+ ($h)}; it was not started by this version of the script:" \
        "stop it, then run make localstack-up"
    fi
    return 0
  fi
  install
  mkdir -p "$WORK/fs"
  say "starting LocalStack on $URL (log: $LOG)"
  # OVERRIDE_IN_DOCKER: /.dockerenv exists on these machines; without it LocalStack rewrites
  # /etc/resolv.conf and binds 0.0.0.0. DNS_ADDRESS=0 skips its DNS server altogether.
  # GATEWAY_SERVER=hypercorn: the default server of 4.14 (twisted) drops the host of an IPv4
  # GATEWAY_LISTEN and listens on 0.0.0.0; hypercorn binds the address given (issue 15).
  (
    cd "$WORK"
    env GATEWAY_LISTEN="127.0.0.1:${PORT}" GATEWAY_SERVER=hypercorn OVERRIDE_IN_DOCKER=0 DNS_ADDRESS=0 \
      FILESYSTEM_ROOT="$WORK/fs" SERVICES=ec2,sts,ssm,iam EAGER_SERVICE_LOADING=1 \
      SKIP_SSL_CERT_DOWNLOAD=1 DISABLE_EVENTS=1 PERSISTENCE=0 \
      nohup "$WORK/venv/bin/python" -m localstack.runtime.main >"$LOG" 2>&1 &
    echo $! >"$PIDFILE"
  )
  local i
  for i in $(seq 1 120); do
    if healthy; then
      if exposed; then
        say "LocalStack listens on all interfaces ($(listen_line)), not on 127.0.0.1 only: stopping it"
        down
        exit 1
      fi
      say "LocalStack ready after ${i}s: $(version), listening on $(listen_line)"
      return 0
    fi
    if ! kill -0 "$(cat "$PIDFILE")" 2>/dev/null; then
      say "LocalStack exited during start-up; last lines of $LOG:"
      tail -n 30 "$LOG" >&2
      exit 1
    fi
    sleep 1
  done
  say "LocalStack did not become healthy within 120s; see $LOG"
  exit 1
}

version() {
  curl -fsS --max-time 2 "$URL/_localstack/health" 2>/dev/null |
    sed -n 's/.*"version": *"\([^"]*\)".*/localstack-core \1/p'
}

down() {
  if [ -f "$PIDFILE" ]; then
    local pid
    pid="$(cat "$PIDFILE")"
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid"
      for _ in $(seq 1 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
      kill -9 "$pid" 2>/dev/null || true
      say "LocalStack stopped (pid $pid)"
    fi
    rm -f "$PIDFILE"
  else
    say "no LocalStack started from $WORK is running"
    if [ -n "$(listen_line)" ]; then
      local h
      h="$(holders)"
      say "port $PORT is held by a process started elsewhere${h:+ ($h)}: not stopped"
    fi
  fi
}

# listen_addrs prints the local address of every listening TCP socket on $PORT, one a line, as
# ss prints them (`127.0.0.1:4566`, `0.0.0.0:4566`, `[::]:4566`, `*:4566`); without ss it decodes
# /proc/net/tcp and /proc/net/tcp6 (IPv6 other than :: and ::1 as raw kernel hex).
listen_addrs() {
  if command -v ss >/dev/null 2>&1; then
    ss -Hltn "sport = :${PORT}" 2>/dev/null | awk '{print $4}' | sort -u
    return 0
  fi
  local hexport
  hexport="$(printf '%04X' "$PORT")"
  awk -v hp="$hexport" -v port="$PORT" '
    function byte(h) { return (index("0123456789ABCDEF", substr(h, 1, 1)) - 1) * 16 + index("0123456789ABCDEF", substr(h, 2, 1)) - 1 }
    FNR == 1 { next }                           # header line of each file
    $4 != "0A" { next }                         # 0A: TCP_LISTEN
    { split(toupper($2), a, ":"); if (a[2] != hp) next }
    length(a[1]) == 8 {                         # IPv4, little-endian
      printf "%d.%d.%d.%d:%s\n", byte(substr(a[1], 7, 2)), byte(substr(a[1], 5, 2)),
        byte(substr(a[1], 3, 2)), byte(substr(a[1], 1, 2)), port
      next
    }
    a[1] == "00000000000000000000000000000000" { print "[::]:" port; next }
    a[1] == "00000000000000000000000001000000" { print "[::1]:" port; next }
    { print "[" a[1] "]:" port }
  ' /proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -u
}

# holders names the processes listening on $PORT with their working directory (needs ss -p;
# empty without it), e.g. `pid 7284 in /tmp/x/.localstack`.
holders() {
  command -v ss >/dev/null 2>&1 || return 0
  local pid out=""
  for pid in $(ss -Hltnp "sport = :${PORT}" 2>/dev/null | grep -o 'pid=[0-9]*' | cut -d= -f2 | sort -u); do
    out="${out:+$out, }pid $pid in $(readlink "/proc/$pid/cwd" 2>/dev/null || echo '?')"
  done
  printf '%s' "$out"
}

listen_line() {
  local a
  a="$(listen_addrs | tr '\n' ' ')"
  printf '%s' "${a% }"
}

# exposed succeeds when something listens on $PORT on a wildcard address (all interfaces).
exposed() {
  listen_addrs | grep -Eq '^(0\.0\.0\.0|\*|\[::\]|::|\[::ffff:0\.0\.0\.0\]):'
}

# status fails unless LocalStack answers on $URL and listens on loopback only.
status() {
  if ! healthy; then
    echo "LocalStack down at $URL (start it with: make localstack-up)"
    return 1
  fi
  local addrs
  addrs="$(listen_line)"
  if [ -z "$addrs" ]; then
    echo "LocalStack up at $URL ($(version)), but no listening socket on port $PORT was found (ss and /proc/net/tcp show none)"
    return 1
  fi
  if exposed; then
    local h
    h="$(holders)"
    echo "LocalStack up at $URL ($(version)) but EXPOSED: listening on $addrs (all interfaces, want 127.0.0.1:${PORT}" \
      "only${h:+; $h}); restart it with: make localstack-down localstack-up (from the directory that started it)"
    return 1
  fi
  echo "LocalStack up at $URL ($(version)), listening on $addrs"
}

case "${1:-}" in
up) up ;;
down) down ;;
status) status ;;
*)
  echo "usage: $0 up|down|status" >&2
  exit 2
  ;;
esac
