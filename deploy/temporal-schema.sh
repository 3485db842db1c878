#!/bin/sh
# Creates (first run) or upgrades (later runs) the Temporal databases on PostgreSQL, the steps of
# Temporal's auto-setup image, as a job of its own so the server runs the plain production image.
# `npm run cluster` runs it with the project's own build of the tool, docker-compose.yml in Temporal's
# admin-tools image. The schemas are the ones embedded in temporal-sql-tool, so they always match the
# tool's (and so the server's) version.
#
# Configured by the variables of deploy/temporal-server/rampflow.yaml: POSTGRES_SEEDS, DB_PORT,
# POSTGRES_USER, POSTGRES_PWD, and optionally DBNAME and VISIBILITY_DBNAME; TEMPORAL_SQL_TOOL names
# the tool when it is not on PATH.
set -eu

: "${POSTGRES_SEEDS:?}" "${DB_PORT:?}" "${POSTGRES_USER:?}" "${POSTGRES_PWD:?}"
SQL_TOOL="${TEMPORAL_SQL_TOOL:-temporal-sql-tool}"

sql_tool() {
  "$SQL_TOOL" --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "$DB_PORT" -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" "$@"
}

for database in "${DBNAME:-temporal}:temporal" "${VISIBILITY_DBNAME:-temporal_visibility}:visibility"; do
  name="${database%%:*}"
  schema="postgresql/v12/${database#*:}"
  # Creating fails once the database exists, which is every run after the first.
  sql_tool --db "$name" create-database >/dev/null 2>&1 || true
  # Version 0.0 with only the bookkeeping tables when new; update-schema then applies every version up
  # to the tool's own, which is also how a Temporal upgrade migrates.
  # It fails once done, like creating; update-schema below fails on a real problem.
  sql_tool --db "$name" setup-schema -v 0.0 >/dev/null 2>&1 || true
  sql_tool --db "$name" update-schema --schema-name "$schema"
done
echo "temporal-schema: ${DBNAME:-temporal} and ${VISIBILITY_DBNAME:-temporal_visibility} are at the tool's schema version"
