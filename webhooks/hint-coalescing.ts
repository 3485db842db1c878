/**
 * At most one hint in flight per target and claim: a hint the receiver is about to signal is
 * coalesced (dropped, answered 200) when the same claim to the same target is still unanswered or was
 * sent within the last `windowMs`. The target reads the service when it takes the first one, so the
 * copies would only cost it a workflow task each; that is what a leaked token's "one field changed"
 * storm against a guessable journey would otherwise buy.
 *
 * A claim is the event, the record it names and the status it claims, never the rest of the payload:
 * the fields a forger changes to defeat the routing memory's fingerprint (webhooks/direct-route.ts) do
 * not make it a new claim. Different claims to one target are not coalesced here, because the target
 * reads only the record a hint names (an approval of the deposit address is not answered by the read
 * the virtual account's hint caused); the per-target rate (webhooks/receiver-budget.ts) bounds those.
 */
import { LRUCache } from 'lru-cache';

interface Sent {
  inFlight: boolean;
  at: number;
}

export class HintCoalescing {
  private readonly sent: LRUCache<string, Sent>;

  constructor(
    private readonly windowMs: number,
    maxKeys: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.sent = new LRUCache({ max: maxKeys });
  }

  /** Whether to send this claim now; when true, `answered` or `failed` must follow. */
  begin(target: string, claim: string): boolean {
    const key = `${target} ${claim}`;
    const last = this.sent.get(key);
    if (last && (last.inFlight || this.now() - last.at < this.windowMs)) return false;
    this.sent.set(key, { inFlight: true, at: this.now() });
    return true;
  }

  /** Temporal took the hint: copies within the window are coalesced. */
  answered(target: string, claim: string): void {
    this.sent.set(`${target} ${claim}`, { inFlight: false, at: this.now() });
  }

  /** The hint did not go out: the next copy is sent. */
  failed(target: string, claim: string): void {
    this.sent.delete(`${target} ${claim}`);
  }
}
