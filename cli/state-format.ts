/**
 * Human-readable output of the `journey`, `deposit` and `payout` commands: a journey's or deposit's state as
 * labelled lines, and lists as aligned columns. Scripts use `--json` instead, which is stable.
 */
import {
  endFieldLines,
  endJson,
  type Attention,
  type DepositListItem,
  type DepositPage,
  type DepositState,
  type EventReport,
  type JourneyDeposits,
  type JourneyListing,
  type JourneyState,
  type EndFailure,
  type PayoutListing,
  type RampflowWorkflowEndedError,
} from '../client';
import { isParked, parkedBecause, type WithReason } from './parked-reasons';

function labelled(rows: [string, string | undefined][]): string {
  const present = rows.filter((row): row is [string, string] => row[1] !== undefined && row[1] !== '');
  const width = Math.max(...present.map(([label]) => label.length));
  return present.map(([label, value]) => `  ${`${label}:`.padEnd(width + 2)}${value}`).join('\n');
}

/** Why a workflow is parked, the same way for journeys, deposits and payouts. */
export function attentionLine(attention: Attention | undefined): string | undefined {
  if (!attention) return undefined;
  return `${attention.reason} (parked at ${attention.stage} since ${attention.since}${attention.errorType ? `, ${attention.errorType}` : ''})`;
}

/**
 * A workflow that ended without completing, as `journey|deposit|payout status` print it: the one line
 * (`journey user-42 failed: InvalidStartInput: ...`), what the failure names, and the stage it was last
 * indexed at.
 */
export function formatEnded(ended: RampflowWorkflowEndedError): string {
  return `${[ended.message, ...endFieldLines(ended.end), ...(ended.stage ? [`  last stage: ${ended.stage}`] : [])].join('\n')}\n`;
}

/** The same as JSON: `{<key>: id, status, stage?, failure: {type, message, issues?}}`. */
export function endedJson(key: string, id: string, ended: RampflowWorkflowEndedError): Record<string, unknown> {
  const { status, failure } = endJson(ended.end);
  return { [key]: id, status, ...(ended.stage ? { stage: ended.stage } : {}), failure };
}

export function formatJourneyState(state: JourneyState): string {
  const { customer, onramp, offramp } = state;
  const va = onramp?.virtualAccount;
  const da = offramp?.depositAddress;
  const rows: [string, string | undefined][] = [
    ['waiting for', state.waitingFor],
    ['attention', attentionLine(state.attention)],
    ['outcome', state.outcome],
    [
      'customer',
      [
        customer.id && `id ${customer.id}`,
        customer.status && `status ${customer.status}`,
        customer.kycLink && `KYC at ${customer.kycLink}`,
      ]
        .filter(Boolean)
        .join(', '),
    ],
    [
      'onramp',
      onramp &&
        [
          onramp.currency,
          va && `virtual account ${va.id} ${va.status}`,
          va?.accountNumber && `pay to account ${va.accountNumber}${va.bankName ? ` at ${va.bankName}` : ''}`,
          onramp.whitelisted && 'source account whitelisted',
        ]
          .filter(Boolean)
          .join(', '),
    ],
    [
      'offramp',
      offramp &&
        [
          `${offramp.currency} on ${offramp.network}`,
          da && `deposit address ${da.id} ${da.status}`,
          da?.address && `deposit to ${da.address}`,
        ]
          .filter(Boolean)
          .join(', '),
    ],
    ['deposits', depositCounts(state.deposits)],
    ['completed', totals(state.deposits.completedTotals)],
    // Refunded after the service had confirmed them (the money went back).
    ['reversed', totals(state.deposits.reversedTotals ?? {})],
    ...[...state.deposits.open, ...state.deposits.recent].map((deposit): [string, string] => [
      'deposit',
      `${deposit.depositId} ${deposit.kind} ${deposit.amount} ${deposit.currency} ${deposit.stage}${deposit.attention ? `: ${deposit.attention.reason}` : ''}`,
    ]),
    [
      '',
      state.deposits.openNotShown > 0
        ? `(${state.deposits.openNotShown} more in progress: rampflow deposit list --customer ${state.externalId})`
        : undefined,
    ],
  ];
  return `journey ${state.externalId}: ${state.stage}\n${labelled(rows)}\n`;
}

function totals(byCurrency: Record<string, string>): string | undefined {
  return (
    Object.entries(byCurrency)
      .map(([currency, amount]) => `${amount} ${currency}`)
      .join(', ') || undefined
  );
}

