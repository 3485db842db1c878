/**
 * A fault storm: a set of fault rules (path, kind, before or after the request takes effect), each
 * kept armed while the storm blows. One rule of each is pending at a time, so every path keeps
 * failing now and then without any call failing forever. It counts the faults the service served.
 */
import type { SandboxControl } from '../../support/sandbox';

export interface FaultRule {
  path: string;
  kind: 'HTTP_5XX' | 'DELAY' | 'RESET' | 'UNAUTHORISED';
  afterHandling: boolean;
  delayMs?: number;
}

const ruleKey = (rule: { path: string; kind: string; afterHandling: boolean }): string =>
  `${rule.kind} ${rule.afterHandling ? 'after' : 'before'} ${rule.path}`;

export class FaultStorm {
  blowing = true;
  private readonly armed = new Set<string>();
  private readonly servedFaults: FaultRule[] = [];

  constructor(
    private readonly control: SandboxControl,
    private readonly rules: FaultRule[],
  ) {}

  /** Arms again each rule whose last fault has been served. */
  async rearm(): Promise<void> {
    const pending = new Set((await this.control.pendingFaults()).map(ruleKey));
    for (const rule of this.rules) {
      const key = ruleKey(rule);
      if (pending.has(key)) continue;
      if (this.armed.has(key)) this.servedFaults.push(rule);
      await this.control.injectFault({ ...rule, count: 1 });
      this.armed.add(key);
    }
  }

  /** Stops the storm: the faults still pending are withdrawn. */
  async end(): Promise<void> {
    const pending = new Set((await this.control.pendingFaults()).map(ruleKey));
    for (const rule of this.rules)
      if (this.armed.has(ruleKey(rule)) && !pending.has(ruleKey(rule))) this.servedFaults.push(rule);
    for (const path of new Set(this.rules.map((rule) => rule.path)))
      await this.control.injectFault({ path, kind: 'HTTP_5XX', count: 0 });
    this.blowing = false;
  }

  /** Every fault the service served while the storm blew. */
  served(): FaultRule[] {
    return [...this.servedFaults];
  }
}
