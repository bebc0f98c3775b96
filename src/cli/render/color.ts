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

// Escape sequences a terminal acts on: CSI (ESC [ or C1 \x9b: colours, cursor moves), OSC
// (ESC ] or C1 \x9d up to BEL or ST: titles, hyperlinks, clipboard), ESC plus one byte, and
// any other control character but \n and \t (\r returns the cursor to overwrite a line).
const ANSI = new RegExp(
  [
    '(?:\\x1b\\[|\\x9b)[0-?]*[ -/]*[@-~]',
    '(?:\\x1b\\]|\\x9d)[^\\x07\\x1b\\x9c]*(?:\\x07|\\x1b\\\\|\\x9c)?',
    '\\x1b[ -~]?',
    '[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f]',
  ].join('|'),
  'g',
);

export const stripAnsi = (s: string): string => s.replace(ANSI, '');

/** Columns a string takes on a terminal (every glyph we print is one column wide). */
export const visibleWidth = (s: string): number => [...stripAnsi(s)].length;
