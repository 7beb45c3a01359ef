#!/usr/bin/env bash
# A real Kubernetes API server on 127.0.0.1 for the composition tests and for trying manifests by
# hand: etcd and kube-apiserver v1.34.4, built from the pinned wrapper modules in tools/k8s/, with
# Karpenter's CRDs (the provider's own embedded copy, via cmd/k8s-crds) installed. No controllers,
# scheduler or nodes: enough for kubernetes_manifest, server-side apply and CRD validation.
#   scripts/k8s.sh up|use|down|status|build|env
# (use: what make demo calls; it reuses a server another checkout started on the same port.
# DEMO_ONLY=1 build builds only what the demo needs.)
# Binaries, certificates, the kubeconfig, etcd's data and the logs live in .k8s/ (git-ignored).
# Ports: K8S_API_PORT (16443), K8S_ETCD_PORT (23790), K8S_ETCD_PEER_PORT (23800); K8S_WORKDIR
# moves .k8s/ and K8S_BIN its bin/ (to share the binaries with another server).
# K8S_KARPENTER_VERSION (1.9 … 1.15, default the newest the provider embeds) picks the Karpenter
# minor whose CRDs are installed under Karpenter's groups; every minor's EC2NodeClass and NodePool
# are also installed under groups of their own (v1-9.karpenter.sh …) for the validator
# differential. K8S_CRDS=none starts the server without them (a cluster before Karpenter is
# installed).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
WORK="${K8S_WORKDIR:-$ROOT/.k8s}"
BIN="${K8S_BIN:-$WORK/bin}"
PKI="$WORK/pki"
API_PORT="${K8S_API_PORT:-16443}"
ETCD_PORT="${K8S_ETCD_PORT:-23790}"
ETCD_PEER_PORT="${K8S_ETCD_PEER_PORT:-23800}"
API_URL="https://127.0.0.1:${API_PORT}"
ETCD_URL="http://127.0.0.1:${ETCD_PORT}"
KUBECONFIG_FILE="$WORK/kubeconfig"
# kubectl and the Terraform providers: $BIN, unless `use` reuses another checkout's server.
CLIENT_BIN="$BIN"
KUBE_VERSION="v1.34.4"
TOOLS="$ROOT/tools/k8s"
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

# --- building -------------------------------------------------------------------------------

# kube-apiserver and kubectl report this version only when it is linked in (kubectl cannot parse
# the default).
kube_ldflags() {
  local p f out="-s -w"
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    for f in "gitVersion=${KUBE_VERSION}" "gitMajor=1" "gitMinor=34"; do
      out="$out -X $p.$f"
    done
  done
  printf '%s' "$out"
}

# bin_name PACKAGE is the file name go build gives PACKAGE's binary: its last element, or the one
# before a major-version suffix (go.etcd.io/etcd/server/v3 is "server").
bin_name() {
  local p="$1"
  case "${p##*/}" in v[0-9]*) p="${p%/*}" ;; esac
  printf '%s' "${p##*/}"
}

# stamp_of DIR PACKAGE LDFLAGS identifies a build: the wrapper's go.mod and go.sum, the package,
# the flags and Go.
stamp_of() { (cat "$1/go.mod" "$1/go.sum"; printf '%s %s\n' "$2" "$3"; go version) | sha256sum | cut -d' ' -f1; }

