/**
 * The demo's dashboard: `kubectl stepwise dashboard -n demo`, started beside the demo so that a
 * person can watch the same Rollout live in a browser while the narration runs. Port 3100 when
 * free, else any free port; the address (with its sign-in token) is what the plugin prints.
 */
import { onCleanup, streamLines } from './demo-kit.ts';

const PREFERRED_PORT = 3100;

/** Resolves with the address to open, or undefined (with the plugin's reason) when it cannot
 *  start: the demo goes on without it. */
export async function startDashboard(
  namespace: string,
): Promise<{ url: string } | { failed: string }> {
  const first = await tryPort(namespace, PREFERRED_PORT);
  return 'failed' in first && /in use/.test(first.failed) ? tryPort(namespace, 0) : first;
}

function tryPort(namespace: string, port: number): Promise<{ url: string } | { failed: string }> {
  return new Promise((resolve) => {
    const stream = streamLines(
      'kubectl',
      ['stepwise', '-n', namespace, 'dashboard', '--port', String(port)],
      (line) => {
        const url = /^Open: (http:\/\/127\.0\.0\.1:\d+\/\S*)$/.exec(line)?.[1];
        if (url === undefined) return;
        onCleanup(async () => {
          stream.stop();
          await stream.exited;
        });
        resolve({ url });
      },
    );
    void stream.exited.then((code) =>
      resolve({ failed: stream.stderr() || `the dashboard exited (code ${code})` }),
    );
  });
}
