/**
 * The payload keys a chaos run encrypts with (every process it starts inherits RAMPFLOW_PAYLOAD_KEYS):
 * the caller's, when it set them, else a fresh one the run makes. Only a key the run made is written
 * beside the histories it keeps (chaos/histories.ts), so that they can be replayed: a caller's own
 * keys never leave its environment.
 */
import { generatePayloadKey } from '../codec/keys';

let made: string | undefined;

/** Sets RAMPFLOW_PAYLOAD_KEYS for the run unless the caller did: to `fresh`, or a key made now under `keyId`. */
export function useRunPayloadKeys(keyId: string, fresh?: string): void {
  if (process.env.RAMPFLOW_PAYLOAD_KEYS) return;
  made = fresh ?? generatePayloadKey(keyId);
  process.env.RAMPFLOW_PAYLOAD_KEYS = made;
}

/** The keys the run made itself (RAMPFLOW_PAYLOAD_KEYS's value), undefined when the caller gave its own. */
export function keysTheRunMade(): string | undefined {
  return made;
}