# build_mod WRAPPER LDFLAGS NAME=PACKAGE... builds the PACKAGEs of the wrapper module
# tools/k8s/WRAPPER into $BIN/NAME, in one go build (packages they share are loaded and linked in
# one go), leaving out each binary that was built from the same go.mod, go.sum, flags and Go.
build_mod() {
  local wrapper="$1" dir="$TOOLS/$1" ldflags="$2" spec name pkg tmp t0
  shift 2
  local names=() pkgs=() stamps=()
  for spec in "$@"; do
    name="${spec%%=*}" pkg="${spec#*=}"
    local want
    want="$(stamp_of "$dir" "$pkg" "$ldflags")"
    if [ -x "$BIN/$name" ] && [ "$(cat "$BIN/.$name.stamp" 2>/dev/null)" = "$want" ]; then continue; fi
    names+=("$name") pkgs+=("$pkg") stamps+=("$want")
  done
  [ "${#names[@]}" -gt 0 ] || return 0
  say "building ${names[*]} from tools/k8s/$wrapper (minutes the first time)"
  t0=$SECONDS
  mkdir -p "$BIN"
  tmp="$(mktemp -d "$BIN/.build.XXXXXX")"
  # The wrapper's go.sum pins everything: -mod=readonly fails instead of resolving anew.
  if ! (cd "$dir" && GOWORK=off GOFLAGS="-mod=readonly -buildvcs=false" \
    go build -trimpath -ldflags "$ldflags" -o "$tmp/" "${pkgs[@]}"); then
    rm -rf "$tmp"
    return 1
  fi
  local i
  for i in "${!names[@]}"; do
    mv -f "$tmp/$(bin_name "${pkgs[$i]}")" "$BIN/${names[$i]}"
    printf '%s\n' "${stamps[$i]}" >"$BIN/.${names[$i]}.stamp"
  done
  rmdir "$tmp"
  say "built ${names[*]} in $((SECONDS - t0))s"
}

# demo_set is what make demo needs: wrapper, ldflags and NAME=PACKAGE, one build_mod a line.
demo_set() {
  printf '%s\n' "etcd|-s -w|etcd=go.etcd.io/etcd/server/v3" \
    "apiserver|$(kube_ldflags)|kube-apiserver=k8s.io/kubernetes/cmd/kube-apiserver kubectl=k8s.io/kubernetes/cmd/kubectl" \
    "kubernetes-provider|-s -w|terraform-provider-kubernetes=github.com/hashicorp/terraform-provider-kubernetes"
}

# build builds what the API server and the composition tests use; the wrapper modules build side
# by side (go build runs one link at a time, and a cold module cache downloads while another
# compiles). With DEMO_ONLY set it leaves out the kubectl provider, which only the acceptance
# tests use.
build() {
  local pids=() pid rc=0 wrapper ldflags specs
  while IFS='|' read -r wrapper ldflags specs; do
    # shellcheck disable=SC2086 # NAME=PACKAGE words
    build_mod "$wrapper" "$ldflags" $specs </dev/null &
    pids+=("$!")
  done < <(
    demo_set
    [ -n "${DEMO_ONLY:-}" ] || echo "kubectl-provider|-s -w|terraform-provider-kubectl=github.com/gavinbunney/terraform-provider-kubectl"
  )
  for pid in "${pids[@]}"; do wait "$pid" || rc=1; done
  [ "$rc" -eq 0 ] || { say "a build failed (above)"; exit 1; }
}

# --- certificates and credentials -------------------------------------------------------------

# pki writes, once, a CA, the API server's serving certificate (127.0.0.1 and localhost), the
# service-account key pair and a static admin token (group system:masters).
pki() {
  mkdir -p "$PKI"
  chmod 700 "$PKI"
  if [ -s "$PKI/ca.crt" ] && [ -s "$PKI/apiserver.crt" ] && [ -s "$PKI/sa.pub" ] && [ -s "$PKI/tokens.csv" ]; then
    return 0
  fi
  say "writing certificates and the admin token into $PKI"
  (
    cd "$PKI"
    umask 077
    openssl req -x509 -newkey rsa:2048 -nodes -sha256 -days 3650 -subj "/CN=karpenter-test-ca" \
      -keyout ca.key -out ca.crt 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -sha256 -subj "/CN=kube-apiserver" \
      -keyout apiserver.key -out apiserver.csr 2>/dev/null
    printf '%s\n' "subjectAltName=IP:127.0.0.1,DNS:localhost" "keyUsage=critical,digitalSignature,keyEncipherment" \
      "extendedKeyUsage=serverAuth" "basicConstraints=critical,CA:FALSE" >apiserver.ext
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -sha256 -days 3650 \
      -extfile apiserver.ext -out apiserver.crt 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    printf '%s,admin,admin,"system:masters"\n' "$(openssl rand -hex 24)" >tokens.csv
    rm -f apiserver.csr apiserver.ext ca.srl
  )
}

