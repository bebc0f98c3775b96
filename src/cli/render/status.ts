/** PURE: the line `kubectl stepwise status` prints for a phase (`Progressing - <message>`). */
import type { Sanitised } from '../sanitise.ts';
import type { PhaseInfo } from './info.ts';

export const statusLine = ({ phase, message }: Sanitised<PhaseInfo>): string =>
  message ? `${phase} - ${message}` : phase;

export const DEGRADED_PREFIX = 'The rollout is in a degraded state with message: ';
export const TIMEOUT_MESSAGE = 'Rollout status watch exceeded timeout';
