// Kubeconfig files with the certificates embedded, so a file stays valid on its own, and the
// reverse: the credentials of such a file for a plain HTTPS client.
import { readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { dump, load } from 'js-yaml';
import type { KeyPair } from './pki.ts';

export interface Credentials {
  /** https://127.0.0.1:PORT */
  readonly server: string;
  readonly ca: string;
  readonly cert: string;
  readonly key: string;
}

const b64 = (pem: string): string => Buffer.from(pem).toString('base64');
const unb64 = (data: string): string => Buffer.from(data, 'base64').toString('utf8');

export async function writeKubeconfig(
  file: string,
  server: string,
  caFile: string,
  user: KeyPair,
): Promise<void> {
  const [ca, cert, key] = await Promise.all(
    [caFile, user.certFile, user.keyFile].map((f) => readFile(f, 'utf8')),
  );
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'stepwise', cluster: { server, 'certificate-authority-data': b64(ca!) } }],
    users: [
      {
        name: 'stepwise',
        user: { 'client-certificate-data': b64(cert!), 'client-key-data': b64(key!) },
      },
    ],
    contexts: [{ name: 'stepwise', context: { cluster: 'stepwise', user: 'stepwise' } }],
    'current-context': 'stepwise',
  };
  await writeFile(file, dump(config), { mode: 0o600 });
}

interface KubeconfigShape {
  clusters?: { cluster?: { server?: string; 'certificate-authority-data'?: string } }[];
  users?: { user?: { 'client-certificate-data'?: string; 'client-key-data'?: string } }[];
}

/** Reads a kubeconfig written by `writeKubeconfig` (first cluster and user, embedded data). */
export function readCredentials(file: string): Credentials {
  const config = load(readFileSync(file, 'utf8')) as KubeconfigShape;
  const cluster = config.clusters?.[0]?.cluster;
  const user = config.users?.[0]?.user;
  const server = cluster?.server;
  const ca = cluster?.['certificate-authority-data'];
  const cert = user?.['client-certificate-data'];
  const key = user?.['client-key-data'];
  if (!server || !ca || !cert || !key) {
    throw new Error(`${file}: expected a server and embedded CA and client certificate data`);
  }
  return { server, ca: unb64(ca), cert: unb64(cert), key: unb64(key) };
}
