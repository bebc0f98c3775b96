/**
 * The controller's log lines, one per call, on stdout (stderr for warnings and errors). JSON by
 * default (one object a line, for log pipelines); `--log-format text` writes the same fields as
 * `time level msg key=value ...` for a person reading `kubectl logs`. No dependencies.
 */
import type { LogFields, Logger } from '../kube/index.ts';

export type Level = 'debug' | 'info' | 'warn' | 'error';
export type LogFormat = 'json' | 'text';
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text'];
const ORDER: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface LoggerOptions {
  readonly level?: Level;
  readonly format?: LogFormat;
  /** Fields on every line (the component). */
  readonly base?: LogFields;
  /** Where lines go; default stdout, and stderr for warn and error. */
  readonly write?: (at: Level, line: string) => void;
  /** Default: the wall clock. */
  readonly now?: () => Date;
}

export function controllerLogger(opts: LoggerOptions = {}): Logger {
  const level = opts.level ?? 'info';
  const format = opts.format === 'text' ? textLine : jsonLine;
  const base = opts.base ?? {};
  const now = opts.now ?? (() => new Date());
  const out =
    opts.write ??
    ((at: Level, line: string) =>
      (at === 'warn' || at === 'error' ? process.stderr : process.stdout).write(`${line}\n`));
  const write = (at: Level, msg: string, fields?: LogFields): void => {
    if (ORDER[at] < ORDER[level]) return;
    out(at, format(now().toISOString(), at, msg, { ...base, ...fields }));
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}

function jsonLine(time: string, level: Level, msg: string, fields: LogFields): string {
  return JSON.stringify({ time, level, msg, ...fields });
}

/** `time LEVEL msg key=value`: values with spaces, quotes or `=` are JSON-quoted, objects JSON. */
function textLine(time: string, level: Level, msg: string, fields: LogFields): string {
  const pairs = Object.entries(fields)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${textValue(v)}`);
  return [time, level.toUpperCase().padEnd(5), msg, ...pairs].join(' ');
}

function textValue(v: unknown): string {
  if (typeof v === 'string') return /^[^\s"=]+$/.test(v) ? v : JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean' || v === null) return String(v);
  // Objects and arrays as JSON; what JSON cannot show (a function, a symbol) by its type.
  return JSON.stringify(v) ?? typeof v;
}
