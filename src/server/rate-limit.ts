/**
 * Per-client request limits for the external port: a token bucket per key (the client address),
 * refilled continuously, never waiting: a request over the limit is answered 429 at once with
 * when to come back. Idle buckets are forgotten so a scan from many addresses cannot grow memory.
 */
export interface RateLimit {
  /** Requests a client may make in a burst. */
  readonly burst: number;
  /** Sustained requests per second per client. */
  readonly perSecond: number;
  /** Clients remembered at once; the least recently seen is forgotten first. */
  readonly maxClients?: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class ClientRateLimiter {
  readonly #limit: RateLimit;
  readonly #buckets = new Map<string, Bucket>();

  constructor(limit: RateLimit) {
    if (!(limit.burst >= 1) || !(limit.perSecond > 0)) {
      throw new RangeError('rate limit: burst must be >= 1 and perSecond > 0');
    }
    this.#limit = limit;
  }

  /** Takes one token for `client` at `now` (ms): allowed, or how long until one is there. */
  take(client: string, now: number): { ok: true } | { ok: false; retryAfterMs: number } {
    const { burst, perSecond } = this.#limit;
    const prev = this.#buckets.get(client);
    const tokens =
      prev === undefined
        ? burst
        : Math.min(burst, prev.tokens + ((now - prev.at) / 1000) * perSecond);
    // Re-insert: Map order is then least recently seen first.
    this.#buckets.delete(client);
    if (tokens < 1) {
      this.#buckets.set(client, { tokens, at: now });
      return { ok: false, retryAfterMs: Math.ceil(((1 - tokens) / perSecond) * 1000) };
    }
    this.#buckets.set(client, { tokens: tokens - 1, at: now });
    const max = this.#limit.maxClients ?? 10_000;
    while (this.#buckets.size > max) {
      const oldest = this.#buckets.keys().next().value;
      if (oldest === undefined) break;
      this.#buckets.delete(oldest);
    }
    return { ok: true };
  }

  /**
   * Charges `cost` more tokens to `client` after the fact (its answer showed a refused credential,
   * which costs more than a good request). The bucket may go into debt; it refills as any other.
   */
  charge(client: string, now: number, cost: number): void {
    const prev = this.#buckets.get(client);
    if (prev === undefined) return;
    const { burst, perSecond } = this.#limit;
    const tokens = Math.min(burst, prev.tokens + ((now - prev.at) / 1000) * perSecond);
    this.#buckets.set(client, { tokens: tokens - cost, at: now });
  }

  get size(): number {
    return this.#buckets.size;
  }
}
