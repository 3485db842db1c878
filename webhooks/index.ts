/** The webhook receiver: HTTP in, Temporal out (see README, "Webhooks"). */
export { buildWebhookServer, WEBHOOK_ROUTE, DEFAULT_BODY_LIMIT_BYTES, type WebhookServerOptions } from './server';
export { parseDelivery, type ParsedDelivery } from './delivery';
export { handOff, TemporalUnavailable } from './handoff';
export { WebhookMetrics, OUTCOMES, type Outcome } from './metrics';
export { ensureReconcileSchedule, RECONCILE_SCHEDULE_ID, DEFAULT_RECONCILE_INTERVAL_SECONDS } from './reconcile-schedule';
export { registerWebhooks, checkCallbackUrl, redactCallbackUrl, RegistrationRefused } from './registration';
export { runWebhookReceiver } from './receiver-process';
