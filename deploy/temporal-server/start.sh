#!/bin/sh
# Starts the Temporal server, every role in one process, with rampflow.yaml beside this script and the
# environment it documents. `npm run cluster` (and so `npm run test:cluster`) and docker-compose.yml
# both start the server through this script; TEMPORAL_SERVER names the binary when it is not
# `temporal-server` on PATH (`npm run cluster` passes the project's own build).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
export DYNAMIC_CONFIG_FILE_PATH="${DYNAMIC_CONFIG_FILE_PATH:-$here/dynamicconfig.yaml}"

# Listening on every interface (in a container), the roles must tell each other an address they can
# reach: the container's own.
if [ "${BIND_ON_IP:-127.0.0.1}" = "0.0.0.0" ] && [ -z "${TEMPORAL_BROADCAST_ADDRESS:-}" ]; then
  TEMPORAL_BROADCAST_ADDRESS=$(hostname -i | cut -d' ' -f1)
  export TEMPORAL_BROADCAST_ADDRESS
fi

# No authorizer: the frontend is reached only from rampflow's private network (compose) or loopback.
exec "${TEMPORAL_SERVER:-temporal-server}" --root "$here" --config . --env rampflow --allow-no-auth start
