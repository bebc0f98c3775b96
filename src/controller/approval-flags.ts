/**
 * The flags of approvals and notifications: the external port people reach (approval links,
 * Slack's requests), the links' public URL and lifetime, where the notification settings live.
 */
import { parseGoDuration } from '../api/index.ts';
import { parseTrustedProxies } from '../server/client-address.ts';
import { ConfigError, hostPort, httpUrl, positiveInt } from './flag-values.ts';

export function approvalFlags(values: Record<string, string | boolean | undefined>) {
  const str = (k: string): string | undefined => {
    const v = values[k];
    return typeof v === 'string' ? v : undefined;
  };
  const external = str('external-bind-address');
  const secret = str('notifications-secret');
  const ttl = str('approval-link-ttl') ?? '24h';
  const ttlMs = parseGoDuration(ttl, 8760n * 3_600_000_000_000n);
  if (!ttlMs.ok || ttlMs.value <= 0) {
    throw new ConfigError(
      `--approval-link-ttl must be a positive duration such as 24h, got "${ttl}"`,
    );
  }
  let notificationsSecret: { namespace: string; name: string } | undefined;
  if (secret !== undefined) {
    const [namespace, name, extra] = secret.split('/');
    if (!namespace || !name || extra !== undefined) {
      throw new ConfigError(`--notifications-secret must be NAMESPACE/NAME, got "${secret}"`);
    }
    notificationsSecret = { namespace, name };
  }
  const publicUrl = str('public-url');
  const slackApiUrl = str('slack-api-url');
  const proxies = parseTrustedProxies(str('trusted-proxy-cidrs') ?? '');
  if (!proxies.ok) {
    throw new ConfigError(
      `--trusted-proxy-cidrs must be a comma list of addresses or CIDRs such as 10.0.0.0/8, got "${proxies.bad}"`,
    );
  }
  const maxConnections = positiveInt(
    '--external-max-connections',
    str('external-max-connections') ?? '256',
  );
  const targets = str('notification-targets');
  return {
    ...(external !== undefined
      ? (() => {
          const [host, port] = hostPort(external, '--external-bind-address');
          return { external: { host, port, trustedProxies: proxies.proxies, maxConnections } };
        })()
      : {}),
    ...(publicUrl !== undefined ? { publicUrl: publicHttpsUrl(publicUrl) } : {}),
    ...(notificationsSecret !== undefined ? { notificationsSecret } : {}),
    ...(str('notifications-dir') !== undefined
      ? { notificationsDir: str('notifications-dir') }
      : {}),
    ...(slackApiUrl !== undefined ? { slackApiUrl: httpUrl('--slack-api-url', slackApiUrl) } : {}),
    approvalLinkTtlMs: ttlMs.value,
    ...(targets !== undefined ? { notificationTargetsFile: targets } : {}),
    ...(str('approval-people') !== undefined ? { approvalPeopleFile: str('approval-people') } : {}),
  };
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The links carry approval tokens: in clear text only to this machine. */
function publicHttpsUrl(v: string): string {
  const url = httpUrl('--public-url', v);
  const { protocol, hostname } = new URL(url);
  if (protocol === 'http:' && !LOOPBACK_HOSTS.has(hostname) && !hostname.startsWith('127.')) {
    throw new ConfigError(
      `--public-url must be https (approval links carry tokens; http only for a loopback host), got "${v}"`,
    );
  }
  return url;
}
