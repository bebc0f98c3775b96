/**
 * The page's script and style. The single-file plugin (make plugin-binary) carries them as a
 * string its bundler defines (no network, no files at run time); run from the sources, they are
 * bundled from src/dashboard/web/ at start (esbuild, a devDependency there, ~100 ms).
 */
import type { Assets } from './app.ts';

declare const STEPWISE_DASHBOARD_ASSETS: Assets | undefined;

export async function dashboardAssets(): Promise<Assets> {
  if (typeof STEPWISE_DASHBOARD_ASSETS === 'object') return STEPWISE_DASHBOARD_ASSETS;
  const { bundleAssets } = await import('../build.ts');
  return bundleAssets();
}
