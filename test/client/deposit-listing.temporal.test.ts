/**
 * A customer's deposits listed a page at a time from Temporal visibility (`listDepositsPage`,
 * `iterateDeposits`, `rampflow deposit list`), against the shared dev server.
 *
 * Listing reads only what visibility holds (workflow type and ID, `RampExternalId`, `RampStage`,
 * memo), so the deposits here are deposit workflows started with those attributes on a task queue
 * no worker polls: dozens of them in a second, where real ones take a journey each. The CLI test
 * (test/cli/journey-cli.temporal.test.ts) lists a real deposit of a real journey.
 */
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRampflowClient,
  RampflowInputError,
  type DepositListItem,
  type DepositStage,
  type RampflowClient,
} from '../../client';
import { depositWorkflowId } from '../../workflows/common/messages';
import { RampExternalId, RampStage } from '../../observability/search-attributes';
import { runRampflow, type RunResult } from '../support/run';
import { connectClient, temporalAddress, testPayloadKeys, uniqueTaskQueue } from '../support/temporal';

let client: Client;
let closeClient: () => Promise<void>;
let rampflow: RampflowClient;
const started: string[] = [];

// Customer A: 25 deposits, 15 of them parked; customer B: 3, to show the filter keeps them apart.
const customerA = `listing-a-${randomUUID()}`;
const customerB = `listing-b-${randomUUID()}`;
const depositsOfA: { depositId: string; stage: DepositStage }[] = Array.from({ length: 25 }, (_, i) => ({
  depositId: `dep-${randomUUID()}`,
  stage: i % 5 < 3 ? 'NEEDS_ATTENTION' : 'CONFIRMED',
}));

async function startDeposit(
  externalId: string,
  depositId: string,
  stage: DepositStage,
  memo?: Record<string, string>,
): Promise<void> {
  const handle = await client.workflow.start('depositLifecycle', {
    taskQueue: uniqueTaskQueue('no-worker'),
    workflowId: depositWorkflowId(depositId),
    args: [],
    typedSearchAttributes: [
      { key: RampExternalId, value: externalId },
      { key: RampStage, value: stage },
    ],
    ...(memo ? { memo } : {}),
  });
  started.push(handle.workflowId);
}

/** Visibility is eventually consistent: waits until the customer's deposits are all indexed. */
async function indexed(externalId: string, count: number): Promise<void> {
  for (const deadline = Date.now() + 30_000; ;) {
    const found = await client.workflow.count(`WorkflowType = 'depositLifecycle' AND RampExternalId = '${externalId}'`);
    if (found.count === count) return;
    if (Date.now() > deadline) throw new Error(`visibility shows ${found.count} of ${count} deposits of ${externalId}`);
    await new Promise((wake) => setTimeout(wake, 200));
  }
}

beforeAll(async () => {
  ({ client, close: closeClient } = await connectClient());
  rampflow = await createRampflowClient({ address: temporalAddress(), payloadKeys: testPayloadKeys() });
  // One after the other, so start times (the list's order) are distinct.
  for (const { depositId, stage } of depositsOfA) await startDeposit(customerA, depositId, stage);
  for (let i = 0; i < 3; i++)
    await startDeposit(customerB, `dep-${randomUUID()}`, 'NEEDS_ATTENTION', {
      kind: 'ONRAMP',
      amount: '100.00',
      currency: 'AUD',
    });
  await Promise.all([indexed(customerA, 25), indexed(customerB, 3)]);
});

afterAll(async () => {
  await Promise.all(started.map((workflowId) => client.workflow.getHandle(workflowId).terminate('test over')));
  await rampflow.close();
  await closeClient();
});

const newestFirst = (deposits: { depositId: string }[]) => [...deposits].reverse().map((deposit) => deposit.depositId);

