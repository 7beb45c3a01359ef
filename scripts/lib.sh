# shellcheck shell=bash
# Shared by scripts/k8s.sh and scripts/localstack.sh (sourced): messages, process liveness and
# stopping, and the listening TCP sockets of a process or a port, with ss or, without it, from
# /proc/net/tcp and /proc/net/tcp6.

say() { printf '==> %s\n' "$*" >&2; }

# alive PID: the process exists and is not a zombie.
alive() {
  [ -n "$1" ] && kill -0 "$1" 2>/dev/null || return 1
  local state
  state="$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || true)"
  [ "$state" != "Z" ]
}

# wait_exit PID N waits up to N half-seconds for PID to exit.
wait_exit() {
  local i
  for i in $(seq 1 "$2"); do
    alive "$1" || return 0
    sleep 0.5
  done
}

# stop_pid NAME PID stops PID: TERM, then KILL after 30 s; fails when it survives both.
stop_pid() {
  kill "$2" 2>/dev/null || true
  wait_exit "$2" 60
  if alive "$2"; then
    say "$1 (pid $2) did not stop within 30s: killing it"
    kill -9 "$2" 2>/dev/null || true
    wait_exit "$2" 20
  fi
  if alive "$2"; then
    say "$1 (pid $2) is still running after SIGKILL"
    return 1
  fi
  say "$1 stopped (pid $2)"
}

# proc_listeners [INODES] [PORT] decodes /proc/net/tcp and tcp6 into the local addresses of
# listening sockets, as ss prints them (127.0.0.1:16443, [::]:2380), keeping those whose inode
# is in the space-separated INODES (when set) and whose port is PORT (when set).
proc_listeners() {
  awk -v inodes=" $1 " -v want="$2" '
    function byte(h) { return (index("0123456789ABCDEF", substr(h, 1, 1)) - 1) * 16 + index("0123456789ABCDEF", substr(h, 2, 1)) - 1 }
    FNR == 1 || $4 != "0A" { next }                      # headers; 0A is TCP_LISTEN
    inodes != "  " && index(inodes, " " $10 " ") == 0 { next }
    { split(toupper($2), a, ":"); port = byte(substr(a[2], 1, 2)) * 256 + byte(substr(a[2], 3, 2)) }
    want != "" && port != want { next }
    length(a[1]) == 8 {                                  # IPv4, little-endian
      printf "%d.%d.%d.%d:%d\n", byte(substr(a[1], 7, 2)), byte(substr(a[1], 5, 2)), byte(substr(a[1], 3, 2)), byte(substr(a[1], 1, 2)), port
      next
    }
    a[1] == "00000000000000000000000001000000" { print "[::1]:" port; next }
    a[1] == "00000000000000000000000000000000" { print "[::]:" port; next }
    { print "[" a[1] "]:" port }
  ' /proc/net/tcp /proc/net/tcp6 2>/dev/null | sort -u
}

# pid_listens PID prints the local address of every listening TCP socket of PID, one a line.
pid_listens() {
  if command -v ss >/dev/null 2>&1; then
    ss -Hltnp 2>/dev/null | grep -F "pid=$1," | awk '{print $4}' | sort -u
    return 0
  fi
  local inodes
  inodes="$(find "/proc/$1/fd" -maxdepth 1 -type l -printf '%l\n' 2>/dev/null | sed -n 's/^socket:\[\([0-9]*\)\]$/\1/p' | tr '\n' ' ')"
  [ -n "$inodes" ] || return 0
  proc_listeners "$inodes" ""
}

# port_listens PORT prints the local address of every listening TCP socket on PORT, one a line.
port_listens() {
  if command -v ss >/dev/null 2>&1; then
    ss -Hltn "sport = :$1" 2>/dev/null | awk '{print $4}' | sort -u
    return 0
  fi
  proc_listeners "" "$1"
}

# one_line joins its input's lines with spaces.
one_line() {
  local a
  a="$(tr '\n' ' ')"
  printf '%s' "${a% }"
}

# not_loopback succeeds when an address on its input is not a loopback one.
not_loopback() { grep -Evq '^(127\.0\.0\.1|\[::1\]|\[::ffff:127\.0\.0\.1\]):'; }

# port_holders PORT names whatever listens on PORT (all addresses) with its pid, binary and
# working directory when ss can tell; empty when nothing does or without ss.
port_holders() {
  command -v ss >/dev/null 2>&1 || return 0
  local line out="" pid addr
  while read -r line; do
    [ -n "$line" ] || continue
    addr="$(awk '{print $4}' <<<"$line")"
    pid="$(grep -o 'pid=[0-9]*' <<<"$line" | head -n1 | cut -d= -f2)"
    out="${out:+$out, }$addr${pid:+ (pid $pid, $(readlink "/proc/$pid/exe" 2>/dev/null || echo '?') in $(readlink "/proc/$pid/cwd" 2>/dev/null || echo '?'))}"
  done < <(ss -Hltnp "sport = :$1" 2>/dev/null)
  printf '%s' "$out"
}
