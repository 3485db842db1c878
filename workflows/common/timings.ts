/**
 * Time in workflow code: every wait's durations, and the one sanctioned reader of the clock.
 */
import { takesPatch, TIMINGS_RESOLVED_IN_CODE } from './patches';

/**
 * Every wait's durations (DESIGN, "Rules every workflow follows"): a starter may override them, and
 * only its overrides are carried; the defaults are resolved here, in workflow code, so that changing
 * one (a retune) reaches the workflows already running, behind a patch (`takesPatch()`,
 * docs/deploying/versioning.md, "Timings").
 *
 * Resolving a timing is a decision a workflow makes while it runs, so a timing is read through a
 * getter that asks its patch at that moment, and only when the answer would differ: at the start
 * of a wait (its poll interval, backoff cap and deadline), and where a journey asks whether to
 * continue as new (its history limit, also inside the ACTIVE stage's condition: a predicate runs only
 * on workflow activations, never on queries, so its patch marker lands deterministically).
 *
 * Eras of a timing, oldest first:
 * 1. Before TIMINGS_RESOLVED_IN_CODE: the journey's input held every timing, filled in from the
 *    defaults of the day by the client and carried through continue-as-new, so a retune never reached
 *    a running journey. Histories of that code replay with exactly those values.
 * 2. From TIMINGS_RESOLVED_IN_CODE: the input's overrides (see `journeyTimingOverrides` for how the
 *    values that code filled in are told apart), else the defaults below.
 * 3. Each retune in JOURNEY_RETUNES / DEPOSIT_RETUNES: from its own patch on, its new default.
 */
const DAY = 86_400;

/** A journey's timings, resolved (what journey-input.ts's JourneyTimingsSchema lets a starter override). */
export interface JourneyTimings {
  pollIntervalSeconds: number;
  pollBackoffCapSeconds: number;
  kycDeadlineSeconds: number;
  accountsDeadlineSeconds: number;
  maxHistoryEvents: number;
}

/** A deposit's timings, resolved (what deposit-input.ts's DepositTimingsSchema lets a starter override). */
export interface DepositTimings {
  pollIntervalSeconds: number;
  pollBackoffCapSeconds: number;
  stepDeadlineSeconds: number;
  /** How long a deposit the service does not have is given to appear before it is dismissed (workflows/common/trust.ts). */
  notFoundGraceSeconds: number;
}

/**
 * The journey's production defaults as of TIMINGS_RESOLVED_IN_CODE. Never edit these: a retune is a
 * new entry in JOURNEY_RETUNES (histories recorded since the patch replay with these values).
 */
export const JOURNEY_TIMING_DEFAULTS: Readonly<JourneyTimings> = Object.freeze({
  pollIntervalSeconds: 15 * 60,
  pollBackoffCapSeconds: 24 * 60 * 60,
  kycDeadlineSeconds: 30 * DAY,
  accountsDeadlineSeconds: 7 * DAY,
  maxHistoryEvents: 2_000,
});

/** The deposit's production defaults, as the code before TIMINGS_RESOLVED_IN_CODE filled them in. Never edit: retune below. */
export const DEPOSIT_TIMING_DEFAULTS: Readonly<DepositTimings> = Object.freeze({
  pollIntervalSeconds: 15 * 60,
  pollBackoffCapSeconds: 6 * 60 * 60,
  stepDeadlineSeconds: 3 * DAY,
  notFoundGraceSeconds: 60,
});

/** A change of defaults: from `patchId` on, running workflows without an override of a field take its new value. */
export interface Retune<T> {
  /** A new change-id, unique forever (README, "What is safe, and when to patch"). */
  patchId: string;
  defaults: Partial<T>;
}

/**
 * Retunes, oldest first; append only. Empty so far. (Tests append one in a bundle of their own,
 * test/support/workflows/retuned-timings.ts, to play a release that retunes.)
 */
export const JOURNEY_RETUNES: Retune<JourneyTimings>[] = [];
export const DEPOSIT_RETUNES: Retune<DepositTimings>[] = [];

const JOURNEY_FIELDS = [
  'pollIntervalSeconds',
  'pollBackoffCapSeconds',
  'kycDeadlineSeconds',
  'accountsDeadlineSeconds',
  'maxHistoryEvents',
] as const;
const DEPOSIT_FIELDS = [
  'pollIntervalSeconds',
  'pollBackoffCapSeconds',
  'stepDeadlineSeconds',
  'notFoundGraceSeconds',
] as const;

/**
 * Every value the code before TIMINGS_RESOLVED_IN_CODE ever filled into a journey's input, from git's
 * history of workflows/schemas.ts (the backoff cap was 12 h for a while, the history limit
 * 10,000): equal to one of these, a value in a full input is taken as filled in, not chosen.
 */
const FILLED_BY_EARLIER_CODE: Record<keyof JourneyTimings, readonly number[]> = {
  pollIntervalSeconds: [15 * 60],
  pollBackoffCapSeconds: [12 * 60 * 60, 24 * 60 * 60],
  kycDeadlineSeconds: [30 * DAY],
  accountsDeadlineSeconds: [7 * DAY],
  maxHistoryEvents: [10_000, 2_000],
};

