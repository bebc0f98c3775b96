/**
 * The page's entry: `#/` shows the list, `#/r/NAMESPACE/NAME` one Rollout. Each view follows
 * its own event stream; switching views closes the old one.
 */
import type { DetailPayload, ListPayload } from '../model/wire.ts';
import { serverNow } from './clock.ts';
import { listView } from './list.ts';
import { rolloutView } from './rollout.ts';
import { follow } from './stream.ts';

function route(): void {
  const root = document.getElementById('app');
  if (root === null) return;
  const m = /^#\/r\/([^/]+)\/([^/]+)$/.exec(location.hash);
  if (m !== null) {
    const key = `${decodeURIComponent(m[1] ?? '')}/${decodeURIComponent(m[2] ?? '')}`;
    document.title = `${key} · Stepwise`;
    const show = rolloutView(root);
    follow<DetailPayload>(`?rollout=${encodeURIComponent(key)}`, 'rollout', (p) => {
      serverNow(p.now);
      show(p);
    });
  } else {
    document.title = 'Rollouts · Stepwise';
    const show = listView(root);
    follow<ListPayload>('', 'list', (p) => {
      serverNow(p.now);
      show(p);
    });
  }
  root.focus();
}

window.addEventListener('hashchange', route);
route();
