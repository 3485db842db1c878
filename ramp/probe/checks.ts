/**
 * `rampflow probe`'s checks: each asks the service one question the interface leaves open, without
 * moving money, and answers with one line: held, differs (what the service did instead, and the
 * RAMP_ASSUMPTIONS_FILE keys that match it) or unchecked (why). A check reads only counts, statuses,
 * page sizes and creation times: no line ever carries a customer's data, an account or a secret.
 */
import { randomUUID } from 'node:crypto';
import type { QueryParameterNames, RampAssumptions } from '../assumptions';
import type { RampAssumptionsFile } from '../assumptions-file';
import { buildRawQuery } from '../query';
import {
  accepted,
  describeAnswer,
  envelopeStatus,
  refusedAsUnauthorised,
  type ProbeAnswer,
  type ProbeWire,
} from './wire';

export type ProbeStatus = 'held' | 'differs' | 'unchecked';

export interface ProbeLine {
  check: string;
  status: ProbeStatus;
  detail: string;
  /** The RAMP_ASSUMPTIONS_FILE keys that make rampflow match what the service did. */
  override?: RampAssumptionsFile;
}

export interface ProbeContext {
  wire: ProbeWire;
  assumptions: RampAssumptions;
  /** The list order rampflow runs with: the file's `listOrder`, else RECONCILE_LIST_ORDER. */
  listOrder: 'newest-first' | 'unknown';
  /** May create test customers (sandbox deployments only). */
  create: boolean;
}

/** The probe could not talk to the service at all: nothing it would report means anything. */
export class ProbeCannotRun extends Error {}

const LIST = '/customer/list';

function pageSizeOf(answer: ProbeAnswer): number | undefined {
  const data = answer.json?.data as { pageSize?: unknown } | undefined;
  return typeof data?.pageSize === 'number' ? data.pageSize : undefined;
}

function listOf(answer: ProbeAnswer): Record<string, unknown>[] {
  const data = answer.json?.data as { list?: unknown } | undefined;
  return Array.isArray(data?.list) ? (data.list as Record<string, unknown>[]) : [];
}

function seconds(ms: number): string {
  const value = Math.round(ms / 100) / 10;
  return `${value > 0 ? '+' : ''}${value} s`;
}

/** One signed list call under the given names, which the probe also times. */
function listPage(
  context: ProbeContext,
  names: Pick<QueryParameterNames, 'pageNum' | 'pageSize'>,
  pageSize: number,
  path = LIST,
): Promise<ProbeAnswer> {
  return context.wire.send({
    method: 'GET',
    path,
    query: buildRawQuery([
      [names.pageNum, 1],
      [names.pageSize, pageSize],
    ]),
  });
}

/** The clock offset and latency, over a handful of list calls; refuses to go on when the credentials are refused. */
export async function clockAndLatency(context: ProbeContext): Promise<ProbeLine> {
  const names = context.assumptions.queryParameterNames;
  const answers: ProbeAnswer[] = [];
  for (let call = 0; call < 5; call += 1) {
    let answer: ProbeAnswer;
    try {
      answer = await listPage(context, names, 1);
    } catch (error) {
      throw new ProbeCannotRun(`the service did not answer: ${error instanceof Error ? error.message : String(error)}`);
    }
    // The first answer's Date sets the clock the later timestamps are made on.
    if (answer.offsetMs !== undefined && call === 0) context.wire.offsetMs = answer.offsetMs;
    if (refusedAsUnauthorised(answer) && call > 0)
      throw new ProbeCannotRun(
        `the service refused the credentials (${describeAnswer(answer)}): check RAMP_API_KEY and RAMP_API_SECRET`,
      );
    if (!refusedAsUnauthorised(answer)) answers.push(answer);
  }
  const offsets = answers
    .flatMap((answer) => (answer.offsetMs === undefined ? [] : [answer.offsetMs]))
    .sort((a, b) => a - b);
  const latencies = answers.map((answer) => answer.elapsedMs).sort((a, b) => a - b);
  const median = (values: number[]) => values[Math.floor(values.length / 2)] ?? 0;
  if (offsets.length > 0) context.wire.offsetMs = median(offsets);
  const offset =
    offsets.length === 0
      ? 'no Date header, so no offset'
      : `offset ${seconds(median(offsets))} (Date counts whole seconds; the client corrects beyond ${context.assumptions.clockSkewToleranceMs / 1000} s)`;
  return {
    check: 'clock-and-latency',
    status: 'held',
    detail: `${offset}; latency median ${median(latencies)} ms, max ${latencies.at(-1) ?? 0} ms over ${latencies.length} calls`,
  };
}

