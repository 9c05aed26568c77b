#!/usr/bin/env bash
# Smoke test of the kubernetes driver of the tagging servers against a real cluster (kind, k3s, …); not run in CI.
#
#   SGTM_SMOKE_CONFIG='<container config from GTM>' scripts/sgtm-kube-smoke.sh
#
# Through the driver itself (npx tsx): applies a test container in SGTM_KUBE_NAMESPACE (default tagport-sgtm-smoke,
# created if missing), waits until it is available, curls /healthz of the tagging and preview Services through
# `kubectl port-forward`, stops it (zero pods), removes it and checks that nothing labelled with the container is
# left. Uses the current kubectl context (or SGTM_KUBECONFIG). Google's tagging server only starts with a real
# container config (GTM: Admin → Container settings → Manually provision tagging server).
#
# Optional: SGTM_IMAGE, SGTM_VERSION (default stable), SGTM_SMOKE_TIMEOUT (seconds to become available, default 300),
# SGTM_SMOKE_PORT (local port of the port-forward, default 18080).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
NAMESPACE=${SGTM_KUBE_NAMESPACE:-tagport-sgtm-smoke}
IMAGE=${SGTM_IMAGE:-gcr.io/cloud-tagging-10302018/gtm-cloud-image}
VERSION=${SGTM_VERSION:-stable}
TIMEOUT=${SGTM_SMOKE_TIMEOUT:-300}
PORT=${SGTM_SMOKE_PORT:-18080}
CONTAINER_ID="ctr_smoke$(date +%s)"
NAME="sgtm-${CONTAINER_ID#ctr_}"
: "${SGTM_SMOKE_CONFIG:?set SGTM_SMOKE_CONFIG to a container config string from GTM}"

for tool in kubectl curl npx; do
  command -v "$tool" >/dev/null || { echo "smoke: $tool is needed" >&2; exit 2; }
done
KUBECTL=(kubectl)
[[ -n ${SGTM_KUBECONFIG:-} ]] && KUBECTL+=(--kubeconfig "$SGTM_KUBECONFIG")

mkdir -p "$REPO/.tmp"
WORK=$(mktemp -d "$REPO/.tmp/sgtm-kube-smoke.XXXXXX")
PORT_FORWARD_PID=""
cleanup() {
  [[ -n $PORT_FORWARD_PID ]] && kill "$PORT_FORWARD_PID" 2>/dev/null || true
  driver remove >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# One driver call: `driver apply|observe|stop|remove|logs`; observe prints the state as JSON.
cat >"$WORK/driver.ts" <<'TS'
import { KubernetesOrchestrator } from '../../src/modules/tagging-servers/kubernetes-driver.ts';

const env = process.env;
const driver = KubernetesOrchestrator.fromSource({
  kubeConfig: env.SGTM_KUBECONFIG ? { file: env.SGTM_KUBECONFIG } : 'default',
  namespace: env.NAMESPACE!,
  imageRepository: env.IMAGE!,
});
const containerId = env.CONTAINER_ID!;
const action = process.argv[2];
if (action === 'apply') {
  await driver.apply({
    containerId,
    tenantId: 'ten_smoke',
    config: env.SGTM_SMOKE_CONFIG!,
    previewServerUrl: 'https://preview.smoke.invalid',
    version: env.VERSION!,
    replicas: { min: 1, max: 2 },
    resources: { cpuMillis: 250, memoryMiB: 512 },
  });
} else if (action === 'observe') console.log(JSON.stringify(await driver.observe(containerId)));
else if (action === 'stop') await driver.stop(containerId);
else if (action === 'remove') await driver.remove(containerId);
else if (action === 'logs') for (const l of await driver.logs(containerId, { lines: 20 })) console.log(l.replica, l.at, l.line);
else throw new Error(`unknown action ${action}`);
TS
driver() {
  (cd "$REPO" && NAMESPACE=$NAMESPACE IMAGE=$IMAGE VERSION=$VERSION CONTAINER_ID=$CONTAINER_ID npx tsx "$WORK/driver.ts" "$@")
}
phase() { driver observe | sed -E 's/.*"phase":"([a-z]+)".*/\1/'; }
step() { echo "smoke: $*"; }

step "namespace $NAMESPACE, container $CONTAINER_ID, image $IMAGE:$VERSION"
"${KUBECTL[@]}" create namespace "$NAMESPACE" --dry-run=client -o yaml | "${KUBECTL[@]}" apply -f - >/dev/null

step "apply"
driver apply
deadline=$((SECONDS + TIMEOUT))
until [[ $(phase) == available ]]; do
  state=$(driver observe)
  if [[ $state == *'"phase":"failed"'* ]] || ((SECONDS > deadline)); then
    echo "smoke: not available: $state" >&2
    driver logs >&2 || true
    exit 1
  fi
  sleep 5
done
step "available: $(driver observe)"

for service in "$NAME" "$NAME-preview"; do
  "${KUBECTL[@]}" -n "$NAMESPACE" port-forward "svc/$service" "$PORT:8080" >/dev/null 2>&1 &
  PORT_FORWARD_PID=$!
  for _ in $(seq 1 20); do curl -fsS "http://127.0.0.1:$PORT/healthz" >/dev/null 2>&1 && break; sleep 0.5; done
  step "GET /healthz of svc/$service: $(curl -fsS -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/healthz")"
  kill "$PORT_FORWARD_PID" && wait "$PORT_FORWARD_PID" 2>/dev/null || true
  PORT_FORWARD_PID=""
done

step "stop"
driver stop
[[ $(phase) == stopped ]] || { echo "smoke: stop did not give stopped" >&2; exit 1; }
"${KUBECTL[@]}" -n "$NAMESPACE" wait --for=delete pod -l "tagport.io/container=$CONTAINER_ID" --timeout=120s >/dev/null 2>&1 || true
[[ -z $("${KUBECTL[@]}" -n "$NAMESPACE" get pods -l "tagport.io/container=$CONTAINER_ID" -o name) ]] ||
  { echo "smoke: pods left after stop" >&2; exit 1; }

step "remove"
driver remove
left=""
for _ in $(seq 1 60); do
  left=$("${KUBECTL[@]}" -n "$NAMESPACE" get all,secrets,hpa,pdb -l "tagport.io/container=$CONTAINER_ID" -o name)
  [[ -z $left ]] && break
  sleep 2
done
[[ -z $left ]] || { echo "smoke: left after remove: $left" >&2; exit 1; }
[[ $(phase) == absent ]] || { echo "smoke: observe is not absent after remove" >&2; exit 1; }
step "ok: nothing labelled tagport.io/container=$CONTAINER_ID is left"
