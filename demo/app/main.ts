/**
 * stepwise-demo: the demo application's entry point, bundled into the `stepwise-demo` image by
 * `image/build.ts --app=demo` (`make release`). Configured by the environment (COLOR, ERROR_RATE,
 * LATENCY_MS, PORT); `--version` and `--help` as the controller has them.
 */
import { buildInfo, versionText } from '../../src/api/version.ts';
import { configFrom, startDemoApp } from './server.ts';

export const DEMO_HELP = `Usage: stepwise-demo

The demo application of Stepwise's getting-started guide: GET / is a page of squares, one per
request to /color through the Service, coloured by the version that answered.

Environment:
  COLOR        this version's colour: a CSS colour name or #rrggbb (default blue)
  ERROR_RATE   share of /color requests answered 500, 0 to 1 (default 0): a bad version
  LATENCY_MS   added to every /color request (default 0)
  PORT         the port to listen on (default 8080)

Paths: / (the page), /color (JSON), /metrics (Prometheus: http_requests_total{code},
http_request_duration_seconds), /healthz.
`;

async function main(argv: readonly string[]): Promise<number> {
  if (argv.includes('--version')) {
    process.stdout.write(`${versionText('stepwise-demo', buildInfo())}\n`);
    return 0;
  }
  if (argv.includes('--help') || argv.length > 0) {
    process.stdout.write(DEMO_HELP);
    return argv.includes('--help') ? 0 : 2;
  }
  const config = configFrom(process.env);
  const port = Number(process.env['PORT'] ?? '8080');
  const app = await startDemoApp(config, port);
  process.stdout.write(`stepwise-demo ${buildInfo().version}: ${config.color} on :${app.port}\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGTERM', resolve);
    process.once('SIGINT', resolve);
  });
  await app.close();
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`stepwise-demo: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
