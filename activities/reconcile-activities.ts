/**
 * Read-only activities of the reconciliation workflow: page one of the service's lists, look up which
 * of the records' workflows exist, run, and at what stage (Temporal visibility, one query per page),
 * and report the ones that lag the service, and the deposits that have no workflow at all (no event
 * announced them). The workflow sends the signals (deposits by signal-with-start).
 *
 * Cost of one pass: one list call and one visibility query per page of 100 records, plus a detail
 * read only for a record found lagging (and, for offramp deposits waiting for their payout, the trade
 * and payment they wait on). Passes stop after `maxPages` pages or `maxRepairs` findings (a list read
 * in full is read from both ends, so the newest records are among the first read whatever the
 * service's order), and, when
 * the service lists newest first, at the first record the previous run saw at the list's head (the
 * watermark): a run costs in proportion to what is new, not to the number of customers. Customers
 * are read at least `recentCustomers` deep whatever the watermark, for KYC decisions on recent
 * signups; a decision on an older one, or a deposit that moves on without its webhook, is found by
 * the workflow's own polls.
 */
import { Context, log } from '@temporalio/activity';
import type { RampClient } from '../ramp';
import type { DepositListItem } from '../ramp/schemas';
import type { EventName } from '../ramp/events';
import { depositWorkflowId, journeyWorkflowId } from '../workflows/common/messages';
import { isCustomerApproved, isPaymentSettled } from '../workflows/common/records';
import type {
  LagReport,
  ListWatermark,
  ReconcileLimits,
  RejectedDepositLagReport,
  Repair,
} from '../workflows/reconcile/types';
import { RampStage } from '../observability/search-attributes';
import { asActivity, DEFAULT_FAILURE_OPTIONS, isNotFound, type FailureOptions } from './failures';
import { BOUND_SLACK_MS, timeOf } from './list-search';
import { customerRecord, depositRecord, paymentRecord, tradeRecord } from './records';

const PAGE_SIZE = 100;
/** A deposit's stages between its confirmation and its end, where a refund is news for it. */
const AFTER_CONFIRMATION: readonly string[] = ['CONFIRMED', 'TRADE_CREATED', 'TRADE_SETTLED'];
/** Ids of a list's head kept as its watermark. */
const HEAD_IDS = 5;

/**
 * IDs we put inside a visibility query. Journey externalIds and the service's UUIDs fit; anything
 * else cannot be one of our workflows (journey input allows no other characters) and is skipped
 * rather than escaped.
 */
const QUERYABLE_ID = /^[A-Za-z0-9._:@/-]{1,250}$/;

interface Page<T> {
  list: T[];
  total: number;
}

/** Pages 2..last in the order that reads a list from both ends: last, 2, last - 1, 3, ... */
export function bothEnds(last: number): number[] {
  const order: number[] = [];
  for (let low = 2, high = last; low <= high; low += 1, high -= 1) {
    order.push(high);
    if (low !== high) order.push(low);
  }
  return order;
}

