/**
 * The dashboard's guards, even on loopback (any local process, and any web page the user opens,
 * can reach 127.0.0.1):
 * - a random token per start, printed in the address (as Jupyter does), exchanged once per
 *   browser for a session cookie: HttpOnly (no script reads it), SameSite=Strict (no other site
 *   sends it), named after the port (cookies are not per port);
 * - a CSRF token per session, which the page sends in a header with every action;
 * - Host must be the address we serve (a DNS-rebinding page has another), and an action's
 *   Origin must be ours too;
 * - headers: CSP without inline script, no framing, no referrer, no caching, no sniffing.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

export const newSecret = (): string => randomBytes(24).toString('base64url');

/** Constant-time comparison of two strings (different lengths: false at once). */
export function sameSecret(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** The in-cluster server's pages post two forms of their own (sign-in, sign-out), whose
 *  Origin it checks: under no-referrer a browser sends `Origin: null` with a form, so the
 *  referrer goes to the page's own origin only (never to another site). */
export const CLUSTER_HEADERS: Readonly<Record<string, string>> = {
  ...SECURITY_HEADERS,
  'Referrer-Policy': 'same-origin',
  'Content-Security-Policy': (SECURITY_HEADERS['Content-Security-Policy'] ?? '').replace(
    "form-action 'none'",
    "form-action 'self'",
  ),
};

/** At most this many browsers signed in at once; the oldest session goes first. */
const MAX_SESSIONS = 64;

export interface Session {
  readonly csrf: string;
}

export class Sessions {
  readonly #token: string;
  readonly #port: number;
  readonly #sessions = new Map<string, Session>();

  constructor(token: string, port: number) {
    this.#token = token;
    this.#port = port;
  }

  get cookieName(): string {
    return `stepwise-dashboard-${this.#port}`;
  }

  /** The hosts the page is served under; anything else is refused (DNS rebinding). */
  hostAllowed(host: string | undefined): boolean {
    return host === `127.0.0.1:${this.#port}` || host === `localhost:${this.#port}`;
  }

  /** An action's Origin must be the page's own (browsers always send it on POST). */
  originAllowed(req: IncomingMessage): boolean {
    const origin = req.headers.origin;
    if (origin === undefined || origin !== `http://${req.headers.host ?? ''}`) return false;
    const site = req.headers['sec-fetch-site'];
    return site === undefined || site === 'same-origin';
  }

  tokenMatches(token: string | undefined): boolean {
    return sameSecret(token, this.#token);
  }

  /** A new session for a browser that showed the token: its Set-Cookie header and CSRF token. */
  open(): { cookie: string; session: Session } {
    const id = newSecret();
    const session = { csrf: newSecret() };
    this.#sessions.set(id, session);
    while (this.#sessions.size > MAX_SESSIONS) {
      this.#sessions.delete(this.#sessions.keys().next().value as string);
    }
    return {
      cookie: `${this.cookieName}=${id}; HttpOnly; SameSite=Strict; Path=/`,
      session,
    };
  }

  /** The session the request's cookie names; undefined: none (or an unknown one). */
  of(req: IncomingMessage): Session | undefined {
    const id = cookieValue(req.headers.cookie, this.cookieName);
    if (id === undefined) return undefined;
    for (const [known, session] of this.#sessions) {
      if (sameSecret(id, known)) return session;
    }
    return undefined;
  }
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
