#!/usr/bin/env bash
# Makes sure the real infrastructure the tests use is running on this machine:
# PostgreSQL on 127.0.0.1:5432, Redis on 127.0.0.1:6379 and a Kafka broker (scripts/kafka/kafka.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

up() {
  if ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
    echo "starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start
    for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
  fi
  if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    echo "starting Redis"
    redis-server --daemonize yes --bind 127.0.0.1 --port 6379 --save "" --appendonly no
    for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 1; done
  fi
  bash "$root/scripts/kafka/kafka.sh" start
}

case "${1:-up}" in
  up) up ;;
  down) bash "$root/scripts/kafka/kafka.sh" stop ;;
  *) echo "usage: $0 [up|down]" >&2; exit 2 ;;
esac
