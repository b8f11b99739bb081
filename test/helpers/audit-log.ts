/**
 * Reading an audit log file the server is still writing: only complete lines (ending in a
 * newline) are events; a line being written at the moment of reading is left for the next read.
 */
import { existsSync, readFileSync } from 'node:fs';

export type AuditEventJson = Record<string, any>;

/** The events written so far to `file` (none when it does not exist yet). */
export function readAuditEvents(file: string): AuditEventJson[] {
  if (!existsSync(file)) return [];
  const text = readFileSync(file, 'utf8');
  const complete = text.slice(0, text.lastIndexOf('\n') + 1);
  return complete.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}
