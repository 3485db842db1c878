/** The floors' signals and the full floor's update, shared by their workflows, activities and driver (run-floor.ts). */
import { defineSignal, defineUpdate } from '@temporalio/workflow';

export const floorEventSignal = defineSignal<[string]>('floorEvent');
export const floorProgressSignal = defineSignal<[{ depositId: string; stage: string }]>('floorProgress');

/** The journey's own webhooks, sent by the driver: the first starts the journey (signal-with-start). */
export const FLOOR_JOURNEY_WEBHOOKS = ['VIRTUAL_ACCOUNT_APPROVED', 'DEPOSIT_ADDRESS_APPROVED'] as const;

/** A deposit's webhooks, in the order the service sends them (an offramp's payment last). */
export const depositWebhooks = (kind: 'ONRAMP' | 'OFFRAMP'): string[] => [
  'DEPOSIT_RECEIVED',
  'DEPOSIT_APPROVED',
  'TRADE_CREATED',
  'TRADE_SETTLED',
  ...(kind === 'OFFRAMP' ? ['PAYMENT_SETTLED'] : []),
];

/** The full floor's deposit report, offered to its journey by update as rampflow's are (full-floor.ts). */
export const fullFloorReportUpdate = defineUpdate<void, [{ depositId: string; stage: string }]>('fullFloorReport');

/** The deposit floor's one report per deposit to its journey (deposit-floor.ts). */
export const depositFloorReportSignal = defineSignal<[{ depositId: string }]>('depositFloorReport');
