#!/bin/sh
# Prepares the cluster for rampflow once the Temporal server answers: the namespace, and the search
# attributes rampflow's workflows set (a workflow that upserts an unregistered attribute fails its
# task). Idempotent, so it runs on every `up`. Configured by TEMPORAL_ADDRESS and TEMPORAL_NAMESPACE;
# TEMPORAL_CLI names the Temporal CLI when it is not `temporal` on PATH (`npm run cluster` passes the
# project's own). docker-compose.yml runs it in Temporal's admin-tools image.
set -eu

temporal() {
  if [ -n "${TEMPORAL_CLI:-}" ]; then "$TEMPORAL_CLI" "$@"; else command temporal "$@"; fi
}

: "${TEMPORAL_ADDRESS:?}" "${TEMPORAL_NAMESPACE:?}"
export TEMPORAL_ADDRESS

until temporal operator cluster health >/dev/null 2>&1; do
  echo "temporal-setup: waiting for Temporal at $TEMPORAL_ADDRESS"
  sleep 2
done

if ! temporal operator namespace describe --namespace "$TEMPORAL_NAMESPACE" >/dev/null 2>&1; then
  temporal operator namespace create --namespace "$TEMPORAL_NAMESPACE" --retention 30d
fi

# The names and types of observability/search-attributes.ts (test/deploy checks they agree). Each --name
# takes the --type at the same position: the CLI registers one attribute per --type, so a single
# --type for several names registers only the first. Creating an attribute that exists with the same
# type succeeds; a different type fails, as it should. A new namespace takes a few seconds to reach
# every server role, hence the retries.
attempt=1
until temporal operator search-attribute create --namespace "$TEMPORAL_NAMESPACE" \
  --name RampStage --type Keyword \
  --name RampExternalId --type Keyword \
  --name RampCustomerId --type Keyword \
  --name RampStageSince --type Datetime; do
  if [ "$attempt" -ge 30 ]; then
    echo "temporal-setup: could not register the search attributes" >&2
    exit 1
  fi
  attempt=$((attempt + 1))
  sleep 2
done
echo "temporal-setup: namespace $TEMPORAL_NAMESPACE and rampflow's search attributes are ready"
