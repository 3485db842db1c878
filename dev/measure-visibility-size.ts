/**
 * `npx tsx dev/measure-visibility-size.ts [N]`: what N deposit-shaped workflows cost in PostgreSQL's
 * `executions_visibility` on the cluster profile (a throwaway cluster: dev/temporary-cluster.ts).
 * Starts N `depositLifecycle` runs with rampflow's four search attributes and a deposit's memo on a
 * task queue no worker polls, measures the table (rows, heap bytes, index bytes, total, indexes),
 * closes them all (one row update each, as a workflow's close or a stage upsert is), and measures
 * again before and after VACUUM. The figures of docs/deploying/visibility.md come from it.
 */
import { execFileSync } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import { startTemporaryCluster } from './temporary-cluster';
import { RampCustomerId, RampExternalId, RampStage, RampStageSince } from '../observability/search-attributes';

const N = Number(process.argv[2] ?? 2000);
async function main() {
  const cluster = await startTemporaryCluster();
  const sql = (query: string) =>
    execFileSync(
      'psql',
      [
        '-h',
        cluster.postgres.host,
        '-p',
        String(cluster.postgres.port),
        '-U',
        'temporal',
        '-d',
        'temporal_visibility',
        '-At',
        '-c',
        query,
      ],
      { env: { ...process.env, PGPASSWORD: 'temporal' } },
    )
      .toString()
      .trim();
  const measure = (label: string) => {
    sql('VACUUM ANALYZE executions_visibility');
    console.log(
      label,
      sql(
        `SELECT count(*), pg_relation_size('executions_visibility'), pg_indexes_size('executions_visibility'), pg_total_relation_size('executions_visibility'), (SELECT count(*) FROM pg_indexes WHERE tablename = 'executions_visibility') FROM executions_visibility`,
      ),
    );
  };
  try {
    measure('empty');
    const connection = await Connection.connect({ address: cluster.address });
    const client = new Client({ connection });
    const ids: string[] = [];
    for (let start = 0; start < N; start += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, N - start) }, async (_, k) => {
          const i = start + k;
          const workflowId = `deposit/dep_${i.toString().padStart(8, '0')}abcdefghijklmnop`;
          ids.push(workflowId);
          await client.workflow.start('depositLifecycle', {
            taskQueue: 'rampflow',
            workflowId,
            args: [],
            memo: { kind: 'ONRAMP', amount: '1234.56', currency: 'AUD' },
            typedSearchAttributes: new TypedSearchAttributes([
              { key: RampStage, value: 'RECEIVED' },
              { key: RampExternalId, value: `user-${i}-0123456789` },
              { key: RampCustomerId, value: `cus_${i}0123456789abcdef` },
              { key: RampStageSince, value: new Date() },
            ]),
          });
        }),
      );
    }
    for (;;) {
      if ((await client.workflow.count("WorkflowType = 'depositLifecycle'")).count >= N) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    measure(`${N} running`);
    for (let start = 0; start < N; start += 50)
      await Promise.all(ids.slice(start, start + 50).map((id) => client.workflow.getHandle(id).terminate('measure')));
    for (;;) {
      if ((await client.workflow.count("ExecutionStatus = 'Terminated'")).count >= N) break;
      await new Promise((r) => setTimeout(r, 1000));
    }
    sql('ANALYZE executions_visibility');
    console.log(
      'closed, before vacuum',
      sql(
        `SELECT n_live_tup, n_dead_tup, pg_relation_size('executions_visibility'), pg_indexes_size('executions_visibility') FROM pg_stat_user_tables WHERE relname = 'executions_visibility'`,
      ),
    );
    measure(`${N} closed (one update each), after VACUUM`);
    await connection.close();
  } finally {
    await cluster.close();
  }
}
main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
