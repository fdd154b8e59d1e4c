import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * A small network of test hosts on this machine: one Linux network namespace per host, each
 * joined by a veth pair to a bridge in the test's own namespace, on a /24 of 10.0.0.0/8 picked
 * at random and checked against the routes the machine has. The test's namespace is the
 * "gateway" (`.1`): services it runs there, or forwards there with {@link NetLab.forward}, are
 * what the hosts reach. Needs root (CAP_NET_ADMIN) and iproute2; {@link netnsUnavailable} says
 * why not, before anything is made.
 */
export interface NetLab {
  /** The gateway address, in the test's own namespace, reachable from every host. */
  gateway: string;
  hosts: NetHost[];
  /**
   * Listens on the gateway address and forwards each connection to `target` (host:port) in the
   * test's namespace: how hosts reach a service that only listens on 127.0.0.1 (the machine's
   * PostgreSQL). Resolves with the port it listens on.
   */
  forward(target: { host: string; port: number }): Promise<number>;
  /** Kills every process of every host, removes the namespaces, links and forwarders. */
  close(): Promise<void>;
}

export interface NetHost {
  name: string;
  /** The namespace's name (`ip netns`). */
  ns: string;
  ip: string;
  /** Runs a program inside the host's namespace. */
  spawn(command: string, args: string[], env: Record<string, string>): ChildProcess;
  /** SIGKILL to every process in the namespace, as when the machine loses power; resolves when they are gone. */
  killAll(): Promise<void>;
}

/** Why namespaces cannot be made here, or undefined when they can. */
export async function netnsUnavailable(): Promise<string | undefined> {
  if (process.platform !== 'linux') return `network namespaces need Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0)
    return 'network namespaces need root (CAP_NET_ADMIN); run as root to include this test';
  const probe = `kbqaprobe${process.pid}`;
  try {
    await ip('netns', 'add', probe);
    await ip('netns', 'del', probe);
    return undefined;
  } catch (err) {
    return `cannot create a network namespace: ${(err as Error).message.split('\n')[0]}`;
  }
}

async function ip(...args: string[]): Promise<string> {
  const { stdout } = await run('ip', args);
  return stdout;
}

/** A 10.x.y.0/24 that no route of the machine covers. */
async function freeSubnet(): Promise<string> {
  const routes = await ip('-4', 'route', 'show', 'table', 'all');
  for (let i = 0; i < 50; i++) {
    const prefix = `10.${randomInt(100, 250)}.${randomInt(1, 250)}`;
    if (!routes.includes(`${prefix}.`) && !/(^|\s)10\.0\.0\.0\/8/.test(routes)) return prefix;
  }
  throw new Error('no free 10.x.y.0/24 subnet for the test hosts');
}

/** Makes the bridge and one namespace per name; hosts get .11, .12, … in the order given. */
export async function createNetLab(names: string[]): Promise<NetLab> {
  const prefix = await freeSubnet();
  const tag = `${process.pid % 100000}${randomInt(10, 99)}`;
  const bridge = `kb${tag}`;
  const gateway = `${prefix}.1`;
  const hosts: NetHost[] = [];
  const children = new Map<string, Set<ChildProcess>>();
  const forwarders: Server[] = [];
  const sockets = new Set<Socket>();
  const made: string[] = [];
  const cleanup = async (): Promise<void> => {
    for (const host of hosts) await host.killAll().catch(() => undefined);
    for (const server of forwarders) server.close();
    for (const socket of sockets) socket.destroy();
    for (const ns of made) await ip('netns', 'del', ns).catch(() => undefined);
    await ip('link', 'del', bridge).catch(() => undefined);
  };
  try {
    await ip('link', 'add', bridge, 'type', 'bridge');
    await ip('addr', 'add', `${gateway}/24`, 'dev', bridge);
    await ip('link', 'set', bridge, 'up');
    for (const [i, name] of names.entries()) {
      const ns = `kbqa${tag}${name}`;
      const outside = `kv${tag}${i}`;
      const address = `${prefix}.${11 + i}`;
      await ip('netns', 'add', ns);
      made.push(ns);
      await ip('link', 'add', outside, 'type', 'veth', 'peer', 'name', 'eth0', 'netns', ns);
      await ip('link', 'set', outside, 'master', bridge);
      await ip('link', 'set', outside, 'up');
      await ip('-n', ns, 'addr', 'add', `${address}/24`, 'dev', 'eth0');
      await ip('-n', ns, 'link', 'set', 'eth0', 'up');
      await ip('-n', ns, 'link', 'set', 'lo', 'up');
      const own = new Set<ChildProcess>();
      children.set(ns, own);
      hosts.push({
        name,
        ns,
        ip: address,
        spawn(command, args, env) {
          const child = spawn('ip', ['netns', 'exec', ns, command, ...args], {
            env: { ...process.env, ...env },
            stdio: ['ignore', 'pipe', 'pipe'],
          });
          own.add(child);
          child.once('exit', () => own.delete(child));
          return child;
        },
        async killAll() {
          const pids = (await ip('netns', 'pids', ns).catch(() => ''))
            .split('\n')
            .map((s) => Number(s.trim()))
            .filter((pid) => pid > 0);
          for (const pid of pids) {
            try {
              process.kill(pid, 'SIGKILL');
            } catch {
              // already gone
            }
          }
          const running = [...own].filter((c) => c.exitCode === null && c.signalCode === null);
          await Promise.all(running.map((c) => new Promise((resolve) => c.once('exit', resolve))));
        },
      });
    }
  } catch (err) {
    await cleanup();
    throw err;
  }
  return {
    gateway,
    hosts,
    forward(target) {
      const server = createServer((socket) => {
        const upstream = connect(target.port, target.host);
        sockets.add(socket).add(upstream);
        socket.once('close', () => sockets.delete(socket));
        upstream.once('close', () => sockets.delete(upstream));
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
        socket.pipe(upstream).pipe(socket);
      });
      forwarders.push(server);
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, gateway, () => {
          const address = server.address();
          resolve(typeof address === 'object' && address ? address.port : 0);
        });
      });
    },
    close: cleanup,
  };
}
