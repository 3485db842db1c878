/**
 * Every change to a workflow's shape that recorded histories still replay (docs/deploying/versioning.md,
 * "What is safe, and when to patch"), and the one place workflow code asks about them: `takesPatch(id)`
 * in place of the SDK's `patched(id)` (the lint forbids `patched` elsewhere in workflows/).
 *
 * Why not `patched()` everywhere: the first time a run passes `patched(id)` it records a marker and
 * the SDK upserts `TemporalChangeVersion`, a billed action and a visibility write, for a branch every
 * new run takes anyway. With ten patches that was 6 markers and 6 upserts in a journey and 4 in each
 * deposit. So patches are folded: a run of this code asks one patch, the fold, and takes every patch
 * the fold names without asking it. A history recorded before the fold has no fold marker, so the
 * fold answers false there and each patch is asked on its own, exactly as the code of its day did.
 *
 * The fold is asked once a run, at the first `takesPatch` (a module's state is the run's own: the SDK
 * gives each run its own module instances), and its answer kept: asked while replaying a run of older
 * code it is false for the rest of that run, so such a run keeps asking each patch as it always did;
 * asked anywhere else it is true, as `patched()` itself would have answered every patch there.
 *
 * **A released fold never changes.** Its list is what its marker means in every history recorded with
 * it: adding an id to it would make those histories take that id's new branch on replay where they
 * took the old one. A new patch is asked on its own (`takesPatch` asks `patched` for any id no fold
 * names) until a later release adds a fold of its own naming it; the newest fold is asked first.
 * `npm run histories:record` files each release's folds (patch-folds.json), and
 * test/workflows/replay-corpus.test.ts fails when the code's fold differs from its release's.
 */
import { patched } from '@temporalio/workflow';

// The patches, oldest first. Each id is a name for one change, unique forever.

/** Journeys, deposits and payouts index when they entered their stage (RampStageSince) with the stage. */
export const STAGE_SINCE_INDEXED = 'stage-since-indexed';
/** Calls to the service go to the service task queue, with priorities (workflows/common/calls.ts). */
export const SERVICE_TASK_QUEUE_PATCH = 'service-task-queue';
/** A journey stops looking for its own exits before registering them. */
export const OWN_EXITS_LOOKED_UP_ONCE = 'own-exits-looked-up-once';
/** A journey resolves its timings in code instead of using its input's (workflows/common/timings.ts). */
export const TIMINGS_RESOLVED_IN_CODE = 'timings-resolved-in-code';
/** A webhook's payload is only a hint (before it, direct routing applied payloads as records). */
export const PAYLOADS_ARE_HINTS = 'payloads-are-hints';
/** A completing trade or payment that came from a payload is read from the service. */
export const COMPLETES_ON_SERVICE_WORD = 'completes-on-service-word';
/** An event about a record the service does not have is dismissed, not parked. */
export const ABSENT_RECORDS_DISMISSED = 'absent-records-dismissed';
/** A deposit offers each report to its journey by update through an activity, not by signal. */
export const DEPOSIT_REPORTS_OFFERED = 'deposit-reports-offered';
/** Journeys record partner events. */
export const PARTNER_EVENTS = 'partner-events';
/** Partner events are recorded by a local activity and pushed only where an endpoint is enabled. */
export const PARTNER_EVENTS_RECORDED_LOCALLY = 'partner-events-recorded-locally';
/**
 * A deposit finds its journey in rampflow's own index by a local activity, and asks the service (an
 * activity on the service queue) only when the index has no one answer.
 */
export const DEPOSIT_JOURNEY_FOUND_LOCALLY = 'deposit-journey-found-locally';
/**
 * Hints never delay facts (each asked once a run, at its first hint, so one marker for both):
 * a hint never postpones a wait's next poll, which runs from the last poll, not from the last hint
 * (workflows/common/waiting.ts, workflows/common/parking.ts); and a deposit's pending hints are first come: read
 * oldest first, a full box turns new ids away instead of dropping old ones, and an id a read refused
 * is not taken again (workflows/common/trust.ts, PendingHints).
 */
export const HINTS_NEVER_DELAY_FACTS = 'hints-never-delay-facts';
/** A sleeping wait wakes to continue as new when deliveries that claim nothing grew its history. */
export const WAITS_WAKE_TO_CONTINUE_AS_NEW = 'waits-wake-to-continue-as-new';

/**
 * A wait for a fact no event announces (the AUD whitelist, which the interface promises "with a short
 * delay" after approval; a deposit held ACTION_REQUIRED; exit accounts the partner registers) polls
 * early: its first poll after EARLY_FIRST_POLL_MS, the pauses doubling up to the poll interval
 * (workflows/common/waiting.ts). Asked at such a wait's start, and only where its poll interval is longer.
 */
export const UNANNOUNCED_FACTS_POLLED_EARLY = 'unannounced-facts-polled-early';

/** A fold: one patch standing for every patch it names (see above). */
interface Fold {
  readonly patchId: string;
  readonly takes: ReadonlySet<string>;
}

/** The folds, newest first. Released ones are never edited (see above). */
export const FOLDS: readonly Fold[] = [
  {
    patchId: 'folded-v0.7',
    takes: new Set([
      STAGE_SINCE_INDEXED,
      SERVICE_TASK_QUEUE_PATCH,
      OWN_EXITS_LOOKED_UP_ONCE,
      TIMINGS_RESOLVED_IN_CODE,
      PAYLOADS_ARE_HINTS,
      COMPLETES_ON_SERVICE_WORD,
      ABSENT_RECORDS_DISMISSED,
      DEPOSIT_REPORTS_OFFERED,
      PARTNER_EVENTS,
      PARTNER_EVENTS_RECORDED_LOCALLY,
      DEPOSIT_JOURNEY_FOUND_LOCALLY,
    ]),
  },
];

/** The fold this run took (the newest one its history or its code has), null for none; undefined until asked. */
let runFold: Fold | null | undefined;

function foldOfRun(): Fold | null {
  if (runFold === undefined) runFold = FOLDS.find((fold) => patched(fold.patchId)) ?? null;
  return runFold;
}

/** Whether this run takes the change `patchId` names: `patched(patchId)`, answered by the run's fold where it names it. */
export function takesPatch(patchId: string): boolean {
  // A patch no fold names does not ask the fold: asking it would move where a run first asks the fold,
  // and a history recorded with the fold's marker in a later workflow task would replay it as absent.
  if (!FOLDS.some((fold) => fold.takes.has(patchId))) return patched(patchId);
  return foldOfRun()?.takes.has(patchId) === true || patched(patchId);
}
