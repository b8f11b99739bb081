/**
 * The process logger: winston, one JSON object per line. Never log secret values, tokens,
 * keys or request bodies.
 *
 * The line is made by one JSON.stringify (a request line costs about half of winston's
 * timestamp+json formats); values it cannot encode (cycles, BigInt) fall back to winston's json.
 */
import winston from 'winston';

/** Where winston's transports read the finished line (triple-beam's MESSAGE). */
const MESSAGE = Symbol.for('message');
const fallback = winston.format.json();

const jsonLine = winston.format((info) => {
  const timestamp = new Date().toISOString();
  try {
    (info as unknown as Record<symbol, string>)[MESSAGE] = JSON.stringify({ ...info, timestamp });
  } catch {
    info.timestamp = timestamp;
    return fallback.transform(info, (fallback as unknown as { options: object }).options);
  }
  return info;
});

export const logger = winston.createLogger({
  level: process.env.ORCH_LOG_LEVEL ?? 'info',
  format: jsonLine(),
  transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'debug'] })],
});

export function setLogLevel(level: string): void {
  logger.level = level;
}
