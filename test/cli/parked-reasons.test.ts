/**
 * The lists' parked reasons are read under a deadline: a query no worker answers (workers down) must
 * not hold a list for the server's own timeout per row. The first read that runs out names why, and
 * the rows after it are not tried.
 */
import { describe, expect, it } from 'vitest';
import { READ_DEADLINE_MS, withParkedReasons, type WithDeadline } from '../../cli/parked-reasons';

/** What Connection.withDeadline does to a call no worker answers: it fails at the deadline with DEADLINE_EXCEEDED. */
const noWorkerAnswers: WithDeadline = (deadline) =>
  new Promise((_, reject) =>
    setTimeout(
      () => reject(Object.assign(new Error('4 DEADLINE_EXCEEDED: Deadline exceeded'), { code: 4 })),
      Math.max(0, deadline - Date.now()),
    ),
  );

describe('reading the reasons of parked rows', () => {
  it('gives up on a read no worker answers, once, and prints the rest without trying them', async () => {
    const rows = Array.from({ length: 20 }, (_, index) => ({
      id: `row-${index}`,
      stage: 'NEEDS_ATTENTION',
      status: 'RUNNING',
    }));
    let tried = 0;
    const read = await withParkedReasons(
      rows,
      async () => undefined,
      (deadline, call) => {
        tried += 1;
        return noWorkerAnswers(deadline, call);
      },
    );
    expect(read.every((row) => row.attentionNotRead === `no worker answered within ${READ_DEADLINE_MS / 1000} s`)).toBe(
      true,
    );
    // The first eight at once (the bound), then no more: one deadline's wait, not one per row.
    expect(tried).toBe(8);
  });

  it('reads each parked row and leaves the others alone; another failure is shown and does not stop the rest', async () => {
    const rows = [
      { id: 'a', stage: 'NEEDS_ATTENTION', status: 'RUNNING' },
      { id: 'b', stage: 'ACTIVE', status: 'RUNNING' },
      { id: 'c', stage: 'NEEDS_ATTENTION', status: 'COMPLETED' },
      { id: 'd', stage: 'NEEDS_ATTENTION', status: 'RUNNING' },
      { id: 'e', stage: 'NEEDS_ATTENTION', status: 'RUNNING' },
    ];
    const read = await withParkedReasons(
      rows,
      async (row) => {
        if (row.id === 'd') throw new Error('workflow not found');
        return { reason: `why ${row.id}`, errorType: 'Deadline', since: '2026-11-27T00:00:00Z' } as never;
      },
      (_deadline, call) => call(),
    );
    expect(read.map((row) => row.attention?.reason ?? row.attentionNotRead)).toEqual([
      'why a',
      undefined,
      undefined,
      'workflow not found',
      'why e',
    ]);
  });
});
