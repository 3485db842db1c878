/**
 * How the receiver routes a delivery (WEBHOOK_ROUTING): `direct` signals the event's target from the
 * payload where it can and hands the rest to a ramp-event workflow (webhooks/direct-route.ts);
 * `workflow` hands every delivery to a ramp-event workflow, which re-reads the record through the
 * signed API before it signals (one workflow start, one service call or two, per event).
 */
export const WEBHOOK_ROUTINGS = ['direct', 'workflow'] as const;
export type WebhookRouting = (typeof WEBHOOK_ROUTINGS)[number];
