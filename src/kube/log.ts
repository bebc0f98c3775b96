/**
 * The logging shape src/kube writes to. The controller passes its own logger (structured, one
 * line per call); the default drops everything. Never log Secrets or tokens.
 */
export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

const drop = (): void => undefined;
export const silentLogger: Logger = { debug: drop, info: drop, warn: drop, error: drop };

/** A short text for an error in log fields. */
export function errorText(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : String(err);
}
