/**
 * At most one hint in flight per target and claim: a copy of a hint that arrives while the same claim
 * to the same target is being signalled joins that signal instead of sending its own, and is answered
 * with its outcome (held: `200` duplicate; not held: it is sent itself). The target reads the service
 * when it takes the signal, and the signal is held only after the copy arrived, so the read the copy
 * asks for happens: nothing answered `200` here goes unread. A burst of copies (a leaked token's "one
 * field changed" storm against a guessable journey) costs the target one workflow task.
 *
 * Why no window after the answer: a copy that comes after the signal was held may come after the
 * target's read, and dropping it would lose what it hints. A forger who sent a claim first (a made-up
 * approval of a real account) would then suppress the genuine delivery of the same claim until the
 * target's next poll. Copies that come later are sent, and the per-target rate
 * (webhooks/receiver-budget.ts) bounds them.
 *
 * A claim is the event, the record it names and the status it claims, never the rest of the payload:
 * the fields a forger changes to defeat the routing memory's fingerprint (webhooks/direct-route.ts) do
 * not make it a new claim. Different claims to one target are not joined, because the target reads
 * only the record a hint names (an approval of the deposit address is not answered by the read the
 * virtual account's hint caused).
 */

export class HintCoalescing {
  /** Claims being signalled, each with whether its signal was held; as many as requests in flight. */
  private readonly inFlight = new Map<string, Promise<boolean>>();
  private readonly settle = new Map<string, (held: boolean) => void>();

  /**
   * Undefined when the caller is to send the hint itself (then `settled` must follow); otherwise the
   * in-flight signal of the same claim, resolving to whether Temporal held it.
   */
  join(target: string, claim: string): Promise<boolean> | undefined {
    const key = `${target} ${claim}`;
    const pending = this.inFlight.get(key);
    if (pending) return pending;
    this.inFlight.set(key, new Promise<boolean>((resolve) => this.settle.set(key, resolve)));
    return undefined;
  }

  /** The caller's signal was held (`true`), or did not go out (`false`): copies waiting on it learn which. */
  settled(target: string, claim: string, held: boolean): void {
    const key = `${target} ${claim}`;
    this.settle.get(key)?.(held);
    this.settle.delete(key);
    this.inFlight.delete(key);
  }
}
