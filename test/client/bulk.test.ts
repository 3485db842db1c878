/**
 * The bulk loop on its own: how many run at once, and how each workflow's answer is counted. The
 * actions are plain functions here; test/cli/bulk-cli.temporal.test.ts runs the real updates.
 */
import { describe, expect, it } from 'vitest';
import { RampflowUpdateRefusedError } from '../../client';
import { forEachBounded, runBulk, type BulkAction, type BulkProgress } from '../../client/bulk';

const tick = () => new Promise((wake) => setTimeout(wake, 1));

describe('forEachBounded', () => {
  it('never runs more than the limit at once, and runs every item once', async () => {
    let running = 0;
    let peak = 0;
    const seen: number[] = [];
    await forEachBounded(
      Array.from({ length: 40 }, (_, i) => i),
      8,
      async (item) => {
        running++;
        peak = Math.max(peak, running);
        await tick();
        seen.push(item);
        running--;
      },
    );
    expect(peak).toBe(8);
    expect(seen.sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it('does nothing for no items', async () => {
    let calls = 0;
    await forEachBounded([], 8, async () => void calls++);
    expect(calls).toBe(0);
  });
});

/** Workflows a-f: a, b parked for Unauthorised; c for Deadline; d moved on (refuses); e fails; f no longer parked. */
function fakeWorkflows() {
  const applied: string[] = [];
  const attention: Record<string, { errorType: string; reason: string } | undefined> = {
    a: { errorType: 'Unauthorised', reason: 'the service refused our key' },
    b: { errorType: 'Unauthorised', reason: 'the service refused our key' },
    c: { errorType: 'Deadline', reason: 'no KYC decision within the deadline' },
    d: { errorType: 'Unauthorised', reason: 'the service refused our key' },
    e: { errorType: 'Unauthorised', reason: 'the service refused our key' },
    f: undefined,
  };
  const action: BulkAction = {
    attentionOf: async (id) => attention[id],
    apply: async (id) => {
      await tick();
      if (id === 'd')
        throw new RampflowUpdateRefusedError(
          'retry',
          `journey ${id}`,
          'nothing to retry: the workflow is not in NEEDS_ATTENTION',
        );
      if (id === 'e')
        throw new Error('Workflow Update failed', {
          cause: new Error('14 UNAVAILABLE: no worker answered within 10 s'),
        });
      applied.push(id);
    },
  };
  return { action, applied, ids: Object.keys(attention) };
}

describe('runBulk', () => {
  it('counts done, refused and failed apart, and acts on every listed workflow without a filter', async () => {
    const { action, applied, ids } = fakeWorkflows();
    const report = await runBulk(ids, action, undefined);
    expect(report).toMatchObject({
      listed: 6,
      settled: 6,
      matched: 6,
      done: 4,
      refused: 1,
      failed: 1,
      skipped: 0,
      dryRun: false,
      wouldAct: [],
    });
    expect(applied.sort()).toEqual(['a', 'b', 'c', 'f']);
    expect(report.refusals).toEqual([
      { id: 'd', reason: 'retry refused by journey d: nothing to retry: the workflow is not in NEEDS_ATTENTION' },
    ]);
    // The failure says why, its cause included (the SDK's own message is generic).
    expect(report.failures).toEqual([
      { id: 'e', error: 'Workflow Update failed: 14 UNAVAILABLE: no worker answered within 10 s' },
    ]);
  });

  it('acts only on workflows parked for the error type asked for', async () => {
    const { action, applied, ids } = fakeWorkflows();
    const report = await runBulk(ids, action, 'Unauthorised');
    expect(report).toMatchObject({ listed: 6, matched: 4, done: 2, refused: 1, failed: 1, skipped: 2 });
    expect(applied.sort()).toEqual(['a', 'b']);
  });

  it('changes nothing in a dry run, and says what it would act on', async () => {
    const { action, applied, ids } = fakeWorkflows();
    const report = await runBulk(ids, action, 'Unauthorised', { dryRun: true });
    expect(applied).toEqual([]);
    expect(report).toMatchObject({
      listed: 6,
      settled: 6,
      matched: 4,
      done: 0,
      refused: 0,
      failed: 0,
      skipped: 2,
      dryRun: true,
    });
    expect(report.wouldAct.map((target) => target.id).sort()).toEqual(['a', 'b', 'd', 'e']);
    expect(report.wouldAct[0]).toMatchObject({ errorType: 'Unauthorised', reason: 'the service refused our key' });
  });

  it('counts a state query that fails as failed, not skipped', async () => {
    const report = await runBulk(
      ['x'],
      { attentionOf: () => Promise.reject(new Error('query timed out')), apply: async () => {} },
      'Deadline',
    );
    expect(report).toMatchObject({
      matched: 0,
      failed: 1,
      skipped: 0,
      failures: [{ id: 'x', error: 'query timed out' }],
    });
  });

  it('reports progress after every workflow, ending at the whole set', async () => {
    const { action, ids } = fakeWorkflows();
    const seen: BulkProgress[] = [];
    await runBulk(ids, action, undefined, { concurrency: 2, onProgress: (progress) => seen.push(progress) });
    expect(seen.map((progress) => progress.settled)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(seen.at(-1)).toEqual({ listed: 6, settled: 6, matched: 6, done: 4, refused: 1, failed: 1, skipped: 0 });
  });
});
