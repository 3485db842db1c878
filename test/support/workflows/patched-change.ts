/**
 * The same new step as unpatched-change.ts, behind patched(): journeys that started before the change
 * replay without it, new ones take it. The replay corpus accepts this one (test/workflows/replay.test.ts).
 */
import { patched, sleep } from '@temporalio/workflow';
import { customerJourney as currentJourney } from '../../../workflows/journey/workflow';

export async function customerJourney(...args: Parameters<typeof currentJourney>): ReturnType<typeof currentJourney> {
  if (patched('pause-before-the-journey')) await sleep('1 second');
  return currentJourney(...args);
}