/** The names rampflow would use if the service spelled every parameter in snake_case. */
function snakeCaseNames(names: QueryParameterNames): Partial<QueryParameterNames> {
  const changed: Partial<QueryParameterNames> = {};
  for (const [label, name] of Object.entries(names) as [keyof QueryParameterNames, string][]) {
    const snake = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
    if (snake !== name) changed[label] = snake;
  }
  return changed;
}

/** Whether the service reads pagination and a detail look-up under these names. */
async function namesRead(
  context: ProbeContext,
  names: QueryParameterNames,
): Promise<{ pages: boolean; lookup: boolean }> {
  const page = await listPage(context, names, 1);
  const lookup = await context.wire.send({
    method: 'GET',
    path: '/customer/detail',
    query: buildRawQuery([[names.externalId, `rampflow-probe-${randomUUID()}`]]),
  });
  // A look-up by a name the service reads finds nothing (FAILED); one it does not read lacks its key (INVALID_PARAMETERS).
  return {
    pages: accepted(page) && pageSizeOf(page) === 1,
    lookup: envelopeStatus(lookup) === 'FAILED' || lookup.status === 404,
  };
}

/** The query parameter names the interface gives only by label; returns the names that work, for the checks after it. */
export async function queryParameterNames(
  context: ProbeContext,
): Promise<{ line: ProbeLine; working: QueryParameterNames }> {
  const names = context.assumptions.queryParameterNames;
  const asAssumed = await namesRead(context, names);
  const checked = `${names.pageNum}, ${names.pageSize} and ${names.externalId}`;
  if (asAssumed.pages && asAssumed.lookup)
    return {
      line: { check: 'query-parameter-names', status: 'held', detail: `read ${checked} as named` },
      working: names,
    };
  const snake = snakeCaseNames(names);
  const snakeNames = { ...names, ...snake };
  const asSnake = await namesRead(context, snakeNames);
  const ignored = [
    ...(asAssumed.pages ? [] : [names.pageNum, names.pageSize]),
    ...(asAssumed.lookup ? [] : [names.externalId]),
  ].join(', ');
  if (asSnake.pages && asSnake.lookup) {
    return {
      line: {
        check: 'query-parameter-names',
        status: 'differs',
        detail: `ignored ${ignored} and read ${snakeNames.pageNum}, ${snakeNames.pageSize} and ${snakeNames.externalId}: it spells query parameters in snake_case`,
        override: { queryParameterNames: snake },
      },
      working: snakeNames,
    };
  }
  return {
    line: {
      check: 'query-parameter-names',
      status: 'differs',
      detail: `ignored ${ignored}, and their snake_case spellings too: set queryParameterNames to the names in the service's documentation`,
    },
    working: names,
  };
}

/** The largest page the service gives. */
export async function maxPageSize(context: ProbeContext, names: QueryParameterNames): Promise<ProbeLine> {
  const wanted = context.assumptions.maxPageSize;
  const gives = async (size: number): Promise<number | undefined> => {
    const answer = await listPage(context, names, size);
    return accepted(answer) ? pageSizeOf(answer) : undefined;
  };
  const atWanted = await gives(wanted);
  if (atWanted === wanted) return { check: 'max-page-size', status: 'held', detail: `accepted pageSize ${wanted}` };
  if (atWanted !== undefined && atWanted < wanted) {
    return {
      check: 'max-page-size',
      status: 'differs',
      detail: `asked for ${wanted}, gave pages of ${atWanted}`,
      override: { maxPageSize: atWanted },
    };
  }
  // Refused: the largest size it accepts, by bisection.
  let low = 0;
  let high = wanted;
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if ((await gives(middle)) === middle) low = middle;
    else high = middle;
  }
  if (low === 0)
    return { check: 'max-page-size', status: 'differs', detail: `refused every pageSize from 1 to ${wanted}` };
  return {
    check: 'max-page-size',
    status: 'differs',
    detail: `refused pageSize ${wanted}; the largest it accepts is ${low}`,
    override: { maxPageSize: low },
  };
}

/** How many times the client's correction tolerance the service must accept, so a clock off by just under it still gets through. */
const SKEW_MARGIN = 3;

/**
 * The X-Timestamp skew the service accepts. DESIGN assumes 60 s either way; what rampflow needs is
 * that the skew it tolerates before correcting its clock (clockSkewToleranceMs) is well inside it.
 */
