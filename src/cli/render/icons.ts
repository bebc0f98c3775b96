/** Status icons and colours, as in Argo Rollouts' plugin. */
import type { Tone } from './color.ts';

export type IconHealth =
  'Healthy' | 'Progressing' | 'Paused' | 'Degraded' | 'ScaledDown' | 'Unknown';

export const ICON: Record<IconHealth, string> = {
  Healthy: '✔',
  Progressing: '◌',
  Paused: '॥',
  Degraded: '✖',
  ScaledDown: '•',
  Unknown: '?',
};

export const TONE: Record<IconHealth, Tone> = {
  Healthy: 'green',
  Progressing: 'yellow',
  Paused: 'cyan',
  Degraded: 'red',
  ScaledDown: 'grey',
  Unknown: 'grey',
};

export const KIND_ICON = {
  Rollout: '⟳',
  Revision: '#',
  ReplicaSet: '⧉',
  Pod: '□',
} as const;
