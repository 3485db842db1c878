/**
 * The replay corpus (test/fixtures/histories/<release>/, recorded by `npm run histories:record`)
 * replayed against the code that runs it: a history of the current major version replays on the
 * current workflow code, so a change that would break a journey, deposit, event, reconciliation or
 * payout already running in production fails here; a history of an earlier major replays on that
 * major's last release bundle (test/fixtures/releases/<release>/), the code that drains its runs, as
 * no worker of the current major ever runs them (docs/deploying/versioning.md, "Major versions").
 * When a change of shape is intended, it goes behind a patch (docs/deploying/versioning.md); the
 * corpus is never re-recorded, only added to.
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
import {
  CURRENT_MAJOR,
  HISTORIES_DIR,
  lastReleaseOf,
  latestReleaseBundle,
  majorOf,
  releasesIn,
} from '../../dev/replay-corpus';
import { WORKFLOW_BUNDLE_PATHS } from '../../workers/worker';

interface RecordedHistory {
  name: string;
  release: string;
  workflowId: string;
  history: ReturnType<typeof historyFromJSON>;
}

function load(release: string, file: string): RecordedHistory {
  const history = historyFromJSON(JSON.parse(readFileSync(join(HISTORIES_DIR, release, file), 'utf8')));
  // Each replays under the workflow ID it was recorded with: workflows check their ID against their input.
  const workflowId = history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowId;
  if (!workflowId) throw new Error(`${release}/${file} does not start with a WorkflowExecutionStarted event`);
  return { name: `${release}/${file}`, release, workflowId, history };
}

const corpus = releasesIn(HISTORIES_DIR).flatMap((release) =>
  readdirSync(join(HISTORIES_DIR, release))
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => load(release, file)),
);
const ofCurrentMajor = corpus.filter(({ release }) => majorOf(release) === CURRENT_MAJOR);
const earlierMajors = [...new Set(corpus.map(({ release }) => majorOf(release)))].filter(
  (major) => major < CURRENT_MAJOR,
);
const newestOfCurrentMajor = releasesIn(HISTORIES_DIR)
  .filter((release) => majorOf(release) === CURRENT_MAJOR)
  .at(-1);
const recordedJourney =
  newestOfCurrentMajor === undefined ? undefined : load(newestOfCurrentMajor, 'journey-by-polls-closed.json');

// Said once, not per test: the checks on the current code need a release of its major to replay.
const NO_CURRENT_MAJOR_YET = `no release of v${CURRENT_MAJOR}.x recorded yet: the replay of its histories on the current code, the retune replay and the patched/unpatched change checks come back with its first release`;
if (!newestOfCurrentMajor) console.warn(`test/workflows/replay.test.ts: ${NO_CURRENT_MAJOR_YET}`);

/** Replays `histories` on the given code, and returns a line per history that failed. */
async function replayFailures(
  options: Parameters<typeof Worker.runReplayHistories>[0],
  histories: RecordedHistory[],
): Promise<string[]> {
  // Runs of one chain (continue-as-new) share a workflow ID, so a failure names every file it may be.
  const filesOf = (workflowId: string) =>
    histories
      .filter((recorded) => recorded.workflowId === workflowId)
      .map((recorded) => recorded.name)
      .join(' or ');
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories(
    options,
    histories.map(({ workflowId, history }) => ({ workflowId, history })),
  )) {
    if (result.error) failures.push(`${filesOf(result.workflowId)}: ${result.error.message}`);
  }
  return failures;
}

describe('the replay corpus', () => {
  it('holds the paths a release records, for every workflow type', () => {
    const types = new Set(
      corpus.map(({ history }) => history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name),
    );
    // Every type the worker runs (client/deployment.ts lists them all) has a recorded history.
    expect([...types].sort()).toEqual([...WORKFLOW_TYPES].sort());
    expect(corpus.length).toBeGreaterThanOrEqual(18);
  });

  it.each(earlierMajors)(
    "replays every history of v%i.x on that major's last release",
    async (major) => {
      const release = lastReleaseOf(major);
      expect(release, `v${major}.x histories need a release bundle of v${major}.x to replay on`).toBeDefined();
      const { codePath } = latestReleaseBundle(release);
      const histories = corpus.filter((recorded) => majorOf(recorded.release) === major);
      expect(
        await replayFailures({ workflowBundle: { codePath }, replayName: `rampflow-replay-${release}` }, histories),
      ).toEqual([]);
    },
    180_000,
  );
});

describe.skipIf(!recordedJourney)(`the replay corpus of v${CURRENT_MAJOR}.x on the current code`, () => {
  it('replays every history of the current major against the current code', async () => {
    expect(
      await replayFailures({ ...WORKFLOW_BUNDLE_PATHS, replayName: 'rampflow-replay-corpus' }, ofCurrentMajor),
    ).toEqual([]);
  }, 180_000);

  // A retune reaches running workflows only from its patch on (workflows/common/timings.ts): a history
  // recorded before it replays with the defaults of its day, whatever the retune changes.
  it('replays every journey and deposit history on code that retunes their defaults', async () => {
    const retunable = ofCurrentMajor.filter(({ history }) =>
      ['customerJourney', 'depositLifecycle'].includes(
        history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name ?? '',
      ),
    );
    const retuned = {
      workflowsPath: join(__dirname, '..', 'support', 'workflows', 'retuned-everything.ts'),
      replayName: 'retuned-everything',
    };
    expect(await replayFailures(retuned, retunable)).toEqual([]);
  }, 180_000);

  it('catches a change of shape that is not behind patched()', async () => {
    expectNondeterminism();
    const replay = Worker.runReplayHistory(
      {
        workflowsPath: join(__dirname, '..', 'support', 'workflows', 'unpatched-change.ts'),
        replayName: 'unpatched-change',
      },
      recordedJourney!.history,
      recordedJourney!.workflowId,
    );
    await expect(replay).rejects.toBeInstanceOf(DeterminismViolationError);
  }, 120_000);

  it('accepts the same change behind patched()', async () => {
    await Worker.runReplayHistory(
      {
        workflowsPath: join(__dirname, '..', 'support', 'workflows', 'patched-change.ts'),
        replayName: 'patched-change',
      },
      recordedJourney!.history,
      recordedJourney!.workflowId,
    );
  }, 120_000);
});
