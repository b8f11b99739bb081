/**
 * HTTP/2 attacking connections for the DoS tests (test/integration/h2-dos*.test.ts): RawH2
 * connections to a DoS server, run in rounds under the prober (under-attack.ts), and words for
 * how the server ended each.
 */
import type { DosServer } from './dos-server';
import { FRAME, H2_ERROR, RawH2, type RawH2Options } from './raw-h2';
import { repeatFor, tally, underAttack } from './under-attack';

/** How long each attack goes on: the attacker comes back on a new connection each time the server ends one. */
export const ATTACK_MS = 2_000;

export const CODE_NAMES: Record<number, string> = Object.fromEntries(Object.entries(H2_ERROR).map(([k, v]) => [v, k]));

/** How the server ended (or did not end) an attacking connection: "GOAWAY <code>", "cut" (closed without GOAWAY) or "open". */
export function ending(c: RawH2): string {
  if (c.goaway) return `GOAWAY ${CODE_NAMES[c.goaway.errorCode] ?? c.goaway.errorCode}`;
  return c.closed ? 'cut' : 'open';
}

/** RST_STREAM frames received, by error code name. */
export function resets(c: RawH2): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of c.of(FRAME.RST_STREAM)) {
    const name = CODE_NAMES[f.payload.readUInt32BE(0)] ?? String(f.payload.readUInt32BE(0));
    out[name] = (out[name] ?? 0) + 1;
  }
  return out;
}

/** An attacking connection that has the server's SETTINGS (and has acknowledged them). */
export async function connectAttacker(server: DosServer, opts: RawH2Options = {}): Promise<RawH2> {
  const c = await RawH2.connect(server.creds.url, server.tls, opts);
  await c.until(() => c.serverSettings.size > 0, 5_000, 'the server SETTINGS');
  return c;
}

/** One attacking connection: what was sent on it, how long it lasted, how it ended. */
export interface Round {
  c: RawH2;
  sent: number;
  ms: number;
  ending: string;
}

export interface RoundOptions extends RawH2Options {
  /** The server must end the connection (true, the default) or the round ends once the attack has (false). */
  serverEnds?: boolean;
  /**
   * The attack starts as soon as TLS is up, so what it writes comes before the client's
   * acknowledgement of the server's SETTINGS (false by default: it starts once they are acknowledged).
   */
  beforeSettingsAck?: boolean;
}

/**
 * Attacks for ATTACK_MS under the prober: a new connection each round, on which `attackOne`
 * writes (resolving with how many units it sent), then the server must end it within 5 s.
 * `what` names the unit on the attack's line.
 */
export function attackInRounds(server: DosServer, name: string, what: string, attackOne: (c: RawH2) => Promise<number>, opts: RoundOptions = {}) {
  const { serverEnds = true, beforeSettingsAck = false, ...connectOpts } = opts;
  const round = async (): Promise<Round> => {
    // RawH2 acknowledges SETTINGS as they are read, which is after what is written in this turn.
    const c = beforeSettingsAck ? await RawH2.connect(server.creds.url, server.tls, connectOpts) : await connectAttacker(server, connectOpts);
    const started = performance.now();
    try {
      const sent = await attackOne(c);
      if (serverEnds) await c.until(() => c.closed, 5_000, 'the server ends the connection');
      return { c, sent, ms: performance.now() - started, ending: ending(c) };
    } finally {
      c.close();
    }
  };
  return underAttack(server, name, async () => {
    const rounds = await repeatFor(ATTACK_MS, round);
    const sent = rounds.reduce((n, r) => n + r.sent, 0);
    return { rounds, sent: `${rounds.length} connections, ${sent} ${what}`, answer: tally(rounds.map((r) => r.ending)) };
  });
}
