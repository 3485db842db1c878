/** The webhook receiver: HTTP in, Temporal out (see README, "Webhooks"). */
export { buildWebhookServer } from './server';
export { parseDelivery } from './delivery';
export { handOff } from './handoff';
export {
  ensureReconcileSchedule,
  RECONCILE_SCHEDULE_ID,
  DEFAULT_RECONCILE_INTERVAL_SECONDS,
} from './reconcile-schedule';
export { registerWebhooks, redactCallbackUrl } from './registration';
export { runWebhookReceiver } from './receiver-process';
