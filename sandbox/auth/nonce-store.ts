/**
 * Nonces already used, per API key (interface: "A nonce is never reused"). A nonce only needs
 * remembering while its timestamp could still pass the skew check; after that the timestamp alone
 * rejects a replay. Entries are therefore kept for twice the accepted skew and then forgotten, so
 * memory stays bounded however long the sandbox runs.
 */
export class NonceStore {
  private readonly seen = new Map<string, Map<string, number>>();

  constructor(private readonly retentionMs: number) {}

  has(apiKey: string, nonce: string, wallNowMs: number): boolean {
    const expiresAt = this.seen.get(apiKey)?.get(nonce);
    return expiresAt !== undefined && expiresAt > wallNowMs;
  }

  record(apiKey: string, nonce: string, wallNowMs: number): void {
    let nonces = this.seen.get(apiKey);
    if (nonces === undefined) {
      nonces = new Map();
      this.seen.set(apiKey, nonces);
    }
    nonces.set(nonce, wallNowMs + this.retentionMs);
    this.forgetExpired(nonces, wallNowMs);
  }

  private forgetExpired(nonces: Map<string, number>, wallNowMs: number): void {
    // Insertion order is expiry order, so the scan stops at the first live entry.
    for (const [nonce, expiresAt] of nonces) {
      if (expiresAt > wallNowMs) break;
      nonces.delete(nonce);
    }
  }
}
