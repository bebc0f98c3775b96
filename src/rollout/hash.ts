/**
 * Pod-template hashing, pure: FNV-1a (32 bit) over a canonical JSON of the template, encoded
 * with Kubernetes' "safe" alphabet (no vowels, so no words). Stable across key order.
 */
import { canonicalJson } from '../api/canonical-json.ts';

const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

function fnv1a32(text: string): number {
  let hash = 0x811c9dc5;
  const bytes = new TextEncoder().encode(text);
  for (const byte of bytes) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

function safeEncode(n: number): string {
  let out = '';
  let v = n;
  do {
    out = SAFE_ALPHABET.charAt(v % SAFE_ALPHABET.length) + out;
    v = Math.floor(v / SAFE_ALPHABET.length);
  } while (v > 0);
  return out;
}

/** The `rollouts-pod-template-hash` of a template; `collisionCount` is mixed in when set. */
export function podTemplateHash(template: unknown, collisionCount = 0): string {
  const suffix = collisionCount > 0 ? `#${collisionCount}` : '';
  return safeEncode(fnv1a32(canonicalJson(template) + suffix));
}
