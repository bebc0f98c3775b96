/** When the plugin's requests try again. */
import { ApiStatusError } from '../kube/errors.ts';

/** As client-go does, a 429 (the API server shedding load, or its storage still initialising
 *  right after a CRD is installed) is tried again after the Retry-After it names, a few times. */
export const MAX_THROTTLE_RETRIES = 5;
const MAX_RETRY_AFTER_MS = 5_000;

/** How long to wait before trying a throttled request again; undefined: not throttled. */
export function throttleDelayMs(err: unknown): number | undefined {
  if (!(err instanceof ApiStatusError) || err.httpStatus !== 429) return undefined;
  const seconds = err.retryAfterSeconds ?? 1;
  return Number.isFinite(seconds) && seconds >= 0
    ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS)
    : 1000;
}
