/**
 * Free text that people write into a Rollout's status (approval comments: anonymous link
 * holders among them) loses its control characters where it enters: C0 other than \n and \t,
 * DEL, C1, and the bidirectional embeddings, overrides and isolates. The comment is shown later
 * in terminals, Events, Slack and pages, where those would move the cursor, set titles or make
 * text read otherwise than it is (issue 20, L3).
 */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

export function stripControlCharacters(text: string): string {
  return text.replace(CONTROL, '');
}
