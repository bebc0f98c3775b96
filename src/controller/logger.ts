/** One JSON line per log call on stdout (stderr for warnings and errors). No dependencies. */
import type { LogFields, Logger } from '../kube/index.ts';

export type Level = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<Level, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export function jsonLogger(level: Level = 'info', base: LogFields = {}): Logger {
  const write = (at: Level, msg: string, fields?: LogFields): void => {
    if (ORDER[at] < ORDER[level]) return;
    const line = JSON.stringify({
      time: new Date().toISOString(),
      level: at,
      msg,
      ...base,
      ...fields,
    });
    (at === 'warn' || at === 'error' ? process.stderr : process.stdout).write(`${line}\n`);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
  };
}
