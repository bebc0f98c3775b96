/** What commands get from the entry point: output streams, the client factory, a clock. */
import type { GlobalOptions, KubeClient } from './client.ts';
import type { Output } from './terminal.ts';

export interface CliDeps {
  out: Output;
  err: Output;
  env: Readonly<Record<string, string | undefined>>;
  connect(globals: GlobalOptions): Promise<KubeClient>;
  now(): number;
  /** Runs `handler` on Ctrl-C until the returned function is called. */
  onInterrupt(handler: () => void): () => void;
  /** All of standard input, for `lint -`. */
  readStdin(): Promise<string>;
}

/** The flags every command accepts (kubectl does not parse them for plugins). */
export interface GlobalFlags extends GlobalOptions {
  allNamespaces?: boolean;
}

export const EXIT_INTERRUPTED = 130;

/** Writes a line to stdout. */
export const println = (deps: CliDeps, line: string): void => {
  deps.out.write(`${line}\n`);
};
