/**
 * Time in workflow code: every wait's durations, and the one sanctioned reader of the clock.
 */
import { takesPatch } from './patches';

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
 * A timing is the input's override, else the default below, else, from a retune's own patch on
 * (JOURNEY_RETUNES / DEPOSIT_RETUNES), the retune's new default. (0.x journeys whose input held
 * every default, filled in by the client of their day, are drained or handed over by v0.8.0, which
 * carries their overrides only: docs/deploying/versioning.md, "Major versions".)
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
 * The journey's production defaults as of 1.0. Never edit these: a retune is a new entry in
 * JOURNEY_RETUNES (every history of 1.0 code replays with these values).
 */
export const JOURNEY_TIMING_DEFAULTS: Readonly<JourneyTimings> = Object.freeze({
  pollIntervalSeconds: 15 * 60,
  pollBackoffCapSeconds: 24 * 60 * 60,
  kycDeadlineSeconds: 30 * DAY,
  accountsDeadlineSeconds: 7 * DAY,
  maxHistoryEvents: 2_000,
});

/** The deposit's production defaults as of 1.0. Never edit: retune below. */
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

type Given<T> = Partial<Record<keyof T, unknown>> | undefined;

function numberIn<T>(given: Given<T>, field: keyof T): number | undefined {
  const value = given?.[field];
  return typeof value === 'number' ? value : undefined;
}

/**
 * The overrides a journey's input holds, and so what it carries through continue-as-new: every timing
 * it gives. Fields this code does not know (the deposit timings journeys once carried) are dropped.
 */
export function journeyTimingOverrides(given: Given<JourneyTimings>): Partial<JourneyTimings> {
  const overrides: Partial<JourneyTimings> = {};
  for (const field of JOURNEY_FIELDS) {
    const value = numberIn(given, field);
    if (value !== undefined) overrides[field] = value;
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

/** A journey's timings. `given` is its input's `timings` (validated on a first run). */
export function journeyTimings(given: Given<JourneyTimings>): ResolvedJourneyTimings {
  const overrides = journeyTimingOverrides(given);
  const valueOf = (field: keyof JourneyTimings): number =>
    overrides[field] ?? retuned(JOURNEY_RETUNES, field, JOURNEY_TIMING_DEFAULTS[field]);
  return gettersFor<JourneyTimings>(JOURNEY_FIELDS, valueOf, {
    overrides: Object.freeze(overrides),
  }) as ResolvedJourneyTimings;
}

/**
 * A deposit's timings: its input holds only what its starter passed (a worker's DEPOSIT_* settings,
 * tests' seconds), the rest are the defaults and their retunes.
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
