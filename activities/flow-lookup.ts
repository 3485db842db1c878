/**
 * The autoramp flow that links one of a customer's entries to an exit, found again after a create
 * whose outcome we do not know. The flow list has no customer filter (release 2026-03-27), so this is
 * a search of the partner's whole list, done the scalable way (list-search.ts): from the newest end,
 * bounded by the entries' creation time (a flow cannot be older than its entry), a slice of pages per
 * attempt with the cursor in the heartbeat.
 */
import type { RampClient } from '../ramp';
import type { AutorampFlow } from '../ramp/schemas';
import { BOUND_SLACK_MS, searchListInActivity, timeOf } from './list-search';

/** An entry (virtual account or deposit address) as the service lists it; `createTime` when it shows one. */
export interface FlowEntry {
  id: string;
  createTime?: unknown;
}

/** The enabled flow of `type` whose entry is one of `entries` and whose exit is `exitId`, if any. */
export async function findFlow(
  ramp: RampClient,
  type: 'ONRAMP' | 'OFFRAMP',
  entries: FlowEntry[],
  exitId: string,
): Promise<AutorampFlow | undefined> {
  if (entries.length === 0) return undefined; // the service creates the entry with the flow
  const entryIds = new Set(entries.map((entry) => entry.id));
  return searchListInActivity<AutorampFlow>({
    search: `find the ${type} flow to ${exitId}`,
    fetchPage: (pageNum, pageSize) => ramp.autorampFlows.list({ type, status: 'ENABLED', pageNum, pageSize }),
    createdAt: (flow) => timeOf(flow.createTime),
    matches: (flow) => flow.to === exitId && entryIds.has(flow.from),
    notBefore: oldestEntry(entries),
  });
}

/** The bound: the oldest entry's creation time, less the slack; none if an entry shows no time. */
function oldestEntry(entries: FlowEntry[]): number | undefined {
  const times = entries.map((entry) => timeOf(entry.createTime));
  if (times.some((time) => time === undefined)) return undefined;
  return Math.min(...(times as number[])) - BOUND_SLACK_MS;
}
