/**
 * A deposit's first look (`firstLookAtDeposit`): the service's record, whose it is in rampflow's index,
 * and the first report to that journey. Here the cases where it must not report, or must leave the
 * index's answer to the workflow: the service's side through an undici MockAgent injected into the
 * client, rampflow's index through the activity's client (a list that answers, or fails). The report
 * itself, to a real journey, is in test/workflows/billable-actions.temporal.test.ts.
 */
import type { Client } from '@temporalio/client';
import { MockActivityEnvironment } from '@temporalio/testing';
import { DefaultLogger } from '@temporalio/worker';
import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRampActivities } from '../../activities';
import { RampClient } from '../../ramp';
import { journeyWorkflowId } from '../../workflows/common/messages';

const BASE_URL = 'https://ramp.test';
const CUSTOMER = 'cus-1';
const depositOf = (status: string) => ({
  id: 'dep-1',
  customerId: CUSTOMER,
  type: 'FIAT',
  currency: 'AUD',
  amount: '10.00',
  status,
  timestamp: '2026-11-20T10:00:00Z',
});

/** A client whose visibility list answers `journeys` (or fails), and that must send no report. */
function indexClient(journeys: string[] | Error): { client: Client; queries: string[]; reports: string[] } {
  const queries: string[] = [];
  const reports: string[] = [];
  const client = {
    withAbortSignal: <R>(_signal: AbortSignal, fn: () => Promise<R>): Promise<R> => fn(),
    workflow: {
      list: ({ query }: { query: string }) => {
        queries.push(query);
        return (async function* () {
          if (journeys instanceof Error) throw journeys;
          for (const externalId of journeys)
            yield {
              workflowId: journeyWorkflowId(externalId),
              typedSearchAttributes: { get: () => externalId },
            };
        })();
      },
      getHandle: (workflowId: string) => {
        reports.push(workflowId);
        throw new Error('no report was expected');
      },
    },
  } as unknown as Client;
  return { client, queries, reports };
}

let agent: MockAgent;
let ramp: RampClient;

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  ramp = new RampClient({ baseUrl: BASE_URL, apiKey: 'key', apiSecret: 'secret', dispatcher: agent });
});
afterEach(async () => {
  await ramp.close();
  await agent.close();
});

function serviceHas(deposit: object): void {
  agent
    .get(BASE_URL)
    .intercept({ method: 'GET', path: (target) => target.split('?')[0] === '/deposit/detail' })
    .reply(200, { status: 'SUCCESS', data: deposit }, { headers: { 'content-type': 'application/json' } })
    .persist();
}

function firstLook(client: Client, firstReportKey?: string) {
  const env = new MockActivityEnvironment(
    { startToCloseTimeoutMs: 60_000, scheduledTimestampMs: Date.now() },
    { logger: new DefaultLogger('ERROR'), client },
  );
  return env.run(createRampActivities(ramp).firstLookAtDeposit, 'dep-1', firstReportKey);
}

describe("a deposit's first look", () => {
  it("asks the index for the customer the service's record names", async () => {
    serviceHas(depositOf('RECEIVED'));
    const index = indexClient(['user-1']);
    const look = await firstLook(index.client);
    expect(look).toEqual({
      deposit: expect.objectContaining({ id: 'dep-1', customerId: CUSTOMER }),
      indexedJourney: 'user-1',
    });
    expect(index.queries).toEqual([`WorkflowType = 'customerJourney' AND RampCustomerId = '${CUSTOMER}'`]);
    expect(index.reports).toEqual([]);
  });

  it('answers null when the index holds two journeys for the customer, and reports to neither', async () => {
    serviceHas(depositOf('RECEIVED'));
    const index = indexClient(['user-1', 'user-2']);
    expect(await firstLook(index.client, 'dep-1#run.1')).toMatchObject({ indexedJourney: null });
    expect(index.reports).toEqual([]);
  });

  it('leaves the index to the workflow when it fails, with the record read, and reports nothing', async () => {
    serviceHas(depositOf('RECEIVED'));
    const index = indexClient(new Error('visibility is unavailable'));
    const look = await firstLook(index.client, 'dep-1#run.1');
    expect(look).toEqual({ deposit: expect.objectContaining({ id: 'dep-1' }) });
    expect(index.reports).toEqual([]);
  });

  it('reports nothing of a REJECTED record (it may be a refund the workflow looks into first)', async () => {
    serviceHas(depositOf('REJECTED'));
    const index = indexClient(['user-1']);
    expect(await firstLook(index.client, 'dep-1#run.1')).toEqual({
      deposit: expect.objectContaining({ status: 'REJECTED' }),
      indexedJourney: 'user-1',
    });
    expect(index.reports).toEqual([]);
  });

  it('asks a journey that does not answer once, for a few seconds, then leaves the report to the workflow: it holds a service slot meanwhile', async () => {
    serviceHas(depositOf('RECEIVED'));
    const index = indexClient(['user-1']);
    // The journey's workflow tasks are far behind: its update is never answered, each ask ends at its deadline.
    const asks: string[] = [];
    const client = {
      ...index.client,
      withDeadline: <R>(deadline: number, fn: () => Promise<R>): Promise<R> =>
        Promise.race([
          fn(),
          new Promise<R>((_, fail) => setTimeout(() => fail(new Error('deadline exceeded')), deadline - Date.now())),
        ]),
      workflow: {
        ...index.client.workflow,
        getHandle: (workflowId: string) => ({
          executeUpdate: () => {
            asks.push(workflowId);
            return new Promise(() => {});
          },
        }),
      },
    } as unknown as Client;
    const look = await firstLook(client, 'dep-1#run.1');
    expect(look).toEqual({ deposit: expect.objectContaining({ status: 'RECEIVED' }), indexedJourney: 'user-1' });
    // One ask of PROMPT_OFFER_TIMINGS; the workflow's own report activity asks for up to 30 s, three times.
    expect(asks).toEqual([journeyWorkflowId('user-1')]);
  });

  it('leaves the report to the workflow when the journey cannot be told (no reportTaken)', async () => {
    serviceHas(depositOf('CONFIRMED'));
    const index = indexClient(['user-1']);
    const look = await firstLook(index.client, 'dep-1#run.1');
    expect(index.reports).toEqual([journeyWorkflowId('user-1')]);
    expect(look).toEqual({ deposit: expect.objectContaining({ status: 'CONFIRMED' }), indexedJourney: 'user-1' });
  });
});