export async function acceptedClockSkew(context: ProbeContext, names: QueryParameterNames): Promise<ProbeLine> {
  const acceptsShift = async (shift: number) =>
    accepted(
      await context.wire.send({
        method: 'GET',
        path: LIST,
        query: buildRawQuery([
          [names.pageNum, 1],
          [names.pageSize, 1],
        ]),
        timestampShiftSeconds: shift,
      }),
    );
  const check = 'accepted-clock-skew';
  // 55 s rather than 60: the offset learnt from Date is good to about a second.
  if (await acceptsShift(-55))
    return { check, status: 'held', detail: 'accepted a timestamp 55 s behind its clock (rampflow assumes 60 s)' };
  const tolerance = context.assumptions.clockSkewToleranceMs;
  const needed = Math.ceil((SKEW_MARGIN * tolerance) / 1000);
  if (await acceptsShift(-needed)) {
    return {
      check,
      status: 'held',
      detail: `refused 55 s but accepted ${needed} s behind its clock: ${SKEW_MARGIN} times the ${tolerance / 1000} s beyond which the client corrects its clock`,
    };
  }
  const largest = await firstAccepted(
    [30, 15, 8, 4, 2].filter((shift) => shift < needed),
    acceptsShift,
  );
  if (largest === undefined)
    return {
      check,
      status: 'differs',
      detail:
        "refused timestamps even 2 s behind its clock: no override; check this machine's clock and report it to the service",
    };
  // A quarter of what the service accepts: the check above then has a second or more to spare.
  return {
    check,
    status: 'differs',
    detail: `refused ${needed} s behind its clock (${SKEW_MARGIN} times the client's ${tolerance / 1000} s correction), accepted ${largest} s`,
    override: { clockSkewToleranceMs: Math.max(1_000, Math.floor((largest * 1000) / 4)) },
  };
}

async function firstAccepted(
  shifts: number[],
  acceptsShift: (shift: number) => Promise<boolean>,
): Promise<number | undefined> {
  for (const shift of shifts) if (await acceptsShift(-shift)) return shift;
  return undefined;
}

/** A bad signature is refused as UNAUTHORISED (422 from the service, or 401 from a gateway: rampflow reads both). */
export async function badSignature(context: ProbeContext, names: QueryParameterNames): Promise<ProbeLine> {
  const answer = await context.wire.send({
    method: 'GET',
    path: LIST,
    query: buildRawQuery([
      [names.pageNum, 1],
      [names.pageSize, 1],
    ]),
    badSignature: true,
  });
  if (refusedAsUnauthorised(answer))
    return { check: 'bad-signature', status: 'held', detail: `refused with ${describeAnswer(answer)}` };
  return {
    check: 'bad-signature',
    status: 'differs',
    detail: `answered ${describeAnswer(answer)}, not UNAUTHORISED: no override; report it to the service`,
  };
}

/** A nonce sent twice is refused the second time. */
export async function replayedNonce(context: ProbeContext, names: QueryParameterNames): Promise<ProbeLine> {
  const request = {
    method: 'GET' as const,
    path: LIST,
    query: buildRawQuery([
      [names.pageNum, 1],
      [names.pageSize, 1],
    ]),
    nonce: randomUUID(),
  };
  const first = await context.wire.send(request);
  if (!accepted(first))
    return {
      check: 'replayed-nonce',
      status: 'unchecked',
      detail: `the first request was not accepted (${describeAnswer(first)})`,
    };
  const replay = await context.wire.send(request);
  if (refusedAsUnauthorised(replay))
    return { check: 'replayed-nonce', status: 'held', detail: `refused with ${describeAnswer(replay)}` };
  return {
    check: 'replayed-nonce',
    status: 'differs',
    detail: `answered ${describeAnswer(replay)} to a replayed nonce: no override; report it to the service`,
  };
}

type Order = 'newest-first' | 'oldest-first' | undefined;

/** The order of one page by its records' creation times, when they tell it. */
function orderByCreationTime(records: Record<string, unknown>[]): Order {
  const times = records
    .map((record) => record.createTime ?? record.createdAt)
    .map((time) => (typeof time === 'string' ? Date.parse(time) : Number.NaN))
    .filter((time) => !Number.isNaN(time));
  if (times.length < 2 || times.length !== records.length) return undefined;
  const first = times[0] as number;
  const last = times.at(-1) as number;
  if (first === last) return undefined;
  return first > last ? 'newest-first' : 'oldest-first';
}

