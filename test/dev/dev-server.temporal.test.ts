import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataConverterFromEnv } from '../../codec';
import { RampExternalId, RampStage } from '../../observability/search-attributes';
import { connectClient, connectWorker, uniqueTaskQueue } from '../support/temporal';
import type { markStage } from '../support/workflows/stage-marker';

describe('the shared Temporal dev server', () => {
  let client: Awaited<ReturnType<typeof connectClient>>;
  beforeAll(async () => {
    client = await connectClient();
  });
  afterAll(async () => {
    await client.close();
  });

  it('runs a workflow whose RampStage search attribute is visible to a visibility query', async () => {
    const taskQueue = uniqueTaskQueue('foundation');
    const externalId = `user-${randomUUID()}`;
    const workerConnection = await connectWorker();
    const worker = await Worker.create({
      connection: workerConnection,
      taskQueue,
      workflowsPath: join(__dirname, '../support/workflows/stage-marker.ts'),
      dataConverter: dataConverterFromEnv(),
    });

    const result = await worker
      .runUntil(
        client.client.workflow.execute<typeof markStage>('markStage', {
          taskQueue,
          workflowId: `foundation/${externalId}`,
          args: ['ACTIVE'],
          typedSearchAttributes: [{ key: RampExternalId, value: externalId }],
        }),
      )
      .finally(() => workerConnection.close());
    expect(result).toBe('ACTIVE');

    // Visibility is eventually consistent: poll the query until the closed workflow shows up.
    const query = `RampExternalId = '${externalId}' AND RampStage = 'ACTIVE'`;
    let found: string[] = [];
    for (let attempt = 0; attempt < 50 && found.length === 0; attempt++) {
      found = [];
      for await (const execution of client.client.workflow.list({ query })) {
        found.push(`${execution.workflowId}:${execution.typedSearchAttributes.get(RampStage)}`);
      }
      if (found.length === 0) await new Promise((wake) => setTimeout(wake, 200));
    }
    expect(found).toEqual([`foundation/${externalId}:ACTIVE`]);
  });
});
