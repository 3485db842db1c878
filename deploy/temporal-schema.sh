#!/bin/sh
# Creates (first run) or upgrades (later runs) the Temporal databases on PostgreSQL, the steps of
# Temporal's auto-setup image, as a job of its own so the server runs the plain production image.
# Configured by POSTGRES_HOST, POSTGRES_PORT, POSTGRES_USER and POSTGRES_PASSWORD.
set -eu

: "${POSTGRES_HOST:?}" "${POSTGRES_PORT:?}" "${POSTGRES_USER:?}" "${POSTGRES_PASSWORD:?}"
SCHEMA_DIR=/etc/temporal/schema/postgresql/v12

sql_tool() {
  temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_HOST" -p "$POSTGRES_PORT" -u "$POSTGRES_USER" --pw "$POSTGRES_PASSWORD" "$@"
}

for database in temporal temporal_visibility; do
  case "$database" in
    temporal) versioned="$SCHEMA_DIR/temporal/versioned" ;;
    *) versioned="$SCHEMA_DIR/visibility/versioned" ;;
  esac
  # Both fail once done, which is every run after the first; update-schema below fails on a real problem.
  sql_tool --db "$database" create || true
  sql_tool --db "$database" setup-schema -v 0.0 || true
  # Applies every schema version up to the image's own: this is also how a Temporal upgrade migrates.
  sql_tool --db "$database" update-schema -d "$versioned"
done
echo "temporal-schema: both databases are at the image's schema version"