/** The order of the customer, deposit and trade lists, against the order rampflow reconciles with. */
export async function listOrder(context: ProbeContext, names: QueryParameterNames): Promise<ProbeLine> {
  const orders = new Map<string, Order>();
  for (const [list, path] of [
    ['customers', LIST],
    ['deposits', '/deposit/list'],
    ['trades', '/trade/list'],
  ] as const) {
    // The first two records tell the order; two is a page size every service accepts.
    const answer = await listPage(context, names, 2, path);
    orders.set(list, accepted(answer) ? orderByCreationTime(listOf(answer)) : undefined);
  }
  if (orders.get('customers') === undefined && context.create)
    orders.set('customers', await orderOfTwoNewCustomers(context, names));
  const known = [...orders].filter(
    (entry): entry is [string, 'newest-first' | 'oldest-first'] => entry[1] !== undefined,
  );
  if (known.length === 0)
    return {
      check: 'list-order',
      status: 'unchecked',
      detail:
        'no list has two records of different creation times; --create makes two test customers (sandbox deployments only)',
    };
  const detail = known.map(([list, order]) => `${list} ${order}`).join(', ');
  if (context.listOrder === 'unknown')
    return {
      check: 'list-order',
      status: 'held',
      detail: `${detail}; rampflow reads every list in full (listOrder unknown)`,
    };
  if (known.every(([, order]) => order === 'newest-first')) return { check: 'list-order', status: 'held', detail };
  return {
    check: 'list-order',
    status: 'differs',
    detail: `${detail}, where rampflow reads lists newest first`,
    override: { listOrder: 'unknown' },
  };
}

/** Creates two test customers, one after the other, and finds them at the head or the tail of the list. */
async function orderOfTwoNewCustomers(context: ProbeContext, names: QueryParameterNames): Promise<Order> {
  const run = randomUUID();
  const created = [`rampflow-probe-${run}-1`, `rampflow-probe-${run}-2`];
  for (const externalId of created) {
    const answer = await context.wire.send({
      method: 'POST',
      path: '/customer/create',
      json: JSON.stringify({ externalId }),
    });
    if (!accepted(answer)) return undefined;
  }
  // Pages of one record: the n-th record of the list, and how many there are.
  const recordAt = async (pageNum: number): Promise<{ externalId: unknown; total: number }> => {
    const answer = await context.wire.send({
      method: 'GET',
      path: LIST,
      query: buildRawQuery([
        [names.pageNum, pageNum],
        [names.pageSize, 1],
      ]),
    });
    const total = (answer.json?.data as { total?: unknown } | undefined)?.total;
    return { externalId: listOf(answer)[0]?.externalId, total: typeof total === 'number' ? total : 0 };
  };
  const first = await recordAt(1);
  if (first.externalId === created[1] && (await recordAt(2)).externalId === created[0]) return 'newest-first';
  if (
    first.total >= 2 &&
    (await recordAt(first.total - 1)).externalId === created[0] &&
    (await recordAt(first.total)).externalId === created[1]
  )
    return 'oldest-first';
  return undefined;
}

/** Paths where older-generation endpoints are commonly found, tried when create-va is not where assumed. */
const LEGACY_CREATE_VA_CANDIDATES = [
  '/create-va',
  '/old/create-va',
  '/legacy/create-va',
  '/v1/create-va',
  '/api/create-va',
];

/** Where the older generation's create-va lives: an empty request is refused (nothing is created), a missing path is 404. */
export async function legacyCreateVaPath(context: ProbeContext): Promise<ProbeLine> {
  const exists = async (path: string) => (await context.wire.send({ method: 'POST', path, json: '{}' })).status !== 404;
  const assumed = context.assumptions.legacyCreateVaPath;
  if (await exists(assumed))
    return {
      check: 'legacy-create-va-path',
      status: 'held',
      detail: `${assumed} answers (an empty request, which creates nothing)`,
    };
  for (const candidate of LEGACY_CREATE_VA_CANDIDATES.filter((path) => path !== assumed)) {
    if (await exists(candidate))
      return {
        check: 'legacy-create-va-path',
        status: 'differs',
        detail: `${assumed} is 404; ${candidate} answers`,
        override: { legacyCreateVaPath: candidate },
      };
  }
  return {
    check: 'legacy-create-va-path',
    status: 'differs',
    detail: `${assumed} is 404, and so is every path tried: set legacyCreateVaPath to the path in the service's documentation`,
  };
}
