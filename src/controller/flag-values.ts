/**
 * The controller's flag values, each parsed or refused with a ConfigError that names the flag
 * and what it takes.
 */
import { parseHostList } from '../analysis/providers/index.ts';
import { parseGoDuration } from '../api/index.ts';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export function hostList(flag: string, v: string | undefined): string[] {
  try {
    return parseHostList(v ?? '');
  } catch (err) {
    throw new ConfigError(`${flag}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export function reclaimAfter(v: string): number {
  const ms = parseGoDuration(v, 24n * 3_600_000_000_000n);
  if (!ms.ok || ms.value < 0) {
    throw new ConfigError(`--reclaim-memory-after must be a duration such as 10s or 0, got "${v}"`);
  }
  return ms.value;
}

/** A label value: up to 63 characters, alphanumeric at both ends, `-_.` inside. */
export function instanceId(v: string | undefined): { instanceId?: string } {
  if (v === undefined) return {};
  if (!/^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/.test(v)) {
    throw new ConfigError(
      `--instance-id must be a label value (up to 63 letters, digits, '-', '_' or '.', starting and ending with a letter or digit), got "${v}"`,
    );
  }
  return { instanceId: v };
}

/** An http(s) URL without a trailing slash. */
export function httpUrl(flag: string, v: string): string {
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    throw new ConfigError(`${flag} must be an http(s) URL, got "${v}"`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(`${flag} must be an http(s) URL, got "${v}"`);
  }
  return v.replace(/\/+$/, '');
}

export function positiveInt(flag: string, v: string): number {
  const n = Number(v);
  if (!/^\d+$/.test(v) || n < 1)
    throw new ConfigError(`${flag} must be a positive integer, got "${v}"`);
  return n;
}

export function bool(flag: string, v: string): boolean {
  if (v === 'true') return true;
  if (v === 'false') return false;
  throw new ConfigError(`${flag} must be true or false, got "${v}"`);
}

export function hostPort(v: string, flag: string): [string, number] {
  const i = v.lastIndexOf(':');
  const port = Number(v.slice(i + 1));
  if (i < 0 || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new ConfigError(`${flag} must be host:port, got "${v}"`);
  }
  return [v.slice(0, i) || '0.0.0.0', port];
}
