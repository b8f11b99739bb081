/**
 * The process logger: winston, one JSON object per line. Never log secret values, tokens,
 * keys or request bodies.
 */
import winston from 'winston';

export const logger = winston.createLogger({
  level: process.env.ORCH_LOG_LEVEL ?? 'info',
  format: winston.format.combine(winston.format.timestamp(), winston.format.json()),
  transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'debug'] })],
});

export function setLogLevel(level: string): void {
  logger.level = level;
}