token() { cut -d, -f1 "$PKI/tokens.csv"; }

kubeconfig() {
  local ca
  ca="$(base64 -w0 <"$PKI/ca.crt")"
  (
    umask 077
    cat >"$KUBECONFIG_FILE.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: karpenter-test
  cluster:
    server: ${API_URL}
    certificate-authority-data: ${ca}
users:
- name: admin
  user:
    token: $(token)
contexts:
- name: karpenter-test
  context:
    cluster: karpenter-test
    user: admin
current-context: karpenter-test
EOF
  )
  mv -f "$KUBECONFIG_FILE.tmp" "$KUBECONFIG_FILE"
}

kubectl_() { "$CLIENT_BIN/kubectl" --kubeconfig "$KUBECONFIG_FILE" "$@"; }

# --- processes and listeners ----------------------------------------------------------------

pidfile() { printf '%s/%s.pid' "$WORK" "$1"; }

# pid_of NAME prints the pid of the NAME (etcd, kube-apiserver) this directory started, if it
# still runs that binary.
pid_of() {
  local f pid exe
  f="$(pidfile "$1")"
  [ -f "$f" ] || return 1
  pid="$(cat "$f")"
  alive "$pid" || return 1
  exe="$(readlink "/proc/$pid/exe" 2>/dev/null || true)"
  case "$exe" in "$BIN/$1" | "$BIN/$1 (deleted)") ;; *) return 1 ;; esac
  printf '%s' "$pid"
}

# stale PID: the process runs a binary that has since been rebuilt.
stale() { case "$(readlink "/proc/$1/exe" 2>/dev/null)" in *" (deleted)") return 0 ;; esac; return 1; }

listen_line() { pid_listens "$1" | one_line; }

# exposed PID succeeds when PID listens on anything but the loopback address.
exposed() { pid_listens "$1" | not_loopback; }

require_free() {
  local h
  h="$(port_holders "$1")"
  if [ -n "$h" ]; then
    say "port $1 ($2) is already taken: $h; stop it or set $3"
    exit 1
  fi
}

# stop NAME stops the process this directory started for NAME, if it runs (stop_pid), and
# waits until it is gone (the API server holds its port for a few seconds while it shuts down).
stop() {
  local name="$1" f pid
  f="$(pidfile "$name")"
  if ! pid="$(pid_of "$name")"; then
    rm -f "$f"
    return 0
  fi
  stop_pid "$name" "$pid" || exit 1
  rm -f "$f"
}

# --- etcd and kube-apiserver ----------------------------------------------------------------

etcd_healthy() { curl -fsS --max-time 2 "$ETCD_URL/health" 2>/dev/null | grep -q '"health":"true"'; }

api_healthy() {
  [ -s "$PKI/tokens.csv" ] || return 1
  [ "$(curl -fsS --max-time 3 --cacert "$PKI/ca.crt" -H "Authorization: Bearer $(token)" "$API_URL/readyz" 2>/dev/null)" = "ok" ]
}

api_version() {
  curl -fsS --max-time 3 --cacert "$PKI/ca.crt" -H "Authorization: Bearer $(token)" "$API_URL/version" 2>/dev/null |
    sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p'
}

# check_started NAME PID fails with the log's tail when PID died, and stops everything and fails
# when it listens beyond 127.0.0.1.
check_started() {
  local name="$1" pid="$2"
  if ! alive "$pid"; then
    say "$name exited during start-up; last lines of $WORK/$name.log:"
    tail -n 30 "$WORK/$name.log" >&2
    down_all
    exit 1
  fi
  if exposed "$pid"; then
    say "$name listens beyond 127.0.0.1 ($(listen_line "$pid")): stopping everything"
    down_all
    exit 1
  fi
}

