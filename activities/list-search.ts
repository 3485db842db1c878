/**
 * Finding one record in a list the service gives no filter for (the partner's autoramp flows; the
 * trades), without walking the partner's whole list inside one activity attempt. Three things keep
 * the walk short and resumable:
 *
 * - **From the newest end.** The interface does not say in which order lists come. The first and the
 *   last page (`total` says which that is) are read first; their creation times tell the order, and
 *   the walk goes on from whichever end holds the newest records. What a recovery looks for (a flow
 *   we may just have created, the trade of a deposit we are following) is recent, so it is usually
 *   on one of those two pages. Walking away from the newest end is also safe while records are
 *   added: they land at the end already read, so nothing shifts past the walk unseen.
 * - **A bound by creation time.** A record cannot be older than what it was made from (a flow than
 *   its entry account, a trade than its deposit's confirmation): once a page's oldest record is
 *   older than that, the rest of the list is older still, and the record is not there. When the
 *   order cannot be told (equal or missing times), there is no bound and the walk reads every page.
 * - **A cursor in the heartbeat.** An attempt reads at most `pagesPerAttempt` pages, then heartbeats
 *   where it is and ends with a retryable `ListSearchContinues` failure
 *   (next retry in a second, whatever the policy's backoff); the next attempt reads the cursor from
 *   `heartbeatDetails` and carries on where this one stopped. So a lookup with no useful bound still
 *   walks the whole list, but a slice per attempt: each attempt ends well inside its timeout, a worker
 *   crash loses one slice, and other work on the worker gets its turn between slices.
 */
import { ApplicationFailure, Context } from '@temporalio/activity';
import type { Page } from '../ramp/schemas';

/** The largest page the service allows: fewest calls. */
export const SEARCH_PAGE_SIZE = 100;

/** Pages one attempt reads at most: a few seconds of calls, well inside the lookups' timeouts. */
export const DEFAULT_PAGES_PER_ATTEMPT = 20;

/**
 * How far before its bound a record may still carry a creation time: the service's parts may not
 * share one clock to the millisecond, and a bound too tight would miss the very record sought. An
 * hour of records costs a page or two more; missing a flow costs a second one.
 */
export const BOUND_SLACK_MS = 60 * 60 * 1000;

/** The failure type of an attempt that ran out of pages with the walk unfinished. */
export const LIST_SEARCH_CONTINUES = 'ListSearchContinues';

export type WalkOrder = 'newest-first' | 'oldest-first' | 'unknown';

/** Where a walk is, carried from one attempt to the next in the heartbeat. */
export interface SearchCursor {
  /** Which search this cursor belongs to (an attempt of another search ignores it). */
  search: string;
  order: WalkOrder;
  /** The next page to read. */
  next: number;
  /** The page the walk ends at (the other end, read at the start). */
  last: number;
  /** Pages read so far, over every attempt. */
  pages: number;
}

export interface ListSearch<T> {
  /** Names the search (the list and what is sought), so a cursor is only taken up by the same search. */
  search: string;
  fetchPage: (pageNum: number, pageSize: number) => Promise<Page<T>>;
  /** The record's creation time in ms since the epoch, when it says one. */
  createdAt: (item: T) => number | undefined;
  matches: (item: T) => boolean | Promise<boolean>;
  /**
   * No match can have been created before this (ms since the epoch); undefined: no bound. A function
   * is called only when the list is longer than its two end pages (it may cost a call).
   */
  notBefore?: number | (() => Promise<number | undefined>);
  pagesPerAttempt?: number;
  /** Where an earlier attempt stopped. */
  cursor?: SearchCursor;
  /** Called with the cursor after every page (progress for a caller that wants it; activities do not heartbeat it). */
  progress?: (cursor: SearchCursor) => void;
}

export type SearchOutcome<T> =
  | { found: T; pages: number }
  | { found: undefined; pages: number; complete: true }
  | { found: undefined; pages: number; complete: false; cursor: SearchCursor };

/** Parses the service's timestamps (ISO 8601; a payment's `YYYY-MM-DD HH:mm:ss` is UTC). */
export function timeOf(value: unknown): number | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/.test(value) ? `${value.replace(' ', 'T')}Z` : value);
  return Number.isNaN(ms) ? undefined : ms;
}

