#!/usr/bin/env bash
# Releases one service of an overlay without touching the others (docs/deploy.md):
#
#   kustomize edit set image ...   # or edit overlays/<overlay>/kustomization.yaml: the new tag
#   deploy/k8s/rollout.sh prod orders
#
# 1. renders the overlay, and applies the shared settings (pf-common: a change gives it a new name,
#    which the service's new Deployment and Job refer to; the old one stays for the old pods);
# 2. runs the service's migration Job to completion (the finished Job of the previous release is
#    deleted first: a Job's pod template cannot change), and stops if it fails;
# 3. applies the service's own objects only (its ConfigMap, Deployment, Service, HPA, PDB,
#    NetworkPolicies: everything labelled app.kubernetes.io/name=<service>);
# 4. waits until the new pods are ready.
# Other shared objects (Kafka, topics, Postgres, network baseline) change only with a full
# `kubectl apply -k deploy/k8s/overlays/<overlay>`, never together with new image tags.
set -euo pipefail

usage() { echo "usage: $0 <dev|prod> <service>" >&2; exit 64; }
[ $# -eq 2 ] || usage
overlay="$1"
service="$2"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
dir="$root/deploy/k8s/overlays/$overlay"
[ -d "$dir" ] || { echo "no overlay $overlay in deploy/k8s/overlays" >&2; exit 64; }

manifest="$(mktemp)"
trap 'rm -f "$manifest"' EXIT
kubectl kustomize "$dir" >"$manifest"
namespace="$(awk '/^  namespace: /{ print $2; exit }' "$manifest")"
grep -q "^  name: ${service}\$" "$manifest" || { echo "no service $service in overlay $overlay" >&2; exit 64; }
ns=(--namespace "$namespace")

echo "== shared settings"
kubectl apply -f "$manifest" -l "app.kubernetes.io/component=shared-settings"

if grep -q "^  name: ${service}-migrate\$" "$manifest"; then
  echo "== $service: migrations"
  kubectl "${ns[@]}" delete job "${service}-migrate" --ignore-not-found --wait=true
  kubectl apply -f "$manifest" -l "app.kubernetes.io/name=${service},app.kubernetes.io/component=migration"
  # Until the Job is Complete or Failed (activeDeadlineSeconds bounds it at 10 minutes).
  state=""
  for _ in $(seq 1 130); do
    state="$(kubectl "${ns[@]}" get job "${service}-migrate" -o jsonpath='{.status.conditions[?(@.status=="True")].type}')"
    case "$state" in *Complete*|*Failed*) break ;; esac
    sleep 5
  done
  if [[ "$state" != *Complete* ]]; then
    echo "== $service: the migration Job did not complete (${state:-still running}); nothing else was changed. Its log:" >&2
    kubectl "${ns[@]}" logs "job/${service}-migrate" --tail=50 >&2 || true
    exit 1
  fi
fi

echo "== $service: rollout"
kubectl apply -f "$manifest" -l "app.kubernetes.io/name=${service}"
kubectl "${ns[@]}" rollout status "deployment/${service}" --timeout=600s