export function createReconcileActivities(ramp: RampClient, failureOptions: FailureOptions = DEFAULT_FAILURE_OPTIONS) {
  const serviceCall = <T>(call: () => Promise<T>): Promise<T> => asActivity(call, failureOptions);

  /**
   * Workflow ID → RampStage of the workflows of `type` among `ids` (running ones only, unless `all`):
   * of several runs of one ID, the running one, else the newest.
   */
  async function stagesOf(
    type: string,
    ids: string[],
    all = false,
  ): Promise<Map<string, { stage: string; running: boolean }>> {
    const stages = new Map<string, { stage: string; running: boolean; startedAt: number }>();
    const queryable = [...new Set(ids)].filter((id) => QUERYABLE_ID.test(id));
    if (queryable.length === 0) return stages;
    const query = `WorkflowType = '${type}'${all ? '' : ` AND ExecutionStatus = 'Running'`} AND WorkflowId IN (${queryable.map((id) => `'${id}'`).join(', ')})`;
    for await (const workflow of Context.current().client.workflow.list({ query })) {
      const running = workflow.status.name === 'RUNNING';
      const startedAt = workflow.startTime.getTime();
      const known = stages.get(workflow.workflowId);
      // A closed run must not hide the running one of the same ID, nor an older closed run a newer
      // one: a deposit's COMPLETED run is followed by the run that reported its refund (REVERSED).
      if (known && (known.running || (!running && known.startedAt >= startedAt))) continue;
      stages.set(workflow.workflowId, {
        stage: workflow.typedSearchAttributes.get(RampStage) ?? '',
        running,
        startedAt,
      });
    }
    return stages;
  }

  async function runningStages(type: string, ids: string[]): Promise<Map<string, string>> {
    const stages = new Map<string, string>();
    for (const [id, { stage }] of await stagesOf(type, ids)) stages.set(id, stage);
    return stages;
  }

  /**
   * Walks a list page by page, within the limits, collecting repairs. With a watermark and a list
   * newest first, only down from the head to the first record the previous run saw there (but at least
   * `readAtLeast` records deep). Otherwise the whole list, from both ends at once (page 1, the last
   * page by `total`, page 2, the one before the last, ...): whichever end the newest records are at,
   * a run cut short by `maxPages` has read them, so a list longer than the limit never hides its
   * newest records (the sandbox lists oldest first, and the interface does not say).
   */
  async function scan<T extends { id: string }>(
    what: string,
    limits: ReconcileLimits,
    since: ListWatermark | undefined,
    listPage: (pageNum: number) => Promise<Page<T>>,
    findRepairs: (items: T[]) => Promise<Repair[]>,
    readAtLeast = 0,
  ): Promise<LagReport> {
    const report: LagReport = { repairs: [], examined: 0, pages: 0, truncated: false };
    const seen = new Set(since?.headIds ?? []);
    let incremental = limits.listOrder === 'newest-first' && since !== undefined;
    let head: ListWatermark | undefined;
    /** Set once a record the previous run saw at the head has gone by (inside the `readAtLeast` window). */
    let passedWatermark = false;
    /** The pages still to read when reading from both ends (after page 1). */
    let fromBothEnds: number[] = [];
    for (let pageNum = 1; ;) {
      const page = await listPage(pageNum);
      if (report.pages === 0) {
        head = { headIds: page.list.slice(0, HEAD_IDS).map((item) => item.id), total: page.total };
        const first = page.list[0];
        if (incremental && first !== undefined && seen.has(first.id) && page.total > since!.total) {
          // Grown, yet the same record on top: the service does not list newest first. Read it all.
          log.warn(
            "the service's list grew but its head did not change: it does not list newest first; reading the whole list from both ends (set RECONCILE_LIST_ORDER=unknown)",
            { list: what },
          );
          incremental = false;
        }
        if (!incremental) fromBothEnds = bothEnds(Math.ceil(page.total / PAGE_SIZE));
      }
      let items = page.list;
      let reachedWatermark = false;
      if (incremental) {
        const offset = (pageNum - 1) * PAGE_SIZE;
        for (const [index, item] of items.entries()) {
          const known = seen.has(item.id);
          if (offset + index >= readAtLeast && (passedWatermark || known)) {
            [items, reachedWatermark] = [items.slice(0, index), true];
            break;
          }
          passedWatermark ||= known;
        }
        // Past the watermark and deep enough: the next page holds nothing new.
        if (passedWatermark && offset + page.list.length >= readAtLeast) reachedWatermark = true;
      }
      report.pages += 1;
      report.examined += items.length;
      report.repairs.push(...(await findRepairs(items)));
      Context.current().heartbeat(report.pages);
      const next = incremental
        ? reachedWatermark || page.list.length < PAGE_SIZE || pageNum * PAGE_SIZE >= page.total
          ? undefined
          : pageNum + 1
        : fromBothEnds.shift();
      if (report.repairs.length >= limits.maxRepairs) {
        report.truncated = report.repairs.length > limits.maxRepairs || next !== undefined;
        report.repairs.length = Math.min(report.repairs.length, limits.maxRepairs);
        break;
      }
      if (next === undefined) break;
      if (report.pages >= limits.maxPages) {
        report.truncated = true;
        break;
      }
      pageNum = next;
    }
    // A run cut short leaves the watermark where it was, so the next one reads what this one did not.
    if (limits.listOrder === 'newest-first') report.watermark = report.truncated && since !== undefined ? since : head;
    return report;
  }

  const customerEvent = (status: string): EventName =>
    status === 'DELETED' ? 'CUSTOMER_DELETED' : status === 'REJECTED' ? 'CUSTOMER_REJECTED' : 'CUSTOMER_APPROVED';
  const depositEvent = (status: string): EventName =>
    status === 'CONFIRMED' ? 'DEPOSIT_APPROVED' : status === 'REJECTED' ? 'DEPOSIT_REJECTED' : 'DEPOSIT_RECEIVED';

  return {
    /** Journeys still waiting for a KYC decision the service has made, and running journeys of deleted customers. */
    async findCustomerLag(limits: ReconcileLimits, since?: ListWatermark): Promise<LagReport> {
      return serviceCall(() =>
        scan(
          'customers',
          limits,
          since,
          (pageNum) => ramp.customers.list({ pageNum, pageSize: PAGE_SIZE }),
          async (customers) => {
            const decided = customers.filter(
              (customer) =>
                customer.externalId &&
                (isCustomerApproved(customer.status) ||
                  customer.status === 'REJECTED' ||
                  customer.status === 'DELETED'),
            );
            const stages = await runningStages(
              'customerJourney',
              decided.map((customer) => journeyWorkflowId(customer.externalId!)),
            );
            const repairs: Repair[] = [];
            for (const customer of decided) {
              const target = journeyWorkflowId(customer.externalId!);
              const stage = stages.get(target);
              if (stage === undefined || stage === 'NEEDS_ATTENTION') continue; // not running, or waiting for an operator
              const lagging = stage === 'AWAITING_KYC' || customer.status === 'DELETED';
              if (!lagging) continue;
              repairs.push({
                signal: 'customer',
                target,
                key: `RECONCILE/CUSTOMER/${customer.id}/${customer.status}`,
                event: customerEvent(customer.status),
                record: customerRecord(customer),
              });
            }
            return repairs;
          },
          limits.recentCustomers,
        ),
      );
    },

    /**
     * Deposits that have no workflow (no event announced them: it is started), and deposit workflows
     * still waiting for a confirmation (or rejection) the service has made.
     */
    async findDepositLag(limits: ReconcileLimits, since?: ListWatermark): Promise<LagReport> {
      return serviceCall(() =>
        scan(
          'deposits',
          limits,
          since,
          (pageNum) => ramp.deposits.list({ pageNum, pageSize: PAGE_SIZE }),
          depositRepairs,
        ),
      );
    },

    /**
     * Deposits the service rejected (or refunded) since the last run whose workflow lags. The deposit
     * list, read from its head, stops at the watermark, and a deposit rejected long after it arrived
     * sits below it (the list's order is by arrival, as far as the interface shows), so a rejection
     * whose webhook was lost would never be read again. This reads the list filtered to REJECTED
     * (rejections are few: usually one page) from both ends, up to `maxPages`, and looks up only the
     * deposits whose `timestamp` (the time of a deposit's latest event: for a REJECTED one, the
     * rejection) is not older than `since`, less BOUND_SLACK_MS for the service's parts' clocks. It
     * answers the newest timestamp it read, the next run's `since`, in the service's own clock.
     */
    async findRejectedDepositLag(limits: ReconcileLimits, since?: number): Promise<RejectedDepositLagReport> {
      let newestChange = since;
      const report = await serviceCall(() =>
        scan(
          'rejected deposits',
          { ...limits, listOrder: 'unknown' },
          undefined,
          (pageNum) => ramp.deposits.list({ pageNum, pageSize: PAGE_SIZE, status: 'REJECTED' }),
          async (deposits) => {
            const changed = deposits.filter((deposit) => {
              const time = timeOf(deposit.timestamp);
              if (time !== undefined && (newestChange === undefined || time > newestChange)) newestChange = time;
              // A deposit without a readable time is looked up: only a time proves it old.
              return since === undefined || time === undefined || time >= since - BOUND_SLACK_MS;
            });
            return depositRepairs(changed);
          },
        ),
      );
      return { ...report, ...(newestChange !== undefined ? { newestChange } : {}) };
    },

    /** Deposit workflows that do not know their trade, its settlement, or (offramp) the payout. */
    async findTradeLag(limits: ReconcileLimits, since?: ListWatermark): Promise<LagReport> {
      return serviceCall(() =>
        scan(
          'trades',
          limits,
          since,
          (pageNum) => ramp.trades.list({ pageNum, pageSize: PAGE_SIZE }),
          async (items) => {
            // The list's item shape is not shown: use `deposit.id` and `status` when items carry them,
            // and read the detail otherwise (one at a time, to stay gentle with the service).
            const trades: { id: string; depositId: string; status: string }[] = [];
            for (const item of items) {
              const listed = item as { deposit?: { id?: unknown }; status?: unknown };
              if (typeof listed.deposit?.id === 'string' && typeof listed.status === 'string') {
                trades.push({ id: item.id, depositId: listed.deposit.id, status: listed.status });
              } else {
                const detail = await ramp.trades.detail({ id: item.id });
                trades.push({ id: item.id, depositId: detail.deposit.id, status: detail.status });
              }
            }
            const stages = await runningStages(
              'depositLifecycle',
              trades.map((trade) => depositWorkflowId(trade.depositId)),
            );
            const repairs: Repair[] = [];
            for (const trade of trades) {
              const target = depositWorkflowId(trade.depositId);
              const stage = stages.get(target);
              if (stage === undefined) continue;
              const unknownTrade = stage === 'RECEIVED' || stage === 'ACTION_REQUIRED' || stage === 'CONFIRMED';
              const unknownSettlement = stage === 'TRADE_CREATED' && trade.status === 'SETTLED';
              if (unknownTrade || unknownSettlement) {
                const record = tradeRecord(await ramp.trades.detail({ id: trade.id }));
                repairs.push({
                  signal: 'trade',
                  target,
                  key: `RECONCILE/TRADE/${record.id}/${record.status}`,
                  event: record.status === 'SETTLED' ? 'TRADE_SETTLED' : 'TRADE_CREATED',
                  record,
                });
              } else if (stage === 'TRADE_SETTLED') {
                // An offramp waiting for its payout: no payment list exists, so follow the trade to its payment.
                const repair = await paymentRepair(trade.id, target);
                if (repair) repairs.push(repair);
              }
            }
            return repairs;
          },
        ),
      );
    },
  };

  /** The repairs a page of deposits (list items) needs: a workflow to start, or a decision it has not heard. */
  async function depositRepairs(deposits: DepositListItem[]): Promise<Repair[]> {
    const workflows = await stagesOf(
      'depositLifecycle',
      deposits.map((deposit) => depositWorkflowId(deposit.id)),
      true,
    );
    const repairs: Repair[] = [];
    for (const deposit of deposits) {
      const target = depositWorkflowId(deposit.id);
      const workflow = workflows.get(target);
      const decided = deposit.status === 'CONFIRMED' || deposit.status === 'REJECTED';
      // A workflow dismissed because the service did not have the deposit then counts as none:
      // the service has it now (deliverToDeposit starts it again).
      const missing =
        (workflow === undefined || (!workflow.running && workflow.stage === 'DISMISSED')) && QUERYABLE_ID.test(target);
      const stage = workflow?.running ? workflow.stage : undefined;
      // A deposit the service refunded after its workflow completed: the delivery starts the run that reports it.
      const refundedAfterCompletion =
        workflow !== undefined && !workflow.running && workflow.stage === 'COMPLETED' && deposit.status === 'REJECTED';
      // A deposit refunded while its workflow waits for the trade or the payout (its polls would find it, hours later).
      const refundedInFlight =
        deposit.status === 'REJECTED' && stage !== undefined && AFTER_CONFIRMATION.includes(stage);
      const lagging =
        missing ||
        refundedAfterCompletion ||
        refundedInFlight ||
        (deposit.status !== 'RECEIVED' && (stage === 'RECEIVED' || (stage === 'ACTION_REQUIRED' && decided)));
      if (!lagging) continue;
      repairs.push({
        signal: 'deposit',
        target,
        key: `RECONCILE/DEPOSIT/${deposit.id}/${deposit.status}`,
        event: depositEvent(deposit.status),
        record: depositRecord(deposit),
      });
    }
    return repairs;
  }

  async function paymentRepair(tradeId: string, target: string): Promise<Repair | undefined> {
    const trade = tradeRecord(await ramp.trades.detail({ id: tradeId }));
    if (!trade.paymentId) return undefined;
    let payment;
    try {
      payment = paymentRecord(await ramp.payments.detail({ id: trade.paymentId }));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    if (!isPaymentSettled(payment.status)) return undefined;
    return {
      signal: 'payment',
      target,
      key: `RECONCILE/PAYMENT/${payment.id}/${payment.status}`,
      event: 'PAYMENT_SETTLED',
      record: payment,
    };
  }
}

export type ReconcileActivities = ReturnType<typeof createReconcileActivities>;
