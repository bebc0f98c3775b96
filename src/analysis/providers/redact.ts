/**
 * What leaves a measurement: every value read from a Secret during a pass (args, headers, basic,
 * bearer) is replaced by `*****` (as Argo's WithRedactor), then message, value and metadata are
 * cut to MAX_STORED_BYTES: they go into AnalysisRun status (readable with `view`), the run's and
 * the Rollout's Events, logs and notifications.
 */
import type { Measurement } from '../../api/index.ts';
import type { SecretRef, SecretSource } from './provider.ts';

export const REDACTED = '*****';
/** Of a measurement's value, message and each metadata value. */
export const MAX_STORED_BYTES = 1024;

export class Redactor {
  readonly #secrets = new Set<string>();

  /** Remembers a secret value, and the forms it takes in a URL. */
  add(value: string): void {
    if (value === '') return;
    this.#secrets.add(value);
    for (const form of [
      encodeURIComponent(value),
      encodeURI(value),
      new URLSearchParams({ v: value }).toString().slice(2),
    ]) {
      if (form !== value) this.#secrets.add(form);
    }
  }

  /** Whether `text` carries a remembered secret. */
  reveals(text: string): boolean {
    for (const s of this.#secrets) if (text.includes(s)) return true;
    return false;
  }

  redact(text: string): string {
    if (this.#secrets.size === 0) return text;
    // Longest first: a secret that contains another is replaced whole.
    let out = text;
    for (const s of [...this.#secrets].sort((a, b) => b.length - a.length)) {
      out = out.split(s).join(REDACTED);
    }
    return out;
  }

  /** A SecretSource that remembers every value it hands out. */
  recording(source: SecretSource): SecretSource {
    return {
      secretValue: async (namespace: string, ref: SecretRef): Promise<string> => {
        const v = await source.secretValue(namespace, ref);
        this.add(v);
        return v;
      },
    };
  }

  /** The measurement as it may be stored: secrets redacted, then each text capped. */
  measurement(m: Measurement): Measurement {
    const safe = (text: string): string => capBytes(this.redact(text), MAX_STORED_BYTES);
    const metadata =
      m.metadata === undefined
        ? undefined
        : Object.fromEntries(Object.entries(m.metadata).map(([k, v]) => [k, safe(v)]));
    return {
      ...m,
      ...(m.message === undefined ? {} : { message: safe(m.message) }),
      ...(m.value === undefined ? {} : { value: safe(m.value) }),
      ...(metadata === undefined ? {} : { metadata }),
    };
  }
}

const ELLIPSIS = '…';

/** At most `max` UTF-8 bytes, an ellipsis marking a cut; never splits a character. */
export function capBytes(text: string, max: number): string {
  if (Buffer.byteLength(text, 'utf8') <= max) return text;
  const room = max - Buffer.byteLength(ELLIPSIS, 'utf8');
  let bytes = 0;
  let end = 0;
  for (const ch of text) {
    const size = Buffer.byteLength(ch, 'utf8');
    if (bytes + size > room) break;
    bytes += size;
    end += ch.length;
  }
  return text.slice(0, end) + ELLIPSIS;
}
