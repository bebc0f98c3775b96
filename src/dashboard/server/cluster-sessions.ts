/**
 * Sessions of the in-cluster dashboard: whom a browser signed in as, kept on the server only.
 * The browser holds a random id in a cookie that script cannot read (HttpOnly), that travels
 * only over HTTPS (Secure; browsers treat http://localhost and 127.0.0.1 as secure too) and that
 * no other site's page sends (SameSite=Strict). A session ends when it expires, when the person
 * signs out, or when the store is full and it is the oldest.
 */
import { newSecret, sameSecret } from './security.ts';
import { cookieValue } from './security.ts';

export interface SessionUser {
  readonly username: string;
  readonly groups: readonly string[];
}

/** How the person proved who they are: their own bearer token (kept to act with, like kubectl
 *  proxy), or an authenticating proxy's headers (acted for by impersonation). */
export type Credential =
  { readonly kind: 'token'; readonly token: string } | { readonly kind: 'proxy' };

export interface ClusterSession {
  readonly user: SessionUser;
  readonly credential: Credential;
  /** Sent by the page with every action (the X-CSRF-Token header) or sign-out (a form field). */
  readonly csrf: string;
  readonly expiresAt: number;
}

export interface SessionStoreOptions {
  /** How long a session lasts from sign-in. */
  readonly ttlMs: number;
  /** At most this many at once; the oldest goes first. */
  readonly max: number;
  readonly now: () => number;
  readonly cookieName?: string;
}

export const SESSION_COOKIE = 'stepwise-dashboard-session';

export class SessionStore {
  readonly #o: Required<SessionStoreOptions>;
  /** In sign-in order (a Map keeps insertion order): the first is the oldest. */
  readonly #sessions = new Map<string, ClusterSession>();

  constructor(o: SessionStoreOptions) {
    this.#o = { cookieName: SESSION_COOKIE, ...o };
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** A new session: its Set-Cookie header and the session. */
  open(user: SessionUser, credential: Credential): { cookie: string; session: ClusterSession } {
    this.#sweep();
    const id = newSecret();
    const session: ClusterSession = {
      user: { username: user.username, groups: [...user.groups] },
      credential,
      csrf: newSecret(),
      expiresAt: this.#o.now() + this.#o.ttlMs,
    };
    this.#sessions.set(id, session);
    while (this.#sessions.size > this.#o.max) {
      this.#sessions.delete(this.#sessions.keys().next().value as string);
    }
    const maxAge = Math.floor(this.#o.ttlMs / 1000);
    return {
      cookie: `${this.#o.cookieName}=${id}; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=${maxAge}`,
      session,
    };
  }

  /** The live session the Cookie header names; undefined: none, unknown or expired. */
  of(cookieHeader: string | undefined): ClusterSession | undefined {
    const found = this.#find(cookieHeader);
    if (found === undefined) return undefined;
    if (found[1].expiresAt <= this.#o.now()) {
      this.#sessions.delete(found[0]);
      return undefined;
    }
    return found[1];
  }

  /** Ends the session the Cookie header names; the Set-Cookie header that clears the cookie. */
  close(cookieHeader: string | undefined): string {
    const found = this.#find(cookieHeader);
    if (found !== undefined) this.#sessions.delete(found[0]);
    return `${this.#o.cookieName}=; HttpOnly; Secure; SameSite=Strict; Path=/; Max-Age=0`;
  }

  #find(cookieHeader: string | undefined): [string, ClusterSession] | undefined {
    const id = cookieValue(cookieHeader, this.#o.cookieName);
    if (id === undefined || id === '') return undefined;
    // The id is looked up by value, compared in constant time (no timing hint of a near miss).
    for (const entry of this.#sessions) {
      if (sameSecret(id, entry[0])) return entry;
    }
    return undefined;
  }

  /** Expired sessions go before a new one counts against the cap. */
  #sweep(): void {
    const t = this.#o.now();
    for (const [id, s] of this.#sessions) if (s.expiresAt <= t) this.#sessions.delete(id);
  }
}
