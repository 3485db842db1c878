/**
 * The journey with a step put in front of it (a one-second timer) and no patched() guard: the change a
 * developer might think harmless. Replaying a recorded journey against it must fail with a
 * DeterminismViolationError (test/workflows/replay.test.ts), which is what the corpus is for.
 */
import { sleep } from '@temporalio/workflow';
import { customerJourney as currentJourney } from '../../../workflows/journey/workflow';

export async function customerJourney(...args: Parameters<typeof currentJourney>): ReturnType<typeof currentJourney> {
  await sleep('1 second');
  return currentJourney(...args);
}
