import { createServer, type Server } from 'node:net';

/**
 * Asks the OS for one distinct free port on 127.0.0.1 per name. The listeners stay open until all
 * ports are chosen, so no port is handed out twice; a different process may still grab one
 * before our component binds it, which start-up reports as a failed component.
 */
export async function freeLoopbackPorts<K extends string>(
  names: readonly K[],
): Promise<Record<K, number>> {
  const servers: Server[] = [];
  try {
    for (let i = 0; i < names.length; i++) {
      const server = createServer();
      servers.push(server);
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', resolve);
      });
    }
    const ports = {} as Record<K, number>;
    servers.forEach((s, i) => {
      const address = s.address();
      if (address === null || typeof address === 'string') throw new Error('no TCP address');
      ports[names[i]!] = address.port;
    });
    return ports;
  } finally {
    await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  }
}