/** The fields that code filled in every time (the backoff cap came later, so old inputs may lack it). */
const ALWAYS_FILLED = [
  'pollIntervalSeconds',
  'kycDeadlineSeconds',
  'accountsDeadlineSeconds',
  'maxHistoryEvents',
] as const;

type Given<T> = Partial<Record<keyof T, unknown>> | undefined;

function numberIn<T>(given: Given<T>, field: keyof T): number | undefined {
  const value = given?.[field];
  return typeof value === 'number' ? value : undefined;
}

/**
 * The overrides a journey's input holds, and so what it carries through continue-as-new.
 *
 * The rule: an input holding every timing that the earlier code always filled in (all four of
 * ALWAYS_FILLED) is taken to have been filled in by that code, and its values equal to a default
 * that code filled in (FILLED_BY_EARLIER_CODE) are dropped; every other value is an override. An input
 * lacking any of them was written by a starter who gave only overrides, and all its values are kept.
 *
 * The edge case: a starter who gave all four, some equal to a default of their day, cannot be told
 * from a filled-in input, so those values follow the code's defaults from the patch on (which, until
 * a retune, are the same; a history limit of 10,000 becomes 2,000 at once). Fields this code does not
 * know (the deposit timings journeys once carried) are dropped too.
 */
export function journeyTimingOverrides(given: Given<JourneyTimings>): Partial<JourneyTimings> {
  const filledIn = ALWAYS_FILLED.every((field) => numberIn(given, field) !== undefined);
  const overrides: Partial<JourneyTimings> = {};
  for (const field of JOURNEY_FIELDS) {
    const value = numberIn(given, field);
    if (value === undefined || (filledIn && FILLED_BY_EARLIER_CODE[field].includes(value))) continue;
    overrides[field] = value;
  }
  return overrides;
}

/** The value after the retunes that touch `field`, each taken from its patch on (called where the timing is needed). */
function retuned<T>(retunes: readonly Retune<T>[], field: keyof T, value: number): number {
  for (const retune of retunes) {
    const next = retune.defaults[field];
    if (typeof next !== 'number' || next === value) continue;
    // Replaying a history from before this retune: keep what that code used (a later retune cannot
    // be on where this one is off, as releases only add retunes).
    if (!takesPatch(retune.patchId)) break;
    value = next;
  }
  return value;
}

/** An object of getters: each read resolves the timing where it is used (see the module comment). */
function gettersFor<T extends object>(
  fields: readonly (keyof T & string)[],
  valueOf: (field: keyof T) => number,
  extra: object = {},
): Readonly<T> {
  const timings = { ...extra } as T;
  for (const field of fields) Object.defineProperty(timings, field, { get: () => valueOf(field), enumerable: true });
  return Object.freeze(timings);
}

export interface ResolvedJourneyTimings extends Readonly<JourneyTimings> {
  /** What continue-as-new carries as the input's `timings`: the overrides only. */
  readonly overrides: Partial<JourneyTimings>;
}

/**
 * A journey's timings. `given` is its input's `timings` (validated on a first run); `firstRun` says
 * whether this run was started rather than continued as new, which is where the earlier code filled
 * in the defaults (a later run used its carried input as it was, a missing backoff cap included:
 * the journey's waits (workflows/journey/run.ts) then polls without backoff, as journeys from before the backoff always did).
 */
export function journeyTimings(given: Given<JourneyTimings>, firstRun: boolean): ResolvedJourneyTimings {
  const overrides = journeyTimingOverrides(given);
  const earlier = (field: keyof JourneyTimings): number | undefined =>
    numberIn(given, field) ?? (firstRun ? JOURNEY_TIMING_DEFAULTS[field] : undefined);
  const valueOf = (field: keyof JourneyTimings): number => {
    const before = earlier(field);
    const from = overrides[field] ?? JOURNEY_TIMING_DEFAULTS[field];
    // Asked only where the eras disagree, so a journey whose input says the same either way (every
    // journey started by this code with no override) records no marker and pays no upsert for it.
    if (before !== from && !takesPatch(TIMINGS_RESOLVED_IN_CODE)) return before as number;
    return overrides[field] ?? retuned(JOURNEY_RETUNES, field, from);
  };
  return gettersFor<JourneyTimings>(JOURNEY_FIELDS, valueOf, {
    overrides: Object.freeze(overrides),
  }) as ResolvedJourneyTimings;
}

/**
 * A deposit's timings. Its input only ever held what its starter passed (a worker's DEPOSIT_*
 * settings, tests' seconds): the earlier code filled the same defaults in memory, so there is no era
 * before the retunes to tell apart.
 */
export function depositTimings(given: Given<DepositTimings>): Readonly<DepositTimings> {
  return gettersFor<DepositTimings>(
    DEPOSIT_FIELDS,
    (field) => numberIn(given, field) ?? retuned(DEPOSIT_RETUNES, field, DEPOSIT_TIMING_DEFAULTS[field]),
  );
}

/**
 * The one sanctioned reader of the clock in workflow code. Inside the workflow sandbox `Date` is
 * Temporal's deterministic clock (the time of the current workflow task, the same on every replay);
 * reading it through this function keeps every other use flagged by the linter.
 */
export function workflowNow(): number {
  // eslint-disable-next-line no-restricted-properties -- deterministic inside the workflow sandbox, see above
  return Date.now();
}

export const isoNow = (): string => new Date(workflowNow()).toISOString();
