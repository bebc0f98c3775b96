/**
 * Where analysis may send requests: an administrator's allow and deny lists (CIDRs and host
 * names, `--analysis-allowed-hosts` / `--analysis-denied-hosts`) on top of built-in denies for
 * loopback, link-local and cloud metadata addresses, which a template author must not reach
 * through the controller. The most specific matching entry decides; at equal specificity the
 * administrator's entry beats a built-in one and a deny beats an allow; nothing matching: allowed.
 * Host names are resolved once, by the connection's own `lookup`, and every address it returns is
 * checked: the socket connects to an address that was checked (no DNS rebinding in between).
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { isIP } from 'node:net';
import type { LookupFunction } from 'node:net';

type Family = 4 | 6;

interface CidrEntry {
  readonly kind: 'cidr';
  readonly text: string;
  readonly family: Family;
  readonly base: bigint;
  readonly prefix: number;
}
interface HostEntry {
  readonly kind: 'host';
  readonly text: string;
  /** `*.example.com` matches every name under example.com (not example.com itself). */
  readonly suffix: boolean;
  readonly name: string;
}
type Entry = CidrEntry | HostEntry;

interface Rule {
  readonly entry: Entry;
  readonly allow: boolean;
  readonly admin: boolean;
  /** Why a built-in entry is there, for the message. */
  readonly why?: string;
}

/** Denied unless the administrator allows them by an entry at least as specific. */
const BUILT_IN_DENIES: readonly (readonly [string, string])[] = [
  ['127.0.0.0/8', 'loopback'],
  ['::1/128', 'loopback'],
  ['0.0.0.0/8', 'this host'],
  ['::/128', 'this host'],
  ['169.254.0.0/16', 'link-local'],
  ['fe80::/10', 'link-local'],
  ['169.254.169.254/32', 'cloud metadata'],
  ['fd00:ec2::254/128', 'cloud metadata'],
  ['100.100.100.200/32', 'cloud metadata'],
  ['metadata.google.internal', 'cloud metadata'],
];

export type Resolver = (host: string) => Promise<readonly LookupAddress[]>;

export interface EgressPolicyOptions {
  readonly allowed?: readonly string[];
  readonly denied?: readonly string[];
  /** How host names are resolved (tests inject one); default: the system resolver. */
  readonly resolve?: Resolver;
}

/** Thrown (as a connection error) for a destination the policy refuses: never retried. */
export class HostNotAllowed extends Error {
  readonly code = 'ESTEPWISE_HOST_NOT_ALLOWED';
  override name = 'HostNotAllowed';
}

export class EgressPolicy {
  readonly #rules: readonly Rule[];
  readonly #resolve: Resolver;

  constructor(opts: EgressPolicyOptions = {}) {
    const admin = (list: readonly string[] | undefined, allow: boolean): Rule[] =>
      (list ?? []).map((text) => ({ entry: parseEntry(text), allow, admin: true }));
    this.#rules = [
      ...BUILT_IN_DENIES.map(([text, why]) => ({
        entry: parseEntry(text),
        allow: false,
        admin: false,
        why,
      })),
      ...admin(opts.denied, false),
      ...admin(opts.allowed, true),
    ];
    this.#resolve = opts.resolve ?? systemResolve;
  }

  /** Why `host` (a name or an address literal) may not be reached, or undefined. */
  refusalOfHost(host: string): string | undefined {
    const name = host.replace(/^\[|\]$/g, '').toLowerCase();
    const family = isIP(name);
    const rule = family === 0 ? this.#nameRule(name) : this.#addressRule(name);
    return rule === undefined || rule.allow ? undefined : refusal(host, rule);
  }

  /** A host name's own entry (an administrator's wins), if any. */
  #nameRule(name: string): Rule | undefined {
    const bare = name.replace(/\.$/, '');
    return best(this.#rules.filter((r) => r.entry.kind === 'host' && hostMatches(r.entry, bare)));
  }

  #addressRule(address: string): Rule | undefined {
    const ip = parseIp(address);
    if (ip === undefined) return undefined;
    return best(
      this.#rules.filter((r) => r.entry.kind === 'cidr' && cidrMatches(r.entry, ip.family, ip.n)),
    );
  }

  /**
   * A `lookup` for http(s).Agent: resolves `host`, refuses it when its name or ANY of its
   * addresses is denied (unless the name itself is allowed), else hands those very addresses to
   * the socket.
   */
  readonly lookup: LookupFunction = (host, options, callback) => {
    const name = host.toLowerCase();
    const byName = this.#nameRule(name.replace(/\.$/, ''));
    const fail = (err: Error): void => callback(err, '', 0);
    if (byName !== undefined && !byName.allow)
      return fail(new HostNotAllowed(refusal(host, byName)));
    this.#resolve(host).then(
      (addresses) => {
        if (addresses.length === 0) return fail(new Error(`${host}: no address`));
        if (byName === undefined) {
          for (const a of addresses) {
            const rule = this.#addressRule(a.address);
            if (rule !== undefined && !rule.allow) {
              return fail(new HostNotAllowed(refusal(`${host} (${a.address})`, rule)));
            }
          }
        }
        if (options.all === true) {
          (callback as (e: null, a: LookupAddress[]) => void)(null, [...addresses]);
        } else {
          const [first] = addresses;
          callback(null, first?.address ?? '', first?.family ?? 4);
        }
      },
      (err: unknown) => fail(err instanceof Error ? err : new Error(String(err))),
    );
  };

  /** Agents for one request: every connection they open goes through `lookup`. */
  agents(insecure: boolean): { httpAgent: HttpAgent; httpsAgent: HttpsAgent } {
    return {
      httpAgent: new HttpAgent({ lookup: this.lookup }),
      httpsAgent: new HttpsAgent({
        lookup: this.lookup,
        ...(insecure ? { rejectUnauthorized: false } : {}),
      }),
    };
  }
}