start_etcd() {
  mkdir -p "$WORK/etcd"
  chmod 700 "$WORK/etcd"
  say "starting etcd on $ETCD_URL (log: $WORK/etcd.log)"
  # --unsafe-no-fsync: throwaway test data, and each write would otherwise wait for the disk.
  (
    cd "$WORK"
    nohup "$BIN/etcd" --name karpenter-test --data-dir "$WORK/etcd" \
      --listen-client-urls "$ETCD_URL" --advertise-client-urls "$ETCD_URL" \
      --listen-peer-urls "http://127.0.0.1:${ETCD_PEER_PORT}" \
      --initial-advertise-peer-urls "http://127.0.0.1:${ETCD_PEER_PORT}" \
      --initial-cluster "karpenter-test=http://127.0.0.1:${ETCD_PEER_PORT}" \
      --unsafe-no-fsync --log-level warn >"$WORK/etcd.log" 2>&1 &
    echo $! >"$(pidfile etcd)"
  )
  local pid i
  pid="$(cat "$(pidfile etcd)")"
  for i in $(seq 1 60); do
    etcd_healthy && break
    alive "$pid" || break
    sleep 0.5
  done
  check_started etcd "$pid"
  etcd_healthy || {
    say "etcd did not become healthy within 30s; see $WORK/etcd.log"
    down_all
    exit 1
  }
}

start_apiserver() {
  say "starting kube-apiserver ${KUBE_VERSION} on $API_URL (log: $WORK/kube-apiserver.log)"
  local t0=$SECONDS
  (
    cd "$WORK"
    nohup "$BIN/kube-apiserver" \
      --bind-address=127.0.0.1 --advertise-address=127.0.0.1 --secure-port="$API_PORT" \
      --etcd-servers="$ETCD_URL" \
      --cert-dir="$PKI" --tls-cert-file="$PKI/apiserver.crt" --tls-private-key-file="$PKI/apiserver.key" \
      --client-ca-file="$PKI/ca.crt" --token-auth-file="$PKI/tokens.csv" --anonymous-auth=false \
      --authorization-mode=RBAC \
      --service-cluster-ip-range=10.0.0.0/24 \
      --service-account-issuer=https://kubernetes.default.svc \
      --service-account-key-file="$PKI/sa.pub" --service-account-signing-key-file="$PKI/sa.key" \
      --disable-admission-plugins=ServiceAccount \
      --profiling=false >"$WORK/kube-apiserver.log" 2>&1 &
    echo $! >"$(pidfile kube-apiserver)"
  )
  local pid i
  pid="$(cat "$(pidfile kube-apiserver)")"
  for i in $(seq 1 120); do
    api_healthy && break
    alive "$pid" || break
    sleep 0.5
  done
  check_started kube-apiserver "$pid"
  api_healthy || {
    say "kube-apiserver did not become ready within 60s; see $WORK/kube-apiserver.log"
    down_all
    exit 1
  }
  say "kube-apiserver ready after $((SECONDS - t0))s"
}

# crds_established FILE succeeds when every CRD of FILE exists and is Established (one GET: a
# kubectl wait per CRD takes longer than a status check should).
crds_established() {
  local states
  states="$(kubectl_ get -f "$1" -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Established")].status}{"\n"}{end}' 2>/dev/null)" || return 1
  [ -n "$states" ] && ! grep -qv '^True$' <<<"$states"
}

# crds applies Karpenter's CRDs (cmd/k8s-crds) by server-side apply when they differ from the
# last applied copy or are not established, and waits until they are.
crds() {
  local want="$WORK/crds.yaml" new="$WORK/crds.yaml.new"
  # -trimpath as the provider builds: the packages they share compile once.
  (cd "$ROOT" && go run -trimpath ./cmd/k8s-crds -differential ${K8S_KARPENTER_VERSION:+-karpenter-version "$K8S_KARPENTER_VERSION"}) >"$new"
  if cmp -s "$new" "$want" && crds_established "$want"; then
    rm -f "$new"
    say "Karpenter CRDs installed and unchanged"
    return 0
  fi
  kubectl_ apply --server-side --force-conflicts --field-manager=k8s.sh -f "$new" >&2
  kubectl_ wait --for condition=Established --timeout=60s -f "$new" >&2
  mv -f "$new" "$want"
}

