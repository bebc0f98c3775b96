/**
 * Who a request to the external port comes from, for its rate-limit bucket. Behind an Ingress
 * every socket is the ingress pod's, so the client is read from X-Forwarded-For, but only when
 * the socket peer is a proxy the administrator trusts (--trusted-proxy-cidrs): anyone else can
 * write any X-Forwarded-For. Each trusted proxy appends the address it saw, so the list is read
 * from the right, skipping trusted proxies; the first other address is the client. Entries left
 * of it were written by the client and mean nothing. Pure: no sockets, no DNS.
 */
import { isIPv4, isIPv6 } from 'node:net';

interface Cidr {
  readonly family: 4 | 6;
  /** The network address as a big integer (32 or 128 bits). */
  readonly base: bigint;
  readonly prefix: number;
}

/** A parsed list of trusted proxy networks. */
export interface TrustedProxies {
  readonly cidrs: readonly Cidr[];
}

export const NO_TRUSTED_PROXIES: TrustedProxies = { cidrs: [] };

/**
 * `10.0.0.0/8,fd00::/8,192.168.1.7` → the networks (an address without a prefix is one host), or
 * the first entry that is not a network, for a start-up error naming it.
 */
export function parseTrustedProxies(
  list: string,
): { ok: true; proxies: TrustedProxies } | { ok: false; bad: string } {
  const cidrs: Cidr[] = [];
  for (const entry of list.split(',').map((s) => s.trim())) {
    if (entry === '') continue;
    const [addr = '', prefixText, extra] = entry.split('/');
    const ip = parseAddress(addr);
    if (ip === undefined || extra !== undefined) return { ok: false, bad: entry };
    const bits = ip.family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? bits : Number(prefixText);
    if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return { ok: false, bad: entry };
    if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) return { ok: false, bad: entry };
    cidrs.push({ family: ip.family, base: mask(ip.value, prefix, bits), prefix });
  }
  return { ok: true, proxies: { cidrs } };
}

/**
 * The client's address: the socket peer's, unless that peer is trusted and X-Forwarded-For names
 * someone; then the right-most forwarded address that is not a trusted proxy. When every
 * forwarded address is trusted, or an entry is not an address (only a client writes garbage),
 * the left-most trusted address read so far is the client.
 */
export function clientAddress(
  peer: string | undefined,
  forwardedFor: string | undefined,
  trusted: TrustedProxies,
): string {
  const socket = parseAddress(peer ?? '');
  if (socket === undefined) return peer ?? 'unknown';
  if (!isTrusted(socket, trusted) || forwardedFor === undefined) return socket.text;
  let client = socket.text;
  const hops = forwardedFor.split(',').map((s) => s.trim());
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseAddress(stripPort(hops[i] ?? ''));
    if (hop === undefined) break;
    client = hop.text;
    if (!isTrusted(hop, trusted)) break;
  }
  return client;
}

interface Address {
  readonly family: 4 | 6;
  readonly value: bigint;
  /** Canonical text: v4-mapped IPv6 as plain IPv4, IPv6 compressed lower-case. */
  readonly text: string;
}

function isTrusted(ip: Address, trusted: TrustedProxies): boolean {
  const bits = ip.family === 4 ? 32 : 128;
  return trusted.cidrs.some(
    (c) => c.family === ip.family && mask(ip.value, c.prefix, bits) === c.base,
  );
}

function mask(value: bigint, prefix: number, bits: number): bigint {
  const host = BigInt(bits - prefix);
  return (value >> host) << host;
}

/** `1.2.3.4:80` and `[::1]:80` (some proxies add the port) → the address. */
function stripPort(hop: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hop);
  if (bracketed) return bracketed[1] ?? '';
  const v4 = /^(\d{1,3}(?:\.\d{1,3}){3}):\d+$/.exec(hop);
  return v4 ? (v4[1] ?? '') : hop;
}

function parseAddress(text: string): Address | undefined {
  // A zone (fe80::1%eth0) names an interface, not a host anyone could forward from.
  if (isIPv4(text)) {
    const value = text.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
    return { family: 4, value, text: v4Text(value) };
  }
  if (!isIPv6(text) || text.includes('%')) return undefined;
  const value = v6Value(text);
  if (value >> 32n === 0xffffn) {
    const v4 = value & 0xffffffffn;
    return { family: 4, value: v4, text: v4Text(v4) };
  }
  return { family: 6, value, text: v6Text(value) };
}

function v4Text(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
}

/** An address `isIPv6` accepted, as 128 bits (a trailing dotted IPv4 part included). */
function v6Value(text: string): bigint {
  let head = text;
  let tail: bigint[] = [];
  const dotted = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (dotted) {
    const v4 = (dotted[1] ?? '').split('.').map((p) => BigInt(Number(p)));
    tail = [((v4[0] ?? 0n) << 8n) | (v4[1] ?? 0n), ((v4[2] ?? 0n) << 8n) | (v4[3] ?? 0n)];
    head = text.slice(0, -(dotted[1] ?? '').length);
    if (head.endsWith(':') && !head.endsWith('::')) head = head.slice(0, -1);
  }
  const groups = (s: string): bigint[] =>
    s === '' ? [] : s.split(':').map((g) => BigInt(`0x${g}`));
  const [left = '', right] = head.split('::');
  const l = groups(left);
  const r = right === undefined ? [] : groups(right);
  const zeros = 8 - l.length - r.length - tail.length;
  const all = [...l, ...Array<bigint>(right === undefined ? 0 : zeros).fill(0n), ...r, ...tail];
  return all.reduce((acc, g) => (acc << 16n) | g, 0n);
}

function v6Text(value: bigint): string {
  const groups = Array.from({ length: 8 }, (_, i) => (value >> BigInt(112 - 16 * i)) & 0xffffn);
  // The longest run of two or more zero groups becomes `::` (RFC 5952).
  let best = { at: -1, len: 0 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0n) j++;
    if (j - i > best.len && j - i >= 2) best = { at: i, len: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best.at < 0) return hex.join(':');
  return `${hex.slice(0, best.at).join(':')}::${hex.slice(best.at + best.len).join(':')}`;
}
