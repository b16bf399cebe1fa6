#!/usr/bin/env bash
# The test command: starts whatever real infrastructure is missing (Postgres, Redis, a Kafka broker
# in KRaft mode), builds, runs every jest project, and ends with "N passed, N failed".
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash scripts/infra.sh up || { echo "0 passed, 1 failed"; exit 1; }

# The committed supergraph must equal a fresh composition (--check writes nothing), so a stale
# file or a composition error fails the run instead of being silently regenerated.
if ! { npm run --silent generate && node scripts/compose-supergraph.mjs --check && npx tsc -b tsconfig.build.json; }; then
  echo "build failed (prisma generate, supergraph composition check, or type check)"
  echo "0 passed, 1 failed"
  exit 1
fi

# jest runs the tests through swc, which checks no types, and the build projects leave tests out:
# tsconfig.test.json type-checks every test file (strict, as the code) against the built declarations.
if ! npx tsc -b tsconfig.test.json; then
  echo "tests do not type-check (npx tsc -b tsconfig.test.json)"
  echo "0 passed, 1 failed"
  exit 1
fi

export TEST_KAFKA_BROKERS="${TEST_KAFKA_BROKERS:-127.0.0.1:${KAFKA_PORT:-19092}}"
report="$root/.cache/jest-report.json"
mkdir -p "$root/.cache"
rm -f "$report"
# Two workers on two cores; integration suites each use their own database, topics and keys.
npx jest --ci --maxWorkers=2 --json --outputFile="$report" "$@"
status=$?

if [ -f "$report" ]; then
  node -e '
    const r = require(process.argv[1]);
    // A suite that fails outside its tests (set-up, tear-down, an error after the last test) counts once.
    const failedSuites = r.testResults.filter((s) => s.status === "failed" && !s.assertionResults.some((a) => a.status === "failed")).length;
    console.log(`${r.numPassedTests} passed, ${r.numFailedTests + failedSuites} failed` + (r.numPendingTests ? `, ${r.numPendingTests} skipped` : ""));
  ' "$report"
else
  echo "0 passed, 1 failed"
  [ "$status" -eq 0 ] && status=1
fi
exit "$status"
