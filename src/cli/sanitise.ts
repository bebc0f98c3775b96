/**
 * PURE: strings read from the cluster made safe to print on a terminal (issue 20, L3; the
 * class of kubectl's CVE-2021-25743). Anyone who can write a status message, a measured value
 * or an approval comment could otherwise move the cursor to paint "Healthy" over "Degraded",
 * set the window title or write the clipboard (OSC 52). Control characters other than \n and
 * \t, DEL, the C1 range and the bidirectional overrides are shown as visible escapes instead.
 *
 * The renderers take `Sanitised<…>` objects, which only `sanitised()` makes: a command cannot
 * hand them what it read without passing through here once. Objects the plugin writes back
 * (patches, spec edits, -o json|yaml) are never sanitised: they must stay what the server has.
 */

declare const SANITISED: unique symbol;

/** A value whose every string (keys included) has been through sanitiseText. */
export type Sanitised<T> = T & { readonly [SANITISED]: true };

// C0 but \t and \n, DEL and C1 (ESC, CSI \x9b, OSC \x9d, \r among them), the bidi embeddings and
// overrides U+202A–U+202E and isolates U+2066–U+2069 (text that reads differently than it is).
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

/** `\x1b` for ESC, `\r` for CR, `\u{202e}` for RLO, and the rest of the text as it is. */
export function sanitiseText(text: string): string {
  return text.replace(UNSAFE, (c) => {
    const code = c.charCodeAt(0);
    if (code === 0x0d) return '\\r';
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

/**
 * A plain copy of `value` with every string sanitised. client-node's typed objects (class
 * instances) become plain objects with the same fields; Dates stay Dates.
 */
export function sanitised<T>(value: T): Sanitised<T> {
  return clean(value) as Sanitised<T>;
}

function clean(value: unknown): unknown {
  if (typeof value === 'string') return sanitiseText(value);
  if (Array.isArray(value)) return value.map(clean);
  if (value === null || typeof value !== 'object' || value instanceof Date) return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [sanitiseText(key), clean(v)] as const),
  );
}
