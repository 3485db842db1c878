/**
 * The client's notion of "now" for X-Timestamp, corrected by the service's `Date` header.
 *
 * A signed request carries a timestamp the service checks against its own clock. A machine whose
 * clock drifted gets every request refused as UNAUTHORISED; learning the offset from the `Date`
 * header of any response lets the next attempt carry a timestamp the service accepts.
 */
export class ServiceClock {
  #offsetMs = 0;

  constructor(
    private readonly localNow: () => number,
    private readonly toleranceMs: number,
  ) {}

  /** Unix seconds as the service counts them, for X-Timestamp. */
  nowSeconds(): string {
    return String(Math.floor((this.localNow() + this.#offsetMs) / 1000));
  }

  get offsetMs(): number {
    return this.#offsetMs;
  }

  /**
   * Compares a response's `Date` with our corrected clock. Beyond the tolerance, adopts the
   * difference and returns true: the timestamp just sent was off, so an UNAUTHORISED answer may be
   * the clock's fault rather than the credentials'. Within it, changes nothing: `Date` has a
   * one-second resolution and the response took time to arrive, so small differences are noise.
   */
  observeServiceDate(dateHeader: string | undefined): boolean {
    if (dateHeader === undefined) return false;
    const serviceMs = Date.parse(dateHeader);
    if (Number.isNaN(serviceMs)) return false;
    const differenceMs = serviceMs - (this.localNow() + this.#offsetMs);
    if (Math.abs(differenceMs) <= this.toleranceMs) return false;
    this.#offsetMs += differenceMs;
    return true;
  }
}
