#!/usr/bin/env bash
# The suites that matter for the private PostgreSQL cluster, run on it (docs/dev-database.md,
# "Testing on the cluster"): every database a test opens, and every `platform dev` it starts, is
# a private cluster. Two batches, so a shared two-core machine is not handed the whole load at
# once. Not part of `npm test`: about 3 minutes on a loaded two-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
export PLATFORM_DEV_DATABASE=cluster PLATFORM_TEST_POSTGRES=cluster
t=packages/broker/test
# Search (vector and hybrid on real[] embeddings), data, jobs and push, through the helpers.
npx vitest run --project broker --maxWorkers=2 \
  "$t/search/ranking.test.ts" "$t/search/parity.test.ts" "$t/search/rls.test.ts" \
  "$t/search/errors.test.ts" "$t/search/route.test.ts" "$t/search/postgres.test.ts" \
  "$t/search/embeddings-write.test.ts" "$t/data/" "$t/jobs/" "$t/push/"
# Apps under `platform dev`, on the cluster of their folder.
npx vitest run --project broker --maxWorkers=2 \
  "$t/e2e/example-app.test.ts" "$t/e2e/search.test.ts" "$t/e2e/watch.test.ts" \
  "$t/e2e/control-plane.test.ts" "$t/e2e/todo-mail.test.ts" "$t/http/restart.test.ts" \
  "$t/db/private-cluster.test.ts"
