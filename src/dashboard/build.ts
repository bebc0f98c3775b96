/**
 * Bundles the page (src/dashboard/web/: plain TypeScript, no framework) into one script and one
 * stylesheet with esbuild. `node src/dashboard/build.ts` prints them as JSON: what make
 * plugin-binary embeds (--define:STEPWISE_DASHBOARD_ASSETS).
 */
import { fileURLToPath } from 'node:url';
import type { Assets } from './server/app.ts';

const WEB = fileURLToPath(new URL('./web/', import.meta.url));

export async function bundleAssets(): Promise<Assets> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [`${WEB}main.ts`, `${WEB}style.css`],
    bundle: true,
    write: false,
    outdir: 'out',
    format: 'iife',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  const text = (ext: string): string =>
    result.outputFiles.find((f) => f.path.endsWith(ext))?.text ?? '';
  return { js: text('.js'), css: text('.css') };
}

// No top-level await: the single-file plugin bundles this module too (as CommonJS).
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  void bundleAssets().then((assets) => process.stdout.write(JSON.stringify(assets)));
}