export async function searchList<T>(search: ListSearch<T>): Promise<SearchOutcome<T>> {
  const budget = search.pagesPerAttempt ?? DEFAULT_PAGES_PER_ATTEMPT;
  const resumed = search.cursor?.search === search.search ? search.cursor : undefined;
  let readThisAttempt = 0;
  let pages = resumed?.pages ?? 0;

  const read = async (pageNum: number): Promise<Page<T>> => {
    readThisAttempt += 1;
    pages += 1;
    return search.fetchPage(pageNum, SEARCH_PAGE_SIZE);
  };
  const matchIn = async (page: Page<T>): Promise<T | undefined> => {
    for (const item of page.list) if (await search.matches(item)) return item;
    return undefined;
  };
  let bound: number | undefined;
  let boundKnown = false;
  /** Whether the page holds a record older than the bound: the rest of the walk is older still. */
  const pastBound = async (page: Page<T>): Promise<boolean> => {
    if (!boundKnown) {
      bound = typeof search.notBefore === 'function' ? await search.notBefore() : search.notBefore;
      boundKnown = true;
    }
    if (bound === undefined) return false;
    return page.list.some((item) => {
      const time = search.createdAt(item);
      return time !== undefined && time < bound!;
    });
  };

  let cursor: SearchCursor;
  if (resumed) {
    cursor = resumed;
  } else {
    const first = await read(1);
    const hit = await matchIn(first);
    if (hit !== undefined) return { found: hit, pages };
    const last = Math.ceil(first.total / SEARCH_PAGE_SIZE);
    if (last <= 1 || first.list.length === 0) return { found: undefined, pages, complete: true };
    const end = await read(last);
    const endHit = await matchIn(end);
    if (endHit !== undefined) return { found: endHit, pages };
    const order = orderOf(search.createdAt(first.list[0]!), search.createdAt(end.list.at(-1) ?? first.list.at(-1)!));
    const newest = order === 'oldest-first' ? end : first;
    if (order !== 'unknown' && (await pastBound(newest))) return { found: undefined, pages, complete: true };
    // Walk the pages in between, away from the newest end (unknown: from the head).
    cursor =
      order === 'oldest-first'
        ? { search: search.search, order, next: last - 1, last: 2, pages }
        : { search: search.search, order, next: 2, last: last - 1, pages };
  }

  const step = cursor.order === 'oldest-first' ? -1 : 1;
  while (step > 0 ? cursor.next <= cursor.last : cursor.next >= cursor.last) {
    if (readThisAttempt >= budget) return { found: undefined, pages, complete: false, cursor };
    const page = await read(cursor.next);
    cursor = { ...cursor, next: cursor.next + step, pages };
    search.progress?.(cursor);
    const hit = await matchIn(page);
    if (hit !== undefined) return { found: hit, pages };
    if (page.list.length === 0) break; // the list shrank under us: nothing further on
    if (cursor.order !== 'unknown' && (await pastBound(page))) break;
  }
  return { found: undefined, pages, complete: true };
}

function orderOf(headTime: number | undefined, tailTime: number | undefined): WalkOrder {
  if (headTime === undefined || tailTime === undefined || headTime === tailTime) return 'unknown';
  return headTime > tailTime ? 'newest-first' : 'oldest-first';
}

/**
 * Runs a search inside an activity: resumes from the cursor an earlier attempt heartbeated and, when
 * this attempt's pages run out, heartbeats its own and ends the attempt so the next one carries on.
 */
export async function searchListInActivity<T>(
  search: Omit<ListSearch<T>, 'cursor' | 'progress'>,
): Promise<T | undefined> {
  const context = Context.current();
  // The cursor is heartbeated once, when this attempt's pages run out, not after every page: a create
  // that follows a look-up in the same attempt (activities/creates.ts) must have the attempt's first
  // heartbeat, which the SDK sends at once, for the record of the request it is about to send.
  const outcome = await searchList({
    ...search,
    cursor: cursorOf(context.info.heartbeatDetails),
    progress: () => undefined,
  });
  if (!('cursor' in outcome)) return outcome.found;
  context.heartbeat(outcome.cursor);
  throw ApplicationFailure.create({
    type: LIST_SEARCH_CONTINUES,
    message: `${search.search}: read ${outcome.pages} pages of the list so far, none older than the bound; the next attempt goes on from page ${outcome.cursor.next}`,
    nextRetryDelay: '1 second',
  });
}

/** The cursor in an attempt's heartbeat details, if they hold one. */
export function cursorOf(details: unknown): SearchCursor | undefined {
  if (typeof details !== 'object' || details === null) return undefined;
  const cursor = details as Partial<SearchCursor>;
  const orders: unknown[] = ['newest-first', 'oldest-first', 'unknown'];
  if (typeof cursor.search !== 'string' || !orders.includes(cursor.order)) return undefined;
  if (![cursor.next, cursor.last, cursor.pages].every((n) => Number.isSafeInteger(n) && n! >= 0)) return undefined;
  return cursor as SearchCursor;
}
