/**
 * Live output for `--watch`. On a terminal the view is redrawn in place with raw ANSI (cursor
 * hidden while drawing, restored on close); elsewhere each changed snapshot is printed whole,
 * without escape codes.
 */
import { stripAnsi } from './render/color.ts';

export interface Output {
  write(text: string): unknown;
  isTTY?: boolean | undefined;
  columns?: number | undefined;
}

/** Output kept in memory (completion runs a command in-process and reads what it printed). */
export class Sink implements Output {
  text = '';
  write(s: string): boolean {
    this.text += s;
    return true;
  }
}

const HIDE_CURSOR = '\x1b[?25l';
const SHOW_CURSOR = '\x1b[?25h';
const CLEAR_DOWN = '\x1b[J';
const up = (n: number): string => (n > 0 ? `\x1b[${n}A` : '');

/** Terminal rows a text takes, counting lines that wrap at `columns`. */
export function physicalRows(text: string, columns: number | undefined): number {
  const lines = text.endsWith('\n') ? text.slice(0, -1).split('\n') : text.split('\n');
  if (!columns || columns <= 0) return lines.length;
  return lines.reduce(
    (n, line) => n + Math.max(1, Math.ceil([...stripAnsi(line)].length / columns)),
    0,
  );
}

export class LiveView {
  private readonly out: Output;
  private rows = 0;
  private lastKey: string | undefined;
  private started = false;
  private closed = false;

  constructor(out: Output) {
    this.out = out;
  }

  get tty(): boolean {
    return !!this.out.isTTY;
  }

  /**
   * Shows `text` (ending with a newline). `key` decides whether anything changed (default: the
   * text itself); off a terminal an unchanged key prints nothing.
   */
  update(text: string, key: string = text): void {
    if (this.closed) return;
    if (!this.tty) {
      if (key === this.lastKey) return;
      this.out.write((this.lastKey === undefined ? '' : '\n') + stripAnsi(text));
      this.lastKey = key;
      return;
    }
    if (text === this.lastKey) return;
    let frame = '';
    if (!this.started) frame += HIDE_CURSOR;
    else frame += up(this.rows) + '\r' + CLEAR_DOWN;
    this.started = true;
    frame += text;
    this.out.write(frame);
    this.rows = physicalRows(text, this.out.columns);
    this.lastKey = text;
  }

  /** Restores the cursor. Safe to call twice. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.tty && this.started) this.out.write(SHOW_CURSOR);
  }
}
