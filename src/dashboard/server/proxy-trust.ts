/**
 * Sign-in by an authenticating proxy (oauth2-proxy, an ingress with external auth): the proxy
 * names the person in request headers (X-Remote-User and X-Remote-Group by default, as the API
 * server's own front proxy does). Anyone can send those headers, so they count only on a
 * connection from an address in the configured ranges (the proxy's pods); from anywhere else
 * they are ignored and the request is as anonymous as any other.
 */

export interface Cidr {
  readonly text: string;
  readonly bits: 32 | 128;
  readonly base: bigint;
  readonly prefix: number;
}

export interface ProxyTrust {
  /** Header naming the user (lower or any case). */
  readonly userHeader: string;
  /** Header naming a group; repeated for several (as Kubernetes' front proxy sends them). */
  readonly groupHeader: string;
  readonly trusted: readonly Cidr[];
}

export const DEFAULT_USER_HEADER = 'X-Remote-User';
export const DEFAULT_GROUP_HEADER = 'X-Remote-Group';

export class CidrError extends Error {
  override name = 'CidrError';
}

/** `10.0.0.0/8`, `fd00::/8`, or one address (`10.1.2.3` is `10.1.2.3/32`). */
export function parseCidr(text: string): Cidr {
  const [address = '', prefixText, ...rest] = text.trim().split('/');
  const value = parseAddress(address);
  if (value === undefined || rest.length > 0) {
    throw new CidrError(`"${text}" is not an address range: expected e.g. 10.0.0.0/8 or fd00::/8`);
  }
  const prefix = prefixText === undefined ? value.bits : Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText ?? String(prefix)) || prefix > value.bits) {
    throw new CidrError(`"${text}": the prefix length must be 0-${value.bits}`);
  }
  return { text: text.trim(), bits: value.bits, base: mask(value.n, value.bits, prefix), prefix };
}

/** Whether the peer address (as Node reports it; IPv4 may come as ::ffff:a.b.c.d) is in a range. */
export function addressIn(address: string | undefined, ranges: readonly Cidr[]): boolean {
  if (address === undefined) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  const value = parseAddress(mapped ?? address);
  if (value === undefined) return false;
  return ranges.some(
    (r) => r.bits === value.bits && mask(value.n, value.bits, r.prefix) === r.base,
  );
}

export type ProxyIdentity =
  | { readonly kind: 'none' }
  | { readonly kind: 'user'; readonly username: string; readonly groups: readonly string[] }
  /** The headers came from an address outside the trusted ranges: not believed. */
  | { readonly kind: 'untrusted'; readonly from: string };

/** Whom the proxy says the request is from, if it came through a trusted proxy. */
export function proxyIdentity(
  peer: string | undefined,
  headers: Readonly<Record<string, readonly string[] | undefined>>,
  trust: ProxyTrust | undefined,
): ProxyIdentity {
  if (trust === undefined) return { kind: 'none' };
  const users = headers[trust.userHeader.toLowerCase()] ?? [];
  if (users.length === 0) return { kind: 'none' };
  if (!addressIn(peer, trust.trusted)) return { kind: 'untrusted', from: peer ?? 'unknown' };
  const username = users[0]?.trim() ?? '';
  // Two user headers are a proxy that appends rather than replaces: trust neither.
  if (users.length !== 1 || username === '') return { kind: 'none' };
  const groups = (headers[trust.groupHeader.toLowerCase()] ?? [])
    .map((g) => g.trim())
    .filter((g) => g !== '');
  return { kind: 'user', username, groups };
}

function parseAddress(text: string): { n: bigint; bits: 32 | 128 } | undefined {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) {
    const parts = text.split('.').map(Number);
    if (parts.some((p) => p > 255)) return undefined;
    return { n: parts.reduce((acc, p) => (acc << 8n) | BigInt(p), 0n), bits: 32 };
  }
  if (!/^[0-9a-f:]+$/i.test(text) || !text.includes(':')) return undefined;
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string | undefined): string[] => (s ? s.split(':') : []);
  const head = groups(halves[0]);
  const tail = groups(halves[1]);
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return undefined;
  const all = [...head, ...Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
  if (all.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return undefined;
  return { n: all.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n), bits: 128 };
}

function mask(n: bigint, bits: number, prefix: number): bigint {
  const hostBits = BigInt(bits - prefix);
  return (n >> hostBits) << hostBits;
}