function depositCounts(deposits: JourneyDeposits): string | undefined {
  const counts = Object.entries(deposits.byStage).map(([stage, count]) => `${count} ${stage}`);
  return counts.length > 0 ? counts.join(', ') : undefined;
}

export function formatDepositState(state: DepositState): string {
  const rows: [string, string | undefined][] = [
    ['waiting for', state.waitingFor],
    ['attention', attentionLine(state.attention)],
    ['outcome', state.outcome],
    ['kind', `${state.kind} of ${state.amount} ${state.currency}`],
    ['customer', state.customerId],
    ['service status', state.status],
    ['trade', state.tradeId],
    ['payment', state.paymentId],
  ];
  return `deposit ${state.depositId}: ${state.stage}\n${labelled(rows)}\n`;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}

const failureText = (failure: EndFailure): string => `${failure.type}: ${failure.message}`;

/** Whether a list has a parked row, so it gets the last column, `PARKED BECAUSE`. */
const anyParked = (rows: { stage?: string | undefined; status: string }[]): boolean => rows.some(isParked);

export function formatJourneyList(journeys: WithReason<JourneyListing>[]): string {
  if (journeys.length === 0) return 'no journeys match\n';
  // How a journey ended, when one in the list failed, was terminated or timed out.
  const ended = journeys.some((journey) => journey.failure);
  const parked = anyParked(journeys);
  return table(
    [
      'EXTERNAL ID',
      'STAGE',
      'STATUS',
      'CUSTOMER ID',
      'STARTED',
      ...(ended ? ['ENDED BECAUSE'] : []),
      ...(parked ? ['PARKED BECAUSE'] : []),
    ],
    journeys.map((journey) => [
      journey.externalId,
      journey.stage ?? '-',
      journey.status,
      journey.customerId ?? '-',
      journey.startTime.toISOString(),
      ...(ended ? [journey.failure ? failureText(journey.failure) : '-'] : []),
      ...(parked ? [parkedBecause(journey)] : []),
    ]),
  );
}

export function formatPayoutList(payouts: WithReason<PayoutListing>[]): string {
  if (payouts.length === 0) return 'no payouts match\n';
  const parked = anyParked(payouts);
  return table(
    ['REFERENCE', 'STAGE', 'STATUS', 'STARTED', ...(parked ? ['PARKED BECAUSE'] : [])],
    payouts.map((payout) => [
      payout.reference,
      payout.stage ?? '-',
      payout.status,
      payout.startTime.toISOString(),
      ...(parked ? [parkedBecause(payout)] : []),
    ]),
  );
}

/** A page of deposits, and the flag that prints the next one. */
export function formatDepositPage({
  deposits,
  nextPageToken,
}: Omit<DepositPage, 'deposits'> & { deposits: WithReason<DepositListItem>[] }): string {
  const next = nextPageToken ? `next page: --page-token ${nextPageToken}\n` : '';
  if (deposits.length === 0) return `no deposits match\n${next}`;
  const amount = (deposit: DepositListItem) =>
    deposit.amount ? `${deposit.kind ?? ''} ${deposit.amount} ${deposit.currency ?? ''}`.trim() : '-';
  const parked = anyParked(deposits);
  return (
    table(
      ['DEPOSIT ID', 'STAGE', 'STATUS', 'EXTERNAL ID', 'AMOUNT', 'STARTED', ...(parked ? ['PARKED BECAUSE'] : [])],
      deposits.map((deposit) => [
        deposit.depositId,
        deposit.stage ?? '-',
        deposit.status,
        deposit.externalId ?? '-',
        amount(deposit),
        deposit.startTime.toISOString(),
        ...(parked ? [parkedBecause(deposit)] : []),
      ]),
    ) + next
  );
}

export function formatEventList(events: EventReport[]): string {
  if (events.length === 0) return 'no events match\n';
  return table(
    ['EVENT', 'PAYLOAD ID', 'STAGE', 'PARKED BECAUSE', 'STARTED'],
    events.map((event) => [
      event.event,
      event.payloadId,
      event.stage ?? '-',
      event.parkCode
        ? `${event.parkCode}: ${event.reason ?? ''}`
        : event.failure
          ? `${event.status} ${failureText(event.failure)}`
          : '-',
      event.startTime.toISOString(),
    ]),
  );
}
