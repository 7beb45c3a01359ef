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
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

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
  say "installing LocalStack 4.14.0 into $WORK/venv with $py (half a minute, once)"
  rm -rf "$WORK/venv"
  "$py" -m venv "$WORK/venv"
  # --no-compile: half of pip's CPU goes to byte-compiling the packages, and make demo builds the
  # provider on the same cores meanwhile. compile_later does it once LocalStack is up.
  "$WORK/venv/bin/python" -m pip install -q --no-compile --disable-pip-version-check -r "$REQS"
  cp "$REQS" "$stamp"
}

# compile_later byte-compiles the venv once, in the background at the lowest CPU priority: a start
# with bytecode takes 5 s here, the first one after an install, without, 11 s.
compile_later() {
  local venv="$WORK/venv"
  [ ! -f "$venv/.compiled" ] || return 0
  nohup nice -n 19 sh -c '"$1/bin/python" -m compileall -q -j 0 "$1/lib" && touch "$1/.compiled"' _ "$venv" \
    >"$WORK/compile.log" 2>&1 &
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
      FILESYSTEM_ROOT="$WORK/fs" SERVICES=ec2,sts,ssm,iam,sqs,events EAGER_SERVICE_LOADING=1 \
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
      compile_later
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
    if alive "$pid"; then
      stop_pid LocalStack "$pid"
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

listen_line() { port_listens "$PORT" | one_line; }

# exposed succeeds when something listens on $PORT beyond the loopback address.
exposed() { port_listens "$PORT" | not_loopback; }

holders() { port_holders "$PORT"; }

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
install) install ;; # the pinned packages only (the oracles' catalog reads the emulator's data)
*)
  echo "usage: $0 up|down|status|install" >&2
  exit 2
  ;;
esac
