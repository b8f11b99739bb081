/**
 * Replays requests against a fresh fuzz server and prints each answer:
 * `node dist/test/fuzz/replay.js 'GET /api/v1/...' ['PATCH /path <content-type> <body>' ...]`.
 * For looking at a counterexample the suite reported, with the server's log on stderr.
 */
import { startFuzzServer } from './harness';

async function main(): Promise<void> {
  const s = await startFuzzServer();
  try {
    for (const arg of process.argv.slice(2)) {
      const [method, p, type, ...rest] = arg.split(' ');
      const body = rest.length ? rest.join(' ') : undefined;
      const res = await s.send(method, p, body, type ? { 'content-type': type } : undefined);
      console.log(`${method} ${p.slice(0, 120)} -> ${res.status} ${res.text.slice(0, 600)}`);
    }
  } finally {
    await s.stop();
  }
}

main().then(() => process.exit(0), (err) => { console.error(err); process.exit(1); });
