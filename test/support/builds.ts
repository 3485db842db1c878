/**
 * Two builds of rampflow's workflows side by side, for the tests of a deploy: build A (usually the
 * previous release's bundle) runs in the journey harness's worker; build B in a second worker on the
 * same task queue, started here.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { bundleWorkflowCode } from '@temporalio/worker';
import { inject } from 'vitest';
import type { PartnerEventWiring } from '../../activities/partner-event-activities';
import { dataConverterFromEnv } from '../../codec';
import { CURRENT_MAJOR, lastReleaseOf, latestReleaseBundle } from '../../dev/replay-corpus';
import { buildIdOfBundle } from '../../workers/versioning';
import { createRampflowWorker, WORKFLOW_BUNDLE_PATHS, type RampflowWorkerOptions } from '../../workers/worker';
import type { JourneyHarness } from './journey-harness';
import { connectWorker } from './temporal';
import { FAST_DEPOSIT_TIMINGS } from './test-journeys';

/** The bundler's own lines stay out of the test output; its warnings and errors do not. */
export const QUIET_BUNDLER = { trace() {}, debug() {}, info() {}, log() {}, warn: console.warn, error: console.error };

export interface Build {
  codePath: string;
  buildId: string;
}

/**
 * Build A of a deploy within the current major: its newest release (test/fixtures/releases/), or,
 * until the major has one, the current code itself (build B is then the same workflows under another
 * build ID, `currentBuild`). A release of an earlier major is never deployed beside the current code:
 * a major runs on its own task queue and worker deployment (docs/deploying/versioning.md, "Major versions").
 */
export function previousBuild(): Build & { code: Buffer } {
  const release = lastReleaseOf(CURRENT_MAJOR);
  if (release !== undefined) {
    const { code, codePath } = latestReleaseBundle(release);
    return { code, codePath, buildId: buildIdOfBundle(code) };
  }
  const codePath = inject('workflowBundlePath');
  const code = readFileSync(codePath);
  return { code, codePath, buildId: buildIdOfBundle(code) };
}

/**
 * Build B: the run's bundle of the current code, or, when the current code is still exactly the last
 * release (right after recording it), the same workflows entered through another module, so the
 * bundle's hash, and with it the build ID, differs while the code does not.
 */
export async function currentBuild(releasedBuildId: string): Promise<Build> {
  const codePath = inject('workflowBundlePath');
  const buildId = buildIdOfBundle(readFileSync(codePath));
  if (buildId !== releasedBuildId) return { codePath, buildId };
  const { code } = await bundleWorkflowCode({
    ...WORKFLOW_BUNDLE_PATHS,
    workflowsPath: join(__dirname, 'workflows', 'next-release.ts'),
    logger: QUIET_BUNDLER,
  });
  const nextPath = join(mkdtempSync(join(tmpdir(), 'rampflow-next-')), 'workflow-bundle.js');
  writeFileSync(nextPath, code);
  return { codePath: nextPath, buildId: buildIdOfBundle(code) };
}

/** The build IDs of the workers that completed the workflow's tasks, in order, repeats folded. */
export async function taskBuildIds(handle: WorkflowHandle): Promise<string[]> {
  const ids: string[] = [];
  for (const event of (await handle.fetchHistory()).events ?? []) {
    const buildId = event.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId;
    if (buildId && ids.at(-1) !== buildId) ids.push(buildId);
  }
  return ids;
}

export interface BuildWorker {
  stop(): Promise<void>;
}

/**
 * A second worker running the bundle at `codePath` (in a deployment version when given), on the
 * harness's task queue unless `where.taskQueue` names another (a new major version's, as in
 * test/workflows/hand-over.temporal.test.ts), with the run's encrypting data converter unless
 * `where.dataConverter` gives another (the recorder's plain one).
 */
export async function startBuildWorker(
  h: JourneyHarness,
  codePath: string,
  deploymentVersion?: RampflowWorkerOptions['deploymentVersion'],
  where: { taskQueue?: string; dataConverter?: DataConverter; partnerEvents?: PartnerEventWiring } = {},
): Promise<BuildWorker> {
  const connection = await connectWorker();
  const worker = await createRampflowWorker({
    connection,
    namespace: 'default',
    taskQueue: where.taskQueue ?? h.taskQueue,
    ramp: h.ramp,
    dataConverter: where.dataConverter ?? dataConverterFromEnv(),
    workflowBundle: { codePath },
    shutdownGraceTime: '2 seconds',
    depositTimings: FAST_DEPOSIT_TIMINGS,
    ...(deploymentVersion ? { deploymentVersion } : {}),
    ...(where.partnerEvents ? { partnerEvents: where.partnerEvents } : {}),
  });
  const done = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await done;
      await connection.close();
    },
  };
}