/** Checks an allow or deny list given on the command line; the error names the bad entry. */
export function parseHostList(text: string): string[] {
  const entries = text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const e of entries) parseEntry(e);
  return entries;
}

function refusal(host: string, rule: Rule): string {
  const by = rule.admin ? `denied by ${rule.entry.text}` : `${rule.why} (${rule.entry.text})`;
  return `host not allowed: ${host} is ${by}; an administrator can allow it with --analysis-allowed-hosts`;
}

/** Most specific first; then administrator before built-in; then deny before allow. */
function best(rules: readonly Rule[]): Rule | undefined {
  const score = (r: Rule): number =>
    specificity(r.entry) * 4 + (r.admin ? 2 : 0) + (r.allow ? 0 : 1);
  return [...rules].sort((a, b) => score(b) - score(a))[0];
}

function specificity(e: Entry): number {
  if (e.kind === 'host') return e.suffix ? 200 + e.name.length : 1000;
  return e.prefix;
}

function hostMatches(e: HostEntry, name: string): boolean {
  return e.suffix ? name.endsWith(`.${e.name}`) : name === e.name;
}

function cidrMatches(e: CidrEntry, family: Family, n: bigint): boolean {
  if (e.family !== family) return false;
  const bits = family === 4 ? 32 : 128;
  const shift = BigInt(bits - e.prefix);
  return n >> shift === e.base >> shift;
}

function parseEntry(text: string): Entry {
  const lower = text.trim().toLowerCase();
  const [addr = '', prefixText, extra] = lower.split('/');
  const ip = extra === undefined ? parseIp(addr) : undefined;
  if (ip !== undefined) {
    const bits = ip.family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? bits : Number(prefixText);
    if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) throw badEntry(text);
    if (!(prefix >= 0 && prefix <= bits)) throw badEntry(text);
    // ::ffff:a.b.c.d/n names IPv4 addresses: match them as IPv4.
    const mapped = ip.mapped ? Math.max(0, prefix - 96) : prefix;
    return { kind: 'cidr', text, family: ip.family, base: ip.n, prefix: mapped };
  }
  const suffix = lower.startsWith('*.');
  const name = (suffix ? lower.slice(2) : lower).replace(/\.$/, '');
  if (!/^[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*$/.test(name)) {
    throw badEntry(text);
  }
  return { kind: 'host', text, suffix, name };
}

const badEntry = (text: string): Error =>
  new Error(
    `"${text}" is not a CIDR, an IP address or a host name (*.domain for every name in it)`,
  );

/** An address as a number; an IPv4-mapped IPv6 address (::ffff:a.b.c.d) counts as IPv4. */
function parseIp(text: string): { family: Family; n: bigint; mapped: boolean } | undefined {
  const t = text.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const family = isIP(t);
  if (family === 4) return { family: 4, n: v4(t), mapped: false };
  if (family !== 6) return undefined;
  const n = v6(t);
  if (n >> 32n === 0xffffn) return { family: 4, n: n & 0xffffffffn, mapped: true };
  return { family: 6, n, mapped: false };
}

const v4 = (t: string): bigint =>
  t.split('.').reduce((acc, part) => (acc << 8n) | BigInt(part), 0n);

function v6(t: string): bigint {
  let text = t;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail?.[1] !== undefined) {
    const n = v4(tail[1]);
    text = `${text.slice(0, tail.index)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups =
    rest === undefined
      ? left
      : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(`0x${g}`), 0n);
}

function systemResolve(host: string): Promise<readonly LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(host, { all: true }, (err, addresses) => (err ? reject(err) : resolve(addresses)));
  });
}
