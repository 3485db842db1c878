/**
 * Every change to a workflow's shape that recorded histories still replay (docs/deploying/versioning.md,
 * "What is safe, and when to patch"), and the one place workflow code asks about them: `takesPatch(id)`
 * in place of the SDK's `patched(id)` (the lint forbids `patched` elsewhere in workflows/).
 *
 * 1.0 is the baseline: every patch of 0.x is folded into the code, which always takes the branch the
 * patch took, and the list below starts empty. 0.x histories never reach this code (a major runs on its
 * own task queue and worker deployment, docs/deploying/versioning.md, "Major versions"); they replay on
 * v0.8.0's bundle, the code that drains them.
 *
 * A change of shape after 1.0 gets a constant here (at the end of the list, unique forever) and is
 * asked with `takesPatch(ID)`, asked only where the branch differs, so a run that never reaches it
 * records no marker (a marker is a billed action and a `TemporalChangeVersion` upsert).
 *
 * Folds: a release may fold the patches before it into one (a run of its code asks the fold once, at
 * the first `takesPatch` of a patch it names, and takes every patch it names without asking each; a
 * history recorded before the fold has no fold marker, so each patch is asked on its own there). A
 * released fold never changes: its list is what its marker means in every history recorded with it.
 * `npm run histories:record` files each release's folds (patch-folds.json), and
 * test/workflows/replay-corpus.test.ts fails when the code's fold differs from its release's, for
 * releases of the current major.
 */
import { patched } from '@temporalio/workflow';

// The patches of 1.x, oldest first. Each id is a name for one change, unique forever.

/**
 * 1.1, a deposit's first look (issue 41): its first read of its record also asks rampflow's index
 * whose it is (one activity where an activity and a local activity were), and RECEIVED is indexed at
 * the wait's first poll rather than on entry, so a deposit the service moves on within seconds
 * indexes its next stage only (one upsert fewer). Asked where each branch differs; one marker a run.
 */
export const DEPOSIT_FIRST_LOOK = 'deposit-first-look';

/**
 * 1.2, a deposit read REJECTED once its run is under way (issue 36, found by the chaos run): the run
 * reads what the service settled before it says why. A trade that settled (and, for an offramp, a
 * payout that was paid) ends it COMPLETED, then REVERSED, rather than REVERSED alone; a trade that
 * names it ends it REVERSED, though the run never saw it confirmed (it used to end REJECTED); no
 * trade, REJECTED as before. Asked only on those paths: one marker for a deposit refunded mid-flight
 * or rejected after its first read, none for any other.
 */
export const REFUND_READS_WHAT_SETTLED = 'refund-reads-what-settled';

/**
 * 1.3, a deposit that reads the refund of a deposit the service had completed before it ever saw it
 * confirmed: at its first read (its events lost, its run started late by reconciliation), or when a
 * step parked before the confirmation runs again (issue 36, found by the chaos run). When no earlier
 * run of it can have told the journey it completed (its trade is younger than the namespace's
 * retention, so such a run would still be there and the refund would have gone to a reversal run of
 * its own), it ends COMPLETED, then REVERSED, so the partner hears both and the journey counts it in
 * and out. It used to end REVERSED alone: at a first read as if an earlier run had told the journey,
 * after a park as if nothing had completed. Asked only on those paths.
 */
export const FIRST_READ_REFUND_TELLS_COMPLETION = 'first-read-refund-tells-completion';

/**
 * 1.4, partner events recorded by an activity, not a local activity (found by the chaos run: four
 * journeys of the 300-customer run failed on replay). A local activity's result can reach the workflow
 * one workflow task after the task whose completion recorded its marker, behind an update that came
 * meanwhile (the SDK's core, 1.24); a replay applies it in the marker's task, before the update, and
 * the run fails with a nondeterminism error for good. An activity's result is an event of its own, in
 * history order on replay as live. Asked at a run's first recording; one marker a run.
 */
export const PARTNER_EVENTS_RECORDED_BY_ACTIVITY = 'partner-events-recorded-by-activity';

/** A fold: one patch standing for every patch it names (see above). */
interface Fold {
  readonly patchId: string;
  readonly takes: ReadonlySet<string>;
}

/** The folds, newest first. Released ones are never edited (see above). None in 1.0. */
export const FOLDS: readonly Fold[] = [];

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