up() {
  mkdir -p "$WORK"
  build
  pki
  local epid apid
  epid="$(pid_of etcd || true)"
  apid="$(pid_of kube-apiserver || true)"
  # A binary rebuilt since it started: restart it on the new one.
  if [ -n "$apid" ] && stale "$apid"; then
    say "kube-apiserver was rebuilt: restarting it"
    stop kube-apiserver
    apid=""
  fi
  if [ -n "$epid" ] && stale "$epid"; then
    say "etcd was rebuilt: restarting it"
    [ -z "$apid" ] || stop kube-apiserver
    stop etcd
    epid="" apid=""
  fi
  if [ -n "$epid" ] && [ -n "$apid" ] && api_healthy; then
    say "kube-apiserver already up at $API_URL ($(api_version), pid $apid), listening on $(listen_line "$apid")"
  else
    if [ -z "$epid" ] || ! etcd_healthy; then
      [ -z "$apid" ] || stop kube-apiserver
      [ -z "$epid" ] || stop etcd
      # Check every port before starting anything, so that a taken one leaves nothing behind.
      require_free "$ETCD_PORT" "etcd clients" K8S_ETCD_PORT
      require_free "$ETCD_PEER_PORT" "etcd peers" K8S_ETCD_PEER_PORT
      require_free "$API_PORT" "kube-apiserver" K8S_API_PORT
      start_etcd
      apid=""
    fi
    if [ -n "$apid" ]; then # running but not ready: give it the start-up time, then restart it
      for _ in $(seq 1 60); do
        api_healthy && break
        sleep 0.5
      done
      api_healthy || { stop kube-apiserver; apid=""; }
    fi
    if [ -z "$apid" ]; then
      require_free "$API_PORT" "kube-apiserver" K8S_API_PORT
      start_apiserver
    fi
    epid="$(pid_of etcd)"
    apid="$(pid_of kube-apiserver)"
  fi
  check_started etcd "$epid"
  check_started kube-apiserver "$apid"
  kubeconfig
  if [ "${K8S_CRDS:-}" = none ]; then
    say "Karpenter CRDs not installed (K8S_CRDS=none)"
  else
    crds
  fi
  say "etcd listening on $(listen_line "$epid"); kube-apiserver on $(listen_line "$apid")"
  say "kubeconfig: $KUBECONFIG_FILE (kubectl: $BIN/kubectl)"
}

down_all() {
  stop kube-apiserver
  stop etcd
}

down() {
  local any=""
  if pid_of kube-apiserver >/dev/null || pid_of etcd >/dev/null; then any=1; fi
  down_all
  [ -n "$any" ] || say "no etcd or kube-apiserver started from $WORK is running"
  local p h
  for p in "$API_PORT" "$ETCD_PORT" "$ETCD_PEER_PORT"; do
    h="$(port_holders "$p")"
    [ -z "$h" ] || say "port $p is held by a process started elsewhere ($h): not stopped"
  done
}

# status fails unless both run, kube-apiserver is ready, and neither listens beyond 127.0.0.1.
status() {
  local rc=0 pid
  if pid="$(pid_of etcd)" && etcd_healthy; then
    if exposed "$pid"; then
      echo "etcd up (pid $pid) but EXPOSED: listening on $(listen_line "$pid"); restart it with: make k8s-down k8s-up"
      rc=1
    else
      echo "etcd up at $ETCD_URL (pid $pid), listening on $(listen_line "$pid")"
    fi
  else
    echo "etcd down at $ETCD_URL (start it with: make k8s-up)"
    rc=1
  fi
  if pid="$(pid_of kube-apiserver)" && api_healthy; then
    if exposed "$pid"; then
      echo "kube-apiserver up (pid $pid) but EXPOSED: listening on $(listen_line "$pid"); restart it with: make k8s-down k8s-up"
      rc=1
    else
      echo "kube-apiserver up at $API_URL ($(api_version), pid $pid), listening on $(listen_line "$pid"); kubeconfig $KUBECONFIG_FILE"
    fi
    if [ -f "$WORK/crds.yaml" ] && crds_established "$WORK/crds.yaml"; then
      local names
      names="$(kubectl_ get -f "$WORK/crds.yaml" -o name | sed 's|.*/||')"
      echo "Karpenter CRDs established: $(grep -Ev '\.v1-[0-9]+\.' <<<"$names" | paste -sd' ') and $(grep -Ec '\.v1-[0-9]+\.' <<<"$names") copies for the differential"
    else
      echo "Karpenter CRDs not installed (run: make k8s-up)"
      rc=1
    fi
  else
    echo "kube-apiserver down at $API_URL (start it with: make k8s-up)"
    rc=1
  fi
  return "$rc"
}

