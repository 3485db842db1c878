/**
 * Folded patches across an upgrade (workflows/common/patches.ts, docs/deploying/versioning.md "Folded
 * patches"), on the real dev server: a journey starts on the last release before folds, whose code
 * asked each patch on its own, and carries on on the current code. The current code asks its fold while
 * it replays the older part of that run, where the fold has no marker, so the journey keeps asking each
 * patch for the rest of the run; a journey started on the current code asks the fold alone for them. Both
 * histories replay on the current code.
 */
import type { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataConverterFromEnv } from '../../codec';
import { latestReleaseBundle } from '../../dev/replay-corpus';
import { buildIdOfBundle } from '../../workers/versioning';
import { closeCustomerUpdate } from '../../workflows/common/messages';
import { FOLDS, OWN_EXITS_LOOKED_UP_ONCE, STAGE_SINCE_INDEXED } from '../../workflows/common/patches';
import { currentBuild, startBuildWorker, type BuildWorker } from '../support/builds';
import { registerTestExits, startJourneyHarness, TEST_OFFRAMP, type JourneyHarness } from '../support/journey-harness';

/** The last release whose code had no fold: every patch asked on its own. */
const BEFORE_FOLDS = 'v0.6.0';

/** The ids of the patches a history's markers record (sdk-core's `core_patch` markers hold them as plain JSON). */
function patchIdsOf(history: temporal.api.history.v1.IHistory): string[] {
  return (history.events ?? [])
    .filter((event) => event.markerRecordedEventAttributes?.markerName === 'core_patch')
    .map(
      (event) =>
        (
          JSON.parse(
            Buffer.from(event.markerRecordedEventAttributes!.details!['patch-data']!.payloads![0]!.data!).toString(
              'utf8',
            ),
          ) as { id: string }
        ).id,
    );
}

let h: JourneyHarness;
let current: BuildWorker | undefined;
let currentCodePath: string;

beforeAll(async () => {
  const before = latestReleaseBundle(BEFORE_FOLDS);
  currentCodePath = (await currentBuild(buildIdOfBundle(before.code))).codePath;
  h = await startJourneyHarness({ audWhitelistDelaySeconds: 1 }, { workflowBundlePath: before.codePath });
}, 180_000);

afterAll(async () => {
  await current?.stop();
  await h?.close();
});

describe('a journey that began before patches were folded', () => {
  it('keeps asking each patch on the current code, a new journey asks the fold alone, and both replay', async () => {
    const newestFold = FOLDS[0]!.patchId;
    const moved = await h.startJourney({ offramp: TEST_OFFRAMP });
    const waiting = await h.waitForJourney(moved, (s) => s.stage === 'AWAITING_KYC');
    expect(patchIdsOf(await moved.fetchHistory())).toContain(STAGE_SINCE_INDEXED);

    // The deploy, without versioning: the old worker goes, a worker on the current code takes over.
    await h.stopWorker();
    current = await startBuildWorker(h, currentCodePath);
    await registerTestExits(h.control, waiting.customer.id!);
    await h.control.approveCustomer(waiting.customer.id!);
    const accounts = await h.waitForJourney(
      moved,
      (s) => s.stage === 'AWAITING_ACCOUNTS' && !!s.offramp?.depositAddress,
    );
    await h.control.approveDepositAddress(accounts.offramp!.depositAddress!.id);
    await h.waitForJourney(moved, (s) => s.stage === 'ACTIVE');

    const fresh = await h.startJourney({ offramp: TEST_OFFRAMP });
    await h.waitForJourney(fresh, (s) => s.stage === 'AWAITING_KYC');
    for (const journey of [moved, fresh]) {
      await journey.executeUpdate(closeCustomerUpdate, { args: [{ reason: 'fold test over' }] });
      expect(await journey.result()).toMatchObject({ stage: 'CLOSED' });
    }

    // The moved journey asked the ramps' patch on the current code, on its own: no fold marker.
    const movedPatches = patchIdsOf(await moved.fetchHistory());
    expect(movedPatches).toContain(OWN_EXITS_LOOKED_UP_ONCE);
    expect(movedPatches).not.toContain(newestFold);
    // The fresh journey asks the fold alone for every patch the fold names (a patch added since the
    // fold is asked on its own until a release folds it, workflows/common/patches.ts).
    const foldedOrFold = (id: string) => FOLDS.some((fold) => fold.patchId === id || fold.takes.has(id));
    expect(patchIdsOf(await fresh.fetchHistory()).filter(foldedOrFold)).toEqual([newestFold]);

    const histories = await Promise.all(
      [moved, fresh].map(async (handle) => ({ workflowId: handle.workflowId, history: await handle.fetchHistory() })),
    );
    const failures: string[] = [];
    for await (const result of Worker.runReplayHistories(
      {
        workflowBundle: { codePath: currentCodePath },
        dataConverter: dataConverterFromEnv(),
        replayName: 'fold-upgrade',
      },
      histories,
    )) {
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    expect(failures).toEqual([]);
  }, 180_000);
});
