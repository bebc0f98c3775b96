/** A few ANSI colours, and the rule for when to use them (NO_COLOR, --no-color, TTY). */
export type Tone = 'green' | 'yellow' | 'cyan' | 'red' | 'grey' | 'bold' | 'none';

const CODES: Record<Exclude<Tone, 'none'>, [number, number]> = {
  green: [32, 39],
  yellow: [33, 39],
  cyan: [36, 39],
  red: [31, 39],
  grey: [90, 39],
  bold: [1, 22],
};

export type Paint = (text: string, tone: Tone) => string;

export const noColor: Paint = (text) => text;

export const ansiColor: Paint = (text, tone) => {
  if (tone === 'none' || text === '') return text;
  const [open, close] = CODES[tone];
  return `\x1b[${open}m${text}\x1b[${close}m`;
};

/**
 * Colour is on when stdout is a terminal, unless `--no-color` or a non-empty NO_COLOR says
 * otherwise; a non-empty FORCE_COLOR (other than "0") turns it on without a terminal.
 */
export function wantColor(
  env: Readonly<Record<string, string | undefined>>,
  flag: boolean,
  isTTY: boolean,
): boolean {
  if (!flag) return false;
  if (env['NO_COLOR']) return false;
  const force = env['FORCE_COLOR'];
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false';
  return isTTY;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b\[[0-9;?]*[A-Za-z]/g;

export const stripAnsi = (s: string): string => s.replace(ANSI, '');

/** Columns a string takes on a terminal (every glyph we print is one column wide). */
export const visibleWidth = (s: string): number => [...stripAnsi(s)].length;
