/**
 * The server's log lines (lib/logger.ts) as written, for tests that check what is logged
 * or that a secret never is. The level is the logger's, which startServer sets from --log-level.
 */
import { Writable } from 'node:stream';
import winston from 'winston';
import { logger } from '../../lib/logger';

export interface LogCapture {
  /** Every line written since the capture started (JSON text, one object each). */
  readonly lines: string[];
  /** The lines parsed. */
  records(): Record<string, unknown>[];
  stop(): void;
}

export function captureLog(): LogCapture {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) lines.push(line);
      done();
    },
  });
  const transport = new winston.transports.Stream({ stream });
  // Captured instead of printed: the console transports are muted meanwhile.
  const muted = logger.transports.filter((t) => t instanceof winston.transports.Console && !t.silent);
  for (const t of muted) t.silent = true;
  logger.add(transport);
  return {
    lines,
    records: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>),
    stop: () => {
      logger.remove(transport);
      for (const t of muted) t.silent = false;
    },
  };
}
