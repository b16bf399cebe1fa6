#!/bin/sh
# One-shot topic creation for deploy/compose.yaml, the laptop's stand-in for the KafkaTopic
# resources of deploy/k8s/base/platform/topics.yaml: same names (KAFKA_TOPIC_PREFIX "pf."), same
# partitions and cleanup policies, replication factor 1 (one broker). deploy/test checks both
# lists against the topics the code uses. Idempotent (--if-not-exists).
set -eu
bootstrap="${KAFKA_BOOTSTRAP:-kafka:9092}"

topic() { # name partitions cleanup-policy
  /opt/kafka/bin/kafka-topics.sh --bootstrap-server "$bootstrap" --create --if-not-exists \
    --topic "$1" --partitions "$2" --replication-factor 1 --config "cleanup.policy=$3"
}

topic pf.accounts.teams 3 compact
topic pf.accounts.channels 3 compact
topic pf.accounts.api-tokens 3 delete
topic pf.catalog.products 6 compact
topic pf.catalog.shipping-methods 3 compact
topic pf.stock.stock-levels 12 delete
topic pf.orders.orders 12 delete
echo "topics ready"
