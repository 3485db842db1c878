/**
 * The replay corpus (test/fixtures/histories/<release>/, recorded by `npm run histories:record`)
 * replayed against the current workflow code: every history of every release, so a change that would
 * break a journey, deposit, event, reconciliation or payout already running in production fails here.
 * When a change of shape is intended, it goes behind patched() (docs/deploying/versioning.md);
 * the corpus is never re-recorded, only added to.
 */
// The replay worker's bundling and state lines go to the runtime's logger: kept quiet like the temporal project's.
import { expectNondeterminism } from '../support/quiet-temporal-runtime';
import { WORKFLOW_TYPES } from '../../client/deployment';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker } from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { describe, expect, it } from 'vitest';
import { HISTORIES_DIR, releasesIn } from '../../dev/replay-corpus';
import { WORKFLOW_BUNDLE_PATHS } from '../../workers/worker';

interface RecordedHistory {
  name: string;
  workflowId: string;
  history: ReturnType<typeof historyFromJSON>;
}

function load(release: string, file: string): RecordedHistory {
  const history = historyFromJSON(JSON.parse(readFileSync(join(HISTORIES_DIR, release, file), 'utf8')));
  // Each replays under the workflow ID it was recorded with: workflows check their ID against their input.
  const workflowId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId;
  if (!workflowId) throw new Error(`${release}/${file} does not start with a WorkflowExecutionStarted event`);
  return { name: `${release}/${file}`, workflowId, history };
}

const corpus = releasesIn(HISTORIES_DIR).flatMap((release) =>
  readdirSync(join(HISTORIES_DIR, release))
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => load(release, file)),
);
const newest = releasesIn(HISTORIES_DIR).at(-1)!;
const recordedJourney = load(newest, 'journey-by-polls-closed.json');

describe('the replay corpus', () => {
  it('holds the paths a release records, for every workflow type', () => {
    const types = new Set(
      corpus.map(({ history }) => history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name),
    );
    // Every type the worker runs (client/deployment.ts lists them all) has a recorded history.
    expect([...types].sort()).toEqual([...WORKFLOW_TYPES].sort());
    expect(corpus.length).toBeGreaterThanOrEqual(18);
  });

  it('replays every history of every release against the current code', async () => {
    // Runs of one chain (continue-as-new) share a workflow ID, so a failure names every file it may be.
    const filesOf = (workflowId: string) =>
      corpus
        .filter((recorded) => recorded.workflowId === workflowId)
        .map((recorded) => recorded.name)
        .join(' or ');
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories(
      { ...WORKFLOW_BUNDLE_PATHS, replayName: 'rampflow-replay-corpus' },
      corpus.map(({ workflowId, history }) => ({ workflowId, history })),
    )) {
      if (result.error) failures.push(`${filesOf(result.workflowId)}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  }, 180_000);

  // A retune reaches running workflows only from its patch on (workflows/common/timings.ts): a history
  // recorded before it replays with the defaults of its day, whatever the retune changes.
  it('replays every journey and deposit history on code that retunes their defaults', async () => {
    const failures: string[] = [];
    const retunable = corpus.filter(({ history }) =>
      ['customerJourney', 'depositLifecycle'].includes(
        history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '',
      ),
    );
    const replays = Worker.runReplayHistories(
      {
        workflowsPath: join(__dirname, '..', 'support', 'workflows', 'retuned-everything.ts'),
        replayName: 'retuned-everything',
      },
      retunable.map(({ workflowId, history }) => ({ workflowId, history })),
    );
    for await (const result of replays)
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    expect(failures).toEqual([]);
  }, 180_000);

  it('catches a change of shape that is not behind patched()', async () => {
    expectNondeterminism();
    const replay = Worker.runReplayHistory(
      {
        workflowsPath: join(__dirname, '..', 'support', 'workflows', 'unpatched-change.ts'),
        replayName: 'unpatched-change',
      },
      recordedJourney.history,
      recordedJourney.workflowId,
    );
    await expect(replay).rejects.toBeInstanceOf(DeterminismViolationError);
  }, 120_000);

  it('accepts the same change behind patched()', async () => {
    await Worker.runReplayHistory(
      {
        workflowsPath: join(__dirname, '..', 'support', 'workflows', 'patched-change.ts'),
        replayName: 'patched-change',
      },
      recordedJourney.history,
      recordedJourney.workflowId,
    );
  }, 120_000);
});
