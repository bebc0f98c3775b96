// Kubernetes IntOrString values (`3` or `"25%"`) resolved to replica counts, and the canary's
// maxSurge/maxUnavailable pair resolved together (Argo Rollouts' `resolveFenceposts`,
// `MaxSurge`, `MaxUnavailable` in utils/replicaset/replicaset.go). Pure: no I/O, no throw.

/** A value, or a message saying what is wrong with the input ("must …"). */
export type Resolved<T> =
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: string };

export interface IntOrPercentOptions {
  /** Allow percentages above 100% (maxSurge may be "200%"; maxUnavailable may not). */
  readonly allowAbove100Percent?: boolean;
}

/** Argo Rollouts' default for both canary.maxSurge and canary.maxUnavailable. */
export const DEFAULT_MAX_SURGE = '25%';
export const DEFAULT_MAX_UNAVAILABLE = '25%';

const PERCENT = /^(0|[1-9][0-9]*)%$/;

function fail<T>(error: string): Resolved<T> {
  return { ok: false, error };
}

function show(v: unknown): string {
  return typeof v === 'string' ? JSON.stringify(v) : String(v);
}

/**
 * Resolves `v` against `total`: an integer is taken as it is; `"N%"` is N% of `total`, rounded up
 * (`roundUp`, as for maxSurge) or down (as for maxUnavailable). `undefined` resolves `dflt`.
 *
 * Rejected: negative or fractional numbers, strings that are not `<digits>%` (`"abc"`, `"2.5%"`,
 * `"-5%"`, `" 5%"`), percentages above 100% unless `allowAbove100Percent`, and bare numeric
 * strings such as `"5"`. Argo Rollouts (via apimachinery's legacy `GetValueFromIntOrPercent`)
 * silently reads `"5"` as 5%; Kubernetes' own Deployment validation rejects it. We reject it
 * with a message that says so, rather than guess.
 */
export function resolveIntOrPercent(
  v: number | string | undefined,
  total: number,
  roundUp: boolean,
  dflt: number | string,
  opts: IntOrPercentOptions = {},
): Resolved<number> {
  if (!Number.isSafeInteger(total) || total < 0) {
    return fail(`total must be a non-negative integer, got ${show(total)}`);
  }
  const value = v ?? dflt;
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) {
      return fail(
        `must be a non-negative integer or a percentage such as "25%", got ${show(value)}`,
      );
    }
    return { ok: true, value };
  }
  const m = PERCENT.exec(value);
  if (m === null || m[1] === undefined) {
    if (/^[0-9]+$/.test(value)) {
      return fail(
        `must be an integer or a percentage such as "${value}%", got the string ${show(value)} ` +
          `(Argo Rollouts would read it as ${value}%; write ${value} or "${value}%")`,
      );
    }
    return fail(`must be a non-negative integer or a percentage such as "25%", got ${show(value)}`);
  }
  const percent = Number(m[1]);
  if (!Number.isSafeInteger(percent)) {
    return fail(`must be a percentage of a sensible size, got ${show(value)}`);
  }
  if (percent > 100 && opts.allowAbove100Percent !== true) {
    return fail(`must not be more than 100%, got ${show(value)}`);
  }
  // percent * total is an exact integer; dividing by 100 is exact whenever the quotient is whole.
  const scaled = (percent * total) / 100;
  return { ok: true, value: roundUp ? Math.ceil(scaled) : Math.floor(scaled) };
}

export interface SurgeUnavailable {
  readonly maxSurge: number;
  readonly maxUnavailable: number;
}

function isExplicitZero(v: number | string | undefined): boolean {
  return v === 0 || v === '0%';
}

/**
 * Resolves canary.maxSurge (rounded up, may exceed 100%) and canary.maxUnavailable (rounded
 * down, at most 100%) for `replicas`, each defaulting to 25%, as Argo Rollouts does:
 * - both given as zero (`0` or `"0%"`) is invalid (Argo: "MaxSurge and MaxUnavailable both can
 *   not be zero");
 * - if both merely resolve to 0 (e.g. maxSurge 0, maxUnavailable "10%" of 5 replicas), then
 *   maxUnavailable is 1, so a rollout can still make progress when surge is impossible;
 * - maxUnavailable is capped at `replicas` (and is 0 when `replicas` is 0).
 */
export function resolveSurgeUnavailable(
  maxSurge: number | string | undefined,
  maxUnavailable: number | string | undefined,
  replicas: number,
): Resolved<SurgeUnavailable> {
  const surge = resolveIntOrPercent(maxSurge, replicas, true, DEFAULT_MAX_SURGE, {
    allowAbove100Percent: true,
  });
  if (!surge.ok) return fail(`maxSurge ${surge.error}`);
  const unavailable = resolveIntOrPercent(maxUnavailable, replicas, false, DEFAULT_MAX_UNAVAILABLE);
  if (!unavailable.ok) return fail(`maxUnavailable ${unavailable.error}`);
  if (isExplicitZero(maxSurge) && isExplicitZero(maxUnavailable)) {
    return fail('maxSurge and maxUnavailable must not both be zero');
  }
  let u = unavailable.value;
  if (surge.value === 0 && u === 0) u = 1;
  return { ok: true, value: { maxSurge: surge.value, maxUnavailable: Math.min(u, replicas) } };
}
