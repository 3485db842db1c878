/**
 * The nondeterminism row's evidence (chaos/histories.ts): a workflow task failed for nondeterminism is
 * found by its cause or its message, and its history is kept where the replayer reads it back whole.
 */
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Client } from '@temporalio/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { temporal } from '@temporalio/proto';
import {
  HISTORIES_PROGRESS_EVERY_MS,
  KEPT_KEYS_FILE,
  keepNondeterministic,
  nondeterminismIn,
  readEveryHistory,
} from '../../chaos/histories';

const { WorkflowTaskFailedCause } = temporal.api.enums.v1;
const event = (eventId: number, attributes: object) =>
  temporal.api.history.v1.HistoryEvent.fromObject({ eventId, eventTime: { seconds: 1_800_000_000 }, ...attributes });
const failedTask = (cause: number, message: string) =>
  event(4, { workflowTaskFailedEventAttributes: { cause, failure: { message } } });
const started = event(1, { workflowExecutionStartedEventAttributes: { workflowType: { name: 'customerJourney' } } });

describe("the chaos run's nondeterminism row", () => {
  it('finds a workflow task failed for nondeterminism, and no other failure', () => {
    const message =
      "[TMPRL1100] Nondeterminism error: Activity type of scheduled event 'findCryptoAddress' does not match activity type of activity command 'pushRecordedPartnerEvents'\nstack";
    expect(
      nondeterminismIn([
        started,
        failedTask(WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR, message),
      ]),
    ).toBe(message.split('\n')[0]);
    // Older servers record the cause as unspecified: the SDK's code in the message tells.
    expect(nondeterminismIn([started, failedTask(0, message)])).toBe(message.split('\n')[0]);
    expect(
      nondeterminismIn([
        started,
        failedTask(WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_WORKFLOW_WORKER_UNHANDLED_FAILURE, 'a bug'),
      ]),
    ).toBeUndefined();
    expect(nondeterminismIn([started])).toBeUndefined();
  });

  it("keeps each such history as the replayer reads it, with the keys the run made, and names both in the row's evidence", () => {
    const history = temporal.api.history.v1.History.create({
      events: [
        started,
        failedTask(WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_NON_DETERMINISTIC_ERROR, 'TMPRL1100 x'),
      ],
    });
    const found = [{ workflowId: 'customer/chaos-3-44', runId: 'r1', type: 'customerJourney', history }];
    const [line, ...rest] = keepNondeterministic(found, 3, 'chaos-run:a2V5');
    expect(rest).toEqual([]);
    expect(line).toMatch(
      /^customerJourney customer\/chaos-3-44: TMPRL1100 x \(history: .*rampflow-chaos-3-nondeterminism-\d+\/customer_chaos-3-44-r1\.json; keys: .*\/payload-keys\)$/,
    );
    const file = /\(history: (.*?);/.exec(line!)![1]!;
    expect(historyFromJSON(JSON.parse(readFileSync(file, 'utf8'))).events).toHaveLength(2);
    const keys = join(dirname(file), KEPT_KEYS_FILE);
    expect(readFileSync(keys, 'utf8')).toBe('chaos-run:a2V5');
    expect(statSync(keys).mode & 0o777).toBe(0o600);
    rmSync(dirname(file), { recursive: true });

    // Keys the caller gave are not written anywhere: the evidence says to use them.
    const [given] = keepNondeterministic(found, 3);
    expect(given).toMatch(/; keys: your RAMPFLOW_PAYLOAD_KEYS\)$/);
    const givenFolder = dirname(/\(history: (.*?);/.exec(given!)![1]!);
    expect(existsSync(join(givenFolder, KEPT_KEYS_FILE))).toBe(false);
    rmSync(givenFolder, { recursive: true });
    expect(keepNondeterministic([], 3)).toEqual([]);
  });
});

describe('reading every history', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('says how far it got while it reads, and nothing once it is done', async () => {
    vi.useFakeTimers();
    const runs = Array.from({ length: 20 }, (_, index) => ({ workflowId: `w${index}`, runId: 'r', type: 't' }));
    const waiting: (() => void)[] = [];
    const answered = () => new Promise<void>((resolve) => waiting.push(resolve));
    // A server that lists 20 runs and answers each history only when told: the read stays under way.
    const client = {
      workflow: {
        async *list() {
          yield* runs;
        },
        getHandle: () => ({ fetchHistory: async () => (await answered(), { events: [] }) }),
      },
    } as unknown as Client;
    const progress: [number, number][] = [];
    const visited: string[] = [];
    const reading = readEveryHistory(
      client,
      (read) => visited.push(read.workflowId),
      (read, listed) => progress.push([read, listed]),
    );
    await vi.advanceTimersByTimeAsync(HISTORIES_PROGRESS_EVERY_MS);
    expect(progress).toEqual([[0, 20]]);
    // Answers come one at a time, each read in turn.
    while (visited.length < 20) {
      waiting.shift()?.();
      await vi.advanceTimersByTimeAsync(0);
    }
    await reading;
    await vi.advanceTimersByTimeAsync(HISTORIES_PROGRESS_EVERY_MS * 3);
    expect(progress).toEqual([[0, 20]]);
    expect(new Set(visited).size).toBe(20);
  });
});