describe('listDepositsPage', () => {
  it("pages through a customer's whole history, newest first, each deposit once", async () => {
    const pages: DepositListItem[][] = [];
    let nextPageToken: string | undefined;
    do {
      const page = await rampflow.listDepositsPage(
        { externalId: customerA },
        { pageSize: 10, ...(nextPageToken ? { nextPageToken } : {}) },
      );
      pages.push(page.deposits);
      nextPageToken = page.nextPageToken;
    } while (nextPageToken);

    expect(pages.map((page) => page.length)).toEqual([10, 10, 5]);
    const listed = pages.flat();
    expect(listed.map((deposit) => deposit.depositId)).toEqual(newestFirst(depositsOfA));
    expect(listed[0]).toEqual({
      depositId: depositsOfA.at(-1)!.depositId,
      workflowId: `deposit/${depositsOfA.at(-1)!.depositId}`,
      runId: expect.any(String),
      stage: depositsOfA.at(-1)!.stage,
      externalId: customerA,
      status: 'RUNNING',
      startTime: expect.any(Date),
    });
  });

  it('filters by customer and stage together, across pages', async () => {
    const parked = depositsOfA.filter((deposit) => deposit.stage === 'NEEDS_ATTENTION');
    const first = await rampflow.listDepositsPage({ externalId: customerA, stage: 'NEEDS_ATTENTION' }, { pageSize: 4 });
    expect(first.deposits).toHaveLength(4);
    expect(first.nextPageToken).toMatch(/^[A-Za-z0-9_-]+$/);

    const all: DepositListItem[] = [];
    for await (const deposit of rampflow.iterateDeposits(
      { externalId: customerA, stage: 'NEEDS_ATTENTION' },
      { pageSize: 4 },
    ))
      all.push(deposit);
    expect(all.map((deposit) => deposit.depositId)).toEqual(newestFirst(parked));
    expect(all.slice(0, 4)).toEqual(first.deposits);
    expect(new Set(all.map((deposit) => deposit.stage))).toEqual(new Set(['NEEDS_ATTENTION']));
  });

  it("keeps customers apart, and shows a deposit's kind and amount when its memo has them", async () => {
    const page = await rampflow.listDepositsPage({ externalId: customerB });
    expect(page.nextPageToken).toBeUndefined();
    expect(page.deposits).toHaveLength(3);
    expect(page.deposits.every((deposit) => deposit.externalId === customerB)).toBe(true);
    expect(page.deposits[0]).toMatchObject({ kind: 'ONRAMP', amount: '100.00', currency: 'AUD' });
  });

  it('refuses a bad page size, a mangled page token and one from another filter, naming the field', async () => {
    const notOurs = 'nextPageToken: not a page token this list gave';
    await expect(rampflow.listDepositsPage({ externalId: customerA }, { pageSize: 0 })).rejects.toThrow(/^pageSize: /);
    await expect(rampflow.listDepositsPage({ externalId: customerA }, { pageSize: 1001 })).rejects.toBeInstanceOf(
      RampflowInputError,
    );
    await expect(
      rampflow.listDepositsPage({ externalId: customerA }, { nextPageToken: 'not a token!' }),
    ).rejects.toThrow(notOurs);

    const { nextPageToken } = await rampflow.listDepositsPage({ externalId: customerA }, { pageSize: 10 });
    const mangled = `${nextPageToken!.slice(0, 10)}${nextPageToken![10] === 'A' ? 'B' : 'A'}${nextPageToken!.slice(11)}`;
    await expect(
      rampflow.listDepositsPage({ externalId: customerA }, { pageSize: 10, nextPageToken: mangled }),
    ).rejects.toThrow(notOurs);
    await expect(
      rampflow.listDepositsPage(
        { externalId: customerA, stage: 'CONFIRMED' },
        { pageSize: 10, nextPageToken: nextPageToken! },
      ),
    ).rejects.toThrow(notOurs);
    await expect(rampflow.listDepositsPage({ externalId: "x' OR '1'='1" })).rejects.toThrow(/^externalId: /);
  });
});

describe('rampflow deposit list', () => {
  const rampflowCli = (...args: string[]): Promise<RunResult> =>
    runRampflow(args, { env: { ...process.env, TEMPORAL_ADDRESS: temporalAddress() } });

  it('prints a page and the token of the next, follows the token, and --all prints every page', async () => {
    const first = await rampflowCli('deposit', 'list', '--customer', customerA, '--page-size', '10', '--json');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const page = JSON.parse(first.stdout) as {
      deposits: { depositId: string; stage: string; externalId: string; startTime: string }[];
      nextPageToken?: string;
    };
    expect(page.deposits).toHaveLength(10);
    expect(page.deposits[0]).toMatchObject({
      depositId: depositsOfA.at(-1)!.depositId,
      externalId: customerA,
      startTime: expect.stringMatching(/^\d{4}-/),
    });
    expect(page.nextPageToken).toBeDefined();

    const second = await rampflowCli(
      'deposit',
      'list',
      '--customer',
      customerA,
      '--page-size',
      '10',
      '--page-token',
      page.nextPageToken!,
    );
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^DEPOSIT ID +STAGE +STATUS +EXTERNAL ID +AMOUNT +STARTED( +PARKED BECAUSE)?\n/);
    expect(second.stdout).toContain(`\n${newestFirst(depositsOfA)[10]} `);
    expect(second.stdout).toMatch(/\nnext page: --page-token [A-Za-z0-9_-]+\n$/);

    const all = await rampflowCli('deposit', 'list', '--customer', customerA, '--page-size', '7', '--all', '--json');
    expect(all.code).toBe(0);
    const everything = JSON.parse(all.stdout) as { deposits: { depositId: string }[]; nextPageToken?: string };
    expect(everything.deposits.map((deposit) => deposit.depositId)).toEqual(newestFirst(depositsOfA));
    expect(everything.nextPageToken).toBeUndefined();
  });

  it('refuses --page-token with --all, and a page size over 1000, in one line', async () => {
    const both = await rampflowCli('deposit', 'list', '--customer', customerA, '--all', '--page-token', 'abc');
    expect(both).toEqual({ code: 1, stdout: '', stderr: 'rampflow: give either --page-token or --all, not both\n' });
    const tooBig = await rampflowCli('deposit', 'list', '--page-size', '1001');
    expect(tooBig.code).toBe(1);
    expect(tooBig.stderr).toMatch(/^rampflow: pageSize: Too big: expected number to be <=1000\n$/);
  });
});