# --- the demo's server ----------------------------------------------------------------------

# other_server succeeds when the API port is held by a kube-apiserver that another directory
# started (another checkout's make k8s-up: its working directory holds pki/ and kubeconfig) and
# that answers with that directory's token; it then points WORK, PKI and KUBECONFIG_FILE there.
other_server() {
  local pid exe dir
  command -v ss >/dev/null 2>&1 || return 1
  pid="$(ss -Hltnp "sport = :$API_PORT" 2>/dev/null | grep -o 'pid=[0-9]*' | head -n1 | cut -d= -f2)"
  [ -n "$pid" ] || return 1
  exe="$(readlink "/proc/$pid/exe" 2>/dev/null)" || return 1
  exe="${exe% (deleted)}"
  [ "${exe##*/}" = kube-apiserver ] || return 1
  dir="$(readlink "/proc/$pid/cwd" 2>/dev/null)" || return 1
  [ "$dir" != "$WORK" ] && [ -r "$dir/kubeconfig" ] && [ -r "$dir/pki/tokens.csv" ] || return 1
  local own_pki="$PKI"
  PKI="$dir/pki"
  if ! api_healthy; then
    PKI="$own_pki"
    return 1
  fi
  WORK="$dir" KUBECONFIG_FILE="$dir/kubeconfig" OTHER_BIN="${exe%/*}"
}

# use gives the demo an API server with Karpenter's CRDs and prints, like env, how to reach it.
# When another checkout's kube-apiserver already holds the port (the services are shared), it
# uses that one as it is: its kubeconfig, its kubectl and kubernetes provider when it has them
# (else builds them here), and checks that the CRDs the demo needs are there rather than
# applying this checkout's copy over a server it did not start. Otherwise it starts this
# checkout's server as up does, without building the kubectl provider (the demo does not use it).
use() {
  if ! pid_of kube-apiserver >/dev/null && other_server; then
    say "kube-apiserver already up at $API_URL ($(api_version)), started from $WORK: using it"
    if [ -x "$OTHER_BIN/kubectl" ] && [ -x "$OTHER_BIN/terraform-provider-kubernetes" ]; then
      CLIENT_BIN="$OTHER_BIN"
    else
      build_mod apiserver "$(kube_ldflags)" kubectl=k8s.io/kubernetes/cmd/kubectl
      build_mod kubernetes-provider "-s -w" terraform-provider-kubernetes=github.com/hashicorp/terraform-provider-kubernetes
    fi
    local crd states
    for crd in ec2nodeclasses.karpenter.k8s.aws nodepools.karpenter.sh; do
      states="$(kubectl_ get crd "$crd" -o jsonpath='{.status.conditions[?(@.type=="Established")].status}' 2>/dev/null || true)"
      if [ "$states" != True ]; then
        say "the CRD $crd is not established on that server; run make k8s-up in ${WORK%/*}"
        exit 1
      fi
    done
  else
    DEMO_ONLY=1 up
  fi
  env_
}

# env prints, for eval, the variables the composition tests read, KUBECONFIG, and the matching
# kubectl.
env_() {
  printf 'export KUBECONFIG=%q\n' "$KUBECONFIG_FILE"
  printf 'export KARPENTER_TEST_KUBECONFIG=%q\n' "$KUBECONFIG_FILE"
  printf 'export KARPENTER_TEST_KUBERNETES_PROVIDER_DIR=%q\n' "$CLIENT_BIN"
  printf 'export KARPENTER_TEST_KUBECTL=%q\n' "$CLIENT_BIN/kubectl"
}

case "${1:-}" in
up) up ;;
use) use ;;
down) down ;;
status) status ;;
build) build ;;
env) env_ ;;
*)
  echo "usage: $0 up|use|down|status|build|env" >&2
  exit 2
  ;;
esac
