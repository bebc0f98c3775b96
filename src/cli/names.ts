/**
 * PURE: names are checked as Kubernetes checks them before any request is built, so a name
 * with `/`, `..`, `;` or nothing at all is one line saying what is wrong, not a request to a
 * path the server does not serve. The wording is Kubernetes' own (apimachinery's
 * IsDNS1123Subdomain and IsDNS1123Label), so the message reads like the API server's.
 */
import { CliError } from './errors.ts';

/** Object names (Rollout, AnalysisRun): an RFC 1123 subdomain. Namespaces: an RFC 1123 label. */
export type NameKind = 'rollout' | 'AnalysisRun' | 'namespace';

const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN_MAX = 253;
const LABEL_MAX = 63;
const SUBDOMAIN_MESSAGE =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
const LABEL_MESSAGE =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";

/** What is wrong with `value` as a name of this kind, or undefined when it is valid. */
export function nameProblem(kind: NameKind, value: string): string | undefined {
  const label = kind === 'namespace';
  const [pattern, max, message] = label
    ? [LABEL, LABEL_MAX, LABEL_MESSAGE]
    : [SUBDOMAIN, SUBDOMAIN_MAX, SUBDOMAIN_MESSAGE];
  if (value === '') return 'must not be empty';
  if (value.length > max) return `must be no more than ${max} characters`;
  return pattern.test(value) ? undefined : message;
}

/** JSON-quoted, so a name with control characters or spaces still prints as one line. */
export const quoted = (value: string): string => JSON.stringify(value);

/** Returns `value` when valid; else throws the one-line error. */
export function checkName(kind: NameKind, value: string): string {
  const problem = nameProblem(kind, value);
  if (problem !== undefined) {
    throw new CliError(`${quoted(value)} is not a valid ${kind} name: ${problem}`);
  }
  return value;
}
